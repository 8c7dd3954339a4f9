"""YAML that multiplies (class `yaml`): aliases nested into a billion laughs, merge keys, and
files too large to be zdash's, as a config, a theme or a recording. Each must be refused in one
line, quickly, with memory bounded (the probe caps zdash at 1 GiB of address space: a bomb that
expands hits it and fails the probe)."""

from __future__ import annotations

import gzip
import re
import resource
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.faults.harness import Failed, Result, Sandbox, kill_group, no_traceback, zdash_executable
from tests.hostile.harness import add, expect

MEMORY = 1 << 30


def laughs(levels: int = 9, width: int = 9, key: str = "lol") -> str:
    """The billion laughs: each anchor a list of `width` aliases of the one before."""
    lines = [f'a0: &a0 ["{key}"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def run_capped(sb: Sandbox, *argv: str, timeout: float = 20.0, **env: str) -> Result:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    started = time.monotonic()
    proc = subprocess.Popen(
        [zdash_executable(), *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=sb.dir,
        env=sb.env(**env),
        start_new_session=True,
        preexec_fn=cap,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise Failed("hang", f"`zdash {' '.join(argv)}` still running after {timeout:g} s") from None
    res = Result(
        list(argv),
        proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        time.monotonic() - started,
    )
    no_traceback(res)
    expect(
        "MemoryError" not in res.text and "internal error" not in res.text,
        f"ran out of memory: {res.brief()}",
    )
    return res


def _config(doc: str, *argv: str, words: tuple[str, ...] = ("alias",)) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        sb.write("config/zdash/config.yaml", doc)
        res = run_capped(sb, *(argv or ("check", "--samples", "2", "--interval", "0.2")))
        expect(res.rc not in (0, None), f"a bomb of a config was accepted: {res.brief()}")
        lines = [x for x in res.err.splitlines() if x.strip()]
        expect(len(lines) == 1 and "config.yaml" in res.err, f"not one line naming the file: {res.brief()}")
        for w in words:
            expect(w in res.err.lower(), f"the message does not say {w!r}: {res.brief()}")

    return fn


add("yaml", "config-billion-laughs-379-bytes", _config(laughs().replace("a9", "checks")))
add(
    "yaml",
    "config-laughs-under-a-threshold",
    _config("x:\n  " + laughs().replace("\n", "\n  ").rstrip() + "\nchecks:\n  scrub_max_age_days: *a9\n"),
)
add("yaml", "config-hosts-of-aliases", _config(laughs().replace("a9: &a9", "hosts:")))
add(
    "yaml",
    "config-merge-key-bomb",
    _config("base: &b {scrub_max_age_days: 1}\nchecks:\n  <<: [*b, *b, *b]\n" + laughs()),
)
add("yaml", "config-larger-than-a-config", _config("# " + "x" * (64 << 20) + "\n", words=("larger",)), 40)
add(
    "yaml",
    "exporter-config-billion-laughs",
    _config(laughs().replace("a9", "checks"), "exporter", "--listen", "127.0.0.1:0"),
)


def _theme(doc: str, words: tuple[str, ...] = ("alias",)) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        from tests.faults.harness import ROOT

        themes = sb.dir / "themes"
        themes.mkdir()
        for f in (ROOT / "themes").iterdir():
            (themes / f.name).write_bytes(f.read_bytes())
        (themes / "bomb.yaml").write_text(doc)
        # serve builds the app headless before it listens: a bad theme is one line there
        res = run_capped(
            sb, "serve", "--demo", "--theme", "bomb", "--listen", "127.0.0.1:0", ZDASH_THEMES=str(themes)
        )
        expect(res.rc not in (0, None), f"a bomb of a theme was accepted: {res.brief()}")
        for w in words:
            expect(w in res.err.lower(), f"the message does not say {w!r}: {res.brief()}")

    return fn


add(
    "yaml",
    "theme-billion-laughs",
    _theme("name: bomb\nprimary: '#ff0000'\n" + laughs().replace("a9:", "variables:")),
)
add(
    "yaml",
    "theme-larger-than-a-theme",
    _theme("name: bomb\n# " + "y" * (64 << 20) + "\n", words=("larger",)),
    40,
)


def _recording(where: str, gz: bool) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        from tests.faults.probes import recording

        path = recording(sb, "r.yaml.gz" if gz else "r.yaml", "healthy")
        data = Path(path).read_bytes()
        text = gzip.decompress(data).decode() if gz else data.decode()
        bomb = laughs().replace("\n", "\n  ")
        if where == "header":  # the header's host an alias tree
            text = re.sub(r"(?m)^host: .*$", "extra:\n  " + bomb.rstrip() + "\nhost: *a9", text, count=1)
        else:  # a tick's document
            at = text.index("\n---", text.index("\n---") + 4)
            text = text[:at] + "\n---\nt: 1\nbomb:\n  " + bomb + "\nsamples: *a9" + text[at:]
        Path(path).write_bytes(gzip.compress(text.encode()) if gz else text.encode())
        res = run_capped(sb, "summary", path)
        expect(res.rc not in (None,), f"summary did not end: {res.brief()}")
        expect("alias" in res.text.lower(), f"the alias is not named: {res.brief()}")
        res = run_capped(sb, "check", "--replay", path)
        expect(res.rc not in (None,), "check --replay did not end")

    return fn


add("yaml", "recording-header-aliases", _recording("header", False))
add("yaml", "recording-tick-aliases", _recording("tick", False))
add("yaml", "recording-gz-header-aliases", _recording("header", True))
