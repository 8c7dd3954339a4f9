"""The smaller findings of the probe round (class `smaller`): a single-member gzip cut short,
word salad pasted to `check --text`, a SIGKILLed recorder's `zpool events -f`, a check that ends
with `zpool status` outstanding, a header's format written as a string, Ctrl-C in the
dashboard."""

from __future__ import annotations

import gzip
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from tests.faults.harness import Failed, Sandbox
from tests.faults.probes import recording, ticks_of
from tests.hostile.harness import expect, probe
from tests.paste.salad import ZPOOL_WORDS


@probe("smaller", timeout=40)
def p_truncated_single_member_gzip_keeps_its_complete_ticks(sb: Sandbox) -> None:
    """`gzip` (one member for the whole file) cut short: zcat recovers the ticks before the cut;
    zdash must read them too."""
    plain = recording(sb, "r.yaml", "healthy")
    whole = Path(plain).read_bytes()
    packed = gzip.compress(whole)
    cut = sb.write("cut.yaml.gz", packed[: len(packed) * 2 // 3])
    recovered = subprocess.run(["sh", "-c", f"zcat {cut} 2>/dev/null"], capture_output=True).stdout
    complete = recovered.decode("utf-8", "replace").count("\n---\nt: ")
    expect(complete >= 3, f"the probe's own cut left {complete} ticks")
    got = ticks_of(sb, cut)
    expect(got >= complete - 1, f"zcat recovers {complete} ticks, zdash read {got}", "data-loss")


@probe("smaller", timeout=120)
def p_word_salad_is_unknown(sb: Sandbox) -> None:
    rnd = random.Random(25)
    lines = []
    size = 0
    while size < 10 << 20:
        line = " ".join(rnd.choice(ZPOOL_WORDS) for _ in range(rnd.randrange(1, 12)))
        lines.append(line)
        size += len(line) + 1
    path = sb.write("salad.txt", "\n".join(lines) + "\n")
    res = sb.run("check", "--text", path, timeout=100)
    expect(
        res.rc == 3,
        f"10 MB of random zpool words judged {res.out.splitlines()[:1]} (exit {res.rc})",
        "wrong-OK",
    )


def _running(pid_file: Path) -> bool:
    """Whether the stand-in's run that left this pid file is still going (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid_file.name}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@probe("smaller", timeout=40)
def p_sigkilled_recorder_leaves_no_events_child(sb: Sandbox) -> None:
    proc = sb.popen(["record", "-o", sb.path("k.zdash"), "--interval", "0.2"])
    try:
        deadline = time.monotonic() + 15
        while not any("events" in p.read_text() for p in sb.pids_dir.iterdir()):
            expect(time.monotonic() < deadline and proc.poll() is None, "no zpool events started")
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 5
    while sb.live_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [
        Path(f"/proc/{p}/cmdline").read_text().replace("\0", " ")
        for p in sb.live_children()
        if os.path.exists(f"/proc/{p}")
    ]
    expect(not left, f"{len(left)} zpool children outlived the SIGKILLed recorder: {left[:2]}")


@probe("smaller", timeout=40)
def p_check_with_status_outstanding_is_not_ok(sb: Sandbox) -> None:
    """zpool status answers once, then hangs: when the check's samples are done its latest status
    is still running; the pools it shows are the first answer's, not read now."""
    control = sb.write("control", "")
    proc = sb.popen(["check", "--samples", "12", "--interval", "0.25"], FAKE_ZPOOL_CONTROL=control)
    deadline = time.monotonic() + 15

    def first_answered() -> bool:
        started = [p for p in sb.pids_dir.iterdir() if "status" in p.read_text()]
        return bool(started) and not _running(started[0])

    while not first_answered():
        expect(time.monotonic() < deadline and proc.poll() is None, "no zpool status answered")
        time.sleep(0.05)
    Path(control).write_text("status hang\n")  # the first has answered: every later one hangs
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise Failed("hang", "check did not end") from None
    runs = sum("status" in p.read_text() for p in sb.pids_dir.iterdir())
    first = out.decode().splitlines()[:1]
    if runs >= 2:
        expect(
            proc.returncode == 3 and "UNKNOWN" in out.decode(),
            f"{first} with zpool status outstanding",
            "wrong-OK",
        )


@probe("smaller")
def p_header_format_as_a_string(sb: Sandbox) -> None:
    path = recording(sb, "r.yaml", "healthy")
    text = Path(path).read_text().replace("zdash_session: 1", 'zdash_session: "1"', 1)
    Path(path).write_text(text)
    res = sb.run("summary", path)
    expect(res.rc == 0 and "not supported" not in res.err, f'format "1" refused: {res.brief()}')


@probe("smaller", timeout=40)
def p_ctrl_c_quits_the_dashboard(sb: Sandbox) -> None:
    t = sb.terminal("--demo")
    try:
        t.wait_for("tank", timeout=20)  # the demo's pool drawn: the dashboard runs, keys are read
        t.send(b"\x03")
        rc = t.wait_exit(10)
    except Failed:
        t.close()
        raise Failed("fail", "Ctrl-C did not quit the dashboard") from None
    expect(rc in (0, 130), f"exit {rc} on Ctrl-C")
