"""The garbage collector's thresholds in zdash's processes (set once, by zdash.cli at start).

Every tick leaves a few new container objects per disk that live until the next tick (the
measured vdev tree, the iostat rows and their rates): ~20,000 at 5,000 disks. Under CPython's
default first threshold (700 net new containers) that is ~70 young collections a tick, whose
survivors fill the older generations and bring a full pass (every object of the process walked)
every other tick: a quarter of a 5,000-disk tick was the collector. With 10,000 the same tick
runs a handful of young collections and a full pass rarely (see docs/performance.md).

Safe: the thresholds decide only *when* the collector runs, never what it frees. Every cycle is
still collected, at most 10,000 container allocations later than before (a few MB held a
little longer at worst).

`settle()`, once a long-running process (the dashboard) has started and drawn its first frame:
the garbage of the start-up collected, then every object alive moved out of the collector's
generations (`gc.freeze()`). Those objects (the imported modules, Textual's stylesheet and
widgets, the first frames) are most of the process, and they live as long as it does; left in
the generations, each of the first middle collections after start-up walked them all again
(~25 ms at 200x60, in the dashboard's first half minute), and every full collection after that.
The cost: an object alive at the settle that later becomes garbage only through a reference
cycle is never freed (one freed by its reference count still is). What is alive then is the
running screen, so that is at most a part of the start-up's objects, once; later objects are
collected as before.
"""

from __future__ import annotations

import gc

# (young, middle, old): the young threshold raised; the older ones as CPython sets them.
THRESHOLDS = (10_000, 10, 10)


def tune() -> None:
    """Apply THRESHOLDS to this process (idempotent)."""
    gc.set_threshold(*THRESHOLDS)


def settle() -> None:
    """The start-up's garbage collected, and what is alive now left out of every later
    collection (see the module)."""
    gc.collect()
    gc.freeze()
