"""The deranged-disk sample's fast path (a leaf plainly not slow skips the exact peer medians)
gives the verdict, throughput and peers' throughput the full judgement gives, on any pool."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zdash.checks._deranged_samples import sample_pool
from zdash.config import CheckConfig
from zdash.model import DiskIo, IoStats, Pool, Vdev

_wait = st.one_of(st.none(), st.just(0.0), st.floats(1e5, 5e9))
_util = st.one_of(st.none(), st.floats(0, 100))


@st.composite
def leaves(draw, i):
    ops = draw(st.sampled_from([0.0, 0.5, 20.0, 300.0]))
    io = IoStats(
        ops, ops, draw(st.floats(0, 2e8)), draw(st.floats(0, 2e8)), None, None, draw(_wait), draw(_wait)
    )
    util = draw(_util)
    disk = None if util is None else DiskIo(device=f"sd{i}", util_pct=util)
    return Vdev(
        name=f"d{i}",
        kind="disk",
        state=draw(st.sampled_from(["ONLINE", "ONLINE", "ONLINE", "DEGRADED", "OFFLINE"])),
        path=f"/dev/d{i}",
        io=io if draw(st.booleans()) or True else None,
        disk=disk,
        medium=draw(st.sampled_from(["HDD", "HDD", "SSD", "NVMe SSD", None])),
    )


@st.composite
def pools(draw):
    tops, n = [], 0
    for t in range(draw(st.integers(1, 6))):
        width = draw(st.integers(1, 5))
        kids = []
        for _ in range(width):
            kids.append(draw(leaves(n)))
            n += 1
        cls = draw(st.sampled_from(["normal", "normal", "special"]))
        if width == 1:
            tops.append(Vdev(**{**_as_dict(kids[0]), "vclass": cls}))
        else:
            tops.append(
                Vdev(name=f"mirror-{t}", kind="mirror", state="ONLINE", vclass=cls, children=tuple(kids))
            )
    root = Vdev(name="tank", kind="root", state="ONLINE", children=tuple(tops))
    return Pool(name="tank", state="ONLINE", root=root)


def _as_dict(v: Vdev) -> dict:
    return {f: getattr(v, f) for f in v.__dataclass_fields__}


@pytest.mark.slow
@given(pools())
def test_the_fast_path_agrees_with_the_full_judgement(pool):
    cfg = CheckConfig()
    fast, full = sample_pool(pool, cfg), sample_pool(pool, cfg, explain_all=True)
    assert fast.keys() == full.keys()
    for key, f in fast.items():
        g = full[key]
        assert (f.slow, f.bytes, f.peer_bytes) == (g.slow, g.bytes, g.peer_bytes), key
        if f.slow:
            assert f == g  # a slow sample carries everything a finding shows


@pytest.mark.slow
@given(
    st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, 7.0, 1e9]), max_size=12),
    st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.5, 3.0, 4.0, 7.0, 1e9])),
)
def test_the_median_without_ones_own_value_is_the_median_of_the_others(values, own):
    from statistics import median

    from zdash.checks._deranged_samples import _median_without

    others = sorted(values)
    if own in others:
        others.remove(own)
    expected = median(others) if others else None
    assert _median_without(sorted(values), own) == expected
