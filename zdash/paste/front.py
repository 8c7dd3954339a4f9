"""The paste front door: a file of pasted human output of `zpool status`, `zpool list -v`,
`zpool iostat -v [-l]` and `zfs list` read and turned into one zdash tick. Used by
`zdash import FILE -o SESSION` and `zdash check --text FILE` (zdash.commands).

import writes a one-tick session (the samples hold the converted text, their argv says which
layout it is in); check runs the diagnosis on that one snapshot. Both print every line they
could not read as `line N: <text> (<why>)` on stderr; the session header's description keeps
the same report. import exits 0 when something was imported, 1 when nothing could be read.

The tick's time is the paste's own clock: the newest time printed in it (a scan, a `-T` stamp),
never today's: a paste from 2014 whose only date is its last scrub says nothing about the scrub's
age. Only a paste with no date at all takes the file's modification time (now for stdin); it
then has no scan time either, so no age is measured from that clock.
A paste has no history, so checks that want a sustained signal over several samples
(deranged_disk) are asked for as many samples as there are: one.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

from zdash.paste.samples import Imported, import_paste
from zdash.raw import Tick
from zdash.visible import visible


class PasteError(Exception):
    """The file cannot be read; str() is one line for the admin."""


MAX_PASTE_BYTES = 16 << 20  # far beyond any real paste (a 1,000-disk status is ~200 KB)
MAX_UNREAD_SHOWN = 20  # unreadable lines listed on stderr; the rest counted
MAX_LINE_SHOWN = 200  # characters of each
# A paste of which almost nothing reads as zpool or zfs output is not judged by the little that
# does: in 20,000 lines of random zpool words chance assembles a few status fragments, and zdash
# invented a dozen pools and said CRITICAL (issue #25). Real pastes read far more of their lines
# (every corpus case at least 9 %, a forum page saved whole included); a big one of which under
# 1 % reads is noise, and UNKNOWN says so.
NOISE_MIN_LINES = 1000
NOISE_MAX_READ = 0.01


def read_paste(path: str) -> tuple[str, float]:
    """The text (UTF-8, UTF-16 with a BOM as Windows tools write it) and its time."""
    try:
        if path == "-":
            data, mtime = sys.stdin.buffer.read(MAX_PASTE_BYTES + 1), time.time()
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_PASTE_BYTES + 1)
            mtime = os.path.getmtime(path)
    except OSError as e:
        raise PasteError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_PASTE_BYTES:
        raise PasteError(
            f"{path} is larger than {MAX_PASTE_BYTES >> 20} MiB: not a paste of zpool or zfs output"
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace"), mtime
    return data.decode("utf-8-sig", errors="replace"), mtime


def paste_tick(imported: Imported, default_time: float) -> Tick:
    t = imported.newest if imported.newest is not None else default_time
    return Tick(t, tuple(dataclasses.replace(s, time=t) for s in imported.samples))


def describe(path: str, imported: Imported) -> str:
    kinds = {"status": "zpool status", "list": "zpool list", "iostat": "zpool iostat", "zfs": "zfs list"}
    parts = [
        f"{kinds[b.kind]} (lines {b.first}-{b.last})"
        for b in imported.doc.blocks
        if b.kind in kinds and any(n in imported.used for n in range(b.first, b.last + 1))
    ]
    lines = [
        f"Imported by `zdash import` from the pasted output in {os.path.basename(path)}: "
        + (", ".join(parts) or "nothing")
        + ". Human numbers carry 3 significant digits; "
        "rates are what the pasted report showed, not measured by zdash."
    ]
    lines += imported.notes
    if imported.unread:
        lines.append(f"{len(imported.unread)} line(s) could not be read:")
        lines += [str(u) for u in imported.unread]
    return "\n".join(lines)


def import_file(path: str) -> tuple[Imported, float] | None:
    """The paste read and imported, its unreadable lines reported on stderr; None (and why,
    on stderr) when the file itself cannot be read."""
    try:
        text, mtime = read_paste(path)
    except PasteError as e:
        print(f"zdash: {e}", file=sys.stderr)
        return None
    imported = import_paste(text)
    lines = sum(1 for line in text.splitlines() if line.strip())
    if imported.samples and lines >= NOISE_MIN_LINES and len(imported.used) < NOISE_MAX_READ * lines:
        print(
            f"zdash: only {len(imported.used)} of {lines} lines of {path} read as zpool or zfs output: "
            "too little to judge the paste by (paste the commands' output alone)",
            file=sys.stderr,
        )
        return dataclasses.replace(imported, samples=(), notes=[]), mtime
    for u in imported.unread[:MAX_UNREAD_SHOWN]:
        line = visible(str(u))  # the paste's own text, on the admin's terminal
        print(line if len(line) <= MAX_LINE_SHOWN else line[: MAX_LINE_SHOWN - 1] + "…", file=sys.stderr)
    if len(imported.unread) > MAX_UNREAD_SHOWN:
        print(f"… and {len(imported.unread) - MAX_UNREAD_SHOWN} more lines not read", file=sys.stderr)
    return imported, mtime
