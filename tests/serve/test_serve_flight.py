"""Issue 27: `zdash serve` keeps the flight recorder in its own process (its browsers' zdash
processes are --read-only and record nothing), so incidents are kept while no browser is
connected. The installed zdash on the fake zpool (the degraded captures): a mirror side goes
offline, an incident file appears, SIGTERM ends it cleanly."""

from __future__ import annotations

import signal
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")

from tests.faults.harness import Sandbox
from zdash.sources import incidents
from zdash.sources.recording import open_recording


@pytest.mark.e2e
def test_zdash_serve_records_an_incident_with_no_browser_connected():
    with tempfile.TemporaryDirectory(prefix="zdash-serve-flight-") as d:
        sb = Sandbox(Path(d), 60.0)
        for sub in ("home", "config", "state", "pids"):
            (sb.dir / sub).mkdir()
        directory = str(sb.dir / "incidents")
        sb.write(
            "config/zdash/config.yaml",
            f"flight_recorder:\n  minutes: 1\n  settle_s: 0\n  min_free_mb: 0\n  dir: {directory}\n",
        )
        control = sb.write("control", "phase resilvered\n")
        proc = sb.popen(
            ["serve", "--wall", "--listen", "127.0.0.1:0", "--interval", "0.5"],
            FAKE_ZPOOL_SCENARIO="degraded",
            FAKE_ZPOOL_CONTROL=control,
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().startswith(b"http://127.0.0.1:")
            # No settle time (settle_s: 0): the healthy phase raises nothing, the first offline
            # sample is the incident, whenever it comes; no wait on the clock.
            sb.write("control", "phase offline\nevents post\n")
            deadline = time.monotonic() + 60
            while not incidents.incident_paths(directory) and time.monotonic() < deadline:
                time.sleep(0.2)
            (path,) = incidents.incident_paths(directory)
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            sb.kill_children()
        assert proc.returncode == 0, err
        said = err.decode()
        assert "zdash serve: incident: mirror-0 has no redundancy left" in said
        inc = incidents.read_incident(path)
        assert inc is not None and inc.state == "zdash stopped" and inc.severity == "CRITICAL"
        rec = open_recording(path)
        try:
            assert (
                rec.count() > 0
                and rec.header.onset is not None
                and "flight recorder" in rec.header.description
            )
        finally:
            rec.close()


def test_served_browsers_never_record_incidents_themselves():
    """Each browser's zdash runs with --no-flight-recorder, --allow-actions or not: zdash serve
    records in its own process, once, whatever the number of browsers."""
    from argparse import Namespace

    from zdash.cli import _parse
    from zdash.commands.serve import served_args

    for allow in (False, True):
        args = Namespace(
            replay=None, demo=False, interval=1.0, wall=not allow, theme=None, allow_actions=allow, pools=[]
        )
        argv = served_args(args)
        assert "--no-flight-recorder" in argv and _parse(argv).flight_recorder is False
