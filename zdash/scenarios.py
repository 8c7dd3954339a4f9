"""The bundled scenario library: recordings made on real pools in the lab by
fixtures/make_fixtures.py, replayable by name (`zdash replay NAME`, `zdash replay --list`).

The files are the repository's fixtures/ folder, shipped inside the wheel (zdash.resources
finds either); ZDASH_FIXTURES points elsewhere. No Textual here: `--list` is headless.
"""

from __future__ import annotations

import os
from pathlib import Path

from zdash.resources import ResourceError, bundled_dir
from zdash.sources.session import SessionError, read_session

SUFFIX = ".yaml.gz"
DEMO = "deranged-mirror"  # what a newcomer sees first: one sick disk dragging a healthy pool


def fixtures_dir() -> Path:
    return bundled_dir("fixtures")


def demo_recording() -> Path:
    """The demo's recording: the DEMO scenario, or the session file ZDASH_DEMO names."""
    path = Path(os.environ.get("ZDASH_DEMO") or fixtures_dir() / f"{DEMO}{SUFFIX}")
    if not path.is_file():
        raise ResourceError(
            f"zdash: the demo recording is missing ({path}). This zdash install is incomplete: "
            f"reinstall it, or set ZDASH_DEMO to a session file."
        )
    return path


def names() -> list[str]:
    d = fixtures_dir()
    return sorted(p.name[: -len(SUFFIX)] for p in d.glob(f"*{SUFFIX}")) if d.is_dir() else []


def path_of(name_or_file: str) -> str:
    """A file path as given, or the bundled scenario of that name; the path unchanged when it is
    neither (the session reader then says what is wrong with it)."""
    if os.path.exists(name_or_file) or os.sep in name_or_file or name_or_file.endswith((".yaml", ".gz")):
        return name_or_file
    bundled = fixtures_dir() / f"{name_or_file}{SUFFIX}"
    return str(bundled) if bundled.is_file() else name_or_file


def describe(name: str) -> str:
    """The start of a scenario's description, whole sentences up to a line's worth."""
    try:
        header, ticks = read_session(str(fixtures_dir() / f"{name}{SUFFIX}"))
        ticks.close()
    except (SessionError, OSError) as e:
        return f"(unreadable: {e})"
    text = " ".join((header.description or "").split())
    if not text:
        return "(no description)"
    out = ""
    for sentence in text.replace(". ", ".\n").splitlines():
        out = f"{out} {sentence}".strip()
        if len(out) >= 50:
            break
    return out if len(out) <= 130 else out[:129] + "…"


def print_list() -> int:
    found = names()
    if not found:
        print(f"zdash: no bundled scenarios in {fixtures_dir()}")
        return 1
    width = max(len(n) for n in found)
    for n in found:
        print(f"{n.ljust(width)}  {describe(n)}")
    print(f"\nplay one with: zdash replay NAME   (files in {fixtures_dir()})")
    return 0
