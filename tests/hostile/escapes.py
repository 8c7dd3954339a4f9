"""Names that reach the terminal as control sequences or markup (class `escapes`): pool, vdev,
device and dataset names, zpool's own error text and recording descriptions holding OSC 0
(window title), OSC 52 (clipboard), CSI, C1 bytes, bidi overrides, newlines and `|`, through the
fake zpool's real output (FAKE_ZPOOL_RENAME). What the admin's terminal receives must hold none
of them raw: they are shown visibly escaped; Nagios text and perfdata stay well-formed."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable

from tests.faults.harness import Failed, Result, Sandbox
from tests.hostile.harness import (
    BIDI,
    C1_CSI,
    CSI_CLEAR,
    OSC_CLIPBOARD,
    OSC_TITLE,
    Skipped,
    add,
    expect,
    has_raw_escape,
    probe,
    renamed,
)

HOSTILE = {
    "osc-title-in-disk": {"disk": f"/dev/disk/by-id/ata-{OSC_TITLE}d2"},
    "osc-clipboard-in-pool": {"pool": f"tank{OSC_CLIPBOARD}"},
    "c1-csi-in-mirror": {"mirror": f"mirror-{C1_CSI}1"},
    "csi-clear-in-disk": {"disk": f"/dev/sd{CSI_CLEAR}b"},
    "bel-in-disk": {"disk": "/dev/sdb\x07\x07\x07"},
    "bidi-override-in-disk": {"disk": f"/dev/disk/by-id/{BIDI}"},
}


def _clean(res: Result, what: str) -> None:
    expect(not has_raw_escape(res.out), f"{what}: stdout holds raw control characters: {res.out[:200]!r}")
    expect(not has_raw_escape(res.err), f"{what}: stderr holds raw control characters: {res.err[-200:]!r}")
    expect(BIDI[0] not in res.text, f"{what}: a bidi override reaches the terminal raw")


def _check(names: dict[str, str]) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        scenario = "healthy" if "pool" in names else "errors"  # errors: a finding names the disk
        res = sb.run("check", "--samples", "2", "--interval", "0.2", **renamed(scenario, **names))
        expect(res.rc in (0, 1, 2), f"the pool was not read: {res.brief()}")
        expect(scenario == "healthy" or "in mirror-0" in res.out, f"no finding names the disk: {res.brief()}")
        _clean(res, "check")

    return fn


for _name, _names in HOSTILE.items():
    add("escapes", f"check-{_name}", _check(_names))


def _nagios_lines(res: Result) -> tuple[str, str, list[str]]:
    lines = res.out.splitlines()
    first = lines[0] if lines else ""
    text, _, perf = first.partition("|")
    return text, perf, lines[1:]


# A perfdata item per the Monitoring Plugins guidelines: 'label'=value[UOM];[warn];[crit];[min];[max],
# the label quoted with '' for a quote inside and never holding '='.
_PERF_ITEM = re.compile(r"(?:'(?:[^'=]|'')+'|[^'=\s|]+)=-?[0-9.]+[a-zA-Z%]*(?:;-?[0-9.]*){0,4}")


@probe("escapes")
def p_check_pipe_in_device_name_injects_no_perfdata(sb: Sandbox) -> None:
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2",
        **renamed("errors", disk="/dev/d1 | injected=1;2;3", mirror="mirror-1|x=9"),
    )  # fmt: skip
    text, perf, rest = _nagios_lines(res)
    expect(
        "|" not in text and all("|" not in x for x in rest), f"a '|' in the plugin text: {res.out[:300]!r}"
    )
    items = re.findall(_PERF_ITEM, perf)
    expect(" ".join(items) == perf.strip(), f"perfdata not well-formed: {perf!r}")
    expect(not any(i.startswith(("injected", "x=")) for i in items), f"injected perfdata: {perf!r}")


@probe("escapes")
def p_check_newline_in_device_name_forges_no_second_status(sb: Sandbox) -> None:
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2",
        **renamed("errors", disk="/dev/d1\nZDASH OK - all is well", mirror="mirror-1\nZDASH OK - fine"),
    )  # fmt: skip
    statuses = [x for x in res.out.splitlines() if x.startswith("ZDASH ")]
    expect(len(statuses) == 1, f"{len(statuses)} status lines: {res.out[:300]!r}")


@probe("escapes")
def p_check_quote_and_equals_in_names_keep_perfdata_valid(sb: Sandbox) -> None:
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2", **renamed(pool="ta'nk=1", mirror="mirror 1's=2")
    )
    expect(res.rc in (0, 1, 2), f"the pool was not read: {res.brief()}")
    _, perf, _ = _nagios_lines(res)
    items = re.findall(_PERF_ITEM, perf)
    expect(bool(items) and " ".join(items) == perf.strip(), f"perfdata not well-formed: {perf!r}")


@probe("escapes")
def p_check_zpool_error_text_with_escapes(sb: Sandbox) -> None:
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2",
        FAKE_ZPOOL_MODE="fail", FAKE_ZPOOL_ERRTEXT=f"cannot open 'tank': {OSC_TITLE}{OSC_CLIPBOARD}busy",
    )  # fmt: skip
    _clean(res, "check (zpool's error text)")
    expect(res.rc == 3, f"exit {res.rc}")


def _hostile_recording(sb: Sandbox, description: str | None = None) -> str:
    out = sb.path("hostile.yaml.gz")
    argv = ["record", "-o", out, "--duration", "0.6", "--interval", "0.2"]
    if description is not None:
        argv += ["--description", description]
    res = sb.run(*argv, **renamed(disk=f"/dev/sdb{OSC_TITLE}", pool=f"tank{OSC_CLIPBOARD}"))
    _clean(res, "record's progress lines")
    expect(res.rc == 0, f"could not record: {res.brief()}")
    return out


@probe("escapes", timeout=40)
def p_record_progress_lines(sb: Sandbox) -> None:
    _hostile_recording(sb)


@probe("escapes", timeout=40)
def p_summary_of_a_hostile_recording(sb: Sandbox) -> None:
    path = _hostile_recording(sb, f"night shift{OSC_TITLE}\x1b[2J{BIDI}")
    _clean(sb.run("summary", path), "summary")


@probe("escapes", timeout=40)
def p_check_replay_of_a_hostile_recording(sb: Sandbox) -> None:
    path = _hostile_recording(sb)
    _clean(sb.run("check", "--replay", path), "check --replay")


@probe("escapes")
def p_plan_with_a_hostile_device(sb: Sandbox) -> None:
    disk = f"/dev/sdb{OSC_TITLE}"
    res = sb.run("plan", "offline", "healthy", disk, **renamed(disk=disk))
    expect("Offline" in res.out, f"no plan: {res.brief()}")
    _clean(res, "plan")


@probe("escapes")
def p_import_prints_unread_lines_visibly(sb: Sandbox) -> None:
    paste = (
        "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME STATE READ WRITE CKSUM\n\ttank ONLINE 0 0 0\n"
        f"garbage {OSC_CLIPBOARD} \x9b2J {BIDI} line\n"
    )
    res = sb.run("import", sb.write("paste.txt", paste), "-o", sb.path("p.yaml"))
    _clean(res, "import")


# -- the dashboard: what the terminal receives -----------------------------------------------------------


def _payload_reached(raw: bytes) -> list[str]:
    """Which hostile sequences arrived as sequences (not as visible text)."""
    found = []
    for name, seq in (
        ("OSC 0", OSC_TITLE),
        ("OSC 52", OSC_CLIPBOARD),
        ("CSI 2J", CSI_CLEAR),
        ("C1 CSI", C1_CSI),
    ):
        if seq.encode("utf-8") in raw:
            found.append(name)
    if b"PWNED-TITLE\x07" in raw or b"UFdORUQtQ0xJUA==\x07" in raw:
        found.append("an OSC payload")
    if BIDI[0].encode() in raw:
        found.append("bidi override")
    return found


def _dashboard(names: dict[str, str], *argv: str, words: str = "zdash") -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        t = sb.terminal(*argv, **renamed("healthy" if "pool" in names else "errors", **names))
        try:
            t.wait_for(words, timeout=20)
            deadline = time.monotonic() + 3  # a few frames of the live pool
            while time.monotonic() < deadline:
                t._read(time.monotonic() + 0.2)
            t.send(b"\x11" if "--wall" in argv else b"q")  # the wall binds no key: ctrl+q quits
            t.wait_exit(15)
        finally:
            t.close()
        bad = _payload_reached(t.raw)
        expect(not bad, f"the dashboard sent {', '.join(bad)} to the terminal")

    return fn


add(
    "escapes",
    "dashboard-osc-title-in-pool",
    _dashboard({"pool": f"tank{OSC_TITLE}"}, "--interval", "0.5"),
    40,
)
add(
    "escapes",
    "dashboard-osc-clipboard-in-disk",
    _dashboard({"disk": f"/dev/sdb{OSC_CLIPBOARD}"}, "--interval", "0.5"),
    40,
)
add(
    "escapes",
    "dashboard-c1-and-csi-in-mirror",
    _dashboard({"mirror": f"m{C1_CSI}{CSI_CLEAR}"}, "--interval", "0.5"),
    40,
)
add(
    "escapes",
    "wall-osc-title-in-pool",
    _dashboard({"pool": f"tank{OSC_TITLE}"}, "--wall", "--interval", "0.5"),
    40,
)


@probe("escapes", timeout=60)
def p_dashboard_bracketed_device_path_at_every_width(sb: Sandbox) -> None:
    """A device path with brackets (`/dev/disk[slot=3]/d2`) is text, not markup, wherever a
    title or cell cuts it: the window resized through every width from 40 to 160 columns."""
    t = sb.terminal(
        "--interval", "0.5", **renamed("errors", disk="/dev/disk[slot=3]/d1", mirror="[b]mirror-1[/b]")
    )
    try:
        t.wait_for("slot=3", timeout=20)
        for cols in range(40, 161, 3):
            t.resize(cols, 32)
            t._read(time.monotonic() + 0.15)
            if t.proc.poll() is not None:
                raise Failed("fail", f"the dashboard exited ({t.proc.returncode}) at {cols} columns")
        t.send(b"q")
        rc = t.wait_exit(15)
    finally:
        t.close()
    expect("MarkupError" not in t.screen_text and rc == 0, f"exit {rc}: {t.screen_text[-300:]!r}")


@probe("escapes", timeout=40)
def p_dashboard_dataset_names(sb: Sandbox) -> None:
    """Dataset names (a delegated `zfs allow` user creates them) on the datasets screen."""
    fields = [
        "filesystem",
        "-",
        "-",
        "24576",
        "1564109824",
        "24576",
        "24576",
        "0",
        "lz4",
        "1.00x",
        "off",
        "on",
        "on",
        "sa",
    ]
    rows = [["healthy", *fields], [f"healthy/{OSC_TITLE}x", *fields], [f"healthy/y{OSC_CLIPBOARD}", *fields]]
    listing = sb.write("zfs-list.txt", "".join("\t".join(r) + "\n" for r in rows))
    t = sb.terminal("--interval", "0.5", FAKE_ZFS_LIST=listing)
    try:
        t.wait_for("healthy", timeout=20)
        t.send(b"d")
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            t._read(time.monotonic() + 0.2)
        t.send(b"\x1b")
        t.send(b"q")
        with contextlib.suppress(Failed):
            t.wait_exit(15)
    finally:
        t.close()
    bad = _payload_reached(t.raw)
    expect(not bad, f"the datasets screen sent {', '.join(bad)} to the terminal")


@probe("escapes", timeout=60)
def p_tmux_set_clipboard_title_and_clipboard_unchanged(sb: Sandbox) -> None:
    """tmux with set-clipboard on: a name holding OSC 0 and OSC 52 changes neither the pane's
    title nor tmux's buffers (the clipboard it would hand the outer terminal)."""
    tmux = shutil.which("tmux")
    if tmux is None:
        raise Skipped("no tmux")
    sock = sb.path("tmux.sock")
    env = sb.env(**renamed(pool=f"tank{OSC_TITLE}", disk=f"/dev/sdb{OSC_CLIPBOARD}"), TERM="xterm-256color")

    def tm(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [tmux, "-S", sock, *args], capture_output=True, text=True, env=env, timeout=20, cwd=sb.dir
        )

    from tests.faults.harness import zdash_executable

    started = tm(
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        "120",
        "-y",
        "35",
        "-s",
        "z",
        zdash_executable(),
        "--interval",
        "0.5",
    )
    expect(started.returncode == 0, f"tmux did not start: {started.stderr}")
    try:
        tm("set-option", "-g", "set-clipboard", "on")
        tm("set-option", "-g", "allow-rename", "on")
        title = tm("display-message", "-p", "#{pane_title}").stdout.strip()

        # Until both hostile names are on the screen, shown as text (the disk's cut to its tail):
        # tmux has read every byte drawn up to them, so a sequence that got through has acted.
        # (The pool is renamed: waiting for "healthy" waited out the whole bound every run.)
        def both_drawn(text: str) -> bool:
            return "PWNED-TITLE\\x07" in text and "JUA==\\x07" in text

        deadline = time.monotonic() + 25
        while time.monotonic() < deadline and not both_drawn(screen := tm("capture-pane", "-p").stdout):
            time.sleep(0.2)
        expect(both_drawn(screen), f"the hostile names were not drawn as text: {screen!r}")
        now = tm("display-message", "-p", "#{pane_title}").stdout.strip()
        buffers = tm("list-buffers").stdout
        expect("PWNED" not in now and now == title, f"the pane title changed: {title!r} -> {now!r}")
        expect(not buffers.strip(), f"tmux's clipboard buffer was set: {buffers!r}")
    finally:
        tm("kill-server")
        with contextlib.suppress(OSError):
            os.unlink(sock)
