"""The depth of config rows whose indentation a paste lost, recovered from the vdev names.

Mail clients and web pages collapse runs of spaces to one, turn the leading TAB into a space
or mix both, so the widths no longer tell the tree. The names still do: the first row is the
pool; `logs`/`cache`/`spares`/`special`/`dedup` head a class at the pool's level; `mirror-N`,
`raidzN-N`, `draidN:...-N`, `indirect-N` (and the id-less `mirror`/`raidz2` of old releases)
are top-level vdevs; `replacing-N`/`spare-N` sit in the top-level vdev that is open (else at
the top level, a single disk being replaced) and hold two devices; every other name is a
device in the innermost open group. What names cannot tell: a single-disk top-level vdev
printed after a mirror reads as one more side of that mirror.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Rows the paste did not show: a table pasted from below its pool row, the vdev of a lone
# device row. Their names say so; their state is UNSEEN (unknown, never judged).
UNNAMED_POOL = "(pool-not-pasted)"
UNSHOWN_VDEV = "(vdev-not-pasted)"
CLASSES = frozenset({"logs", "log", "cache", "spares", "special", "dedup"})
_TOP = re.compile(r"(?:mirror|raidz[1-3]?|draid[1-3]?(?::[0-9a-z:]*)?|indirect|hole)(?:-[0-9]{1,6})?")
_GROUP = re.compile(r"(?:replacing|spare)(?:-[0-9]{1,6})?")
GROUP_SIZE = 2  # a replacing-N or spare-N holds the old and the new device


def is_top_name(name: str) -> bool:
    return _TOP.fullmatch(name) is not None


def by_names(names: Sequence[str]) -> list[int]:
    """Depth of each row (0: the pool row and class headers)."""
    out: list[int] = []
    top_open = False  # a mirror/raidz/draid row above takes the devices that follow
    group: list[int] = []  # [depth, children seen] of an open replacing-N / spare-N
    for k, name in enumerate(names):
        if k == 0 or name in CLASSES:
            out.append(0)
            top_open, group = False, []
        elif _TOP.fullmatch(name):
            out.append(1)
            top_open, group = not name.startswith(("indirect", "hole")), []
        elif _GROUP.fullmatch(name):
            d = 2 if top_open else 1
            out.append(d)
            group = [d, 0]
        elif group:
            out.append(group[0] + 1)
            group[1] += 1
            if group[1] >= GROUP_SIZE:
                group = []
        else:
            out.append(2 if top_open else 1)
    return out


def mangled(names: Sequence[str], depths: Sequence[int]) -> bool:
    """Whether the indentation was mangled, so the names should tell the depths: every row at
    one width (collapsed), or depths that do not fit the names. A second row at the pool's
    level that heads no class is a table that is broken, not mangled: the parser refuses it."""
    if len(depths) > 1 and len(set(depths)) == 1:
        return True
    # A vdev's name is never a pool's (zpool reserves mirror, raidz..., spare... and log): such a
    # row at the pool's level, or a pool row indented deeper than its vdevs (issue 26), is a
    # table whose indentation lies, not a second pool.
    second_pool = any(
        d == 0 and n not in CLASSES and not is_top_name(n) and not _GROUP.fullmatch(n)
        for n, d in zip(names[1:], depths[1:])
    )
    return not second_pool and not plausible(names, depths)


def plausible(names: Sequence[str], depths: Sequence[int]) -> bool:
    """Whether depths read from indentation fit the names: the pool first at 0, classes at 0,
    every other row below the pool, top-level vdevs at 1, no level skipped going down, and a
    mirror/raidz/draid followed by its devices rather than by a device beside it (`-H`)."""
    if not depths or depths[0] != 0:
        return False
    for k in range(1, len(names) - 1):
        nxt = names[k + 1]
        if (
            _TOP.fullmatch(names[k])
            and not names[k].startswith(("indirect", "hole"))
            and depths[k + 1] <= depths[k]
            and nxt not in CLASSES
            and not _TOP.fullmatch(nxt)
        ):
            return False
    prev = 0
    for name, d in zip(names[1:], depths[1:]):
        if name in CLASSES and d != 0:
            return False
        if name not in CLASSES and (d < 1 or d > prev + 1 or (_TOP.fullmatch(name) and d != 1)):
            return False
        prev = d
    return True
