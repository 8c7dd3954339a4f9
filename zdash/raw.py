"""Raw samples: what a command (or /proc file) printed, exactly, with when and how it ended.

This is what a session file stores and what the snapshot builder consumes, so a parser fix
applies to every old recording and every recording is a test fixture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NewType, TypeAlias

# What a sample is for: the keys zdash itself gives its samples, plus "ashift:<pool>" for the
# per-pool ashift (ashift_key), and "action" for a guided action's command (never recorded).
SampleKey: TypeAlias = Literal[
    "version",
    "status",
    "list",
    "iostat",
    "diskstats",
    "devices",
    "datasets",
    "action",
    "blockdevs",
    "sysfs",
    "kernlog",
]
AshiftKey = NewType("AshiftKey", str)
# The evidence beside a verdict (zdash.sources.evidence): "smart:<disk>" (one disk's smartctl),
# "hist:<pool>" (zpool iostat -w of some of its vdevs).
EvidenceKey = NewType("EvidenceKey", str)


def ashift_key(pool: str) -> AshiftKey:
    return AshiftKey(f"ashift:{pool}")


@dataclass(frozen=True, slots=True)
class RawSample:
    # A SampleKey or an AshiftKey when zdash made it; str, because a recording read back may
    # come from a newer zdash with keys this one does not know (the builder ignores them).
    key: str
    argv: tuple[str, ...]  # the exact command (or ("cat", "/proc/diskstats") for files)
    rc: int | None  # exit code; None for a stream chunk or a failure to start
    stdout: str
    stderr: str = ""
    time: float = 0.0  # epoch seconds when the output was complete
    duration: float = 0.0  # seconds the command took
    error: str | None = None  # zdash's own one-line verdict: "timed out after 10 s", "zpool not found"

    @property
    def ok(self) -> bool:
        return self.error is None and (self.rc in (0, None))


@dataclass(frozen=True, slots=True)
class Tick:
    """Everything that arrived for one dashboard tick. Samples of slow commands appear only in
    the tick in which they completed; the builder keeps the last good one of each key."""

    time: float
    samples: tuple[RawSample, ...] = field(default_factory=tuple)

    def get(self, key: str) -> RawSample | None:
        return next((s for s in self.samples if s.key == key), None)
