"""Issue 30 on real OpenZFS with real NVMe disks (the lab's `--nvme 2`: QEMU's NVMe controller,
whose SMART/health log smartctl reads): the evidence beside the verdict.

- A dm-delay over one NVMe member of a mirror, under fio: the slow-disk finding carries that
  disk's SMART summary (smartctl -j of /dev/nvme0n1, found under /dev/mapper/slownv through
  lsblk), its disk-wait histogram against its peer's, and, after its controller is reset, the
  kernel log lines that name it (nvme0).
- A healthy NVMe mirror under load: the slow SMART sweep reads both disks and raises nothing.

The schedule's periods are shortened for the test (the sweep's minute to seconds); what is
fetched and how it is judged is the live source's own. Skipped without NVMe disks (a lab run
without --nvme): `labrun --nvme 2 '… tests/zfs/test_evidence_live.py'`.

With ZDASH_EVIDENCE_RECORDING=PATH the slow-disk run is recorded there (to look at it: `zdash
--replay PATH`).
"""

from __future__ import annotations

import os
import time

import pytest

from tests.zfs.lab import Lab, set_delay, sh
from tests.zfs.test_fleet_live import two_hosts  # noqa: F401 - the fixture: two sshds on localhost
from zdash.checks.finding import Severity
from zdash.config import CheckConfig
from zdash.feed.fleet import FleetFeed
from zdash.feed.live import LiveFeed
from zdash.sources import evidence
from zdash.sources.live import LiveSource
from zdash.sources.remote import SshHost

NVME = ("/dev/nvme0n1", "/dev/nvme1n1")
pytestmark = pytest.mark.skipif(
    not all(os.path.exists(d) for d in NVME), reason="no NVMe disks (run the lab with --nvme 2)"
)
INTERVAL = 1.0


@pytest.fixture
def fast_evidence(monkeypatch):
    monkeypatch.setattr(evidence, "HIST_EVERY", 3.0)
    monkeypatch.setattr(evidence, "KERNEL_LOG_EVERY", 5.0)
    monkeypatch.setattr(evidence, "SWEEP_EVERY", 2.0)


def wipe(*disks: str) -> None:
    for d in disks:
        sh("wipefs", "-a", d, check=False)
        sh("zpool", "labelclear", "-f", d, check=False)


def delayed_nvme(lab: Lab, name: str, ms: int) -> str:
    """dm-delay over the whole of /dev/nvme0n1 (torn down with the lab)."""
    sectors = sh("blockdev", "--getsz", NVME[0]).strip()
    sh("dmsetup", "create", name, "--table", f"0 {sectors} delay {NVME[0]} 0 {ms} {NVME[0]} 0 {ms}")
    lab.dms.append(name)
    sh("udevadm", "settle")
    return f"/dev/mapper/{name}"


class Frames:
    """One live feed's frames, read in phases (one source, one fold, one check engine)."""

    def __init__(self, feed: LiveFeed) -> None:
        self.gen = feed.frames()
        self.last = None

    async def until(self, done, timeout: float):
        """Frames until done(frame) or the timeout; the last frame either way."""
        end = time.monotonic() + timeout
        async for frame in self.gen:
            self.last = frame
            if done(frame) or time.monotonic() > end:
                break
        return self.last

    async def close(self) -> None:
        await self.gen.aclose()


def slow_finding(frame, path: str):
    return next((f for f in frame.findings if f.check == "deranged_disk" and f.subject == path), None)


def rows(f, label: str) -> list[str]:
    return [v for k, v in f.evidence if k.startswith(label)]


async def test_the_slow_nvme_disk_finding_carries_its_smart_histogram_and_kernel_log(lab, fast_evidence):
    wipe(*NVME)
    slow = delayed_nvme(lab, "slownv", 0)
    lab.pool("nvslow", "mirror", slow, NVME[1])
    lab.fill("/nvslow/prefill", 16)
    load = lab.load("/nvslow", 240)
    feed = LiveFeed(CheckConfig(), INTERVAL, ("nvslow",))
    recording = os.environ.get("ZDASH_EVIDENCE_RECORDING")
    if recording:
        feed.toggle_recording(recording)
    frames = Frames(feed)
    try:
        await frames.until(lambda f: False, 8)  # a healthy baseline first
        set_delay("slownv", 40)  # onset

        def evidenced(frame):
            f = slow_finding(frame, slow)
            smart = rows(f, "SMART") if f is not None else []
            return (  # SMART read (a first row says "not read yet" while it is asked for)
                smart
                and "not read yet" not in smart[0]
                and rows(f, "Disk wait p99")
                and rows(f, "Latency shape")
            )

        frame = await frames.until(evidenced, 150)
        f = slow_finding(frame, slow)
        assert f is not None, [x.title for x in frame.findings]
        print("\n".join(f"{k}: {v}" for k, v in f.evidence))
        (smart,) = rows(f, "SMART")
        assert (
            smart.startswith("no reallocated, pending or uncorrectable sectors") and "QEMU NVMe Ctrl" in smart
        )
        assert "look at the path to it" in smart  # clean SMART: the cable, HBA, firmware
        (p99,) = rows(f, "Disk wait p99")
        assert "on its peers (/dev/nvme1n1p1)" in p99, p99
        assert rows(f, "Latency shape")[0].startswith(("slow on every I/O", "a long tail")), f.evidence
        disks = frame.snapshot.evidence.disks_of(slow)
        assert disks is not None and disks.disks == ("nvme0n1",) and "nvme0" in disks.names
        # The histogram the finding quotes is also what the UI draws: leaf and peer, by GUID.
        pool = frame.snapshot.pool("nvslow")
        assert all(frame.snapshot.evidence.histogram("nvslow", v.guid) for v in pool.leaves())
        assert not [x for x in frame.findings if x.check == "smart" and x.severity > Severity.INFO]

        reset_at = time.time()
        with open("/sys/class/nvme/nvme0/reset_controller", "w") as ctl:
            ctl.write("1")
        frame = await frames.until(
            lambda fr: (x := slow_finding(fr, slow)) is not None and rows(x, "Kernel"), 60
        )
        f = slow_finding(frame, slow)
        kernel = rows(f, "Kernel") if f is not None else []
        assert kernel and all("nvme0" in line for line in kernel), f.evidence if f else frame.findings
        print(f"kernel log lines {time.time() - reset_at:.0f} s after the reset: {kernel}")
    finally:
        if recording:
            feed.toggle_recording(recording)
        await frames.close()
        load.kill()
        load.wait()
        set_delay("slownv", 0)


