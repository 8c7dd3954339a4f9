"""The deranged-disk check read as arrays over a layout kept per structure (what a live pool's
ticks take: zdash.checks._deranged_columns, its leaves' evidence in rings) says what the
per-leaf way says, tick by tick: the same findings, the same slow leaves marked in the vdev
table, the same memory in a keyframe, also after a copy and after a keyframe restored. The
per-leaf way is what a snapshot with no structure number (structure_id 0) takes."""

from __future__ import annotations

import copy
import dataclasses
import json
import subprocess
import sys
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.checks.test_deranged_fast_path import pools
from zdash.checks import deranged_disk, state_codec
from zdash.checks._common import leaves_with_top
from zdash.checks._deranged_columns import layout
from zdash.config import CheckConfig
from zdash.model import DiskIo, IoStats, Pool, Snapshot, Vdev
from zdash.raw import Tick

# low floors and short runs so that random figures raise and clear findings within a few ticks
CFG = CheckConfig(deranged_sustain_samples=2, deranged_clear_samples=2, deranged_lookback_samples=4)

_figures = st.tuples(
    st.sampled_from([0.0, 0.5, 20.0, 300.0]),  # ops
    st.sampled_from([0.0, 1e6, 4e6, 4e7]),  # bytes
    st.one_of(st.none(), st.sampled_from([1e6, 3e6, 5e7, 9e8])),  # disk wait
    st.one_of(st.none(), st.sampled_from([2.0, 30.0, 95.0])),  # %util
)


def _measured(v: Vdev, figures: list[tuple]) -> Vdev:
    """The tree with each leaf's figures of this tick (the next of `figures`, in walk order)."""
    if v.children:
        return dataclasses.replace(v, children=tuple(_measured(c, figures) for c in v.children))
    if v.kind == "root":
        return v
    ops, nbytes, wait, util = figures.pop(0) if figures else (0.0, 0.0, None, None)
    io = IoStats(ops, ops, nbytes, nbytes / 2, None, wait, wait, wait)
    disk = DiskIo(device=v.name, util_pct=util) if util is not None else v.disk
    return dataclasses.replace(v, io=io, disk=disk)


def _with_state(pool: Pool, state: str) -> Pool:
    """The pool with its first leaf in another state (a new structure that changes the layout)."""
    first = next(leaf for _, leaf in leaves_with_top(pool))

    def swap(v: Vdev) -> Vdev:
        if v is first:
            return dataclasses.replace(v, state=state)
        return dataclasses.replace(v, children=tuple(map(swap, v.children))) if v.children else v

    return dataclasses.replace(pool, root=swap(pool.root))


def _alike(pool: Pool) -> Pool:
    """The pool with each top-level vdev's leaves of its first leaf's medium (a layout covers
    it: a vdev mixing media is judged leaf by leaf)."""

    def like(top: Vdev) -> Vdev:
        if not top.children:
            return top
        medium = top.children[0].medium
        return dataclasses.replace(
            top, children=tuple(dataclasses.replace(c, medium=medium) for c in top.children)
        )

    return dataclasses.replace(
        pool, root=dataclasses.replace(pool.root, children=tuple(map(like, pool.top_level)))
    )


def _restored(memory: dict) -> deranged_disk.Tracker:
    """A tracker continuing from a keyframe of this memory (as CheckEngine.restore does)."""
    t = deranged_disk.Tracker(CFG)
    t.__dict__.update(state_codec.loads(json.dumps(state_codec.encode(memory))))
    return t


@pytest.mark.slow
@given(
    pools(),
    st.booleans(),
    st.lists(st.lists(_figures, min_size=30, max_size=30), min_size=4, max_size=12),
    st.lists(
        st.sampled_from(["same", "new status, same leaves", "a leaf offline", "a leaf back"]), min_size=14
    ),
    st.integers(0, 11),
)
def test_the_columns_say_what_the_per_leaf_way_says(pool, alike, ticks, changes, cut):
    """Tick by tick, with a copy of the column tracker (a replay keyframe) and one restored from
    the per-leaf tracker's keyframe (what an older zdash wrote) taken at `cut` going on beside."""
    assert deranged_disk.columns_ready(60)
    with mock.patch.object(deranged_disk, "ARRAYS_FROM_LEAVES", 0):  # these pools are small
        _columns_and_per_leaf(pool, alike, ticks, changes, cut)


