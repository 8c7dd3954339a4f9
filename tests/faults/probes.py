"""The fault probes of issue #13 ("Nothing lost, nothing hidden"), one or more per bullet:
recordings, failures hidden, hangs, tracebacks, process hygiene, config. Each runs the installed
`zdash` as a real subprocess in a sandbox (tests/faults/harness.py) with the fake `zpool`
(tests/fakes/bin) and says what a user would notice: an exit code, a line on the terminal, a file
kept or lost, a child left running, the terminal left in a bad state.

    .venv/bin/python -m tests.faults.run_probes        (all of them, in parallel, with a summary)
"""

from __future__ import annotations

import gzip
import os
import random
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.faults.harness import Failed, Probe, Result, Sandbox, Terminal

PROBES: list[Probe] = []


def probe(bullet: str, name: str | None = None, timeout: float = 20.0) -> Callable:
    def register(fn: Callable[[Sandbox], None]) -> Callable[[Sandbox], None]:
        PROBES.append(Probe(name or fn.__name__.removeprefix("p_").replace("_", "-"), bullet, fn, timeout))
        return fn

    return register


def add(bullet: str, name: str, fn: Callable[[Sandbox], None], timeout: float = 20.0) -> None:
    PROBES.append(Probe(name, bullet, fn, timeout))


# -- what a probe demands ------------------------------------------------------------------------


def expect(cond: bool, res: Result | None, why: str, kind: str = "fail") -> None:
    if not cond:
        raise Failed(kind, why + (f" — {res.brief()}" if res is not None else ""))


def one_line(res: Result, rc: int | tuple[int, ...], *words: str, lines: int = 2) -> None:
    """The documented exit code and a short message on stderr (one line, plus at most a hint;
    `lines` where a command lists what it could not read, capped), naming what went wrong."""
    codes, limit = (rc if isinstance(rc, tuple) else (rc,)), lines
    if res.rc == 0 and 0 not in codes:
        raise Failed("wrong-OK", f"exit 0 where {codes} was due — {res.brief()}")
    expect(res.rc in codes, res, f"exit {res.rc}, not {codes}")
    lines = [x for x in res.err.strip().splitlines() if x.strip()]
    expect(1 <= len(lines) <= limit, res, f"{len(lines)} lines on stderr, not one")
    expect(all(len(x) <= 400 for x in lines), res, "an error line longer than 400 characters")
    low = res.err.lower()
    for w in words:
        expect(w.lower() in low, res, f"the message does not say {w!r}")


def not_ok(res: Result, rc: int = 3, *words: str) -> None:
    """A verdict on data zdash could not get: never OK, the documented code, and why."""
    if res.rc == 0 or re.search(r"\b(OK)\b", res.out.splitlines()[0] if res.out else ""):
        raise Failed("wrong-OK", f"OK on failed data — {res.brief()}")
    expect(res.rc == rc, res, f"exit {res.rc}, not {rc}")
    for w in words:
        expect(w.lower() in res.text.lower(), res, f"the output does not say {w!r}")


def unchanged(path: str, before: bytes, res: Result | None = None) -> None:
    now = Path(path).read_bytes() if os.path.exists(path) else b""
    expect(now == before, res, f"{os.path.basename(path)} was changed or emptied", "data-loss")


# -- inputs ---------------------------------------------------------------------------------------


def recording(sb: Sandbox, name: str, scenario: str = "deranged-mirror") -> str:
    """A real recording (a bundled scenario converted by zdash itself)."""
    res = sb.run("convert", scenario, "-o", name)
    expect(res.rc == 0 and os.path.exists(sb.path(name)), res, "could not prepare a recording")
    return sb.path(name)


def ticks_of(sb: Sandbox, path: str) -> int:
    """How many ticks `zdash summary` reads back."""
    res = sb.run("summary", path, timeout=60)
    return sum(1 for x in res.out.splitlines() if x.startswith("tick "))


def paste_text() -> str:
    root = Path(__file__).resolve().parents[1] / "captures" / "healthy"
    return next(root.glob("zpool-status-s-P-p*.txt")).read_text()


# ===================================== recordings ================================================


