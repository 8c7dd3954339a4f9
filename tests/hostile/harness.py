"""What a hostile-input probe runs on: the fault probes' sandbox (tests/faults/harness.py: its own
HOME and XDG directories, the fake `zpool`/`zfs`/`ssh` on PATH, the installed `zdash` as a real
subprocess under a timeout) plus what an attacker beside root has:

- a second, unprivileged user (`zdash-hostile`, created when missing; `nobody` where it cannot be)
  who plants links and files with `setpriv`, as a local user would;
- a world-writable sticky directory that user owns (as /tmp/zdash was when another user made it
  first), and a textfile directory they own (node_exporter's, 0755);
- root's own files, outside every directory that user can write: what must not change, checked
  by name, owner, mode and SHA-256 before and after every writing command.

A probe that needs the second user is skipped, with the reason, when zdash's tests do not run as
root or no user can be switched to (CI runs as root)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.faults.harness import Failed, Outcome, Probe, Sandbox

USER = "zdash-hostile"
CLASSES = ("symlink", "ssh", "escapes", "exhaustion", "yaml", "smaller")


class Skipped(Exception):
    """The probe cannot run here (no root, no second user): said, never counted as passed."""


@dataclass
class HostileProbe(Probe):
    pass


PROBES: list[Probe] = []


def probe(cls: str, name: str | None = None, timeout: float = 20.0) -> Callable:
    assert cls in CLASSES, cls

    def register(fn: Callable[[Sandbox], None]) -> Callable[[Sandbox], None]:
        PROBES.append(Probe(name or fn.__name__.removeprefix("p_").replace("_", "-"), cls, fn, timeout))
        return fn

    return register


def add(cls: str, name: str, fn: Callable[[Sandbox], None], timeout: float = 20.0) -> None:
    assert cls in CLASSES, cls
    PROBES.append(Probe(name, cls, fn, timeout))


def expect(cond: bool, why: str, kind: str = "fail") -> None:
    if not cond:
        raise Failed(kind, why)


# -- the second user ---------------------------------------------------------------------------------

_user: tuple[int, int] | None = None
_user_problem: str | None = None


def second_user() -> tuple[int, int]:
    """(uid, gid) of the unprivileged user, created once; Skipped when there is none."""
    global _user, _user_problem
    if _user is not None:
        return _user
    if _user_problem is not None:
        raise Skipped(_user_problem)
    if os.geteuid() != 0:
        _user_problem = "needs root (a second user plants files only where root then writes)"
        raise Skipped(_user_problem)
    if shutil.which("setpriv") is None:
        _user_problem = "no setpriv (util-linux) to act as a second user"
        raise Skipped(_user_problem)
    for name in (USER, "nobody"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            _user = (entry.pw_uid, entry.pw_gid)
            return _user
        if name == USER and shutil.which("useradd"):
            subprocess.run(
                ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
                capture_output=True,
                check=False,
            )
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam(USER)
                _user = (entry.pw_uid, entry.pw_gid)
                return _user
    _user_problem = f"no user {USER!r} could be created and there is no 'nobody'"
    raise Skipped(_user_problem)


def as_user(*argv: str, cwd: str | None = None) -> None:
    """`argv` run as the second user (setpriv: its uid, gid, no supplementary groups)."""
    uid, gid = second_user()
    res = subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", *argv],
        capture_output=True,
        cwd=cwd,
        timeout=20,
        check=False,
    )
    if res.returncode != 0:
        raise RuntimeError(f"as the second user, {argv} failed: {res.stderr.decode()[-200:]}")


def user_dir(sb: Sandbox, name: str, mode: int) -> Path:
    """A directory the second user owns (created by them), with `mode` (0o1777: sticky, anyone
    writes; 0o755: theirs alone)."""
    uid, gid = second_user()
    os.chmod(sb.dir, 0o755)  # the sandbox is root's 0700: the user must reach inside
    path = sb.dir / name
    path.mkdir()
    os.chown(path, uid, gid)
    as_user("chmod", oct(mode)[2:], str(path))
    return path


def plant_link(target: str | Path, link: str | Path) -> None:
    """A symbolic link made by the second user."""
    as_user("ln", "-s", str(target), str(link))


# -- root's files ----------------------------------------------------------------------------------


class RootFiles:
    """Files root owns, in a directory only root can enter: what a plant points at. `digest()`
    is every name, owner, mode and content below it, for a before/after comparison."""

    def __init__(self, sb: Sandbox) -> None:
        self.dir = sb.dir / "root-only"
        self.dir.mkdir(mode=0o700)
        self.secret = self.dir / "shadow"
        self.secret.write_text("root:$6$secret:19000:0:99999:7:::\n")
        os.chmod(self.secret, 0o600)
        self.config = self.dir / "sshd_config"
        self.config.write_text("PermitRootLogin no\n")
        os.chmod(self.config, 0o644)
        self.absent = self.dir / "created-by-zdash"  # a link to it must not make it exist

    def digest(self) -> dict[str, tuple[int, int, str]]:
        out = {}
        for p in sorted(self.dir.rglob("*")):
            st = os.lstat(p)
            content = hashlib.sha256(p.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else ""
            out[str(p.relative_to(self.dir))] = (st.st_uid, stat.S_IMODE(st.st_mode), content)
        return out

    def unchanged(self, before: dict[str, tuple[int, int, str]], what: str) -> None:
        after = self.digest()
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            raise Failed("data-loss", f"{what}: root's files changed through a planted link: {changed}")


# -- hostile names in the fake zpool's real output ---------------------------------------------------

OSC_TITLE = "\x1b]0;PWNED-TITLE\x07"
OSC_CLIPBOARD = "\x1b]52;c;UFdORUQtQ0xJUA==\x07"  # base64 of "PWNED-CLIP"
CSI_CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
BIDI = "\u202egnp.exe"


def renamed(scenario: str = "healthy", **names: str) -> dict[str, str]:
    """The fake zpool's environment for a captured scenario with its second disk (`errors`: the
    first, which has read errors: a finding names it), its pool (healthy only: `errors` is also a
    word of zpool's output) or its second mirror given another (hostile) name."""
    import json

    mapping = {}
    if "disk" in names:
        mapping[f"/tmp/zl/{scenario}/{'d1' if scenario == 'errors' else 'd2'}"] = names["disk"]
    if "mirror" in names:
        mapping["mirror-1"] = names["mirror"]
    if "pool" in names:
        assert scenario == "healthy"
        mapping["healthy"] = names["pool"]
    return {"FAKE_ZPOOL_RENAME": json.dumps(mapping), "FAKE_ZPOOL_SCENARIO": scenario}


def has_raw_escape(text: str) -> bool:
    """ESC, BEL, CSI as one C1 byte, or any other C0/C1 control besides newline and tab."""
    return any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in text)


# -- running ----------------------------------------------------------------------------------------


def run_probe(p: Probe, root: str | None = None) -> Outcome:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="zdash-hostile-", dir=root) as d:
        sb = Sandbox(Path(d), p.timeout)
        for sub in ("home", "config", "state", "pids"):
            (sb.dir / sub).mkdir()
        try:
            p.fn(sb)
            kind, detail = None, ""
        except Skipped as e:
            kind, detail = "skipped", str(e)
        except Failed as e:
            kind, detail = e.kind, e.detail
        except Exception as e:  # noqa: BLE001 - a broken probe is reported, never hides the rest
            kind, detail = "fail", f"the probe itself failed: {type(e).__name__}: {e}"
        finally:
            sb.kill_children()
            _give_back(sb.dir)
    return Outcome(p, kind, detail, time.monotonic() - started)


def _give_back(path: Path) -> None:
    """Files the second user made are root's to remove (the temporary directory's cleanup)."""
    if os.geteuid() == 0:
        for p in path.rglob("*"):
            with contextlib.suppress(OSError):
                os.lchown(p, 0, 0)
