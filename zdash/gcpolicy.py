"""The garbage collector's thresholds in zdash's processes (set once, by zdash.cli at start).

Every tick leaves a few new container objects per disk that live until the next tick (the
measured vdev tree, the iostat rows and their rates): ~20,000 at 5,000 disks. Under CPython's
default first threshold (700 net new containers) that is ~70 young collections a tick, whose
survivors fill the older generations and bring a full pass (every object of the process walked)
every other tick: a quarter of a 5,000-disk tick was the collector. With 10,000 the same tick
runs a handful of young collections and a full pass rarely (see docs/performance.md).

Safe: the thresholds decide only *when* the collector runs, never what it frees. Every cycle is
still collected, at most 10,000 container allocations later than before (a few MB held a
little longer at worst). `gc.freeze()` is not used: Textual builds cyclic garbage (widgets
removed, screens popped), and whatever start-up objects were frozen and later became garbage
would never be freed.
"""

from __future__ import annotations

import gc

# (young, middle, old): the young threshold raised; the older ones as CPython sets them.
THRESHOLDS = (10_000, 10, 10)


def tune() -> None:
    """Apply THRESHOLDS to this process (idempotent)."""
    gc.set_threshold(*THRESHOLDS)
