"""How often the live source asks `zpool status` and `zpool list`: each run is a process whose
CPU is most of what zdash costs on a quiet pool. Quiet (nothing moving, ZFS's event log
followed): rarely. At once when ZFS posts an event. At the busy rate while something moves or
when the event log cannot be followed. Counted in ticks of a stand-in zpool (tests/fakes/bin)
that replays real captured output."""

from __future__ import annotations

import os

from zdash.sources.live import LiveSource

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fakes", "bin"))


def _fake(monkeypatch, tmp_path, scenario: str) -> str:
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", scenario)
    control = tmp_path / "control"
    control.write_text("")
    monkeypatch.setenv("FAKE_ZPOOL_CONTROL", str(control))
    return str(control)


async def _count(
    src: LiveSource, ticks: int, control: str | None = None, at: int = -1, rule: str = ""
) -> list[list[str]]:
    """The sample keys of each tick; at tick `at`, `rule` is written to the control file."""
    out = []
    gen = src.ticks()
    async for tick in gen:
        out.append([s.key for s in tick.samples])
        if len(out) == at and control:
            with open(control, "w") as f:
                f.write(rule)
        if len(out) >= ticks:
            break
    await gen.aclose()
    return out


def _runs(keys: list[list[str]], key: str) -> int:
    return sum(k.count(key) for k in keys)


async def test_a_quiet_pool_is_asked_rarely_and_at_once_when_zfs_posts_an_event(monkeypatch, tmp_path):
    control = _fake(monkeypatch, tmp_path, "healthy")
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, rare_every=60.0, timeout=5.0)
    keys = await _count(src, 40, control, at=25, rule="events post\n")
    before, after = keys[:25], keys[25:]
    assert _runs(before, "status") <= 2, before  # the first, and at most one more at start
    assert _runs(before, "list") <= 2
    assert "events" in [k for tick in after for k in tick]
    assert _runs(after, "status") >= 1  # the event made it ask again, long before 60 s


async def test_a_pool_that_moves_is_asked_at_the_busy_rate(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, "degraded")
    monkeypatch.setenv("FAKE_ZPOOL_PHASE", "offline")  # a disk offline: the pool is DEGRADED
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, timeout=5.0)
    keys = await _count(src, 60)
    assert _runs(keys, "status") >= 4, keys  # asked again and again (quiet: at most 2 in 60 s)


async def test_without_the_event_log_status_is_asked_at_the_busy_rate(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "denied")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "events")
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, timeout=5.0)
    keys = await _count(src, 60)
    assert _runs(keys, "status") >= 4, keys  # asked again and again (quiet: at most 2 in 60 s)
