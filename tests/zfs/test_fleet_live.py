"""The fleet wall over real ssh (marker `zfs`, run inside ../shared/zfslab): two sshd
instances on localhost, two ports, each its own config, host key and the authorized key this
test generates, stand for two hosts; `fleet-a` and `fleet-b` are ssh config aliases for them.
Each host is restricted to its own pool with zdash's pool argument (the LiveSource's `pools`,
per host): that filter is what zdash sends in every command, so the test sees exactly the argv
a user's run sends; a forced-command wrapper on the server would rewrite the commands and hide
that. The wall shows both hosts' pools; stopping one sshd (the daemon and its sessions: the
host is gone) shows that host unreachable within two intervals while the other keeps updating.

sshd is Debian's openssh-server (`apt-get install -y openssh-server` on the host before the VM
boots: the guest's root is a snapshot of the host's); without it the test says so and skips.

    ../shared/zfslab/zfslab run --mem 3G '.venv/bin/pytest -q -n 0 --timeout 300 tests/zfs/test_fleet_live.py'
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.ui.conftest import until, wait_frame
from tests.zfs.lab import sh, zfs_available
from zdash.actions import AuditLog, Request
from zdash.checks.visibility import STALL_GRACE_S
from zdash.config import CheckConfig
from zdash.feed.fleet import FleetFeed
from zdash.sources.live import LiveSource
from zdash.sources.remote import SshHost
from zdash.ui.app import WallApp, ZdashApp

WHY_NOT = zfs_available() or (
    None
    if os.path.exists("/usr/sbin/sshd")
    else "no /usr/sbin/sshd (apt-get install -y openssh-server on the host before booting the lab)"
)
pytestmark = [pytest.mark.zfs, pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")]

INTERVAL = 2.0
SSH_CONFIG = Path("/root/.ssh/config")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sshd(d: Path, name: str, port: int, authorized: Path) -> subprocess.Popen:
    key = d / f"host_{name}"
    home = d / "home"  # the sessions' HOME: see SetEnv below
    home.mkdir(exist_ok=True)
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
    cfg = d / f"sshd_{name}"
    cfg.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {key}\nAuthorizedKeysFile {authorized}\n"
        f"PidFile {d}/sshd_{name}.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nMaxSessions 50\n"
        "MaxStartups 50\n"
        # bash sources ~/.bashrc for every command sshd starts (its rule for a shell run by
        # sshd), and the lab guest's /root is the host's: its .bashrc runs `pyenv init`, about
        # 370 processes, 11 s per session under the lab's emulated CPU (measured: every
        # command then outlasted zdash's 10 s timeout). An empty home of the test's own keeps
        # that out without touching the commands zdash sends.
        f"SetEnv HOME={home}\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)
    with open(d / f"sshd_{name}.log", "w") as log:  # the child keeps its own copy of the fd
        proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(cfg)], stderr=log)
    end = time.monotonic() + 20
    while time.monotonic() < end:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return proc
        time.sleep(0.2)
    raise AssertionError(f"sshd {name} did not listen on {port}: {(d / f'sshd_{name}.log').read_text()}")


def stop_host(proc: subprocess.Popen) -> float:
    """The daemon and every session it forked (they outlive a killed daemon): the host is gone."""
    procs = [proc.pid] + [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    for pid in procs:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(10)
    return time.time()


@pytest.fixture
def two_hosts(tmp_path):
    d = tmp_path
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "id"))
    authorized = d / "authorized_keys"
    authorized.write_text((d / "id.pub").read_text())
    ports = {"a": free_port(), "b": free_port()}
    procs = {n: start_sshd(d, n, p, authorized) for n, p in ports.items()}
    saved = SSH_CONFIG.read_text() if SSH_CONFIG.exists() else None
    SSH_CONFIG.parent.mkdir(mode=0o700, exist_ok=True)
    SSH_CONFIG.write_text(
        "".join(
            f"Host fleet-{n}\n  HostName 127.0.0.1\n  Port {p}\n  User root\n  IdentityFile {d}/id\n"
            f"  UserKnownHostsFile {d}/known_hosts\n  StrictHostKeyChecking accept-new\n"
            for n, p in ports.items()
        )
        + (saved or "")
    )
    # Longer than a unix socket path allows for ssh's ControlPath (tmp_path: /tmp/pytest-of-root/
    # pytest-N/test_fleet_wall_over_two_sshds0/…): zdash must put its masters elsewhere.
    os.environ["XDG_RUNTIME_DIR"] = str(d)
    try:
        yield procs
    finally:
        for p in procs.values():
            with contextlib.suppress(Exception):
                stop_host(p)
        if saved is None:
            SSH_CONFIG.unlink()
        else:
            SSH_CONFIG.write_text(saved)
        os.environ.pop("XDG_RUNTIME_DIR", None)


def fleet_feed() -> FleetFeed:
    """fleet-a and fleet-b, each restricted to its own pool (fa, fb) by zdash's pool argument."""
    own = {"fleet-a": ("fa",), "fleet-b": ("fb",)}
    return FleetFeed(
        CheckConfig(),
        [SshHost.parse("fleet-a"), SshHost.parse("fleet-b")],
        interval=INTERVAL,
        source_factory=lambda host, runner: LiveSource(INTERVAL, own[host.label], runner=runner),
    )


