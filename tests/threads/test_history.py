"""A thread's history held in memory: before each run it asks the store how many messages
the thread has and reads them again only when the store has more (another process wrote to
the thread), so a long thread's runs do not each start by reading every row."""

from __future__ import annotations

from pathlib import Path

import threadlab as tl


class CountingStore(tl.SQLiteStore):
    """A SQLite store that counts how often a thread's messages are read whole."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        self.listed = 0

    def list_messages(
        self, thread_id: str, *, after: str | None = None
    ) -> list[tl.store.StoredMessage]:
        self.listed += after is None
        return super().list_messages(thread_id, after=after)


async def test_runs_on_a_thread_held_here_do_not_read_its_messages_again(
    registry: tl.Registry, tmp_path: Path
) -> None:
    model = tl.models.FunctionModel(lambda messages, tools: tl.models.text("ok"))
    tl.define_prompt("p", prompt="Chat.", model=model, include_chat=True, registry=registry)
    store = CountingStore(tmp_path)
    rt = tl.Runtime(registry, store)
    thread = await rt.create_thread("p")
    await thread.send("first")
    listed = store.listed
    for turn in range(5):
        await thread.send(f"turn {turn}")
    assert store.listed == listed  # five more runs, no whole read
    assert len(thread.messages) == 12

    # Another process adds a run: the store has more, and they are read.
    other = tl.Runtime(registry, tmp_path)
    await other.thread(thread.id).send("from elsewhere")
    other.close()
    assert [m.content for m in thread.messages][-2:] == ["from elsewhere", "ok"]
    assert store.listed == listed + 1
    await thread.send("and here again")
    assert [m.content for m in thread.messages][-2:] == ["and here again", "ok"]
    rt.close()


async def test_a_store_without_a_count_is_read_whole_and_still_right(
    registry: tl.Registry, tmp_path: Path
) -> None:
    class Uncounted(CountingStore):
        # A store without the capability (as one that predates it): Python's way of saying
        # a class does not implement an inherited protocol member.
        count_messages = None  # type: ignore[assignment]

    assert not isinstance(Uncounted(tmp_path / "probe"), tl.store.MessageCounter)

    model = tl.models.FunctionModel(lambda messages, tools: tl.models.text("ok"))
    tl.define_prompt("p", prompt="Chat.", model=model, include_chat=True, registry=registry)
    store = Uncounted(tmp_path)
    rt = tl.Runtime(registry, store)
    thread = await rt.create_thread("p")
    for turn in range(3):
        await thread.send(f"turn {turn}")
    assert [m.content for m in thread.messages] == ["turn 0", "ok", "turn 1", "ok", "turn 2", "ok"]
    assert store.listed >= 3  # read before each run, as before
    rt.close()
