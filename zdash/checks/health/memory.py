"""What the health check remembers between ticks: each device's error counters as last read,
and how they grew (during a scrub or outside one). Plain records: keyframes keep them."""

from __future__ import annotations

from dataclasses import dataclass, field

from zdash.checks.health.common import Counts


@dataclass
class Leaf:
    """What zdash has seen of one device's error counters since it started watching."""

    last: Counts = (0, 0, 0)
    during_scrub: int = 0  # errors added while a scrub was running
    outside_scrub: int = 0  # errors added at any other time: the device is failing now
    last_growth: float | None = None


@dataclass
class PoolMemory:
    leaves: dict[str, Leaf] = field(default_factory=dict)
    seen_at: float | None = None  # when the counters last observed were read by zpool status
    # Leaves that arrived while zdash watched (an attach), by key, until their resilver is done:
    # a mirror side being attached is redundancy being added, not a side that was lost.
    joined: dict[str, float] = field(default_factory=dict)
