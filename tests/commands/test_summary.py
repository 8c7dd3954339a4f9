"""`zdash summary FILE`: a recording read as a timeline, one line per tick."""

from __future__ import annotations

import re

from zdash.builder import MAX_LEAF_BYTES_PER_S
from zdash.cli import main
from zdash.fold.recording import load_replay
from zdash.scenarios import path_of

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50, "EiB": 2**60}


def summary(capsys, name: str) -> list[str]:
    assert main(["summary", name]) == 0
    return capsys.readouterr().out.splitlines()[1:]


def test_each_tick_says_state_capacity_scan_throughput_and_the_worst_finding(capsys):
    lines = summary(capsys, "degraded-resilver")
    _, snaps = load_replay(path_of("degraded-resilver"))
    assert len(lines) == len(snaps)
    assert lines[0].startswith("tick 1  ") and "tank ONLINE 25%" in lines[0] and lines[0].endswith("ok")
    offline = next(line for line in lines if "DEGRADED" in line)
    assert "CRIT mirror-1 has no redundancy left: runs on" in offline
    resilvering = next(line for line in lines if "resilver" in line.split("  ")[3])
    assert re.search(r"resilver \d+%", resilvering) and "resilvering onto /dev/mapper/newdisk" in resilvering
    assert re.search(r"r [\d.]+ \S+/s w [\d.]+ \S+/s", lines[-1])
    assert lines[-1].endswith("ok")  # the resilver ended and the pool is whole again


def test_no_rate_beyond_what_a_device_can_do_even_when_the_replacing_vdev_detaches(capsys):
    """iostat's interval across the detach carries wrapped counters (8x10^18 B/s raw)."""
    lines = summary(capsys, "degraded-resilver")
    rates = [float(n) * UNITS[u] for line in lines for n, u in re.findall(r"([\d.]+) (\w+)/s", line)]
    assert rates and max(rates) < MAX_LEAF_BYTES_PER_S
    assert any(" r - w - " in line for line in lines[40:])  # the detach tick: no rate, not a number
    _, snaps = load_replay(path_of("degraded-resilver"))
    for s in snaps:  # what the header, the table and the chart draw from
        for v in s.pool("tank").root.walk():
            if s.pool("tank").io_of(v) is not None:
                assert (
                    s.pool("tank").io_of(v).read_bytes + s.pool("tank").io_of(v).write_bytes
                    < MAX_LEAF_BYTES_PER_S
                ), (s.time, v.name)
