"""Live updates as changes, not whole view states.

Sending the whole view state at every update costs what the run has done so far, every time: a
200-call run sends its first card 200 times over. A patch carries only what changed since the
last message: the threads and cards that differ, the messages added (a message never changes
once stored), the files and drafts that differ, the run summary. The front end merges it into
its copy (`applyPatch` in `js/patch.js`); a full view state still goes out now and then, and at the
end, so a view opened mid-run catches up and the saved widget state is complete.

`changes(state)` looks only at what events touched since the last look (`ViewState.changed`):
an update costs what changed, not what the run has done so far. `apply_patch` merges a patch
into the kernel's copy of the view state, in place, as `applyPatch` does in the browser.
"""

from __future__ import annotations

import json
from typing import Any

from ._messages import Patch
from ._view_state import ViewState

__all__ = ["Patcher", "apply_patch"]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Patcher:
    """Remembers what the front end has and computes what to send next."""

    def __init__(self) -> None:
        self._sent: dict[str, dict[str, str]] = {}
        self._counts: dict[str, int] = {}

    def reset(self, snapshot: dict[str, Any]) -> None:
        """The front end now has `snapshot` whole."""
        self._sent = {
            "threads": {t["id"]: _key(t) for t in snapshot["threads"]},
            "cards": {cid: _key(c) for cid, c in snapshot["cards"].items()},
            "files": {tid: _key(f) for tid, f in snapshot["files"].items()},
            "drafts": dict(snapshot["drafts"]),
            "run": {"run": _key(snapshot["run"])},
            "apps": dict.fromkeys(snapshot.get("apps", {}), ""),
        }
        self._counts = {tid: len(m) for tid, m in snapshot["messages"].items()}

    def patch(self, snapshot: dict[str, Any]) -> Patch:
        """What changed since the last patch or reset (empty when nothing did)."""
        patch: Patch = {}
        threads = [t for t in snapshot["threads"] if self._changed("threads", t["id"], t)]
        if threads:
            patch["threads"] = threads
        cards = {cid: c for cid, c in snapshot["cards"].items() if self._changed("cards", cid, c)}
        if cards:
            patch["cards"] = cards
        files = {tid: f for tid, f in snapshot["files"].items() if self._changed("files", tid, f)}
        if files:
            patch["files"] = files
        added = {}
        for tid, messages in snapshot["messages"].items():
            count = self._counts.get(tid, 0)
            if len(messages) > count:
                added[tid] = messages[count:]
                self._counts[tid] = len(messages)
        if added:
            patch["messages"] = added
        drafts = self._drafts(snapshot["drafts"])
        if drafts:
            patch["drafts"] = drafts
        if self._changed("run", "run", snapshot["run"]):
            patch["run"] = snapshot["run"]
        apps = self._new_apps(snapshot.get("apps", {}), snapshot.get("apps", {}))
        if apps:
            patch["apps"] = apps
        return patch

    def changes(self, state: ViewState) -> Patch:
        """What changed since the last patch or reset, looking only at what events touched:
        each part is a copy (the state goes on changing after it is sent)."""
        touched = state.take_changed()
        patch: Patch = {}
        nodes = [*state.related, *(state.threads[t] for t in touched.threads if t in state.threads)]
        threads = [json.loads(k) for t in nodes if (k := self._fresh("threads", t["id"], t))]
        if threads:
            patch["threads"] = threads
        cards = {
            cid: json.loads(k)
            for cid in touched.cards
            if cid in state.cards and (k := self._fresh("cards", cid, state.cards[cid]))
        }
        if cards:
            patch["cards"] = cards
        files = {}
        for tid in touched.files:
            listed = state.file_list(tid)
            if k := self._fresh("files", tid, listed):
                files[tid] = json.loads(k)
        if files:
            patch["files"] = files
        added = {}
        for tid in touched.messages:
            messages = state.messages.get(tid, [])
            count = self._counts.get(tid, 0)
            if len(messages) > count:
                added[tid] = json.loads(json.dumps(messages[count:]))
                self._counts[tid] = len(messages)
        if added:
            patch["messages"] = added
        drafts = self._drafts(state.drafts)
        if drafts:
            patch["drafts"] = drafts
        if k := self._fresh("run", "run", state.run):
            patch["run"] = json.loads(k)
        apps = self._new_apps(touched.apps, state.apps)
        if apps:
            patch["apps"] = apps
        return patch

    def _new_apps(self, keys: Any, pages: dict[str, str]) -> dict[str, str]:
        """The app pages among `keys` the front end does not have yet (a page never changes
        under its key: sent once)."""
        sent = self._sent["apps"]
        new = {key: pages[key] for key in keys if key not in sent and key in pages}
        sent.update(dict.fromkeys(new, ""))
        return new

    def _fresh(self, section: str, key: str, value: Any) -> str | None:
        """`value` encoded, when it differs from what was sent last (None: it does not)."""
        encoded = _key(value)
        if self._sent[section].get(key) == encoded:
            return None
        self._sent[section][key] = encoded
        return encoded

    def _changed(self, section: str, key: str, value: Any) -> bool:
        return self._fresh(section, key, value) is not None

    def _drafts(self, drafts: dict[str, str]) -> dict[str, str | None]:
        sent = self._sent["drafts"]
        changed: dict[str, str | None] = {
            tid: text for tid, text in drafts.items() if sent.get(tid) != text
        }
        changed.update({tid: None for tid in sent if tid not in drafts})  # None: gone
        self._sent["drafts"] = dict(drafts)
        return changed


def apply_patch(synced: dict[str, Any], patch: Patch) -> None:
    """Merge `patch` into `synced`, a view state as synced, in place (what the front end's
    `applyPatch` does)."""
    at = {t["id"]: i for i, t in enumerate(synced["threads"])}
    for thread in patch.get("threads", ()):
        if thread["id"] in at:
            synced["threads"][at[thread["id"]]] = thread
        else:
            synced["threads"].append(thread)
    synced["cards"].update(patch.get("cards", {}))
    if patch.get("apps"):
        synced.setdefault("apps", {}).update(patch["apps"])
    synced["files"].update(patch.get("files", {}))
    for tid, added in patch.get("messages", {}).items():
        synced["messages"].setdefault(tid, []).extend(added)
    for tid, text in patch.get("drafts", {}).items():
        if text is None:
            synced["drafts"].pop(tid, None)
        else:
            synced["drafts"][tid] = text
    if "run" in patch:
        synced["run"] = patch["run"]
