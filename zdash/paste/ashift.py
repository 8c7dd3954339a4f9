"""Where a paste says each top-level vdev's configured ashift (reference §5): `zdb`, `zdb -C`
and `zdb -l` dumps, the `ashift:` lines `zdb | grep ashift` leaves, and `zpool get ... POOL
all-vdevs` tables. The pool property `zpool get ashift POOL` is only a default for future vdevs
and is not read here.

zdb's nvlist dumps go through the real parser (zdash.parse.vdev_ashift). A grep of them keeps
neither the pool nor the vdevs' names: its `ashift:` lines belong to the pool the transcript
last named (`zpool create tank ...`, `zdb tank`) and are the top-level vdevs in order. An
all-vdevs table names the vdevs (root-0 is the root, its capacity and state the pool's); its
pool is the one its command line names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from zdash.parse.vdev_ashift import TopVdevAshift, parse_zdb_config

# A line of zdb's nvlist dump: `key: value`, `key:` opening a list, a bare boolean key, the
# label banner and its dashes, `labels = 0 1 2 3`, or a user's elision.
_NV = re.compile(
    r"\s*(?:[\w.:@/-]{1,200}(?:\[[0-9]{1,6}\])?(?::(?:\s.*)?)?|LABEL [0-9]{1,2}|-{8,}|labels = [0-9 ]{1,20}"
    r"|\[\.\.\.\]|\.\.\.|\(\.\.\.\)|…)"
)
_OPENS = re.compile(r"\s+(?:version|name|vdev_tree|children\[[0-9]{1,6}\]|type|txg|state):(?:\s.*)?")
_POOL_HEAD = re.compile(r"[A-Za-z0-9][\w.:-]{0,255}:")
_ELIDED = re.compile(r"\[\.\.\.\]|\.\.\.|\(\.\.\.\)|…")
_LABEL = re.compile(r"LABEL [0-9]{1,2}")
# `zdb | grep ashift`: the value, perhaps closing a Markdown inline code span (corpus 264).
GREPPED = re.compile(r"\s*ashift:\s*([0-9]{1,2})\s*`*")
ROOT_VDEV = "root-0"  # how `zpool get ... all-vdevs` names the root vdev
UNNAMED_TOP = "(top-level-{})"  # a grep keeps no vdev names: the Nth top-level vdev


def starts_zdb(lines: list[str], i: int) -> bool:
    """A zdb dump starts here: "MOS Configuration:", a label banner, or a pool's `name:` line
    with the dump's fields indented under it."""
    text = lines[i].strip()
    if text == "MOS Configuration:" or _LABEL.fullmatch(text):
        return True
    if re.fullmatch(r"-{20,}", text):
        return i + 1 < len(lines) and _LABEL.fullmatch(lines[i + 1].strip()) is not None
    if not _POOL_HEAD.fullmatch(text) or lines[i][:1].isspace():
        return False
    k = i + 1
    while k < len(lines) and (not lines[k].strip() or _ELIDED.fullmatch(lines[k].strip())) and k < i + 3:
        k += 1
    return k < len(lines) and _OPENS.fullmatch(lines[k]) is not None


def take_zdb(lines: list[str], i: int, ends: Callable[[int], bool]) -> int:
    """The index after the dump starting at lines[i]: its lines are nvlist fields (a blank line
    only right after "MOS Configuration:"), up to anything else or another block."""
    j = i + 1
    while j < len(lines):
        text = lines[j].strip()
        if not text:
            if lines[j - 1].strip() != "MOS Configuration:":
                break
        elif (
            ends(j)
            or not _NV.fullmatch(lines[j])
            or (
                not lines[j][:1].isspace() and not _LABEL.fullmatch(text) and not re.fullmatch(r"-{8,}", text)
            )
        ):
            break
        j += 1
    return j


def read_zdb(text: str) -> dict[str, list[TopVdevAshift]]:
    """{pool: its top-level vdevs} from a pasted dump (ParseError when it holds no config)."""
    return parse_zdb_config(
        "\n".join(line for line in text.split("\n") if not _ELIDED.fullmatch(line.strip()))
    )


@dataclass
class VdevProps:
    """An all-vdevs table's rows: each vdev's properties, in the order zpool listed them."""

    pool: str | None  # from the command line, when pasted
    props: dict[str, dict[str, str]] = field(default_factory=dict)

    def names(self) -> list[str]:
        return [n for n in self.props if n != ROOT_VDEV]


def is_all_vdevs_row(line: str) -> bool:
    words = line.split()
    return len(words) >= 3 and words[0] == ROOT_VDEV


def all_vdevs_pool(command: tuple[str, ...] | None) -> str | None:
    """POOL of `zpool get PROPS POOL all-vdevs`."""
    if command is None or command[:2] != ("zpool", "get") or command[-1:] != ("all-vdevs",):
        return None
    words = [w for w in command[2:-1] if not w.startswith("-")]
    return words[-1] if len(words) >= 2 else None


def take_all_vdevs(lines: list[str], first: int, end: int, pool: str | None) -> VdevProps | None:
    """Rows `vdev property value source` of lines[first:end]; None when they are not."""
    out = VdevProps(pool)
    for line in lines[first:end]:
        words = line.split()
        if not words:
            continue
        if len(words) < 3:
            return None
        out.props.setdefault(words[0], {})[words[1]] = words[2]
    return out if ROOT_VDEV in out.props else None


def ashift_rows(tops: dict[str, int]) -> str:
    """The `zpool get -H -p -o name,value ashift POOL all-vdevs` layout the builder reads."""
    return "".join(f"{name}\t{value}\n" for name, value in tops.items())


def parse_ashift_value(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if 9 <= value <= 16 else None


def grepped_pool(command_line: str) -> str | None:
    """The pool a transcript's `zdb [-C] POOL` line names (zdb's own pool argument)."""
    m = re.search(r"\bzdb((?:\s+-[A-Za-z]+)*)\s+([A-Za-z][\w.:-]{0,255})(?:\s|$|\|)", command_line)
    return m.group(2) if m is not None else None
