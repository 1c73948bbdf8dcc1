"""Ids stay unique where a notebook or a process could make them repeat: after the
notebook seeds `random`, and in a forked child (workers, the sandbox's helpers)."""

from __future__ import annotations

import os
import random
import re

import pytest

from threadlab._data import new_id


def test_ids_have_the_readable_shape() -> None:
    assert re.fullmatch(r"msg_[0-9a-f]{20}", new_id("msg"))
    assert len({new_id("msg") for _ in range(10_000)}) == 10_000


def test_seeding_random_does_not_make_ids_repeat() -> None:
    random.seed(0)
    first = [new_id("thr") for _ in range(5)]
    random.seed(0)
    assert not set(first) & {new_id("thr") for _ in range(5)}


@pytest.mark.processes  # it starts another Python process (a fork)
def test_a_forked_child_makes_ids_of_its_own() -> None:
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(reading)
        os.write(writing, " ".join(new_id("run") for _ in range(5)).encode())
        os._exit(0)
    os.close(writing)
    mine = {new_id("run") for _ in range(5)}
    with os.fdopen(reading) as pipe:
        theirs = set(pipe.read().split())
    os.waitpid(pid, 0)
    assert len(theirs) == 5
    assert not mine & theirs