async def test_a_healthy_nvme_pools_smart_sweep_raises_nothing(lab, fast_evidence):
    wipe(*NVME)
    lab.pool("nvok", "mirror", *NVME)
    lab.fill("/nvok/prefill", 16)
    load = lab.load("/nvok", 120)
    frames = Frames(LiveFeed(CheckConfig(), INTERVAL, ("nvok",)))
    try:
        frame = await frames.until(lambda f: len(f.snapshot.evidence.smart) >= 2, 90)
    finally:
        await frames.close()
        load.kill()
        load.wait()
    ev = frame.snapshot.evidence
    assert {r.device for r in ev.smart} == {"/dev/nvme0n1", "/dev/nvme1n1"}, ev.smart
    assert all(r.passed and r.model == "QEMU NVMe Ctrl" for r in ev.smart)
    assert ev.smart_unavailable is None
    assert not [f for f in frame.findings if f.severity > Severity.INFO], [f.title for f in frame.findings]
    assert not [f for f in frame.findings if f.check == "smart"]


@pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="no sshd (see tests/zfs/test_fleet_live.py)")
@pytest.mark.usefixtures("two_hosts")
async def test_over_ssh_smartctl_and_the_kernel_log_run_on_the_fleet_host(lab, fast_evidence):
    """The same slow NVMe disk on fleet-a, read over ssh (tests/zfs/test_fleet_live.py's sshd):
    lsblk, readlink, smartctl, zpool iostat -w and journalctl/dmesg run there, and the fleet
    finding (its pool fleet-a:nvssh) carries the SMART summary, the histogram comparison and,
    after nvme0's controller is reset, the kernel log lines naming it."""
    wipe(*NVME)
    slow = delayed_nvme(lab, "sshnv", 0)
    lab.pool("nvssh", "mirror", slow, NVME[1])
    lab.fill("/nvssh/prefill", 16)
    load = lab.load("/nvssh", 240)
    feed = FleetFeed(
        CheckConfig(),
        [SshHost.parse("fleet-a")],
        interval=2.0,
        source_factory=lambda host, runner: LiveSource(2.0, ("nvssh",), runner=runner),
    )
    frames = Frames(feed)
    try:
        await frames.until(lambda f: f.snapshot.pool("fleet-a:nvssh") is not None, 120)
        set_delay("sshnv", 40)

        def evidenced(frame):
            f = next((x for x in frame.findings if x.check == "deranged_disk" and x.subject == slow), None)
            smart = rows(f, "SMART") if f is not None else []
            return smart and "not read yet" not in smart[0] and rows(f, "Disk wait p99")

        frame = await frames.until(evidenced, 180)
        with open("/sys/class/nvme/nvme0/reset_controller", "w") as ctl:
            ctl.write("1")  # lines naming nvme0 in the kernel log, read there
        frame = await frames.until(
            lambda fr: any(x.subject == slow and rows(x, "Kernel") for x in fr.findings), 90
        )
    finally:
        await frames.close()
        load.kill()
        load.wait()
        set_delay("sshnv", 0)
    f = next((x for x in frame.findings if x.check == "deranged_disk" and x.subject == slow), None)
    assert f is not None and f.pool == "fleet-a:nvssh", [x.title for x in frame.findings]
    print("\n".join(f"{k}: {v}" for k, v in f.evidence))
    assert "QEMU NVMe Ctrl" in rows(f, "SMART")[0] and "on its peers" in rows(f, "Disk wait p99")[0]
    assert rows(f, "Kernel") and all("nvme0" in line for line in rows(f, "Kernel"))
    pool = frame.snapshot.pool("fleet-a:nvssh")  # the picture's data under the fleet's pool name
    assert all(frame.snapshot.evidence.histogram("fleet-a:nvssh", v.guid) for v in pool.leaves())
