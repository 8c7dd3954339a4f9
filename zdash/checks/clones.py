"""Clones: what `zfs destroy -R <origin snapshot>` would take with it, and clones that have
diverged so completely from their origin that only the dependency is left (promote them)."""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Sequence

from zdash.checks import stories, tracker
from zdash.checks._common import act
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_list, plural
from zdash.model import Dataset, Snapshot

ID = "clones"


def clone_graph(datasets: Sequence[Dataset]) -> dict[str, set[str]]:
    """origin snapshot -> its clones, from both sides (snapshot `clones` and clone `origin`)."""
    graph: dict[str, set[str]] = {}
    for d in datasets:
        for c in d.clones:
            graph.setdefault(d.name, set()).add(c)
        if d.origin:
            graph.setdefault(d.origin, set()).add(d.name)
    return graph


def _starting_with(names: Sequence[str], prefix: str) -> Sequence[str]:
    """The names (sorted) that start with `prefix`: one contiguous run, found by bisection (a
    host with auto-snapshots has tens of thousands of names; scanning them all per clone made
    this check cost 0.75 s at 22,000)."""
    start = bisect_left(names, prefix)
    return names[start : bisect_left(names, prefix[:-1] + chr(ord(prefix[-1]) + 1), start)]


def destroyed_with(snapshot: str, graph: dict[str, set[str]], names: Sequence[str]) -> list[str]:
    """Everything `zfs destroy -R snapshot` removes besides the snapshot: each clone, its
    children and snapshots, and recursively the clones of those snapshots, in the order it
    finds them. `names`: every dataset's name, sorted."""
    taken: list[str] = []
    seen: set[str] = set()
    pending = deque(sorted(graph.get(snapshot, ())))
    while pending:
        clone = pending.popleft()
        if clone in seen:
            continue
        # sorted order: the clone itself, then its children ('/' sorts before '@'), then its
        # snapshots, as a scan of the sorted names finds them
        at = bisect_left(names, clone)
        below = [clone] if at < len(names) and names[at] == clone else []
        below += _starting_with(names, clone + "/")
        below += _starting_with(names, clone + "@")
        for n in below:
            if n not in seen:
                seen.add(n)
                taken.append(n)
            pending.extend(sorted(graph.get(n, ())))
    return taken


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    """Judged on the newest snapshot alone: nothing here changes from one second to the next."""
    datasets = history[-1].datasets
    by_name = {d.name: d for d in datasets}
    names = sorted(by_name)
    graph = clone_graph(datasets)
    out: list[Finding] = []
    for origin in sorted(graph):
        clones = sorted(graph[origin])
        taken = destroyed_with(origin, graph, names)
        parent = origin.split("@", 1)[0]
        space = sum(by_name[n].used or 0 for n in clones if n in by_name)
        out.append(
            Finding(
                ID,
                Severity.INFO,
                origin.split("/", 1)[0].split("@", 1)[0],
                origin,
                "dataset",
                title=f"{origin} has {plural(len(clones), 'clone')}: destroy -R would also take "
                f"{plural(len(taken), 'dataset')}",
                why=(
                    f"{fmt_list(clones)} {'was' if len(clones) == 1 else 'were'} created from this "
                    f"snapshot and still {'depends' if len(clones) == 1 else 'depend'} on it: ZFS "
                    "refuses to destroy it ('snapshot has dependent clones'), and `zfs destroy -r "
                    f"{parent}` refuses too. {stories.CLONE_RULE} To keep a clone, `zfs promote` it first."
                ),
                evidence=(
                    ("Clones", fmt_list(clones)),
                    ("destroy -R also destroys", fmt_list(taken, 12)),
                    ("Space used by the clones", fmt_bytes(space)),
                ),
                actions=(
                    act(
                        "Preview what destroy -R would remove (dry run)",
                        None,
                        "zfs",
                        "destroy",
                        "-nvR",
                        origin,
                    ),
                ),
            )
        )
    for d in datasets:
        f = _diverged(d, by_name, names, cfg)
        if f is not None:
            out.append(f)
    return out


def _diverged(
    d: Dataset, by_name: dict[str, Dataset], names: Sequence[str], cfg: CheckConfig
) -> Finding | None:
    if not d.origin or d.refer is None or d.used_by_dataset is None:
        return None
    if d.refer < cfg.clone_min_refer_bytes or d.used_by_dataset < cfg.clone_diverged_ratio * d.refer:
        return None
    parent = d.origin.split("@", 1)[0]
    mine = {n.split("@", 1)[1] for n in _starting_with(names, d.name + "@")}
    theirs = {n.split("@", 1)[1] for n in _starting_with(names, parent + "@")}
    clash = sorted(mine & theirs)
    why = (
        f"{d.name} references {fmt_bytes(d.refer)} of which {fmt_bytes(d.used_by_dataset)} is its "
        f"own: it no longer shares data with {d.origin}, so being a clone saves nothing, but the "
        f"dependency remains: {d.origin} cannot be destroyed, nor {parent} without -R taking "
        f"{d.name} along. `zfs promote {d.name}` reverses it: the origin snapshot (and the older "
        f"snapshots of {parent}) move to {d.name}, and {parent} becomes the clone, free to be "
        "destroyed. Worth it when it is the original you want to get rid of. " + stories.CLONE_PROMOTE
    )
    if clash:
        why += (
            f" Snapshot names {fmt_list(clash)} exist on both: if one of them is among the "
            "snapshots that move, promote fails with 'conflicting snapshot'; rename it first."
        )
    return Finding(
        ID,
        Severity.INFO,
        d.pool,
        d.name,
        "dataset",
        title=f"{d.name} shares nothing with its origin {d.origin} any more",
        why=why,
        evidence=(
            ("Origin", d.origin),
            ("Referenced", fmt_bytes(d.refer)),
            ("Own data (usedbydataset)", fmt_bytes(d.used_by_dataset)),
            ("Still shared", fmt_bytes(max(d.refer - d.used_by_dataset, 0))),
        ),
        actions=(act(f"Promote {d.name}", "promote", "zfs", "promote", d.name),),
    )


class Tracker(tracker.StructuralTracker):
    """Its findings depend on the datasets alone, so they are reused for as long as `zfs list`
    answers the same (the fold keeps that answer's parsed tuple, the same object), not only
    while the pool's structure stays: a scrubbing pool's structure changes at every status."""

    TRANSIENT = ("_judged",)

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._judged: tuple[Sequence[Dataset], list[Finding]] | None = None

    def judge(self, snap: Snapshot) -> list[Finding]:
        if self._judged is not None and self._judged[0] is snap.datasets:
            return list(self._judged[1])
        found = check([snap], self.cfg)
        self._judged = (snap.datasets, found)
        return list(found)
