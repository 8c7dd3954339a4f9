"""The clone dependency graph as a tree a viewer can walk: each clone sits under the snapshot
it was cloned from (origin -> clones), so a node's subtree is what depends on it, and
`destroyed_by` says exactly what `zfs destroy -R` would take. Pure: no Textual."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from zdash.model import Dataset


@dataclass(frozen=True, slots=True)
class Node:
    dataset: Dataset
    children: tuple[Node, ...] = ()
    snapshots: int = 0  # this dataset's snapshots that have no clones (counted, not listed)


class CloneGraph:
    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.by_name = {d.name: d for d in datasets}
        self._kids: dict[str, list[str]] = {}  # filesystem -> namespace children
        self._snaps: dict[str, list[str]] = {}  # filesystem -> its snapshots
        self._clones: dict[str, set[str]] = {}  # snapshot -> clones
        for d in self.by_name.values():
            if d.kind == "snapshot":
                self._snaps.setdefault(d.name.split("@", 1)[0], []).append(d.name)
                self._clones.setdefault(d.name, set()).update(c for c in d.clones if c in self.by_name)
            elif "/" in d.name:
                self._kids.setdefault(d.name.rsplit("/", 1)[0], []).append(d.name)
            if d.origin and d.origin in self.by_name:
                self._clones.setdefault(d.origin, set()).add(d.name)

    def is_clone(self, name: str) -> bool:
        d = self.by_name.get(name)
        return bool(d and d.origin and d.origin in self.by_name)

    def has_clones(self) -> bool:
        return any(self._clones.values())

    def roots(self) -> tuple[Node, ...]:
        seen: set[str] = set()
        tops = sorted(n for n, d in self.by_name.items() if d.kind != "snapshot" and "/" not in n)
        return tuple(self._node(n, seen) for n in tops)

    def _node(self, name: str, seen: set[str]) -> Node:
        seen.add(name)
        d = self.by_name[name]
        if d.kind == "snapshot":
            kids = [self._node(c, seen) for c in sorted(self._clones.get(name, ())) if c not in seen]
            return Node(d, tuple(kids))
        kids = [
            self._node(c, seen)
            for c in sorted(self._kids.get(name, ()))
            if c not in seen and not self.is_clone(c)
        ]
        snaps = self._snaps.get(name, [])
        cloned = [s for s in snaps if self._clones.get(s) and s not in seen]
        kids += [self._node(s, seen) for s in sorted(cloned)]
        return Node(d, tuple(kids), len(snaps) - len(cloned))

    def destroyed_by(self, name: str) -> list[str]:
        """Everything `zfs destroy -R name` destroys besides `name` itself: for a filesystem its
        children and snapshots, for a snapshot its clones, and recursively for all of those."""
        out: list[str] = []
        seen, stack = {name}, [name]
        while stack:
            n = stack.pop()
            d = self.by_name.get(n)
            if d is None:
                continue
            nxt = (
                sorted(self._clones.get(n, ()))
                if d.kind == "snapshot"
                else sorted(self._kids.get(n, [])) + sorted(self._snaps.get(n, []))
            )
            for m in nxt:
                if m not in seen:
                    seen.add(m)
                    out.append(m)
                    stack.append(m)
        return sorted(out)
