"""HostProbe for another host (a fleet's pool): the same DeviceInfo, read over ssh.

A plan for nas1's pool must check nas1's disks: that the new disk exists there, is not mounted,
carries no pool or filesystem label, is big enough. The local probe reads sysfs and /proc and
runs blkid; over ssh there is no file access, only commands, so each fact comes from the
command that prints it on any Linux with util-linux and coreutils:

- where a bare name lives: `ls -d --` over zpool's search directories (ls prints the ones
  that exist, in the order asked, which is zpool's own lookup order);
- what it is: `stat -L -c %F:%s:%t:%T` (type, size of a file, major/minor of a device);
- the real node and its stable names: `readlink -f`, `ls -l /dev/disk/by-id/`;
- size, sector sizes, parent, partitions, holders, mounts: `lsblk -b -P` on the device (its
  own row first, then the partitions and holders below it; SWAP as a mount point);
- on-disk signatures: `blkid -p -o export` on the disk and its partitions, one call (as the
  local probe: the low-level probe zpool itself consults).

Every command goes through RemoteRunner's argv (one multiplexed connection, the same word
check, nothing a shell would read). A command that fails makes that fact unknown and says so
(probe_error), never an exception in the plan. Synchronous: build_plan runs in a thread.
"""

from __future__ import annotations

import os
import re
import subprocess
import time

from zdash.actions.probe import SEARCH, DeviceInfo, HostProbe, Signature
from zdash.sources.remote import SAFE_WORD, SSH_RC, RemoteRunner
from zdash.sources.runner import command_env

_PAIR = re.compile(r'([A-Z:-]+)="([^"]*)"')
LSBLK_COLUMNS = "KNAME,PKNAME,TYPE,SIZE,LOG-SEC,PHY-SEC,MOUNTPOINT"
HOLDER_TYPES = ("dm", "lvm", "crypt", "raid0", "raid1", "raid4", "raid5", "raid6", "raid10", "md", "mpath")


class RemoteProbeError(RuntimeError):
    """ssh could not ask the host (message is user-facing: the host and ssh's reason)."""


