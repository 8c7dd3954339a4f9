"""zdash.gcpolicy.settle: the start-up's garbage is freed, and what is alive then is left out of
the collector's later passes (and still freed by its reference count)."""

from __future__ import annotations

import gc
import weakref


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_settle_frees_the_start_up_garbage_and_leaves_the_living_out_of_later_passes():
    from zdash.gcpolicy import settle

    garbage, kept, plain = _Node(), _Node(), _Node()
    gone = weakref.ref(garbage)
    del garbage
    try:
        settle()
        assert gone() is None  # collected before the freeze, not kept for ever
        assert gc.get_freeze_count() > 0
        kept_ref = weakref.ref(kept)
        del kept
        gc.collect()
        assert kept_ref() is not None  # frozen: a cycle alive at the settle is never walked again
        plain.me = None  # no cycle left: its reference count frees it, frozen or not
        plain_ref = weakref.ref(plain)
        del plain
        assert plain_ref() is None
    finally:
        gc.unfreeze()
        gc.collect()