def down(frame) -> float | None:
    """When the frame says fleet-a became unreachable (its ssh source's age is counted from
    then), None while it does not."""
    for s in frame.snapshot.problems:
        if "fleet-a unreachable since" in (s.message or "") and s.age_s is not None:
            return frame.snapshot.time - s.age_s
    return None


def heard(frame, host: str, key: str) -> float | None:
    """When the frame's `key` input of `host` last had good data (None: never, or no such input)."""
    for s in frame.snapshot.sources:
        if s.key == f"{host} {key}" and s.age_s is not None:
            return frame.snapshot.time - s.age_s
    return None


async def test_fleet_wall_over_two_sshds(lab, two_hosts):
    lab.pool("fa", lab.loop("a1"))
    lab.pool("fb", "mirror", lab.loop("b1"), lab.loop("b2"))
    feed = fleet_feed()
    app = WallApp(feed)
    async with app.run_test(size=(160, 50)) as pilot:
        tiles = lambda: sorted(t.border_title for t in app.screen.query("PoolTile"))  # noqa: E731
        await until(
            pilot, lambda: tiles() == ["fleet-a:fa", "fleet-b:fb"], timeout=120, what="both hosts' tiles"
        )
        fb = await wait_frame(
            pilot,
            lambda f: (p := f.snapshot.pool("fleet-b:fb")) and any(p.io_of(v) for v in p.leaves()),
            timeout=60,
        )
        assert fb.snapshot.pool("fleet-b:fb").state == "ONLINE"
        killed = stop_host(two_hosts["a"])
        frame = await wait_frame(pilot, lambda f: down(f) is not None, timeout=60)
        # When the wall first said so, from that frame's own figures (the runner's state may
        # have moved on by the time this line runs).
        since = down(frame)
        assert since is not None and since - killed <= 2 * INTERVAL, f"seen {since - killed:.1f} s after"
        await until(
            pilot,
            lambda: "fleet-a unreachable since" in str(app.screen.query_one("#wall-banner").render()),
            timeout=30,
            what="fleet-a unreachable in the wall's banner",
        )
        assert app.screen.query("PoolTile").first().border_title == "fleet-a:fa"  # worst first
        # fleet-b keeps updating: an iostat report from it read after fleet-a went down, its
        # rates on fleet-b's disks in that frame. (The member's own clock ticks whatever its
        # data: waiting on it once left the test judging a frame where fleet-b's report was
        # a few seconds late over ssh in the emulator, its rates not shown yet.)
        later = (
            await wait_frame(
                pilot,
                lambda f: (
                    (t := heard(f, "fleet-b", "iostat")) is not None
                    and t > killed
                    and (p := f.snapshot.pool("fleet-b:fb")) is not None
                    and any(p.io_of(v) is not None for v in p.leaves())
                ),
                timeout=30,
            )
        ).snapshot
        # No fleet-b error, and no lag a verdict would count (a reading a few seconds late over
        # ssh in the emulator is STALE on screen, not a problem: visibility's grace).
        assert not [
            s
            for s in later.problems
            if s.key.startswith("fleet-b") and not (s.stalled and (s.age_s or 0.0) < STALL_GRACE_S)
        ], later.problems
        # fleet-a's "since" held from the first frame that said it (no flicker back to reachable).
        assert down(app.frame) == pytest.approx(since, abs=0.5)
        print(
            f"fleet-a unreachable {since - killed:.2f} s after its sshd stopped; {frame.snapshot.problems[0].message}"
        )