def _columns_and_per_leaf(pool, alike, ticks, changes, cut):  # type: ignore[no-untyped-def]
    if alike:
        pool = _alike(pool)
    by_columns, per_leaf = deranged_disk.Tracker(CFG), deranged_disk.Tracker(CFG)
    twins: list[deranged_disk.Tracker] = []
    structure, tree = 1, pool
    for n, figures in enumerate(ticks):
        change = changes[n]
        # (the copies are taken where a status came: this test's trees are new objects every
        # tick, which a fold's are not within one structure, and findings() looks leaves up
        # once per structure)
        if change != "same" or n == cut:
            structure += 1
        if change == "a leaf offline":
            tree = _with_state(tree, "OFFLINE")
        elif change == "a leaf back":
            tree = _with_state(tree, "ONLINE")
        measured = dataclasses.replace(tree, root=_measured(tree.root, list(figures)))
        snap = Snapshot(time=1000.0 + n, pools=(measured,), structure_id=structure)
        if n == cut:
            twins = [copy.deepcopy(by_columns), _restored(per_leaf.memory())]
        for t in (by_columns, *twins):
            t.observe(snap)
        per_leaf.observe(dataclasses.replace(snap, structure_id=0))
        expected = per_leaf.findings(snap)
        for t in (by_columns, *twins):
            found = t.findings(snap)
            assert found == expected, n
            assert t.outliers(found) == per_leaf.outliers(found), n
            assert state_codec.encode(t.memory()) == state_codec.encode(per_leaf.memory()), n


def test_a_pool_of_like_disks_is_read_as_columns_and_a_mixed_vdev_leaf_by_leaf():
    like = Pool(
        name="tank",
        state="ONLINE",
        root=Vdev(
            name="tank",
            kind="root",
            state="ONLINE",
            children=(
                Vdev(
                    name="mirror-0",
                    kind="mirror",
                    state="ONLINE",
                    children=tuple(
                        Vdev(name=f"d{i}", kind="disk", state="ONLINE", path=f"/dev/d{i}", medium="HDD")
                        for i in range(2)
                    ),
                ),
            ),
        ),
    )
    assert layout(list(leaves_with_top(like))) is not None
    first = like.root.children[0].children[0]
    mixed = dataclasses.replace(
        like,
        root=dataclasses.replace(
            like.root,
            children=(
                dataclasses.replace(
                    like.root.children[0],
                    children=(dataclasses.replace(first, medium="SSD"), like.root.children[0].children[1]),
                ),
            ),
        ),
    )
    assert layout(list(leaves_with_top(mixed))) is None


@pytest.mark.parametrize("slow_every", [0, 7])
def test_a_folded_ticks_leaf_figures_read_from_its_columns_are_each_leafs_own(slow_every):
    """The slow-disk check reads a folded tick's figures straight from its columns: the same
    metrics and busy verdict as each leaf's own IoStats and DiskIo give, leaf by leaf (idle
    leaves, the first tick without disk rates, a tick whose iostat report was dropped)."""
    from tests.bench.synthetic import SyntheticHost
    from zdash.builder import SnapshotBuilder
    from zdash.checks._deranged_samples import busy, leaf_figures, metrics_of

    host = SyntheticHost(leaves=60, layout="raidz2", width=6, slow_every=slow_every)
    b = SnapshotBuilder()
    for n in range(8):
        tick = host.tick(n)
        if n == 4:  # no iostat this tick: disk rates alone
            tick = Tick(tick.time, tuple(s for s in tick.samples if s.key != "iostat"))
        pool = b.feed(tick).pools[0]
        leaves = list(pool.leaves())
        ios, disks = [pool.io_of(v) for v in leaves], [pool.disk_of(v) for v in leaves]
        assert leaf_figures(pool, leaves) == (
            [metrics_of(io, d) for io, d in zip(ios, disks)],
            [busy(io, d) for io, d in zip(ios, disks)],
        )
        assert pool.measures is not None or n == 0


