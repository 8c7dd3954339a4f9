"""`zdash exporter` on a real pool, scraped by a real Prometheus server: a mirror member on
dm-delay under fio load shows up as `zdash_finding{check="deranged_disk"}` in a PromQL query
through Prometheus's HTTP API, the fio writes show as rate() of the exporter's byte counters,
and `promtool check metrics` accepts what the exporter serves.

Prometheus is Debian's package (`apt-get install prometheus` on the host before the VM boots:
the guest's root is a snapshot of the host's); without it the test says so and skips."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.zfs.lab import set_delay

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(
    PROMETHEUS is None or PROMTOOL is None,
    reason="prometheus/promtool not installed (apt-get install -y prometheus on the host before booting the lab)",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 10) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def poll(fn, timeout: float, what: str):
    """fn() until it returns something truthy (connection errors count as not yet), bounded."""
    end = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < end:
        try:
            got = fn()
        except OSError as e:
            got, last = None, e
        if got:
            return got
        time.sleep(1)
    raise AssertionError(f"{what}: nothing within {timeout:.0f} s (last error: {last})")


def query(prom_port: int, promql: str) -> list[dict]:
    url = f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    doc = json.loads(get(url))
    assert doc["status"] == "success", doc
    return doc["data"]["result"]


@contextlib.contextmanager
def running(argv: list[str], log: Path):
    """A background process, its output in `log`; SIGTERM on the way out. Yields the process."""
    with open(log, "w") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_prometheus_scrapes_the_slow_disk_finding(lab, tmp_path):
    a, b, c = lab.loop("a"), lab.loop("b"), lab.loop("c")
    slow = lab.slow("promsick", 0)
    lab.pool("pt", "mirror", a, b, "mirror", c, slow)
    lab.fill("/pt/prefill", 16)
    load = lab.load("/pt", 240)
    set_delay("promsick", 40)  # a sick disk: 40 ms per I/O, while its partner answers at once

    port, prom_port = free_port(), free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"scrape_configs:\n  - job_name: zdash\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
    )
    exporter_argv = [
        sys.executable,
        "-m",
        "zdash",
        "exporter",
        "--listen",
        f"127.0.0.1:{port}",
        "--interval",
        "1",
        "pt",
    ]
    prometheus_argv = [
        PROMETHEUS,
        f"--config.file={config}",
        f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{prom_port}",
        "--storage.tsdb.retention.time=1h",
    ]
    logs = (tmp_path / "exporter.log", tmp_path / "prometheus.log")
    try:
        with running(exporter_argv, logs[0]) as exporter, running(prometheus_argv, logs[1]):
            scrape_through_prometheus(port, prom_port, slow, c)
            exporter.send_signal(signal.SIGTERM)
            assert exporter.wait(timeout=30) == 0  # SIGTERM ends the exporter cleanly
    except BaseException:
        for log in logs:
            if log.exists():
                print(f"--- {log.name}\n" + log.read_text()[-3000:])
        raise
    finally:
        load.kill()


def scrape_through_prometheus(port: int, prom_port: int, slow: str, partner: str) -> None:
    # The exporter answers (it imports and binds in seconds even in the emulator).
    poll(lambda: get(f"http://127.0.0.1:{port}/metrics"), 120, "exporter /metrics")
    # Prometheus scrapes it: up{job="zdash"} == 1.
    poll(lambda: [r for r in query(prom_port, 'up{job="zdash"}') if r["value"][1] == "1"], 120, "up")

    # The PromQL an alert rule would use names the slow disk.
    def slow_disk_finding():
        return [
            r["metric"]
            for r in query(prom_port, 'zdash_finding{check="deranged_disk"}')
            if r["metric"].get("subject") == slow
        ]

    hits = poll(slow_disk_finding, 150, 'zdash_finding{check="deranged_disk"}')
    print(f'PromQL zdash_finding{{check="deranged_disk"}} -> {hits}')
    assert hits[0]["pool"] == "pt" and hits[0]["severity"] in ("warning", "critical")
    assert hits[0]["job"] == "zdash"

    # The lesson in numbers, through Prometheus: its %UTIL beside its partner's.
    util = {
        r["metric"]["leaf"]: float(r["value"][1])
        for r in query(prom_port, 'zdash_leaf_utilization_ratio{pool="pt",vdev="mirror-1"}')
    }
    print(f'PromQL zdash_leaf_utilization_ratio{{vdev="mirror-1"}} -> {util}')
    assert util[slow] > util[partner]

    # Throughput as the Grafana panel asks for it: rate() of the exporter's byte counters, the
    # fio writes showing on the slow disk's vdev.
    def writing():
        return {
            r["metric"]["vdev"]: float(r["value"][1])
            for r in query(prom_port, 'rate(zdash_vdev_write_bytes_total{pool="pt"}[30s])')
            if float(r["value"][1]) > 0
        }

    rates = poll(writing, 60, 'rate(zdash_vdev_write_bytes_total{pool="pt"}[30s]) > 0')
    print(f'PromQL rate(zdash_vdev_write_bytes_total{{pool="pt"}}[30s]) -> {rates}')
    assert "mirror-1" in rates

    # promtool accepts what the exporter serves on the live host.
    exposition = get(f"http://127.0.0.1:{port}/metrics")
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=exposition, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'zdash_source_up{source="status"} 1.0' in exposition
    assert "# TYPE zdash_leaf_write_bytes_total counter" in exposition and "_per_second" not in exposition
