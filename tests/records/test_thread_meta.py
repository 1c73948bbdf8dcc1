"""`ThreadMeta`: the typed metadata of a thread reads what earlier releases stored, keeps keys
it does not know, and writes only what differs from the defaults."""

from __future__ import annotations

import json

from threadlab._data import ForkPoint, ThreadMeta


def test_it_reads_a_childs_metadata_as_an_earlier_release_stored_it() -> None:
    stored = json.dumps(
        {
            "name": "r1",
            "relationship": "researcher",
            "description": "Researches.",
            "blocking": False,
            "resumable": True,
            "parent_communication": "implicit",
            "status": "completed",
            "runs_on": "workers",
        }
    )
    meta = ThreadMeta.read(stored)
    assert meta is not None
    assert (meta.name, meta.blocking, meta.resumable, meta.status) == (
        "r1",
        False,
        True,
        "completed",
    )
    assert meta.runs_on == "workers"


def test_keys_it_does_not_know_are_kept_through_a_change() -> None:
    meta = ThreadMeta.read('{"origin": "a.ipynb", "later_field": [1, 2]}')
    assert meta is not None
    changed = meta.model_copy(update={"interrupted": True})
    assert json.loads(changed.dumps()) == {
        "origin": "a.ipynb",
        "later_field": [1, 2],
        "interrupted": True,
    }


def test_a_branch_names_where_it_came_from() -> None:
    meta = ThreadMeta(forked_from=ForkPoint("thr_1", "call_2"))
    again = ThreadMeta.read(meta.dumps())
    assert again is not None
    assert again.forked_from == ForkPoint("thr_1", "call_2")
    assert json.loads(meta.dumps()) == {"forked_from": {"thread_id": "thr_1", "at": "call_2"}}


def test_unreadable_metadata_is_none() -> None:
    assert ThreadMeta.read("[1, 2") is None
    assert ThreadMeta.read('{"blocking": "sometimes"}') is None
    assert ThreadMeta.read(None) == ThreadMeta()


def test_the_answering_agent_is_stored_under_its_first_name() -> None:
    # Stores written before the field was renamed hold it as "owner": both directions keep it.
    old = ThreadMeta.read('{"owner": "reviewer", "name": "helper"}')
    assert old is not None
    assert old.answering_agent == "reviewer"
    handed_on = old.model_copy(update={"answering_agent": "writer"})
    assert json.loads(handed_on.dumps()) == {"owner": "writer", "name": "helper"}
    assert json.loads(ThreadMeta(answering_agent="writer").dumps()) == {"owner": "writer"}
