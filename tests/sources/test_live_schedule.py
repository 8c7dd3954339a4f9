"""How often the live source asks `zpool status` and `zpool list`: each run is a process whose
CPU is most of what zdash costs on a quiet pool. Quiet (nothing moving, ZFS's event log
followed): rarely. At once when ZFS posts an event. At the busy rate while something moves or
when the event log cannot be followed. Counted in ticks of a stand-in zpool (tests/fakes/bin)
that replays real captured output."""

from __future__ import annotations

import itertools
import os
import time

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
    src: LiveSource,
    ticks: int,
    control: str | None = None,
    at: int = -1,
    rule: str = "",
    until_status: int | None = None,
) -> list[list[str]]:
    """The sample keys of each tick; at tick `at`, `rule` is written to the control file. With
    `until_status`, stops early once status has run that often (counts, not time: a loaded
    machine stretches the ticks, not the schedule)."""
    out: list[list[str]] = []
    gen = src.ticks()
    async for tick in gen:
        out.append([s.key for s in tick.samples])
        if len(out) == at and control:
            with open(control, "w") as f:
                f.write(rule)
        if len(out) >= ticks or (until_status is not None and _runs(out, "status") >= until_status):
            break
    await gen.aclose()
    return out


def _runs(keys: list[list[str]], key: str) -> int:
    return sum(k.count(key) for k in keys)


async def test_a_quiet_pool_is_asked_rarely_and_at_once_when_zfs_posts_an_event(monkeypatch, tmp_path):
    control = _fake(monkeypatch, tmp_path, "healthy")
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, rare_every=60.0, timeout=5.0)
    keys = await _count(src, 40, control, at=25, rule="events post\n")
    # Start-up asks a few times (the first answers, the event log's backlog, the first iostat
    # report) however slow the machine; after that, a quiet pool is not asked at all.
    settled, after = keys[12:25], keys[25:]
    assert _runs(settled, "status") == 0 and _runs(settled, "list") == 0, keys[:25]
    assert _runs(keys[:25], "status") <= 4
    assert "events" in [k for tick in after for k in tick]
    assert _runs(after, "status") >= 1  # the event made it ask again, long before 60 s


async def test_a_pool_that_moves_is_asked_at_the_busy_rate(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, "degraded")
    monkeypatch.setenv("FAKE_ZPOOL_PHASE", "offline")  # a disk offline: the pool is DEGRADED
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, timeout=5.0)
    keys = await _count(src, 300, until_status=6)
    assert _runs(keys, "status") >= 6, keys  # asked again and again (quiet: none once settled)


async def test_without_the_event_log_status_is_asked_at_the_busy_rate(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "denied")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "events")
    src = LiveSource(0.1, structure_every=0.1, quiet_every=60.0, timeout=5.0)
    keys = await _count(src, 300, until_status=6)
    assert _runs(keys, "status") >= 6, keys  # asked again and again (quiet: none once settled)


async def test_a_failing_command_is_asked_again_soon_then_less_and_less(monkeypatch, tmp_path):
    """`zpool version` fails (a hung or denied zpool at the start): asked again after the busy
    period, not never (the version chooses status's argv), then backing off towards the rare
    period while it keeps failing (not a process every few seconds for ever). Gaps measured on
    the samples' own times: a loaded machine can only make them longer."""
    _fake(monkeypatch, tmp_path, "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "denied")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "version")
    src = LiveSource(0.1, structure_every=0.2, rare_every=1.6, timeout=5.0)
    times: list[float] = []
    gen = src.ticks()
    async for tick in gen:
        times += [s.time for s in tick.samples if s.key == "version" and not s.ok]
        if len(times) >= 5:
            break
    await gen.aclose()
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # start, then 0.2 s (the start's own wait), 0.2, 0.4, 0.8: each at least its delay
    assert gaps[2] >= 0.4 * 0.9 and gaps[3] >= 0.8 * 0.9, gaps


class _Host:
    """A runner as far as the schedule asks: over ssh, up or down."""

    host = "nas2"
    unreachable_since: float | None = None


def test_what_failed_while_the_host_was_down_is_asked_at_once_when_it_answers():
    """A host down for a while: its failed commands backed off towards the rare period. The
    first command that answers again brings the others back at once, not 20 or 40 s later. A
    command that fails while the host answers (denied) keeps its backoff."""
    host = _Host()
    src = LiveSource(1.0, structure_every=5.0, rare_every=60.0, runner=host)  # type: ignore[arg-type]

    def run(name: str, ok: bool) -> None:
        """Asked when due (_due_now then sets the next run a rare period ahead), outcome noted."""
        src._due[name] = 0.0
        assert src._due_now(name, 60.0, time.time())
        src._note_result(name, ok)

    run("list", False)  # denied: the host answers, this command does not
    host.unreachable_since = 1.0
    for _ in range(4):
        run("datasets", False)
        run("version", False)
    now = time.time()
    assert src._due["datasets"] > now + 30 and src._due["version"] > now + 30  # backed off
    host.unreachable_since = None
    run("status", True)
    assert src._due["datasets"] == 0.0 and src._due["version"] == 0.0  # asked on the next tick
    assert src._due["list"] > now  # still backing off: it failed with the host up
    run("datasets", False)  # failing again now is a failure of its own: asked after 5 s
    assert now + 4 < src._due["datasets"] <= time.time() + 5.0


def test_an_event_log_lost_with_the_host_is_followed_again_soon_even_if_the_host_is_back_first():
    """The follower's ssh failed because the host was down; before the next tick saw it die,
    another command got through (the host is back). It is followed again after the busy
    period, not a minute later: its failure stood as a problem on a healthy host for 60 s (a
    flaky fleet UI test under CI load). Judged by how it died, not by the host's state when the
    tick noticed."""
    host = _Host()
    src = LiveSource(1.0, structure_every=5.0, rare_every=60.0, runner=host)  # type: ignore[arg-type]

    class _Died:
        argv = ("zpool", "events", "-v", "-f")
        error = "nas2: ssh: connect to host nas2 port 22: Connection refused"
        unreachable = True  # how it died: ssh could not reach the host

    class _Done:
        def done(self) -> bool:
            return True

    src._events, src._events_task = _Died(), _Done()  # type: ignore[assignment]
    host.unreachable_since = None  # a command answered between its death and this tick
    now = time.time()
    src._ensure_events(now)
    assert src._events_retry_at <= now + 5.0
    assert [s.key for s in src._pending] == ["events"] and not src._pending[0].ok
