"""Writes that follow a planted link (class `symlink`): every file zdash writes (the textfile,
recordings and their lock and journal, import, convert, the audit log, crash reports, the
dashboard's recordings and screenshots), with a second user's links and files planted where root
then writes. Root's own files must come out unchanged (RootFiles.digest, before and after)."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.faults.harness import Failed, Sandbox
from tests.faults.probes import paste_text
from tests.hostile.harness import (
    RootFiles,
    add,
    as_user,
    expect,
    plant_link,
    probe,
    second_user,
    user_dir,
)

# -- node_exporter's textfile: a directory its service user owns -------------------------------------


def _textfile(plant: str, target: str, sticky: bool = False) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        root = RootFiles(sb)
        textdir = user_dir(sb, "textfile", 0o1777 if sticky else 0o755)
        plant_link(getattr(root, target), textdir / plant)
        before = root.digest()
        res = sb.run(
            "check", "--samples", "2", "--interval", "0.2", "--prometheus", str(textdir / "zfs.prom")
        )
        root.unchanged(before, f"check --prometheus with {plant} planted ({res.brief()})")
        expect(res.rc in (0, 1, 2, 3), f"exit {res.rc}")
        if plant == "zfs.prom":  # the target itself is a link: refused, said in one line
            expect(res.rc == 2 and "link" in res.err, f"a linked textfile was not refused: {res.brief()}")

    return fn


add("symlink", "textfile-tmp-link-to-root-file", _textfile("zfs.prom.tmp", "secret"))
add("symlink", "textfile-tmp-link-to-absent-file", _textfile("zfs.prom.tmp", "absent"))
add("symlink", "textfile-tmp-link-in-sticky-dir", _textfile("zfs.prom.tmp", "config", sticky=True))
add("symlink", "textfile-itself-a-link-to-root-file", _textfile("zfs.prom", "secret"))
add("symlink", "textfile-itself-a-link-to-absent-file", _textfile("zfs.prom", "absent"))


@probe("symlink")
def p_textfile_keeps_its_mode_and_owner_only_on_zdash_files(sb: Sandbox) -> None:
    """A textfile zdash writes is 0644 (node_exporter reads it) and root's; a file another user
    left there is replaced, never chmod-ed or written through."""
    textdir = user_dir(sb, "textfile", 0o755)
    as_user("sh", "-c", f"echo planted > {textdir / 'zfs.prom'}")
    res = sb.run("check", "--samples", "2", "--interval", "0.2", "--prometheus", str(textdir / "zfs.prom"))
    st = os.lstat(textdir / "zfs.prom")
    expect(res.rc in (0, 1, 2), f"exit {res.rc}: {res.brief()}")
    expect(stat.S_ISREG(st.st_mode) and st.st_uid == 0, "the textfile is not root's own new file")
    expect(stat.S_IMODE(st.st_mode) == 0o644, f"textfile mode {oct(stat.S_IMODE(st.st_mode))}, not 0644")
    leftovers = [p.name for p in textdir.iterdir() if p.name != "zfs.prom"]
    expect(not leftovers, f"temporary files left in the textfile directory: {leftovers}")


# -- recordings in a world-writable sticky directory the second user owns -----------------------------


def _record(cmd: str, suffix: str, plant: str, target: str, force: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        root = RootFiles(sb)
        shared = user_dir(sb, "shared", 0o1777)
        out = shared / f"incident{suffix}"
        plant_link(getattr(root, target), Path(str(out) + plant))
        before = root.digest()
        extra = ["--force"] if force else []
        if cmd == "record":
            res = sb.run("record", "-o", str(out), "--duration", "0.6", "--interval", "0.2", *extra)
        elif cmd == "import":
            res = sb.run("import", sb.write("paste.txt", paste_text()), "-o", str(out), *extra)
        else:
            res = sb.run("convert", "healthy", "-o", str(out), *extra)
        root.unchanged(before, f"{cmd} -o {out.name} with {out.name}{plant} planted ({res.brief()})")
        if plant == "" and not force:  # a name that exists (if only as a link) is never written
            expect(res.rc != 0 and "exists" in res.err, f"{cmd} wrote over a planted link: {res.brief()}")

    return fn


for _suffix in (".yaml", ".yaml.gz", ".zdash"):
    add("symlink", f"record-to-dangling-link{_suffix}", _record("record", _suffix, "", "absent", False))
    add("symlink", f"record-force-over-link{_suffix}", _record("record", _suffix, "", "secret", True))
add("symlink", "record-lock-sidecar-link", _record("record", ".zdash", "-lock", "absent", False))
add("symlink", "record-wal-link", _record("record", ".zdash", "-wal", "secret", False))
add("symlink", "record-shm-link-with-force", _record("record", ".zdash", "-shm", "secret", True))
add("symlink", "record-journal-link", _record("record", ".zdash", "-journal", "secret", False))
add("symlink", "import-to-dangling-link", _record("import", ".yaml", "", "absent", False))
add("symlink", "import-force-over-link", _record("import", ".yaml", "", "secret", True))
add("symlink", "convert-to-dangling-link", _record("convert", ".zdash", "", "absent", False))
add("symlink", "convert-force-over-link", _record("convert", ".yaml.gz", "", "config", True))


def _through_dir_link(cmd: str) -> Callable[[Sandbox], None]:
    """The path names a directory through a link the second user made in /tmp: root follows it
    into a directory of its own (as a cron job's `-o /tmp/incident/x.zdash` would)."""

    def fn(sb: Sandbox) -> None:
        root = RootFiles(sb)
        shared = user_dir(sb, "shared", 0o1777)
        plant_link(root.dir, shared / "incident")
        before = root.digest()
        if cmd == "textfile":
            out = str(shared / "incident" / "zfs.prom")
            res = sb.run("check", "--samples", "2", "--interval", "0.2", "--prometheus", out)
        else:
            out = str(shared / "incident" / "r.zdash")
            res = sb.run("record", "-o", out, "--duration", "0.6", "--interval", "0.2")
        root.unchanged(before, f"{cmd} through another user's directory link ({res.brief()})")
        expect("link" in res.err, f"the refusal does not say why: {res.brief()}")

    return fn


add("symlink", "textfile-through-a-directory-link", _through_dir_link("textfile"))
add("symlink", "record-through-a-directory-link", _through_dir_link("record"))


# -- zdash's own state (the audit log, crash reports) under a user's HOME (sudo -E) -----------------

AUDIT_SNIPPET = """
from zdash.actions.audit import AuditLog
try:
    AuditLog().write({"mode": "live", "action": "scrub", "argv": ["zpool", "scrub", "healthy"]})
    print("written")
except OSError as e:
    print("refused:", e)
"""


def _user_home(sb: Sandbox) -> Path:
    """A home directory the second user owns, as HOME is under `sudo -E`."""
    home = user_dir(sb, "alice", 0o755)
    as_user("mkdir", "-p", str(home / ".local" / "state"))
    return home


def _python(sb: Sandbox, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=sb.dir,
        env=sb.env(**env),
        timeout=30,
    )


def _audit(plant: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        root = RootFiles(sb)
        home = _user_home(sb)
        state = home / ".local" / "state"
        if plant == "log":
            as_user("mkdir", "-p", str(state / "zdash"))
            plant_link(root.secret, state / "zdash" / "audit.jsonl")
        else:  # the state directory itself
            plant_link(root.dir, state / "zdash")
        before = root.digest()
        env = {"HOME": str(home), "XDG_STATE_HOME": "", "SUDO_USER": "alice"}
        res = _python(sb, AUDIT_SNIPPET, **env)
        root.unchanged(
            before, f"the audit log with its {plant} planted ({res.stdout.strip()} {res.stderr[-200:]})"
        )
        expect("Traceback" not in res.stderr, f"a traceback: {res.stderr[-300:]}", "traceback")

    return fn


add("symlink", "audit-log-planted-link-under-sudo-E", _audit("log"))
add("symlink", "audit-state-dir-planted-link-under-sudo-E", _audit("dir"))


@probe("symlink")
def p_audit_log_not_written_into_a_users_home(sb: Sandbox) -> None:
    """Root's audit log does not land where another user can read and rewrite it."""
    home = _user_home(sb)
    res = _python(sb, AUDIT_SNIPPET, HOME=str(home), XDG_STATE_HOME="")
    logs = list(home.rglob("audit.jsonl"))
    expect(not logs, f"root's audit log was written under the user's home: {logs} ({res.stdout.strip()})")


CRASH_SNIPPET = """
import sys
import zdash.commands.serve as served
served.run = lambda args: 1 / 0
from zdash.cli import main
sys.exit(main(["serve", "--token", "Sup3rSecretToken-abcdefgh", "--demo"]))
"""


def _crash_report(sb: Sandbox, **env: str) -> tuple[subprocess.CompletedProcess[str], Path | None]:
    res = _python(sb, CRASH_SNIPPET, **env)
    found = re.search(r"a report is in (\S+?), please", res.stderr)
    return res, Path(found.group(1)) if found else None


@probe("symlink")
def p_crash_report_holds_no_token_and_is_private(sb: Sandbox) -> None:
    res, path = _crash_report(sb)
    expect(path is not None and path.exists(), f"no crash report: {res.stderr[-300:]}")
    assert path is not None
    text = path.read_text()
    expect("Sup3rSecretToken" not in text, "the crash report holds the serve token")
    mode = stat.S_IMODE(os.stat(path).st_mode)
    expect(mode & 0o077 == 0, f"the crash report is mode {oct(mode)}: other users read it")


@probe("symlink")
def p_crash_report_not_in_a_shared_tmp_dir(sb: Sandbox) -> None:
    """The state dir unusable: the report must not fall back to TMPDIR/zdash, which another
    user created first (and can read, or fill with links)."""
    shared = user_dir(sb, "tmp", 0o1777)
    as_user("mkdir", "-m", "0777", str(shared / "zdash"))
    blocker = sb.write("not-a-dir", "x")
    res, path = _crash_report(sb, TMPDIR=str(shared), XDG_STATE_HOME=blocker)
    expect("Traceback" not in res.stderr, f"a traceback: {res.stderr[-300:]}", "traceback")
    uid, _ = second_user()
    if path is not None:
        parent = os.stat(path.parent)
        expect(parent.st_uid != uid, f"the crash report went into {path.parent}, the other user's directory")


@probe("symlink")
def p_crash_report_not_in_a_users_state_dir(sb: Sandbox) -> None:
    home = _user_home(sb)
    _, path = _crash_report(sb, HOME=str(home), XDG_STATE_HOME="")
    expect(path is None or not str(path).startswith(str(home)), f"root's crash report went into {path}")


@probe("symlink")
def p_crash_report_dir_planted_link(sb: Sandbox) -> None:
    root = RootFiles(sb)
    home = _user_home(sb)
    plant_link(root.dir, home / ".local" / "state" / "zdash")
    before = root.digest()
    _, path = _crash_report(sb, HOME=str(home), XDG_STATE_HOME="")
    root.unchanged(before, f"a crash report through a planted state dir ({path})")


# -- the dashboard's own files: `r` records into the working directory, screenshots --------------------


@probe("symlink", timeout=40)
def p_dashboard_recording_into_planted_links(sb: Sandbox) -> None:
    """`r` names its file after the host and the second: the user plants a link for each of the
    next seconds in the shared working directory."""
    root = RootFiles(sb)
    shared = user_dir(sb, "shared", 0o1777)
    host = socket.gethostname()
    now = time.time()
    names = [
        f"zdash-{host}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now + s))}.zdash" for s in range(40)
    ]
    as_user("sh", "-c", " ".join(f"ln -s {root.secret} {shared / n};" for n in names))
    before = root.digest()
    t = sb.terminal("--interval", "0.5", cwd=shared)
    try:
        t.wait_for("healthy", timeout=20)
        t.send(b"r")
        t.wait_for("recording", timeout=10)
        t.send(b"r")
        t.send(b"q")
        t.wait_exit(15)
    finally:
        t.close()
    root.unchanged(before, "the dashboard's recording with links planted for its file names")


@probe("symlink", timeout=40)
def p_screenshot_into_a_planted_downloads_dir(sb: Sandbox) -> None:
    """Textual saves a screenshot to ~/Downloads: under sudo -E that is the user's."""
    root = RootFiles(sb)
    home = _user_home(sb)
    plant_link(root.dir, home / "Downloads")
    before = root.digest()
    t = sb.terminal("--demo", HOME=str(home), XDG_DOWNLOAD_DIR=str(home / "Downloads"))
    try:
        t.wait_for("zdash", timeout=20)
        t.send(b"\x10")  # ctrl+p: the command palette
        t.send(b"screenshot")
        t.wait_for("Save an SVG", timeout=10)
        t.send(b"\r")
        t.wait_for("aved", timeout=10)  # "screenshot saved to …" (Textual: "Saved screenshot")
        t.send(b"q")
        t.wait_exit(15)
    finally:
        t.close()
    root.unchanged(before, "a screenshot through a planted Downloads link")


# -- ssh's connection sockets: a private directory, never one another user made --------------------


@probe("symlink")
def p_ssh_control_dir_planted_in_tmp(sb: Sandbox) -> None:
    root = RootFiles(sb)
    shared = user_dir(sb, "tmp", 0o1777)
    plant_link(root.dir, shared / "zdash-ssh-0")
    before = root.digest()
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2", "--host", "nas1",
        TMPDIR=str(shared), XDG_RUNTIME_DIR="", FAKE_SSH_CONNECT_S="0.01",
    )  # fmt: skip
    root.unchanged(before, f"ssh's sockets through a planted /tmp link ({res.brief()})")
    if res.rc is None:
        raise Failed("hang", "check --host did not end")