async def test_a_guided_action_on_a_fleet_pool_runs_on_its_host(lab, two_hosts, tmp_path):
    """Attach a new disk to fleet-a's single-disk pool from the fleet dashboard: the plan is
    checked over fleet-a's ssh (its zpool status, and the new disk through RemoteProbe: lsblk,
    blkid -p on the real loop device), then `zpool attach` runs there and the pool is a mirror.
    A disk already in fleet-b's pool is refused as the new disk, by the same remote checks."""
    a1 = lab.loop("a1")
    lab.pool("fa", a1)
    lab.fill("/fa/data", 16)
    new = lab.loop("anew")
    b1 = lab.loop("b1")
    lab.pool("fb", "mirror", b1, lab.loop("b2"))
    feed = fleet_feed()
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    app = ZdashApp(feed, record_dir=str(tmp_path), audit=audit)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_frame(pilot, lambda f: f.snapshot.pool("fleet-a:fa") is not None, timeout=120)
        in_use = await app.plan_action(Request("attach", "fa", a1, b1, host="fleet-a"))
        assert not in_use.ok and any("fb" in c.reason for c in in_use.failures), in_use.checks
        plan = await app.plan_action(Request("attach", "fa", a1, new, host="fleet-a"))
        assert plan.host == "fleet-a" and plan.argv == ("zpool", "attach", "fa", a1, new)
        assert plan.ok, [(c.name, c.reason) for c in plan.failures]
        out = await app.run_plan(plan)
        assert out.ok, out.refused_reason or out.stderr
    sh("zpool", "wait", "-t", "resilver", "fa")
    status = sh("zpool", "status", "-P", "fa")
    assert "mirror-0" in status and new in status, status
    record = json.loads(Path(audit.path).read_text().splitlines()[-1])
    assert record["target_host"] == "fleet-a" and record["outcome"] == "ok"


def test_check_and_record_over_ssh_for_a_central_nagios(lab, two_hosts, tmp_path):
    """`zdash check --host` as a central Nagios runs it: fleet-a's mirror has lost a side, so
    the check says CRITICAL (exit 2) naming the pool, read over ssh from the real pool, and
    nothing UNKNOWN (a late iostat stream over ssh once made it so); fleet-b's healthy mirror is
    OK (exit 0); fleet-b is recorded with `zdash record --host` and the recording replays its pool; with fleet-a's
    sshd stopped the check is UNKNOWN (exit 3) with ssh's reason on line 1."""
    a1, a2 = lab.loop("a1"), lab.loop("a2")
    lab.pool("fa", "mirror", a1, a2)
    sh("zpool", "offline", "fa", a2)
    lab.pool("fb", "mirror", lab.loop("b1"), lab.loop("b2"))
    zdash = [sys.executable, "-m", "zdash"]
    crit = subprocess.run(
        [*zdash, "check", "--host", "fleet-a", "fa"], capture_output=True, text=True, timeout=120
    )
    print(crit.stdout, crit.stderr)
    assert crit.returncode == 2 and "fa" in crit.stdout.splitlines()[0], (crit.stdout, crit.stderr)
    assert "UNKNOWN" not in crit.stdout, crit.stdout  # every source read, over ssh
    ok = subprocess.run(
        [*zdash, "check", "--host", "fleet-b", "fb"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0 and ok.stdout.startswith("ZDASH OK"), (ok.stdout, ok.stderr)
    out = tmp_path / "fleet-b.zdash"
    rec = subprocess.run(
        [*zdash, "record", "--host", "fleet-b", "-o", str(out), "--duration", "4", "fb"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rec.returncode == 0, rec.stderr
    replayed = subprocess.run(
        [*zdash, "check", "--replay", str(out), "--json"], capture_output=True, text=True, timeout=120
    )
    report = json.loads(replayed.stdout)
    assert replayed.returncode == 0 and "fleet-b" in json.dumps(report) and "fb" in json.dumps(report), report
    stop_host(two_hosts["a"])
    down = subprocess.run([*zdash, "check", "--host", "fleet-a"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 3 and "fleet-a" in down.stdout.splitlines()[0], (down.stdout, down.stderr)
