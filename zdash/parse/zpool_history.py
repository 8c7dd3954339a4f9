"""`zpool history` output, and a transcript's `zpool add` and `zpool attach` lines laid out the
same way: which devices each pool's `zpool add` named, the direct evidence that those top-level
vdevs came after the pool was created (the imbalance check's "added after the data was
written"), and which devices a `zpool attach` brought in (a side still resilvering after its
attach is redundancy being added, not redundancy lost: the health check's "catching up").

    History for 'lab':
    2026-11-24.12:36:57 zpool create -o ashift=12 lab /dev/vda
    2026-11-24.12:37:59 zpool add lab /dev/vdb

The pool is taken from each command line itself, so lines without the header or the date (a
transcript's prompt lines) read the same. `-l` suffixes (`[user 0 (root) on host]`) and
internal events (`-i`) are skipped; `zpool add -n` (a dry run) adds nothing.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

_STAMP = re.compile(r"^\d{4}-\d\d-\d\d\.\d\d:\d\d:\d\d\s+")
_LONG = re.compile(r"\s+\[user .*\]$")
# Words of a vdev specification that are not devices.
_KEYWORDS = frozenset({"mirror", "raidz", "raidz1", "raidz2", "raidz3", "log", "logs", "cache", "spare"})
_KEYWORDS |= {"special", "dedup"}
_VALUED = frozenset("o")  # `zpool add -o ashift=12`


def added_devices(argv: list[str] | tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """(pool, devices) of a `zpool add [-fgLnP] [-o p=v] POOL VDEV...` argv; None for anything
    else, and for a dry run (-n)."""
    if list(argv[:2]) != ["zpool", "add"]:
        return None
    words, k = list(argv[2:]), 0
    names: list[str] = []
    while k < len(words):
        w = words[k]
        if w.startswith("-") and names == []:
            if "n" in w[1:] and not w.startswith("--"):
                return None
            k += 2 if w[1:] and w[-1] in _VALUED else 1
            continue
        names.append(w)
        k += 1
    if len(names) < 2:
        return None
    devices = tuple(n for n in names[1:] if n not in _KEYWORDS and not n.startswith("draid"))
    return names[0], devices


def attached_device(argv: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """(pool, new device) of a `zpool attach [-fsw] [-o p=v] POOL DEVICE NEW_DEVICE` argv."""
    if list(argv[:2]) != ["zpool", "attach"]:
        return None
    words = [w for i, w in enumerate(argv[2:]) if not w.startswith("-") and not _after_o(argv[2:], i)]
    return (words[0], words[2]) if len(words) == 3 else None


def _after_o(words: list[str] | tuple[str, ...], i: int) -> bool:
    return i > 0 and words[i - 1] == "-o"


def is_history_command(argv: list[str] | tuple[str, ...]) -> bool:
    """A command line whose effect zdash remembers (a `zpool add` or `zpool attach`)."""
    return added_devices(argv) is not None or attached_device(argv) is not None


@dataclass(frozen=True)
class History:
    """What a pool's history says: {pool: devices} its `zpool add` and `zpool attach` named."""

    added: dict[str, tuple[str, ...]] = field(default_factory=dict)
    attached: dict[str, tuple[str, ...]] = field(default_factory=dict)


NO_HISTORY = History()


def parse_history(text: str) -> History:
    """The devices named by each pool's `zpool add` and `zpool attach` commands, in order."""
    out = History()
    for line in text.splitlines():
        body = _LONG.sub("", _STAMP.sub("", line.strip()))
        if not body.startswith(("zpool add", "zpool attach")):
            continue
        try:
            argv = shlex.split(body)
        except ValueError:
            continue
        if (found := added_devices(argv)) is not None:
            pool, devices = found
            out.added[pool] = out.added.get(pool, ()) + devices
        elif (attached := attached_device(argv)) is not None:
            pool, device = attached
            out.attached[pool] = out.attached.get(pool, ()) + (device,)
    return out
