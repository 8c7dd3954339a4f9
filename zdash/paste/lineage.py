"""What a transcript's `zfs snapshot`, `zfs clone` and `zfs promote` lines leave behind: which
snapshots each filesystem holds and which snapshot each clone depends on, replayed in order.

`zfs promote C` moves every snapshot of C's origin filesystem up to and including the one C was
cloned from onto C (same short names), makes the origin filesystem a clone of C's copy of that
snapshot, and re-points the other clones of the moved snapshots at C. A transcript read line by
line without that (corpus 260: two clones, two promotes) named snapshots that no longer exist
under those names as holding clones they no longer hold.

Where the replay cannot know (a promote of a filesystem the transcript did not clone, a snapshot
taken before the transcript whose place among the others is unknown), it gives up: no lineage
from the transcript rather than a wrong one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lineage:
    snapshots: tuple[str, ...]  # full names (fs@snap), in the transcript's order per filesystem
    origins: tuple[tuple[str, str], ...]  # (clone, the snapshot it depends on)


def replay(events: Sequence[tuple[int, str, str, str | None]]) -> Lineage | None:
    """events: (line, verb, first, second) with verb "snapshot" (first: fs@snap), "clone"
    (first: fs@snap, second: the clone) or "promote" (first: the clone), in any order (sorted by
    line here). None when a promote cannot be replayed."""
    snaps: dict[str, list[str]] = {}
    placed: dict[str, bool] = {}  # False: a snapshot the transcript only names (its place unknown)
    origin: dict[str, str] = {}

    def add(full: str, known_place: bool) -> None:
        fs, snap = full.split("@", 1)
        have = snaps.setdefault(fs, [])
        if snap not in have:
            have.append(snap)
            placed[full] = known_place

    for _, verb, first, second in sorted(events, key=lambda e: e[0]):
        if verb == "snapshot":
            add(first, True)
        elif verb == "clone" and second is not None:
            add(first, False)
            origin[second] = first
        elif verb == "promote":
            if first not in origin:
                return None  # a clone made before the transcript: its origin is not known
            src, point = origin[first].split("@", 1)
            have = snaps.get(src, [])
            cut = have.index(point) + 1
            moved = have[:cut]
            if not all(placed.get(f"{src}@{s}", False) for s in moved):
                return None  # which snapshots come before the clone's is not known
            snaps[src] = have[cut:]
            snaps[first] = moved + [s for s in snaps.get(first, []) if s not in moved]
            for s in moved:
                placed[f"{first}@{s}"] = placed.pop(f"{src}@{s}")
            above = origin.pop(src, None)
            del origin[first]
            for clone, o in list(origin.items()):
                fs, s = o.split("@", 1)
                if fs == src and s in moved:
                    origin[clone] = f"{first}@{s}"
            origin[src] = f"{first}@{point}"
            if above is not None:
                origin[first] = above
    return Lineage(
        tuple(f"{fs}@{s}" for fs, have in snaps.items() for s in have),
        tuple(origin.items()),
    )
