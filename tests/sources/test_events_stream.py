"""The followed event log: complete events handed over once per tick, partial ones kept for
the next, a dead stream said so; and the builder keeps each event once."""

from __future__ import annotations

import asyncio
import sys

from tests.parse.test_zpool_events import IO_EVENT_21
from zdash.builder import SnapshotBuilder
from zdash.raw import Tick
from zdash.sources.events_stream import EventsStream


def _child(text: str, then_sleep: bool = True) -> tuple[str, ...]:
    half = len(text) // 2
    code = (
        "import sys, time\n"
        f"t = {text!r}\n"
        f"sys.stdout.write(t[:{half}]); sys.stdout.flush(); time.sleep(0.3)\n"
        f"sys.stdout.write(t[{half}:]); sys.stdout.flush()\n" + ("time.sleep(30)\n" if then_sleep else "")
    )
    return (sys.executable, "-c", code)


async def test_complete_events_come_once_and_a_half_written_one_waits():
    stream = EventsStream(_child(IO_EVENT_21 + IO_EVENT_21.split("\n", 1)[1]))
    task = asyncio.ensure_future(stream.run())
    got = []
    for _ in range(200):  # bounded wait for the child's output, not a timing assertion
        if (s := stream.take()) is not None:
            got.append(s)
        if sum(x.stdout.count("eid = ") for x in got) >= 2:
            break
        await asyncio.sleep(0.02)
    await stream.stop()
    await task
    assert sum(x.stdout.count("eid = ") for x in got) == 2
    assert all(x.stdout.endswith("\n\n") and x.key == "events" for x in got)
    b = SnapshotBuilder()
    snaps = [b.feed(Tick(1633862400.0 + i, (x,))) for i, x in enumerate(got)]
    assert len(snaps[-1].events) == 1  # the same event printed twice is kept once
    assert snaps[-1].events[0].vdev_path.endswith("ZHZ54DBW-part1")


async def test_a_stream_that_ends_says_why():
    stream = EventsStream(
        (sys.executable, "-c", "import sys; sys.stderr.write('permission denied\\n'); sys.exit(1)")
    )
    await stream.run()
    assert stream.error == "zpool events stopped: permission denied"


async def test_a_follower_over_ssh_says_whether_it_died_with_the_host(monkeypatch, tmp_path):
    """Refused by a stopped sshd: lost with the host (the live source follows it again within
    seconds). Ended by zpool on a host that answers (denied): not, whatever the host did since."""
    from tests.fakes import use_fake_ssh
    from zdash.sources.remote import RemoteRunner, SshHost

    use_fake_ssh(monkeypatch, tmp_path)
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    (tmp_path / "down").write_text("nas2\n")
    refused = EventsStream(runner=RemoteRunner(SshHost.parse("nas2"), timeout=20.0))
    await asyncio.wait_for(refused.run(), 30)
    assert refused.unreachable and "Connection refused" in (refused.error or "")
    (tmp_path / "down").write_text("")
    monkeypatch.setenv("FAKE_ZPOOL_MODE", "denied")
    monkeypatch.setenv("FAKE_ZPOOL_SUBCMDS", "events")
    denied = EventsStream(runner=RemoteRunner(SshHost.parse("nas2"), timeout=20.0))
    await asyncio.wait_for(denied.run(), 30)
    assert denied.error and not denied.unreachable
