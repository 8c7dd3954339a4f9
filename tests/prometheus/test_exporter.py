"""`zdash exporter`: the HTTP endpoint scraped in-process on a replayed recording, the command
itself on a stand-in zpool, and bad input as one line and exit 2."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families

from tests.prometheus.helpers import parse, value
from zdash.cli import main
from zdash.config import CheckConfig
from zdash.parse.zpool_iostat import parse_iostat
from zdash.prometheus.exporter import Folder, State, collect, exposition, serve
from zdash.scenarios import path_of
from zdash.sources.session import read_session

FAKES = os.path.join(os.path.dirname(__file__), "..", "fakes", "bin")


def scrape(port: int, accept: str | None = None) -> str:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.read().decode()


async def recording(name: str):
    """A bundled recording as a tick source: what the live host would have yielded."""
    _, ticks = read_session(path_of(name))
    for tick in ticks:
        yield tick


@pytest.fixture
def exporter():
    state = State()
    server = serve("127.0.0.1", 0, state)
    yield state, server.server_address[1]
    server.shutdown()
    server.server_close()


async def test_scraped_exporter_on_a_replayed_recording(exporter):
    state, port = exporter
    before = parse(await asyncio.to_thread(scrape, port))
    assert value(before, "zdash_source_up", source="status") == 0  # nothing collected yet

    header, _ = read_session(path_of("deranged-mirror"))
    await collect(recording("deranged-mirror"), Folder(state, CheckConfig(), header.interval, header.host))

    m = parse(await asyncio.to_thread(scrape, port))
    assert value(m, "zdash_finding", check="deranged_disk", subject="/dev/mapper/sick") == 1
    assert value(m, "zdash_pool_state", pool="tank", state="ONLINE") == 1
    assert "process_resident_memory_bytes" in m  # the exporter's own footprint
    # Prometheus asks for OpenMetrics first: that exposition must hold up to its stricter parser.
    om = await asyncio.to_thread(scrape, port, "application/openmetrics-text; version=1.0.0")
    names = {f.name for f in openmetrics_families(om)}
    assert {"zdash_finding", "zdash_leaf_errors", "zdash_build", "zdash_vdev"} <= names


async def test_io_is_counted_so_rate_works_at_query_time(exporter):
    """Operations and bytes are counters: each iostat report adds its rate times its interval,
    once. A report that is late leaves a tick without one, and the dashboard keeps showing the
    last report meanwhile: that report is not counted again. rate() over a scrape interval of
    any length then averages the whole window."""
    state, port = exporter
    header, ticks = read_session(path_of("deranged-mirror"))
    # Every third report late: its tick comes without one (the builder keeps the last).
    late = [
        t if i % 3 else dataclasses.replace(t, samples=tuple(s for s in t.samples if s.key != "iostat"))
        for i, t in enumerate(ticks)
    ]
    reports = [parse_iostat(t.get("iostat").stdout) for t in late if t.get("iostat")]
    assert 10 < len(reports) < len(late)

    def written(row_name: str) -> float:  # what the reports that came add up to
        return sum(r.io.write_bytes for rows in reports for r in rows if r.name == row_name) * header.interval

    seen: list[float] = []

    async def scraped_as_it_goes():
        for tick in late:
            yield tick
            m = parse(await asyncio.to_thread(scrape, port))
            if "zdash_pool_write_bytes_total" in m:  # from the first report of a known pool on
                seen.append(value(m, "zdash_pool_write_bytes_total", pool="tank"))

    await collect(scraped_as_it_goes(), Folder(state, CheckConfig(), header.interval, header.host))
    m = parse(await asyncio.to_thread(scrape, port))
    assert value(m, "zdash_pool_write_bytes_total", pool="tank") == pytest.approx(written("tank"))
    sick = dict(pool="tank", vdev="mirror-1", leaf="/dev/mapper/sick")
    assert value(m, "zdash_leaf_write_bytes_total", **sick) == pytest.approx(written("/dev/mapper/sick"))
    assert value(m, "zdash_vdev_write_ops_total", pool="tank", vdev="mirror-1") > 0
    assert seen == sorted(seen) and seen[-1] > seen[0] > 0  # a counter only goes up
    # No rate gauges any more: the rates are Prometheus's to take.
    assert not [n for n in m if n.endswith("_per_second")]
    # The same metrics as a single moment (the textfile) have no totals to give.
    assert state.latest is not None
    one_moment = parse(exposition(state.latest.snapshot, state.latest.findings).decode())
    assert "zdash_pool_state" in one_moment
    assert not [n for n in one_moment if n.endswith(("_ops_total", "_bytes_total"))]


async def test_a_scrape_never_waits_for_the_source(exporter):
    """The source hangs after one tick (a zpool that stopped answering): scrapes are still
    answered at once, from the last snapshot."""
    state, port = exporter
    stuck = asyncio.Event()

    async def one_then_hang():
        async for tick in recording("healthy"):
            yield tick
            await stuck.wait()

    task = asyncio.create_task(collect(one_then_hang(), Folder(state, CheckConfig(), 1.0, None)))
    try:
        assert await asyncio.to_thread(state.wait_folded, 1, 30)
        for _ in range(3):
            m = parse(await asyncio.to_thread(scrape, port))
            assert value(m, "zdash_pool_state", pool="tank", state="ONLINE") == 1
    finally:
        task.cancel()


@pytest.mark.parametrize(
    "listen, says",
    [
        ("localhost:http", "port must be a number"),
        ("127.0.0.1:70000", "port must be a number"),
        ("::1:10134", "in brackets"),
        ("[::1:10134", "in brackets"),
    ],
)
def test_a_bad_listen_address_is_one_line_and_exit_2(capsys, listen, says):
    assert main(["exporter", "--listen", listen]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("zdash exporter: ") and says in err[0]


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["exporter", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"zdash exporter: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_a_bad_config_is_one_line_and_exit_2(capsys, tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text("checks:\n  no_such_threshold: 3\n")
    assert main(["exporter", "--listen", "127.0.0.1:0", "--config", str(cfg)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def _poll(fn, timeout: float):
    """fn() until it returns something truthy, for at most `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        got = fn()
        if got or time.monotonic() > end:
            return got
        time.sleep(0.2)


def test_the_command_serves_a_live_host_and_says_when_zpool_fails(tmp_path):
    """`zdash exporter` itself, on a host whose zpool is the stand-in replaying real output: it
    serves the pools, shows `zpool status` going down when it starts failing, and stops cleanly
    on SIGTERM (how systemd stops it)."""
    control = tmp_path / "zpool-control"
    env = dict(
        os.environ,
        PATH=f"{os.path.abspath(FAKES)}:/usr/bin:/bin",
        FAKE_ZPOOL_SCENARIO="deranged-disk",
        FAKE_ZPOOL_CONTROL=str(control),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "zdash", "exporter", "--listen", "127.0.0.1:0", "--interval", "0.5"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "the exporter said nothing in 60 s"
        line = proc.stderr.readline()
        assert line.startswith("zdash exporter: serving http://127.0.0.1:")
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])

        def pool_seen():
            m = parse(scrape(port))
            return m if m.get("zdash_pool_state") else None

        m = _poll(pool_seen, 60)
        assert m, "no pool in the exposition after 60 s"
        assert value(m, "zdash_pool_state", pool="deranged", state="ONLINE") == 1
        assert value(m, "zdash_source_up", source="status") == 1

        control.write_text("status fail\n")

        def status_down():
            m = parse(scrape(port))
            return m if value(m, "zdash_source_up", source="status") == 0 else None

        m = _poll(status_down, 60)
        assert m, "zdash_source_up{source=status} never went to 0"
        assert any(s.labels["check"] == "visibility" for s in m["zdash_finding"])
        assert value(m, "zdash_pool_state", pool="deranged", state="ONLINE") == 1  # last known data

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