@pytest.mark.parametrize(
    ("layout_name", "width", "slow_every"), [("raidz2", 6, 7), ("mirror", 2, 5), ("raidz2", 10, 0)]
)
def test_a_folded_host_read_by_arrays_gives_the_per_leaf_verdicts_tick_by_tick(
    layout_name, width, slow_every
):
    """Real folded ticks (figures in columns, status every 5th tick, slow disks raised): the
    arrays' figures are leaf_figures', and the column tracker's findings, marks and keyframes
    are the per-leaf tracker's, tick by tick, also for a copy taken on the way."""
    from tests.bench.synthetic import SyntheticHost
    from zdash.builder import SnapshotBuilder
    from zdash.checks._deranged_columns import Columns
    from zdash.checks._deranged_samples import leaf_figures

    assert deranged_disk.columns_ready(60)
    cfg = CheckConfig()
    host = SyntheticHost(leaves=60, layout=layout_name, width=width, slow_every=slow_every)
    b = SnapshotBuilder()
    by_columns, per_leaf = deranged_disk.Tracker(cfg), deranged_disk.Tracker(cfg)
    twin = None
    raised = 0
    for n in range(24):
        snap = b.feed(host.tick(n))
        if n == 11:
            twin = copy.deepcopy(by_columns)
        for t in (by_columns, *([twin] if twin else [])):
            t.observe(snap)
        per_leaf.observe(dataclasses.replace(snap, structure_id=0))
        expected = per_leaf.findings(snap)
        raised += len(expected)
        for t in (by_columns, *([twin] if twin else [])):
            found = t.findings(snap)
            assert found == expected, n
            assert t.outliers(found) == per_leaf.outliers(found), n
            assert state_codec.encode(t.memory()) == state_codec.encode(per_leaf.memory()), n
        pool = snap.pools[0]
        cols = by_columns._layouts["tank"] if by_columns._layouts else None
        if n and cols is not None:
            pairs = list(leaves_with_top(pool))
            leaves = [pairs[i][1] for i in cols.layout.measured]
            metrics, busy = cols.figures(pool, leaves)
            want_metrics, want_busy = leaf_figures(pool, leaves)
            got = [tuple(None if v != v else v for v in row) for row in metrics.T.tolist()]
            assert (got, busy.tolist()) == (want_metrics, want_busy), n
        assert n < 2 or isinstance(cols, Columns), n  # read by arrays once laid out
    assert (raised > 0) == (slow_every > 0)


def test_a_slow_disks_finding_made_again_keeps_what_reads_as_the_last_ones():
    """A raised slow disk's finding is made again every tick (its samples and figures move):
    its rows that read as last tick's are last tick's (the fetched evidence, its peers, the
    onset), its advice and actions the same objects, and it equals the finding a tracker that
    kept nothing makes (a copy starts without what it made)."""
    from tests.bench.synthetic import SyntheticHost
    from zdash.builder import SnapshotBuilder

    host = SyntheticHost(leaves=60, layout="raidz2", width=6, slow_every=7)
    b = SnapshotBuilder()
    t = deranged_disk.Tracker(CheckConfig())
    last: dict[str, object] = {}
    kept = moved = 0
    for n in range(24):
        snap = b.feed(host.tick(n))
        t.observe(snap)
        fresh = copy.deepcopy(t).findings(snap)
        found = t.findings(snap)
        assert found == fresh, n
        for f in found:
            before = last.get(f.subject)
            if isinstance(before, type(f)):
                assert f.actions is before.actions, n
                for i, row in enumerate(f.evidence[: len(before.evidence)]):
                    assert (row is before.evidence[i]) == (row == before.evidence[i]), (n, row)
                    kept += row is before.evidence[i]
                    moved += row is not before.evidence[i]
            last[f.subject] = f
    assert kept and moved  # rows kept (the onset, its peers, the cost), and made anew (its figures)


def test_numpy_is_imported_only_once_a_pool_is_laid_out_and_no_tick_waits_for_it():
    """`zdash --version`, the CLI's parsing, the check engine and a paste (one look, no layout)
    start without numpy; a live fold starts its import in a thread with its first layout, and
    judges leaf by leaf (the same verdicts) until it is in: no tick waits for it."""
    code = (
        "import sys, threading\n"
        "from zdash import cli\n"
        "from zdash.checks.registry import CheckEngine\n"
        "from zdash.checks import deranged_disk\n"
        "from zdash.fold import Fold\n"
        "print('numpy' in sys.modules)\n"
        "from tests.bench.synthetic import SyntheticHost\n"
        "small = Fold()\n"
        "small.step(SyntheticHost(leaves=8).tick(0)), small.step(SyntheticHost(leaves=8).tick(1))\n"
        "print('numpy' in sys.modules)\n"
        "fold, host = Fold(), SyntheticHost(leaves=60)\n"
        "fold.step(host.tick(0))\n"
        "print([t.name for t in threading.enumerate() if t.name == 'zdash-numpy-import'] or ['done'])\n"
        "print(deranged_disk.columns_ready(60), 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # (a pool of a few disks is judged leaf by leaf: it never imports numpy)
    assert out.stdout.split()[:2] == ["False", "False"] and out.stdout.split()[-2:] == ["True", "True"]
    version = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "zdash", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "numpy" not in version.stderr