def _refuses_existing(cmd: str, suffix: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        out = sb.write(f"old{suffix}", b"yesterday's incident\n")
        if cmd == "record":
            res = sb.run("record", "-o", out, "--duration", "1", "--interval", "0.2")
        elif cmd == "import":
            res = sb.run("import", sb.write("paste.txt", paste_text()), "-o", out)
        else:
            res = sb.run("convert", "healthy", "-o", out)
        unchanged(out, b"yesterday's incident\n", res)
        one_line(res, (1, 2), "exists", "--force")

    return fn


for _cmd in ("record", "import", "convert"):
    for _suffix in (".yaml", ".yaml.gz") + ((".zdash",) if _cmd != "import" else ()):
        add("recordings", f"{_cmd}-refuses-to-overwrite{_suffix}", _refuses_existing(_cmd, _suffix))


@probe("recordings")
def p_import_force_overwrites(sb: Sandbox) -> None:
    out = sb.write("old.yaml", b"old\n")
    res = sb.run("import", sb.write("paste.txt", paste_text()), "-o", out, "--force")
    expect(res.rc == 0 and b"zdash_session" in Path(out).read_bytes(), res, "--force did not import")


@probe("recordings")
def p_record_force_overwrites(sb: Sandbox) -> None:
    out = sb.write("old.yaml.gz", b"old\n")
    res = sb.run("record", "-o", out, "--duration", "0.5", "--interval", "0.2", "--force")
    expect(res.rc == 0 and ticks_of(sb, out) >= 1, res, "--force did not record")


def _second_writer(suffix: str, force: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        out = sb.path(f"r{suffix}")
        first = sb.popen(["record", "-o", out, "--interval", "0.2"])
        try:
            # The first recorder holds the file once a tick of its own reads back from it.
            end = time.monotonic() + 30
            while not os.path.exists(out) or os.path.getsize(out) < 200 or ticks_of(sb, out) < 1:
                expect(
                    time.monotonic() < end and first.poll() is None, None, "the first recorder did not start"
                )
                time.sleep(0.05)
            res = sb.run(
                "record", "-o", out, "--duration", "0.5", "--interval", "0.2", *(["--force"] if force else [])
            )
            one_line(res, 2)
            first.send_signal(signal.SIGINT)
            try:
                _, err = first.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                raise Failed("hang", "the first recorder did not stop on Ctrl-C (SIGINT)") from None
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
        written = err.decode().count("\ntick ") + err.decode().startswith("tick ")
        got = ticks_of(sb, out)
        expect(
            got >= written > 0,
            None,
            f"the first recorder wrote {written} ticks, {got} read back",
            "data-loss",
        )

    return fn


for _suffix in (".yaml.gz", ".zdash"):
    add("recordings", f"second-writer-refused{_suffix}", _second_writer(_suffix, False), 40)
    add("recordings", f"second-writer-with-force-refused{_suffix}", _second_writer(_suffix, True), 40)


def _killed_recorder(suffix: str, sig: signal.Signals) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        out = sb.path(f"k{suffix}")
        proc = sb.popen(["record", "-o", out, "--interval", "0.1"])
        err = b""
        try:
            end = time.monotonic() + 15
            want = 3 + random.randrange(8)
            while err.count(b"tick ") < want:
                expect(time.monotonic() < end and proc.poll() is None, None, "the recorder wrote no ticks")
                if select.select([proc.stderr], [], [], 0.2)[0]:
                    err += os.read(proc.stderr.fileno(), 4096)  # type: ignore[union-attr]
            proc.send_signal(sig)
            err += proc.communicate(timeout=15)[1]
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise Failed("hang", f"the recorder did not stop on {sig.name}") from None
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        text = err.decode("utf-8", "replace")
        expect("Traceback" not in text, None, f"a traceback on {sig.name}", "traceback")
        written = len(re.findall(r"^tick \d+", text, re.M))
        got = ticks_of(sb, out)
        # SIGKILL may land between the write and the progress line: one more tick is fine.
        expect(got >= written, None, f"{written} ticks reported written, {got} read back", "data-loss")
        if sig != signal.SIGKILL:
            expect(proc.returncode == 0, None, f"exit {proc.returncode} on {sig.name}, not 0")
            left = sb.live_children()
            expect(not left, None, f"{len(left)} zpool children left running after {sig.name}")

    return fn


for _suffix in (".yaml.gz", ".zdash"):
    for _sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        add(
            "recordings", f"record-{_sig.name}{_suffix}-keeps-every-tick", _killed_recorder(_suffix, _sig), 30
        )


def _damaged(how: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        gz = how in ("flip-gz", "truncate-gz")
        path = recording(sb, "d.yaml.gz" if gz else "d.yaml")
        data = bytearray(Path(path).read_bytes())
        whole = sb.run("check", "--replay", path)
        if how == "flip-gz":
            for i in range(len(data) // 2, len(data) // 2 + 40):
                data[i] ^= 0x55
        elif how == "truncate-gz":
            data = data[: len(data) * 2 // 3]
        elif how == "malformed-field":
            text = data.decode()
            marks = [m.start() for m in re.finditer(r"\n  rc: ", text)]
            at = marks[len(marks) // 2]
            text = text[:at] + "\n  rc: [unclosed" + text[at + 7 :]
            data = bytearray(text.encode())
        elif how == "bad-byte":
            data[len(data) // 2] = 0xFF
        Path(path).write_bytes(bytes(data))
        res = sb.run("check", "--replay", path)
        # The verdict of the recording's end (its last ticks read), or UNKNOWN: never a better one.
        expect(
            res.rc in (whole.rc, 3),
            res,
            f"exit {res.rc} where the whole recording gives {whole.rc}",
            "wrong-OK",
        )
        expect(any(w in res.out for w in ("unreadable", "cut off", "damaged")), res,
               "check --replay does not say part of the recording could not be read", "wrong-OK")  # fmt: skip
        s = sb.run("summary", path)
        expect(
            s.rc == 0 and s.out.count("\ntick ") >= 5, s, "summary read nothing after the damage", "data-loss"
        )

    return fn


for _how in ("flip-gz", "truncate-gz", "malformed-field", "bad-byte"):
    add("recordings", f"damaged-recording-{_how}", _damaged(_how))


def _unwritable(cmd: str, target: str, suffix: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        if target == "readonly-dir":
            os.mkdir(sb.path("ro"))
            os.chmod(sb.path("ro"), 0o555)
            out = sb.path(f"ro/r{suffix}")
            if os.geteuid() == 0:  # root writes anywhere: a file under a regular file instead
                out = sb.write("afile", "x") + f"/r{suffix}"
        elif target == "missing-dir":
            out = sb.path(f"no/such/dir/r{suffix}")
        else:
            out = "/dev/full"
        if cmd == "record":
            res = sb.run("record", "-o", out, "--duration", "1", "--interval", "0.2", "--force")
            one_line(res, 2)
        else:
            res = sb.run("import", sb.write("paste.txt", paste_text()), "-o", out, "--force")
            one_line(res, 1)

    return fn


for _target in ("dev-full", "readonly-dir", "missing-dir"):
    for _suffix in (".yaml.gz", ".zdash"):
        add("recordings", f"record-to-{_target}{_suffix}", _unwritable("record", _target, _suffix))
    add("recordings", f"import-to-{_target}", _unwritable("import", _target, ".yaml"))


def _disk_fills(suffix: str, limit: int) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        out = sb.path(f"full{suffix}")
        res = sb.run(
            "record", "-o", out, "--interval", "0.1", "--duration", "40", limit_file=limit, timeout=60
        )
        written = len(re.findall(r"^tick \d+", res.err, re.M))
        res.err = "\n".join(x for x in res.err.splitlines() if not x.startswith("tick "))  # the progress
        one_line(res, 2, "cannot write")
        got = ticks_of(sb, out)
        # The tick being written when the disk filled may be lost, and only that one.
        expect(got >= written - 1 and got > 0, res, f"{written} ticks reported, {got} read back", "data-loss")

    return fn


for _suffix, _limit in ((".yaml.gz", 32 << 10), (".yaml", 64 << 10), (".zdash", 256 << 10)):
    add("recordings", f"record-disk-fills-mid-run{_suffix}", _disk_fills(_suffix, _limit), 60)


# ===================================== failures hidden ===========================================


def _check_fails(mode: str, subcmds: str = "status", *words: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        res = sb.run(
            "check", "--samples", "2", "--interval", "0.2",
            FAKE_ZPOOL_MODE=mode, FAKE_ZPOOL_SUBCMDS=subcmds, FAKE_ZPOOL_DELAY="12",
        )  # fmt: skip
        not_ok(res, 3, *words)
        expect(all(len(x) < 2000 for x in res.out.splitlines()), res, "an output line over 2,000 characters")

    return fn


for _mode, _subs, _words in (
    ("hang", "status", ("timed out",)),
    ("slow", "status", ("timed out",)),
    ("denied", "status", ("permission denied",)),
    ("fail", "status", ("no such pool",)),
    ("ioerror", "status,list", ("i/o error",)),
    ("garbage", "status", ("unreadable",)),
    ("longerr", "status", ("cannot open",)),
    ("empty", "status,list,iostat", ()),
    ("denied", "status,list,iostat,events,version,get", ("permission denied",)),
    ("hang", "status,list,iostat,events,version,get", ("timed out",)),
):
    add("failures", f"check-when-{_subs.replace(',', '+')}-{_mode}", _check_fails(_mode, _subs, *_words), 40)


@probe("failures")
def p_check_named_pool_missing(sb: Sandbox) -> None:
    not_ok(sb.run("check", "--samples", "2", "--interval", "0.2", "nosuchpool"), 3, "not found")


@probe("failures")
def p_check_named_pool_vanished(sb: Sandbox) -> None:
    """Status and list say the pool is gone while the iostat stream still runs."""
    res = sb.run("check", "--samples", "2", "--interval", "0.2", "healthy",
                 FAKE_ZPOOL_MODE="empty", FAKE_ZPOOL_SUBCMDS="status,list")  # fmt: skip
    not_ok(res, 3)


@probe("failures", timeout=40)
def p_check_named_pool_vanishes_during_the_check(sb: Sandbox) -> None:
    """The pool is there at the first `zpool status`, gone from the next one on. zdash asks
    status every 2 s: 30 samples (6 s) leave room for the second one on a loaded host."""
    control = sb.write("control", "")
    proc = sb.popen(["check", "--samples", "30", "--interval", "0.2", "healthy"], FAKE_ZPOOL_CONTROL=control)
    end = time.monotonic() + 15
    while not any("status" in p.read_text() for p in sb.pids_dir.iterdir()):
        expect(time.monotonic() < end and proc.poll() is None, None, "no zpool status started")
        time.sleep(0.05)
    Path(control).write_text("status empty\nlist empty\n")
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise Failed("hang", "check did not end") from None
    runs = sum("status" in p.read_text() for p in sb.pids_dir.iterdir())
    expect(runs >= 2, None, f"zpool status ran {runs} time(s): the pool never vanished for this check")
    not_ok(Result(["check", "healthy"], proc.returncode, out.decode(), err.decode(), 0.0), 3, "not found")


@probe("failures")
def p_check_without_zpool(sb: Sandbox) -> None:
    res = sb.run("check", "--samples", "2", "--interval", "0.2", PATH="/usr/bin:/bin")
    not_ok(res, 3, "not found")


@probe("failures")
def p_check_json_when_denied(sb: Sandbox) -> None:
    res = sb.run("check", "--json", "--samples", "2", "--interval", "0.2", FAKE_ZPOOL_MODE="denied")
    expect('"status": "UNKNOWN"' in res.out, res, "JSON status is not UNKNOWN", "wrong-OK")
    expect(res.rc == 3, res, "exit not 3", "wrong-OK")


@probe("failures", timeout=40)
def p_check_replay_of_a_blind_recording(sb: Sandbox) -> None:
    out = sb.path("blind.yaml.gz")
    rec = sb.run("record", "-o", out, "--duration", "0.6", "--interval", "0.2", FAKE_ZPOOL_MODE="denied",
                 FAKE_ZPOOL_SUBCMDS="status,list,iostat,events,get,version")  # fmt: skip
    expect(rec.rc == 0, rec, "record failed")
    not_ok(sb.run("check", "--replay", out), 3)


@probe("failures")
def p_plan_when_denied(sb: Sandbox) -> None:
    res = sb.run("plan", "scrub", "healthy", FAKE_ZPOOL_MODE="denied", FAKE_ZPOOL_SUBCMDS="status,list")
    not_ok(res, 3, "denied")


@probe("failures", timeout=40)
def p_plan_when_hung(sb: Sandbox) -> None:
    res = sb.run("plan", "scrub", "healthy", FAKE_ZPOOL_MODE="hang", FAKE_ZPOOL_SUBCMDS="status,list")
    not_ok(res, 3)


@probe("failures")
def p_check_text_of_nothing_readable(sb: Sandbox) -> None:
    res = sb.run("check", "--text", sb.write("t.txt", "hello, this is not zpool output\n"))
    not_ok(res, 3)


def _dashboard_says(mode: str, subcmds: str, *words: str, wall: bool = False) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        t = sb.terminal(*(["--wall"] if wall else []), FAKE_ZPOOL_MODE=mode, FAKE_ZPOOL_SUBCMDS=subcmds)
        try:
            t.wait_for(*words, timeout=25)
            expect("no pools imported" not in t.screen_text, None,
                   "the dashboard says 'no pools imported' when it could not ask", "wrong-OK")  # fmt: skip
            expect("nothing to report" not in t.screen_text, None,
                   "the dashboard says 'nothing to report' on failed data", "wrong-OK")  # fmt: skip
            t.send(b"\x11" if wall else b"q")  # ctrl+q in wall mode
            t.wait_exit()
        finally:
            t.close()

    return fn


for _mode, _subs, _words in (
    ("denied", "status,list,iostat,events,get", ("ermission denied", "allow")),
    ("fail", "status,list", ("no such pool",)),
    ("hang", "status,list", ("timed out",)),
):
    add(
        "failures",
        f"dashboard-when-{_subs.replace(',', '+')}-{_mode}",
        _dashboard_says(_mode, _subs, *_words),
        45,
    )
add("failures", "wall-when-denied", _dashboard_says("denied", "status,list,iostat,events,get", "ermission denied", wall=True), 45)  # fmt: skip


# ========================================= hangs =================================================


def _record_at_the_floor(n: int) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        res = sb.run("record", "-o", sb.path(f"f{n}.yaml.gz"), "--interval", "0.1", "--duration", "0.5")
        expect(res.rc == 0, res, "record failed")
        expect(not sb.live_children(), res, "zpool children left running")

    return fn


for _n in range(12):
    add("hangs", f"record-interval-0.1-exits-run-{_n + 1}", _record_at_the_floor(_n), 20)


@probe("hangs", timeout=40)
def p_record_with_status_hung_exits(sb: Sandbox) -> None:
    res = sb.run("record", "-o", sb.path("h.yaml"), "--interval", "0.2", "--duration", "0.5",
                 FAKE_ZPOOL_MODE="hang", FAKE_ZPOOL_SUBCMDS="status,list")  # fmt: skip
    expect(res.rc == 0, res, "record failed")


@probe("hangs")
def p_record_with_iostat_hung_exits(sb: Sandbox) -> None:
    res = sb.run("record", "-o", sb.path("h.yaml"), "--interval", "0.2", "--duration", "1",
                 FAKE_ZPOOL_MODE="hang", FAKE_ZPOOL_SUBCMDS="iostat,events")  # fmt: skip
    expect(res.rc == 0, res, "record failed")


BAD_INTERVALS = ("nan", "inf", "-1", "0", "0.001", "1e9")
for _value in BAD_INTERVALS:
    for _argv in (["record", "-o", "x.yaml"], ["check"], ["exporter", "--listen", "127.0.0.1:0"], []):

        def _fn(sb: Sandbox, argv: list[str] = _argv, value: str = _value) -> None:
            res = sb.run(*argv, "--interval", value, stdin=None, timeout=8)
            one_line(res, 3 if argv == ["check"] else 2, "interval")  # check: a plugin's UNKNOWN
            expect(not os.path.exists(sb.path("x.yaml")), res, "a recording was started")

        add("hangs", f"{(_argv or ['dashboard'])[0]}-interval-{_value}-refused", _fn, 8)

for _value in ("nan", "inf", "0", "-2"):

    def _speed(sb: Sandbox, value: str = _value) -> None:
        one_line(sb.run("replay", "healthy", "--speed", value, stdin=None, timeout=8), 2, "speed")

    add("hangs", f"replay-speed-{_value}-refused", _speed, 8)

for _value in ("nan", "-5", "inf"):

    def _at(sb: Sandbox, value: str = _value) -> None:
        one_line(sb.run("check", "--replay", "healthy", "--at", value), (2, 3), "--at")

    add("hangs", f"check-at-{_value}-refused", _at)


def _endless_input(argv: tuple[str, ...]) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        res = sb.run(*argv, limit_memory=True, timeout=30)
        if argv[0] == "check":
            not_ok(res, 3)
            expect(len(res.err.strip().splitlines()) <= 2, res, "more than one line on stderr")
        else:
            one_line(res, (1, 2))

    return fn


for _argv in (
    ("check", "--text", "/dev/zero"),
    ("import", "/dev/zero", "-o", "z.yaml"),
    ("check", "--replay", "/dev/zero"),
    ("summary", "/dev/zero"),
    ("check", "--replay", "/dev/urandom"),
):
    add(
        "hangs", f"{_argv[0]}-{'-'.join(a.strip('-/') for a in _argv[1:3])}-capped", _endless_input(_argv), 35
    )


@probe("hangs", timeout=40)
def p_q_while_a_large_replay_loads(sb: Sandbox) -> None:
    src = Path(recording(sb, "small.yaml", "degraded-resilver")).read_text()
    head, sep, ticks = src.partition("\n---\n")
    ticks = ticks.partition("\n---\n")[2]  # past the header document
    big = sb.write("big.yaml", head + sep + src.split("\n---\n", 2)[1] + ("\n---\n" + ticks) * 60)
    expect(os.path.getsize(big) > 8 << 20, None, f"only {os.path.getsize(big)} bytes")
    t = sb.terminal("replay", big)
    try:
        t.wait_for("zdash", timeout=20)  # the screen is up (the title)
        t.send(b"q")
        t.wait_exit(timeout=5)
    finally:
        t.close()


# ======================================= tracebacks ==============================================


def _bad_session(kind: str) -> bytes:
    header = "zdash_session: 1\ncreated: '2026-01-01T00:00:00Z'\nhost: h\ninterval: 1.0\n"
    tick = "---\nt: 1700000000.0\nsamples:\n- key: version\n  argv: [zpool, version]\n  rc: 0\n  time: 1700000000.0\n  duration: 0.1\n  error: null\n  stdout: 'zfs-2.3.2'\n  stderr: ''\n"
    if kind == "random":
        return random.Random(5).randbytes(50_000)
    if kind == "non-utf8":
        return ("---\n" + header).encode() + b"\xff\xfe\xfa" * 100 + b"\n" + tick.encode()
    if kind == "interval-fast":
        return ("---\n" + header.replace("interval: 1.0", "interval: fast") + tick).encode()
    if kind == "tick-t-soon":
        return ("---\n" + header + tick.replace("t: 1700000000.0", "t: soon")).encode()
    if kind == "samples-not-list":
        return ("---\n" + header + "---\nt: 1700000000.0\nsamples: 5\n").encode()
    if kind == "deep-tick":
        return ("---\n" + header + "---\nt: " + "[" * 20000 + "]" * 20000 + "\n").encode()
    if kind == "deep-header":
        return ("---\nzdash_session: " + "[" * 20000 + "]" * 20000 + "\n").encode()
    if kind == "header-only":
        return ("---\n" + header).encode()
    if kind == "empty":
        return b""
    if kind == "gz-garbage":
        return gzip.compress(random.Random(6).randbytes(5000))
    if kind == "list-top":
        return b"- 1\n- 2\n"
    raise ValueError(kind)


SESSION_KINDS = ("random", "non-utf8", "interval-fast", "tick-t-soon", "samples-not-list", "deep-tick",
                 "deep-header", "header-only", "empty", "gz-garbage", "list-top")  # fmt: skip
for _kind in SESSION_KINDS:
    for _cmd in ("check", "summary", "replay"):

        def _fn(sb: Sandbox, kind: str = _kind, cmd: str = _cmd) -> None:
            path = sb.write(f"s.yaml{'.gz' if kind == 'gz-garbage' else ''}", _bad_session(kind))
            argv = ("check", "--replay", path) if cmd == "check" else (cmd, path)
            res = sb.run(*argv)
            if cmd == "check":
                not_ok(res, 3)
                expect(len(res.out.strip().splitlines()) <= 3, res, "more than the status and problem lines")
            elif (
                kind in ("interval-fast", "tick-t-soon", "samples-not-list", "deep-tick", "non-utf8")
                and cmd == "summary"
            ):
                expect(res.rc in (0, 2), res, f"exit {res.rc}")  # the good part read, the bad one said
            else:
                one_line(res, 2)
                expect("terminal" not in res.err, res, "refused for want of a terminal, not for the file")

        add("tracebacks", f"{_cmd}-session-{_kind}", _fn)

for _what in ("missing", "directory", "zdash-garbage"):

    def _fn(sb: Sandbox, what: str = _what) -> None:
        path = {"missing": sb.path("nope.yaml"), "directory": str(sb.dir)}.get(what) or sb.write(
            "g.zdash", b"not sqlite" * 100
        )
        not_ok(sb.run("check", "--replay", path), 3)
        one_line(sb.run("summary", path), 2)

    add("tracebacks", f"recording-{_what}", _fn)


def _text_input(what: str, cmd: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        stdin = b""
        if what == "directory":
            path = str(sb.dir)
        elif what == "missing":
            path = sb.path("nope.txt")
        elif what == "binary":
            path = "/bin/sh"
        elif what == "non-utf8":
            path = sb.write("p.txt", b"\xff\xfe\xfa\x80" * 1000)
        else:  # empty stdin
            path = "-"
        if cmd == "check":
            res = sb.run("check", "--text", path, stdin=stdin)
            not_ok(res, 3)
        else:
            res = sb.run("import", path, "-o", sb.path("o.yaml"), stdin=stdin)
            one_line(res, 1, lines=22)  # up to 20 unreadable lines listed, then how many more
            expect(not os.path.exists(sb.path("o.yaml")), res, "a session was written from nothing")

    return fn


for _what in ("directory", "missing", "binary", "non-utf8", "stdin-empty"):
    for _cmd in ("check", "import"):
        add("tracebacks", f"{_cmd}-text-{_what}", _text_input(_what, _cmd))


ASCII = {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
for _argv in (("replay", "--list"), ("check", "--replay", "deranged-mirror"), ("summary", "degraded-resilver"),
              ("--help",), ("check", "--help"), ("plan", "scrub", "healthy")):  # fmt: skip

    def _fn(sb: Sandbox, argv: tuple[str, ...] = _argv) -> None:
        res = sb.run(*argv, **ASCII)
        expect(res.rc in (0, 1, 2), res, f"exit {res.rc}")
        expect(len(res.out) > 20, res, "printed nothing")

    add("tracebacks", f"ascii-terminal-{'-'.join(a.strip('-') for a in _argv[:2])}", _fn)


@probe("tracebacks")
def p_output_to_dev_full(sb: Sandbox) -> None:
    from tests.faults.harness import zdash_executable

    with open("/dev/full", "wb") as full:
        r = subprocess.run([zdash_executable(), "check", "--replay", "healthy"], stdout=full,
                           stderr=subprocess.PIPE, env=sb.env(), timeout=20, cwd=sb.dir)  # fmt: skip
    err = r.stderr.decode()
    expect("Traceback" not in err, None, f"traceback writing to /dev/full: {err[-200:]}", "traceback")
    expect(r.returncode != 0, None, "exit 0 though nothing could be written", "wrong-OK")


@probe("tracebacks")
def p_ctrl_c_on_check(sb: Sandbox) -> None:
    proc = sb.popen(["check", "--samples", "3"], FAKE_ZPOOL_MODE="hang")
    # Ctrl-C while check waits on a zpool of its own: one has started (the stand-in leaves its pid).
    end = time.monotonic() + 30
    while not (sb.pids_dir.is_dir() and any(sb.pids_dir.iterdir())):
        expect(time.monotonic() < end and proc.poll() is None, None, "check never ran zpool")
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise Failed("hang", "check did not stop on Ctrl-C") from None
    expect(b"Traceback" not in err, None, f"traceback on Ctrl-C: {err[-200:]!r}", "traceback")
    expect(proc.returncode != 0, None, "exit 0 after Ctrl-C", "wrong-OK")
    expect(not sb.live_children(), None, "zpool children left running after Ctrl-C")


@probe("tracebacks")
def p_plan_garbage_device(sb: Sandbox) -> None:
    res = sb.run("plan", "replace", "healthy", "\x01;rm -rf /", "/dev/../../etc/passwd")
    expect(res.rc in (1, 3), res, f"exit {res.rc}")


@probe("tracebacks")
def p_unknown_theme(sb: Sandbox) -> None:
    one_line(sb.run("replay", "healthy", "--theme", "nope"), 2, "theme")


# ======================================= hygiene =================================================

RESTORED = {
    "leaves the alternate screen": b"\x1b[?1049l",
    "turns mouse tracking off": b"\x1b[?1000l",
    "shows the cursor": b"\x1b[?25h",
}


def _terminal_restored(t: Terminal, how: str) -> None:
    after = t.raw[t.raw.rfind(b"\x1b[?1049h") :]
    missing = [what for what, seq in RESTORED.items() if seq not in after]
    expect(not missing, None, f"after {how} the terminal is not restored: it never {', '.join(missing)}")


def _dashboard_stopped(how: str, hung: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        env = {"FAKE_ZPOOL_MODE": "hang", "FAKE_ZPOOL_SUBCMDS": "status,list"} if hung else {}
        t = sb.terminal(**env)
        try:
            t.wait_for("healthy" if not hung else "zdash", timeout=25)
            if hung:  # a zpool status is in flight now
                end = time.monotonic() + 10
                while not any("status" in p.read_text() for p in sb.pids_dir.iterdir()):
                    expect(time.monotonic() < end, None, "no zpool status started")
                    time.sleep(0.1)
            if how == "q":
                t.send(b"q")
            elif how == "ctrl+q":
                t.send(b"\x11")
            else:
                t.signal(getattr(signal, how))
            t.wait_exit(timeout=15)
        finally:
            t.close()
        _terminal_restored(t, how)
        end = time.monotonic() + 3
        while sb.live_children() and time.monotonic() < end:
            time.sleep(0.1)
        left = sb.live_children()
        expect(not left, None, f"{len(left)} zpool children still running after {how}")

    return fn


for _how in ("SIGTERM", "SIGHUP", "q", "ctrl+q"):
    add("hygiene", f"dashboard-{_how}-restores-terminal-and-children", _dashboard_stopped(_how, False), 45)
for _how in ("SIGTERM", "SIGHUP"):
    add("hygiene", f"dashboard-{_how}-kills-in-flight-zpool", _dashboard_stopped(_how, True), 45)


def _terminal_closed(hung: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        env = {"FAKE_ZPOOL_MODE": "hang", "FAKE_ZPOOL_SUBCMDS": "status,list"} if hung else {}
        t = sb.terminal(**env)
        try:
            t.wait_for("healthy" if not hung else "zdash", timeout=25)
            end = time.monotonic() + 10
            while hung and not any("status" in p.read_text() for p in sb.pids_dir.iterdir()):
                expect(time.monotonic() < end, None, "no zpool status started")
                time.sleep(0.1)
            t.hang_up()
            t.wait_gone(timeout=15)
        finally:
            t.close()
        end = time.monotonic() + 3
        while sb.live_children() and time.monotonic() < end:
            time.sleep(0.1)
        left = sb.live_children()
        expect(not left, None, f"{len(left)} zpool children still running after the terminal closed")

    return fn


add("hygiene", "dashboard-terminal-closed-exits-and-stops-children", _terminal_closed(False), 45)
add("hygiene", "dashboard-terminal-closed-with-zpool-in-flight", _terminal_closed(True), 45)


for _argv in ((), ("--demo",), ("replay", "healthy"), ("--wall",)):

    def _fn(sb: Sandbox, argv: tuple[str, ...] = _argv) -> None:
        res = sb.run(*argv, stdin=None, timeout=10)
        one_line(res, 2, "terminal")
        expect("record" in res.err and "check" in res.err, res, "no hint at zdash record / zdash check")
        expect("\x1b[" not in res.out, res, "escape codes written to a non-terminal")

    add("hygiene", f"no-tty-{'-'.join(a.strip('-') for a in _argv) or 'dashboard'}-refused", _fn, 12)


def _headless_signal(argv: tuple[str, ...], sig: signal.Signals, rc: int) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        proc = sb.popen(list(argv), FAKE_ZPOOL_MODE="hang", FAKE_ZPOOL_SUBCMDS="status")
        end = time.monotonic() + 10
        while not any("status" in p.read_text() for p in sb.pids_dir.iterdir()):
            expect(time.monotonic() < end, None, "no zpool status started")
            time.sleep(0.1)
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise Failed("hang", f"{argv[0]} did not stop on {sig.name}") from None
        expect(b"Traceback" not in err, None, f"traceback on {sig.name}", "traceback")
        expect(proc.returncode == rc, None, f"exit {proc.returncode} on {sig.name}, not {rc}")
        end = time.monotonic() + 3
        while sb.live_children() and time.monotonic() < end:
            time.sleep(0.1)
        expect(not sb.live_children(), None, f"zpool children left running after {sig.name}")

    return fn


for _sig in (signal.SIGTERM, signal.SIGHUP):
    add(
        "hygiene",
        f"record-{_sig.name}-with-zpool-in-flight",
        _headless_signal(("record", "-o", "r.yaml"), _sig, 0),
        25,
    )
    add("hygiene", f"check-{_sig.name}-with-zpool-in-flight", _headless_signal(("check",), _sig, 3), 25)
add("hygiene", "exporter-SIGTERM-with-zpool-in-flight",
    _headless_signal(("exporter", "--listen", "127.0.0.1:0"), signal.SIGTERM, 0), 25)  # fmt: skip


# ======================================== config =================================================


CONFIGS = {
    "nan-threshold": ("checks:\n  capacity_pool_crit_pct: .nan\n", "finite"),
    "inf-threshold": ("checks:\n  capacity_pool_warn_pct: .inf\n", "finite"),
    "negative": ("checks:\n  scrub_max_age_days: -3\n", "negative"),
    "unknown-disabled": ("checks:\n  disabled: [capacty]\n", "capacity"),
    "disabled-not-list": ("checks:\n  disabled: {a: 1}\n", "disabled"),
    "unknown-key": ("checks:\n  capacity_warn: 85\n", "did you mean"),
    "deep": ("checks:\n  x: " + "[" * 20000 + "]" * 20000 + "\n", "deep"),
    "non-utf8": (b"checks:\n  \xff\xfe: 1\n", "config"),
    "top-list": ("- 1\n", "mapping"),
    "checks-scalar": ("checks: 5\n", "mapping"),
    "huge": ("# " + "x" * (2 << 20) + "\n", "MiB"),
    "not-yaml": ("checks: [unclosed\n", "YAML"),
}


def _config(kind: str, cmd: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        text, word = CONFIGS[kind]
        path = sb.write("config/zdash/config.yaml", text)
        if cmd == "check":
            res = sb.run("check", "--replay", "capacity-93")
            not_ok(res, 3, word)
        elif cmd == "check-config":
            res = sb.run("check", "--replay", "capacity-93", "--config", path)
            not_ok(res, 3, word)
        elif cmd == "exporter":
            one_line(sb.run("exporter", "--listen", "127.0.0.1:0", "--config", path, timeout=10), 2, word)
        else:
            one_line(sb.run("replay", "healthy", stdin=None), 2, word)

    return fn


for _kind in CONFIGS:
    for _cmd in (
        ("check", "exporter", "dashboard")
        if _kind in ("nan-threshold", "unknown-disabled", "deep")
        else ("check",)
    ):
        add("config", f"config-{_kind}-{_cmd}", _config(_kind, _cmd))


@probe("config")
def p_config_is_a_directory(sb: Sandbox) -> None:
    os.makedirs(sb.path("config/zdash/config.yaml"))
    not_ok(sb.run("check", "--replay", "healthy"), 3)


@probe("config")
def p_config_missing_when_named(sb: Sandbox) -> None:
    not_ok(sb.run("check", "--replay", "healthy", "--config", sb.path("nope.yaml")), 3, "no such")
