"""Shared helpers: the human captures of a scenario as one paste, and a paste as a Snapshot."""

from __future__ import annotations

from pathlib import Path

from zdash.fold import look
from zdash.model import Snapshot
from zdash.paste.front import paste_tick
from zdash.paste.samples import Imported, import_paste

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
T0 = 1_700_000_000.0
# Human-readable captures (meta.txt: no -j, no -H): what an admin pastes.
STEMS = ("zpool-status", "zpool-list-v", "zpool-iostat-v", "zfs-list")


def human_files() -> list[Path]:
    return sorted(
        p
        for p in CAPTURES.glob("*/*.txt")
        if p.name.startswith(STEMS) and "-j" not in p.name and "-H-p" not in p.name
    )


def phases() -> list[tuple[str, str | None]]:
    """(scenario, phase) for every zpool-status[.phase].txt capture."""
    out = []
    for p in sorted(CAPTURES.glob("*/zpool-status*.txt")):
        stem = p.name[:-4]
        if stem == "zpool-status":
            out.append((p.parent.name, None))
        elif stem.startswith("zpool-status."):
            out.append((p.parent.name, stem.split(".", 1)[1]))
    return out


def capture(scenario: str, stem: str, phase: str | None) -> str | None:
    path = CAPTURES / scenario / (f"{stem}.{phase}.txt" if phase else f"{stem}.txt")
    return path.read_text() if path.exists() else None


def human_paste(scenario: str, phase: str | None, prompt: str = "root@lab:~# ") -> str:
    """The scenario's human outputs as one terminal session: a prompt line, then the output."""
    parts = []
    for stem, cmd in (
        ("zpool-status", "zpool status -v"),
        ("zpool-list-v", "zpool list -v"),
        ("zpool-iostat-v", "zpool iostat -v"),
        ("zfs-list", "zfs list -r -t all"),
    ):
        text = capture(scenario, stem, phase)
        if text is not None:
            parts.append(f"{prompt}{cmd}\n{text}")
    return "".join(parts)


def snapshot(text: str, t: float = T0) -> tuple[Snapshot, Imported]:
    imported = import_paste(text)
    return look(paste_tick(imported, t)), imported


def near(a: float | None, b: float | None, rel: float = 0.006, floor: float = 512) -> bool:
    """Equal within human rounding: nicenum keeps 3 significant digits."""
    if a is None or b is None:
        return a is b
    return abs(a - b) <= max(rel * abs(b), floor)


def nonblank(text: str) -> set[int]:
    from zdash.paste.lines import clean_lines

    return {n for n, line in enumerate(clean_lines(text), 1) if line.strip()}
