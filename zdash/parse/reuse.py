"""Values built on the previous answer, reused when their input has not changed.

`zpool status` answers every few seconds, and on a pool that is being written to its text is
new every time (the top-level vdevs' `alloc_space`, a scrub's progress), while nearly every leaf
reads exactly as before. A leaf built from the same input is the same Vdev: reused, it costs a
dictionary lookup instead of a dozen checked fields, and the tree built on it (space, ashift,
device facts) can keep its own work for that leaf too (same object in, same object out).

Two generations: what this pass asked for and found is carried into the next one, everything
else is dropped, so the cache holds one tree's worth and never grows with the session.

A whole tree can be kept too (`whole`): a pool whose tree reads exactly as last time (a scrub's
progress or a finished scan's times moved, nothing in the tree) is the same root, every node
reused, with no walk of its thousand leaves; the leaves it was built with stay reusable for the
answer after it, when something in the tree does move.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from itertools import islice
from typing import Any, Generic, TypeVar

_V = TypeVar("_V")
_R = TypeVar("_R")


class Reuse(Generic[_V]):
    """key -> value built from it, kept from one pass to the next. Not shared between hosts or
    threads: each SnapshotBuilder has its own (a fleet's pools are often named alike)."""

    def __init__(self) -> None:
        self._last: dict[Hashable, _V] = {}
        self._now: dict[Hashable, _V] = {}
        # whole(): per key, (the document it was built from, the value, the keys it used)
        self._whole_last: dict[Hashable, tuple[Any, Any, tuple[Hashable, ...]]] = {}
        self._whole_now: dict[Hashable, tuple[Any, Any, tuple[Hashable, ...]]] = {}
        # keep(): anything else a parse carries to the next pass (its input's text, say)
        self._kept_last: dict[Hashable, Any] = {}
        self._kept_now: dict[Hashable, Any] = {}

    def get(self, key: Hashable) -> _V | None:
        """The value built from `key` in the last pass (or earlier in this one); None if none.
        A key asked for twice in one pass gets None the second time: two places in one tree are
        two nodes, even when zpool prints them alike."""
        if key in self._now:
            return None
        value = self._last.get(key)
        if value is not None:
            self._now[key] = value
        return value

    def put(self, key: Hashable, value: _V) -> None:
        self._now[key] = value

    def whole(self, key: Hashable, doc: object, build: Callable[[], _R]) -> _R:
        """`build()`, or what it built last pass under `key` when `doc` (the input it reads,
        compared by ==, held until the next pass) is equal to that pass's. The values `build`
        got and put then are carried into this pass as if asked for again (a later pass with a
        changed tree still reuses its unchanged leaves)."""
        last = self._whole_last.get(key)
        if last is not None and key not in self._whole_now and last[0] == doc:
            for k in last[2]:
                if k not in self._now and k in self._last:
                    self._now[k] = self._last[k]
            self._whole_now[key] = last
            value: _R = last[1]
            return value
        start = len(self._now)
        value = build()
        self._whole_now[key] = (doc, value, tuple(islice(self._now, start, None)))
        return value

    def known(self, key: Hashable) -> Any:
        """What the last pass kept under `key` (keep), or None."""
        return self._kept_last.get(key)

    def keep(self, key: Hashable, value: Any) -> None:
        """Carry `value` to the next pass (known), and nothing older."""
        self._kept_now[key] = value

    def run(self, parse: Callable[[Reuse[_V]], _R]) -> _R:
        """One pass: `parse(self)`, then what it built is what the next pass may reuse; if it
        raises (unreadable input), the next pass may reuse what the last good one built."""
        try:
            result = parse(self)
        except BaseException:
            self.abandon()
            raise
        self.next_pass()
        return result

    def abandon(self) -> None:
        """The pass failed (unreadable input): the next one may reuse what the last good one built."""
        self._now, self._whole_now, self._kept_now = {}, {}, {}

    def next_pass(self) -> None:
        """This pass's values become the ones the next pass may reuse; the rest are dropped."""
        self._last, self._now = self._now, {}
        self._whole_last, self._whole_now = self._whole_now, {}
        self._kept_last, self._kept_now = self._kept_now, {}

    def clear(self) -> None:
        self._last, self._now = {}, {}
        self._whole_last, self._whole_now = {}, {}
        self._kept_last, self._kept_now = {}, {}