class RemoteProbe(HostProbe):
    def __init__(self, runner: RemoteRunner, timeout: float = 15.0) -> None:
        super().__init__()
        self.runner, self.timeout = runner, timeout

    # -- one remote command ------------------------------------------------------------------
    def _run(self, *argv: str) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of one command there. Raises when ssh itself fails: a
        host that cannot be asked is no answer ("the new disk does not exist" would be a lie),
        so the plan is not built, saying why."""
        started = time.time()
        try:
            p = subprocess.run(
                self.runner.exec_argv(argv),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                env=command_env(),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as e:
            raise RemoteProbeError(f"{self.runner.host}: {argv[0]} timed out after {self.timeout:g} s") from e
        except OSError as e:
            raise RemoteProbeError(self.runner.cannot_start(argv, e)) from e
        self.runner.heard(p.returncode, p.stderr, started)
        if p.returncode == SSH_RC:
            raise RemoteProbeError(self.runner.failure(argv, p.returncode, p.stderr))
        return p.returncode, p.stdout, p.stderr

    def _resolve(self, name: str) -> str:
        """zdash.actions.probe.resolve, on the far side."""
        if name.startswith("/"):
            return name
        candidates = [os.path.join(d, name) for d in SEARCH]
        if not all(SAFE_WORD.match(c) for c in candidates):
            return os.path.join("/dev", name)
        _rc, out, _err = self._run("ls", "-d", "--", *candidates)
        found = set(out.split())
        return next((c for c in candidates if c in found), os.path.join("/dev", name))

    def _stat(self, path: str) -> tuple[str, int, str] | None:
        """(kind, size of a file, major:minor of a block device) or None: nothing there."""
        rc, out, _err = self._run("stat", "-L", "-c", "%F:%s:%t:%T", "--", path)
        if rc != 0 or not out.strip():
            return None
        ftype, size, major, minor = out.strip().rsplit(":", 3)
        if ftype in ("regular file", "regular empty file"):
            return "file", int(size), ""
        if ftype == "block special file":
            return "block", 0, f"{int(major, 16)}:{int(minor, 16)}"
        return "other", 0, ""

    # -- HostProbe ---------------------------------------------------------------------------
    def info(self, name: str) -> DeviceInfo:
        path = self._resolve(name)
        if not SAFE_WORD.match(path):
            return DeviceInfo(path, exists=False, kind="unknown")
        st = self._stat(path)
        if st is None:
            return DeviceInfo(path, exists=False)
        kind, size, _majmin = st
        _rc, out, _err = self._run("readlink", "-f", "--", path)
        real = out.strip() or path
        if kind == "file":
            return DeviceInfo(path, True, "file", real, size=size)
        if kind != "block":
            return DeviceInfo(path, True, "other", real)
        rows = self._lsblk(real)
        if not rows:
            return DeviceInfo(path, True, "block", real, probe_error=f"lsblk on {self.runner.host} failed")
        me = rows[0]
        kernel = me.get("KNAME", os.path.basename(real))
        below = rows[1:]
        parts = tuple(
            sorted(r["KNAME"] for r in below if r.get("TYPE") == "part" and r.get("PKNAME") == kernel)
        )
        family = (kernel, *parts)
        holders = tuple(
            r["KNAME"] for r in below if r.get("TYPE") in HOLDER_TYPES and r.get("PKNAME") in family
        )
        mounts = tuple(
            "swap" if r["MOUNTPOINT"] == "[SWAP]" else r["MOUNTPOINT"]
            for r in rows
            if r.get("MOUNTPOINT") and r.get("KNAME") in family
        )
        sigs, err = self._signatures(family)
        return DeviceInfo(
            path,
            True,
            "block",
            real,
            kernel,
            _int(me.get("SIZE")),
            _int(me.get("LOG-SEC")),
            _int(me.get("PHY-SEC")),
            me.get("PKNAME") or None if me.get("TYPE") == "part" else None,
            parts,
            holders,
            mounts,
            sigs,
            err,
            self._aliases(real),
        )

    def size(self, name: str) -> int | None:
        path = self._resolve(name)
        if not SAFE_WORD.match(path):
            return None
        st = self._stat(path)
        if st is None:
            return None
        kind, size, _majmin = st
        if kind == "file":
            return size
        if kind != "block":
            return None
        rows = self._lsblk(path)
        return (_int(rows[0].get("SIZE")) or None) if rows else None

    def _lsblk(self, path: str) -> list[dict[str, str]]:
        rc, out, _err = self._run("lsblk", "-b", "-P", "-o", LSBLK_COLUMNS, "--", path)
        if rc != 0:
            return []
        return [dict(_PAIR.findall(line)) for line in out.splitlines() if _PAIR.search(line)]

    def _signatures(self, family: tuple[str, ...]) -> tuple[tuple[Signature, ...], str | None]:
        devs = [f"/dev/{k}" for k in family]
        rc, out, err = self._run("blkid", "-p", "-o", "export", "--", *devs)
        if rc == 2 and not out.strip():  # nothing found on any of them
            return (), None
        if rc != 0 and not out.strip():
            why = err.strip().splitlines()[0][:120] if err.strip() else f"exit code {rc}"
            hint = " (not root there?)" if rc in (2, 4, 8) or "ermission" in err else ""
            return (), f"blkid -p on {self.runner.host} failed: {why}{hint}: on-disk labels were not checked"
        sigs: list[Signature] = []
        for block in out.strip().split("\n\n"):
            fields = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
            if fields.get("TYPE"):
                sigs.append(
                    (os.path.basename(fields.get("DEVNAME", "")), fields["TYPE"], fields.get("LABEL", ""))
                )
        return tuple(sigs), None

    def _aliases(self, real: str) -> tuple[str, ...]:
        rc, out, _err = self._run("ls", "-l", "--", self.by_id)
        if rc != 0:
            return ()
        names = []
        for line in out.splitlines():
            if " -> " not in line:
                continue
            left, target = line.rsplit(" -> ", 1)
            name = left.split()[-1]
            if os.path.basename(target.strip()) == os.path.basename(real):
                names.append(name)
        names.sort(key=lambda n: (not n.startswith("wwn-"), n))
        return tuple(os.path.join(self.by_id, n) for n in names)


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None
