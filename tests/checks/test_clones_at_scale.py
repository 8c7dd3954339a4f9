"""clones on a host with tens of thousands of datasets (auto-snapshots): what `destroy -R` would
take is found by bisection over the sorted names, not by a scan of every name per clone, and
the findings are kept while `zfs list` answers the same. Same answers as before, at any size."""

from __future__ import annotations

import copy
import dataclasses
import json

from hypothesis import given
from hypothesis import strategies as st

from tests.checks.builders import T0, snap
from zdash.checks import clones
from zdash.checks.registry import CheckEngine
from zdash.config import CheckConfig
from zdash.model import Dataset

# Names that sort around '/' and '@' on purpose ('-' and '.' before '/', '_' after '@').
PARTS = st.sampled_from(["a", "a-b", "a.b", "a_b", "b", "ab", "a0", "A"])


def _reference(snapshot: str, graph: dict[str, set[str]], names: list[str]) -> list[str]:
    """destroyed_with as it was written first: a scan of every name per clone."""
    taken: list[str] = []
    pending = sorted(graph.get(snapshot, ()))
    while pending:
        clone = pending.pop(0)
        if clone in taken:
            continue
        for n in [n for n in names if n == clone or n.startswith((clone + "/", clone + "@"))]:
            if n not in taken:
                taken.append(n)
            pending.extend(sorted(graph.get(n, ())))
    return taken


@st.composite
def forests(draw):
    """Filesystems, their snapshots, and clones of some snapshots (clones of clones too)."""
    names: list[str] = ["p"]
    for _ in range(draw(st.integers(1, 12))):
        parent = draw(st.sampled_from([n for n in names if "@" not in n]))
        names.append(f"{parent}/{draw(PARTS)}")
    for fs in [n for n in names if "@" not in n]:
        for s in draw(st.lists(PARTS, max_size=3, unique=True)):
            names.append(f"{fs}@{s}")
    snaps = [n for n in names if "@" in n]
    origins: dict[str, str] = {}
    for _ in range(draw(st.integers(0, 4))):
        if snaps:
            clone = f"p/c{len(origins)}{draw(PARTS)}"
            origins[clone] = draw(st.sampled_from(snaps))
            names.append(clone)
            if draw(st.booleans()):
                names.append(f"{clone}@s")
                snaps.append(f"{clone}@s")
    datasets = []
    for n in sorted(set(names)):
        kids = tuple(c for c, o in origins.items() if o == n)
        datasets.append(
            Dataset(n, "snapshot" if "@" in n else "filesystem", origin=origins.get(n), clones=kids)
        )
    return tuple(datasets)


@given(forests())
def test_what_destroy_r_takes_is_what_a_scan_of_every_name_finds(datasets):
    graph = clones.clone_graph(datasets)
    names = sorted(d.name for d in datasets)
    for origin in graph:
        assert clones.destroyed_with(origin, graph, names) == _reference(origin, graph, names)


def _at(t: float, datasets: tuple[Dataset, ...], structure_id: int):  # type: ignore[no-untyped-def]
    return dataclasses.replace(snap(t, datasets=datasets), structure_id=structure_id)


def _many(n_fs: int, n_snaps: int) -> tuple[Dataset, ...]:
    out = [Dataset("tank", "filesystem")]
    for f in range(n_fs):
        out.append(Dataset(f"tank/fs{f}", "filesystem"))
        out += [
            Dataset(f"tank/fs{f}@auto-{s}", "snapshot", clones=(f"tank/clone{f}",) if s == 0 else ())
            for s in range(n_snaps)
        ]
        out.append(Dataset(f"tank/clone{f}", "filesystem", origin=f"tank/fs{f}@auto-0"))
    return tuple(out)


def test_the_findings_are_kept_while_zfs_list_answers_the_same(monkeypatch):
    datasets = _many(20, 30)
    engine = CheckEngine(CheckConfig())
    judged: list[int] = []
    real = clones.check
    monkeypatch.setattr(clones, "check", lambda h, cfg: judged.append(1) or real(h, cfg))
    first = engine.update(_at(T0, datasets, 1))
    # the structure moves (a scrub's status, every few seconds); the datasets do not
    again = engine.update(_at(T0 + 5, datasets, 2))
    assert len(judged) == 1
    assert [f for f in again if f.check == "clones"] == [f for f in first if f.check == "clones"]
    assert len([f for f in again if f.check == "clones"]) == 20
    changed = datasets[:-1]  # the last clone destroyed
    engine.update(_at(T0 + 10, changed, 3))
    assert len(judged) == 2


def test_keyframes_and_copies_do_not_carry_the_datasets():
    engine = CheckEngine(CheckConfig())
    engine.update(_at(T0, _many(50, 20), 1))
    saved = json.dumps(engine.checkpoint())
    assert "tank/fs7@auto-3" not in saved  # the 1,000 snapshots stay out of every keyframe
    restored = CheckEngine.restore(json.loads(saved), CheckConfig())
    assert restored.update(_at(T0 + 1, _many(50, 20), 2)) == engine.update(_at(T0 + 1, _many(50, 20), 2))
    twin = copy.deepcopy(engine._trackers["clones"])
    assert twin._judged is None
