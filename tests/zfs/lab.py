"""Build real pools for the `zfs` tests: sparse files, loop devices, dm-delay slow disks.

Runs inside ../shared/zfslab (root, real OpenZFS). Everything lives under a per-test folder in
/tmp (guest tmpfs), and `Lab.cleanup()` destroys pools, dm and loop devices it made, so tests
can run one after another in one VM. Keep pools small: the VM is an emulator.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time

import psutil

NULLB = "/sys/kernel/config/nullb"  # null_blk's configfs: one folder per disk


def sh(*argv: str, check: bool = True, timeout: float = 120) -> str:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} -> {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def zfs_available() -> str | None:
    """None when real ZFS is usable here, else why not (the skip reason)."""
    # These tests create and destroy pools: never on a real host unless asked explicitly.
    if socket.gethostname() != "zfslab" and os.environ.get("ZDASH_ZFS_TESTS") != "1":
        return "not in the zfslab VM (set ZDASH_ZFS_TESTS=1 to run on a disposable ZFS host)"
    if shutil.which("zpool") is None:
        return "no zpool on PATH (run the zfs tests inside ../shared/zfslab)"
    if os.geteuid() != 0:
        return "zfs tests need root"
    if not os.path.exists("/dev/zfs"):
        return "no /dev/zfs: the ZFS kernel module is not loaded"
    return None


def cap_arc(limit: int = 384 << 20) -> None:
    """Pool disks are files in guest tmpfs (RAM): a default-sized ARC caching the same data
    again pushes a 2.5 GiB capacity test into memory pressure, which in the emulator looks
    like a hang. The lab is for behaviour, not speed; a small ARC costs nothing there."""
    try:
        with open("/sys/module/zfs/parameters/zfs_arc_max", "w") as f:
            f.write(str(limit))
    except OSError:
        pass


class Load(subprocess.Popen):
    """fio forks one process per job, and the jobs leave fio's process group: killing the group
    alone left them writing, holding the pool busy for a minute. Kill every descendant."""

    def kill(self) -> None:
        try:
            procs = psutil.Process(self.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            procs = []
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for p in procs:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        end = time.monotonic() + 15
        for p in procs:  # not psutil.wait_procs: a reaped child's reused pid made it raise EINVAL
            try:
                p.wait(max(end - time.monotonic(), 0.1))
            except (psutil.Error, OSError):
                pass
        self.wait()


class Lab:
    def __init__(self, root: str) -> None:
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.pools: list[str] = []
        self.loops: list[str] = []
        self.dms: list[str] = []
        self.nullbs: list[str] = []
        self.loads: list[Load] = []

    def file(self, name: str, size: str = "256M") -> str:
        path = os.path.join(self.root, name)
        sh("truncate", "-s", size, path)
        return path

    def loop(
        self, name: str, size: str = "256M", sector: int | None = None, rotational: bool | None = None
    ) -> str:
        """A loop device over a sparse file in tmpfs. `rotational`: the kernel's flag for it
        (sysfs queue/rotational; a loop over tmpfs says solid-state), as a disk's driver sets it."""
        args = ["losetup", "-f", "--show"] + (["--sector-size", str(sector)] if sector else [])
        dev = sh(*args, self.file(name, size)).strip()
        self.loops.append(dev)
        if rotational is not None:
            set_rotational(dev, rotational)
        return dev

    def slow(self, name: str, ms: int, size: str = "256M", rotational: bool | None = None) -> str:
        """A dm-delay device over a loop: every read and write waits `ms` ms (a sick disk).
        `rotational` is set on the loop beneath: device-mapper takes the flag from the devices
        it stacks on, at every table load (one set on the dm device would not survive set_delay)."""
        return self.delayed(name, self.loop(name + ".img", size, rotational=rotational), ms)

    def delayed(self, name: str, dev: str, ms: int) -> str:
        """A dm-delay device `name` over `dev` (set_delay switches it live)."""
        sectors = sh("blockdev", "--getsz", dev).strip()
        sh("dmsetup", "create", name, "--table", f"0 {sectors} delay {dev} 0 {ms} {dev} 0 {ms}")
        self.dms.append(name)
        sh("udevadm", "settle")
        return f"/dev/mapper/{name}"

    def nullb(self, name: str, mib: int, service_us: int, depth: int, rotational: bool) -> str:
        """A RAM-backed null_blk disk that serves `depth` requests at a time, each in
        `service_us` microseconds: with depth 1 and milliseconds, a hard disk's single actuator
        (requests queue behind each other, so its latency grows with its load, as a real one's
        does); with a deep queue and tens of microseconds, flash. `rotational`: the kernel's flag."""
        if not os.path.isdir(NULLB):
            sh("modprobe", "null_blk", "nr_devices=0")
            if not os.path.isdir(NULLB):
                sh("mount", "-t", "configfs", "none", "/sys/kernel/config")
        d = os.path.join(NULLB, name)
        os.mkdir(d)
        self.nullbs.append(name)
        attrs = {
            "size": mib,
            "blocksize": 4096,
            "memory_backed": 1,
            "irqmode": 2,  # completion by timer: after completion_nsec
            "completion_nsec": service_us * 1000,
            "hw_queue_depth": depth,
            "submit_queues": 1,
            "power": 1,
        }
        for attr, value in attrs.items():
            with open(os.path.join(d, attr), "w") as f:
                f.write(str(value))
        sh("udevadm", "settle")
        dev = f"/dev/{name}"  # the folder's name (kernels before 5.19: nullb<index>)
        if not os.path.exists(dev):
            with open(os.path.join(d, "index")) as f:
                dev = f"/dev/nullb{f.read().strip()}"
        set_rotational(dev, rotational)
        return dev

    def pool(self, name: str, *vdev_spec: str, opts: tuple[str, ...] = ()) -> str:
        sh("zpool", "create", "-f", *opts, name, *vdev_spec)
        self.pools.append(name)
        return name

    def grown_vdev_pool(self, name: str) -> str:
        """Vdevs of different sizes, the way it happens: two mirrors of 256 MiB files filled to
        ~60 %, then mirror-1's disks "upgraded" to 1 GiB and expanded in place."""
        c, d = self.file("c"), self.file("d")
        self.pool(name, "mirror", self.file("a"), self.file("b"), "mirror", c, d)
        self.fill(f"/{name}/data", 260)
        for f in (c, d):
            sh("truncate", "-s", "1G", f)
        sh("zpool", "online", "-e", name, c, d)
        self.fill(f"/{name}/new", 8)
        return name

    def fill(self, path: str, mib: int) -> None:
        """Incompressible data, then a txg sync so zpool list sees it."""
        with open("/dev/urandom", "rb") as src, open(path, "wb") as dst:
            for _ in range(mib):
                dst.write(src.read(1 << 20))
        sh("zpool", "sync")

    def load(
        self,
        directory: str,
        seconds: int,
        size: str = "32M",
        rate: str | None = "4m",
        rw: str = "randrw",
        bs: str = "64k",
        fsync: int = 4,
    ) -> Load:
        """fio random read/write (`rw`) in the background, fsync-heavy so I/O reaches the disks.
        Rate-limited: enough to saturate a 40 ms disk (64 I/Os of 64k per second), and little
        enough dirty data that a killed fio exits at once instead of holding the pool busy
        (unlimited, teardowns took 30-75 s in the emulator)."""
        load = Load(
            [
                "fio",
                "--name=load",
                f"--directory={directory}",
                f"--size={size}",
                f"--rw={rw}",
                f"--bs={bs}",
                "--ioengine=psync",
                "--numjobs=2",
                f"--fsync={fsync}",
                "--time_based",
                *([f"--rate={rate},{rate}"] if rate else []),
                f"--runtime={seconds}",
                "--group_reporting",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.loads.append(load)
        return load

    def cleanup(self) -> None:
        for d in self.dms:  # a 40 ms disk drains a killed writer's queued I/O slowly: speed it up
            set_delay(d, 0)
        for load in self.loads:
            load.kill()
        for p in reversed(self.pools):
            self._destroy(p)
        for d in self.dms:
            for _ in range(10):  # udev may still hold it for a moment after the pool goes
                if subprocess.run(["dmsetup", "remove", d], capture_output=True).returncode == 0:
                    break
                time.sleep(0.5)
        for loop_dev in self.loops:
            sh("losetup", "-d", loop_dev, check=False)
        for name in self.nullbs:
            d = os.path.join(NULLB, name)
            try:
                with open(os.path.join(d, "power"), "w") as f:
                    f.write("0")
                os.rmdir(d)
            except OSError as e:
                print(f"lab cleanup: cannot remove null_blk {name}: {e}")
        shutil.rmtree(self.root, ignore_errors=True)

    @staticmethod
    def _destroy(pool: str) -> None:
        """ "pool is busy" while killed writers still let go of files: retry for 30 s, then
        unmount lazily, so one stuck pool does not leave /POOL behind for the next test."""
        r = None
        for attempt in range(60):
            if attempt == 40:
                subprocess.run(["umount", "-l", f"/{pool}"], capture_output=True)
            r = subprocess.run(["zpool", "destroy", "-f", pool], capture_output=True, text=True)
            if r.returncode == 0 or "no such pool" in r.stderr:
                break
            time.sleep(0.5)
        else:
            print(f"lab cleanup: cannot destroy {pool}: {r.stderr.strip()}")
        shutil.rmtree(f"/{pool}", ignore_errors=True)


def set_rotational(dev: str, rotational: bool) -> None:
    """The kernel's rotational flag of a block device (/dev/loop3), as zdash reads it from sysfs."""
    with open(f"/sys/block/{os.path.basename(dev)}/queue/rotational", "w") as f:
        f.write("1" if rotational else "0")


def set_delay(name: str, ms: int) -> None:
    """Switch a dm-delay device's delay live (the onset of a sick disk, or its cure)."""
    table = sh("dmsetup", "table", name, check=False).split()
    if len(table) < 9:
        return
    table[5] = table[8] = str(ms)  # "0 N delay <dev> 0 <ms> <dev> 0 <ms>"
    sh("dmsetup", "suspend", name, check=False)
    sh("dmsetup", "reload", name, "--table", " ".join(table), check=False)
    sh("dmsetup", "resume", name, check=False)
