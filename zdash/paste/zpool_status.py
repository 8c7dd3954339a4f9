"""A pasted `zpool status` block: where it ends, which lines belong to it, and the same report
rewritten in the layout zpool prints (TAB-led rows, 2 spaces per depth), pool by pool.

Pastes lose what the text parser leans on: TABs become 4 or 8 spaces or vanish, a forum strips
the first column, someone re-indents by hand (PR openzfs/zfs#12225 quotes rows indented by 0,
1 and 3 spaces). Depth is therefore re-derived here from the *ranks* of the indentation widths
in each config table, and every row is re-emitted as TAB + 2*depth spaces. Lines that fit no
part of a status report are returned as unread, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from zdash.model import UNSEEN
from zdash.paste.depth import UNNAMED_POOL, UNSHOWN_VDEV, by_names, is_top_name, mangled
from zdash.paste.lines import is_bare_prompt, prompt_command, width
from zdash.paste.table import Unreadable
from zdash.paste.zpool_iostat import ELISION

LABELS = (
    "pool",
    "state",
    "status",
    "action",
    "see",
    "scan",
    "scrub",
    "remove",
    "checkpoint",
    "expand",
    "config",
    "errors",
    "dedup",
    "scan warning",
    "raidz expand",
    "id",  # `zpool import` prints the pool's GUID between pool: and state:
)
_LABEL = re.compile(rf"({'|'.join(LABELS)}):(?:\s+(.*))?")
_CLASS = frozenset({"logs", "log", "cache", "spares", "special", "dedup"})
_CONTINUED = frozenset(
    {
        "status",
        "action",
        "see",
        "scan",
        "scrub",
        "remove",
        "checkpoint",
        "expand",
        "scan warning",
        "raidz expand",
    }
)  # fields whose text wraps
# A config row: a name, then a state zpool_state_to_name() prints (AVAIL/INUSE for spares), so a
# table of another tool pasted below (`gpart show`: "=>  40  7814037088  ada0  GPT  (3.6T)")
# is not read as rows of the pool.
_ROW = re.compile(
    r"(\S.*?\s+(?:ONLINE|DEGRADED|FAULTED|OFFLINE|UNAVAIL|REMOVED|AVAIL|INUSE|SPLIT|UNKNOWN"
    rf"|SUSPENDED|{UNSEEN}))(?:\s.*)?"
)
_SCAN_DETAIL = re.compile(r".*(?:scanned|issued|repaired,|resilvered,|% done|started on|to go).*")
_FILE = re.compile(r"(?:/|<|[\w.-]+[/@:]).*")
_COMMA = re.compile(r"(?<![0-9,])([0-9]{1,3}),([0-9]{1,4})(?=[KMGTPEZB%]?(?:\s|/|$))")


def _decimal(text: str) -> str:
    """'4,43G scanned', '1,57% done', a counter '1,68K': a locale's decimal comma
    (openzfs/zfs#2764, #5186) as the point the parsers read."""
    return _COMMA.sub(r"\1.\2", text)


def label_of(line: str) -> tuple[str, str] | None:
    m = _LABEL.fullmatch(line.strip())
    return (m.group(1), (m.group(2) or "").strip()) if m else None


def starts_status(line: str) -> bool:
    """A `pool: NAME` line. A pool's name begins with a letter (zpool refuses any other), so a
    ZED mail's `pool: 0x83BBC476EFE065A2` (the pool's GUID, corpus 268) opens no report."""
    lab = label_of(line)
    return lab is not None and lab[0] == "pool" and lab[1][:1].isalpha() and " " not in lab[1]


def is_config_header(line: str) -> bool:
    words = line.split()
    return len(words) >= 2 and words[0] == "NAME" and words[1] == "STATE"


@dataclass
class StatusPool:
    """One pool's lines: numbers of the lines used, and the rebuilt text."""

    name: str | None  # None until a headless table's pool row names it
    first: int
    headless: bool = False  # a config table pasted without pool:/state:/config:
    healthy_line: bool = False  # `zpool status -x`'s "pool 'NAME' is healthy", nothing more
    import_listing: bool = False  # `zpool import`'s listing (its id: line): it prints no scans
    used: list[int] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    rows: list[tuple[int, str]] = field(default_factory=list)  # config rows, re-indented at the end


@dataclass
class StatusBlock:
    end: int  # index after the block's last line
    pools: list[StatusPool]
    unread: list[Unreadable]


# What the lines being read belong to: labelled fields, the config: label (its header comes
# next), the config rows, the -D dedup table, the permanent-error file list, or after errors:.
_Mode: TypeAlias = Literal["fields", "config", "rows", "dedup", "files", "done"]
_LABEL_MODE: dict[str, _Mode] = {"config": "config", "dedup": "dedup"}


def take_status(
    lines: list[str], i: int, other_block: Callable[[int], bool], headless: bool = False
) -> StatusBlock:
    """Read a status report starting at lines[i] (a `pool:` line, or with headless a config
    table's NAME STATE header). other_block(j) says whether another kind of block starts at
    line j; that, a prompt, or an unindented stray ends it. The pool being read is pools[-1]:
    the first line always opens one."""
    pools: list[StatusPool] = []
    unread: list[Unreadable] = []
    mode: _Mode = "fields"
    j, last = i, ""
    if headless:
        pools.append(StatusPool(None, i + 1, headless=True))
        mode = "config"
    while j < len(lines):
        line, n = lines[j], j + 1
        text = line.strip()
        if not text:
            if mode == "rows" and pools[-1].rows and not _more_rows(lines, j, other_block):
                _flush_rows(pools[-1])
                mode = "fields"
            j += 1
            continue
        lab = label_of(line)
        if lab is not None and (lab[0] != "pool" or starts_status(line)):
            if mode == "rows":
                _flush_rows(pools[-1])
            label, value = lab
            last = label
            if label == "pool":
                pools.append(StatusPool(value, n))
            pool = pools[-1]
            pool.used.append(n)
            value = _decimal(value) if label in ("scan", "scrub") else value
            if label == "id":  # the import listing's GUID: not a status field
                pool.import_listing = True
            else:
                pool.out.append(f"{label:>6}: {value}".rstrip() if len(label) <= 6 else f"{label}: {value}")
            if label == "errors":
                mode = "files" if value.startswith("Permanent errors") else "done"
            else:
                mode = _LABEL_MODE.get(label, "fields")
            j += 1
            continue
        if j > i and (other_block(j) or prompt_command(line)[0] or is_bare_prompt(line)):
            break
        if mode == "fields" and pools and is_config_header(text):
            mode = "config"  # the NAME STATE header without its config: label (Solaris, excerpts)
            pools[-1].out.append("config:")
        fit = _fits(mode, line, text) if mode != "fields" or last in _CONTINUED else None
        if fit == "row":
            pool = pools[-1]
            if mode == "config":
                # `zpool import` prints no NAME STATE header and no counters
                header = _header(text) if is_config_header(text) else IMPORT_HEADER
                pool.out += ["", "\t" + header]
                mode = "rows"
                if not is_config_header(text):
                    pool.rows.append((n, line))
            else:
                pool.rows.append((n, line))
            pool.used.append(n)
        elif fit == "keep":
            pool = pools[-1]
            if mode == "files":  # -vv: "<path>: found 9 corrupted 128K blocks" names <path>
                text = _VV_FILE.sub(r"\1", text)
            pool.out.append("\t" + (_decimal(text) if mode == "fields" else text))
            pool.used.append(n)
        elif fit is not None:
            unread.append((n, line, fit))
        elif width(line) > 0 and mode != "done":
            unread.append((n, line, "not part of a zpool status report"))
        else:
            break
        j += 1
    if mode == "rows":
        _flush_rows(pools[-1])
    return StatusBlock(j, pools, unread)


def _more_rows(lines: list[str], j: int, other_block: Callable[[int], bool]) -> bool:
    """A blank line inside a config table (double-spaced pastes) does not end it when the next
    line is another row."""
    k = j + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines) or label_of(lines[k]) is not None or other_block(k) or prompt_command(lines[k])[0]:
        return False
    return _fits("rows", lines[k], lines[k].strip()) == "row"


def _fits(mode: str, line: str, text: str) -> str | None:
    """'row' (config header or row), 'keep' (continuation / error file), a why for a line that
    sits inside the report but means nothing to zdash, or None (not part of the report)."""
    if mode == "config":
        if is_config_header(text) or _ROW.fullmatch(text):
            return "row"
        return "the config table has no NAME STATE header before this line"
    if mode == "rows":
        if text in _CLASS or _ROW.fullmatch(text):
            return "row"
        if ELISION.fullmatch(text):
            return "rows left out by the poster: the table is read around them"
        return "not a config row (NAME STATE READ WRITE CKSUM)"
    if mode == "files":
        if _VV_RANGE.fullmatch(text):
            return "zpool status -vv: a damaged byte range of the file above"
        return "keep" if width(line) > 0 or _FILE.fullmatch(text) else None
    if mode == "dedup":
        return "zpool status -D dedup table: not imported"
    if mode == "fields" and (width(line) > 0 or _SCAN_DETAIL.fullmatch(text)):
        return "keep"
    return None


# `zpool status -vv` (2.4): each damaged file with its count of bad blocks, then its byte ranges.
_VV_FILE = re.compile(r"(.+?): found [0-9]{1,20} corrupted [0-9.]{1,8}[KMGTPE]? blocks?")
_VV_RANGE = re.compile(r"\[0x[0-9a-f]{1,16}-0x[0-9a-f]{1,16}\] \([0-9.]{1,8}[KMGTPE]?\)")

IMPORT_HEADER = "NAME  STATE  READ WRITE CKSUM"
_DEVICE_ONLY = frozenset({"OFFLINE", "REMOVED", "AVAIL", "INUSE"})
_FRAGMENT_ROW = re.compile(
    r"(?:mirror|raidz[1-3]?|draid[1-3]?[:0-9a-z]*|spare|replacing)(?:-[0-9]{1,6})?\s+[A-Z]{3,}"
    r"(?:\s+[0-9.]{1,8}[KMGTPE]?){3}(?:\s.*)?"
)


def is_fragment(words: list[str]) -> bool:
    """The first row of a headless config table is no pool row: a vdev, a class header, a
    state only devices have, or a name or annotation no pool can have."""
    return bool(words) and (
        is_top_name(words[0])
        or words[0] in _CLASS
        or re.fullmatch(r"(?:spare|replacing)-[0-9]{1,6}", words[0]) is not None
        or (len(words) > 1 and words[1] in _DEVICE_ONLY)
        or _NO_POOL_NAME.fullmatch(words[0]) is not None
        or _DEVICE_NOTE.fullmatch(" ".join(words[5:])) is not None
    )


# Names zpool refuses for a pool (pool_namecheck: a '/', a first character that is no letter,
# 'c' and a digit, reserved for disks) and a vdev's GUID: a row so named is a device's.
_NO_POOL_NAME = re.compile(r"[^A-Za-z].*|.*/.*|c[0-9].*")
# What zpool prints after a device's counters and never after a pool's (vdev_aux and the
# activity marks of a leaf).
_DEVICE_NOTE = re.compile(
    r"too many errors|was /\S+|cannot open|\((?:resilvering|repairing|awaiting resilver)\)"
)
# Names the kernels give disks (Linux sdX/vdX/xvdX/nvmeXnY, FreeBSD adaN/daN/nvdN, macOS
# diskN, partitions, by-id links): a pool so named is possible but would be perverse, so rows
# pasted without their table's header read as devices when every name is one (corpus 211).
_DISK_NAME = re.compile(
    r"(?:x?v|s|h)d[a-z]{1,3}[0-9]{0,3}|nvme[0-9]{1,3}n[0-9]{1,3}(?:p[0-9]{1,3})?"
    r"|(?:a?da|nvd|nda|mfid|mfisyspd)[0-9]{1,4}(?:p[0-9]{1,3})?|disk[0-9]{1,4}(?:s[0-9]{1,2})?"
    r"|(?:ata|scsi|wwn|nvme|usb|virtio|dm-uuid|pci)-\S+|\S+-part[0-9]{1,3}"
)
_BARE_ROW = re.compile(
    r"(\S+)\s+(ONLINE|DEGRADED|FAULTED|OFFLINE|UNAVAIL|REMOVED)(?:\s+[0-9.]{1,8}[KMGTPE]?){3}"
    r"(?:\s+(.*))?"
)


def _bare_device(line: str) -> bool:
    """A config row with its counters that only a device can be: a disk's name or a name no
    pool may have, and nothing after the counters but what zpool prints there for a device."""
    m = _BARE_ROW.fullmatch(line.strip())
    if m is None or (m[3] and _DEVICE_NOTE.fullmatch(m[3]) is None):
        return False
    return _DISK_NAME.fullmatch(m[1]) is not None or _NO_POOL_NAME.fullmatch(m[1]) is not None


def starts_device_rows(lines: list[str], i: int) -> bool:
    """Device rows pasted with no header, pool or vdev row (corpus 211: `sdj UNAVAIL 253 3 0`
    over `sdk FAULTED ... too many errors`). Read only as a run of two or more such rows at one
    indentation, or one row indented as a table's: words that merely look like zpool's (prose,
    word salad) make no pool."""
    if not _bare_device(lines[i]) or (i > 0 and _bare_device(lines[i - 1])):
        return False
    w = width(lines[i])
    run = 1
    while i + run < len(lines) and _bare_device(lines[i + run]) and width(lines[i + run]) == w:
        run += 1
    return run >= 2 or w > 0


def starts_fragment(line: str) -> bool:
    """A config row of a vdev with its counters, pasted without the table above it."""
    return _FRAGMENT_ROW.fullmatch(line.strip()) is not None


_COUNTED_ROW = re.compile(r"\S+\s+[A-Z]{3,}(?:\s+[0-9.]{1,8}[KMGTPE]?){3}(?:\s.*)?")
_FRAGMENT_LOOKAHEAD = 64  # rows searched for the vdev that shows the first ones are its devices'


def starts_leaf_fragment(lines: list[str], i: int) -> bool:
    """Device rows cut from the middle of a config table (corpus 292): a row with counters
    followed, in the same run of rows, by a top-level vdev's row indented less. (A lone row
    `name ONLINE 0 0 0` could be a pool's own: the vdev below is what tells.)"""
    if _COUNTED_ROW.fullmatch(lines[i].strip()) is None or starts_fragment(lines[i]):
        return False
    w = width(lines[i])
    for k in range(i + 1, min(len(lines), i + _FRAGMENT_LOOKAHEAD)):
        text = lines[k].strip()
        if starts_fragment(lines[k]) and width(lines[k]) < w:
            return True
        if not text or (text not in _CLASS and _ROW.fullmatch(text) is None):
            return False
    return False


def _below_a_vdev(rows: list[tuple[int, str]]) -> bool:
    """The first rows are indented deeper than a later top-level vdev's: devices of a vdev
    the paste cut away."""
    first = width(rows[0][1])
    return any(is_top_name(line.split()[0]) and width(line) < first for _, line in rows[1:])


def _header(text: str) -> str:
    """The header as the text parser reads it: `zpool status -d`'s DELAY column (its name before
    2.2 called it SLOW) is the SLOW column."""
    return " ".join("SLOW" if w == "DELAY" else w for w in text.split())


def _flush_rows(pool: StatusPool) -> None:
    """Re-indent the config rows: depth = rank of the row's indentation width in the table, or,
    when those depths do not fit the vdev names (a paste collapsed or mixed the indentation),
    the depth the names tell (zdash.paste.depth)."""
    above: list[str] = []  # rows the paste did not show: the pool, the vdev of a lone device
    cut_below: int | None = None  # rows' depth offset when they start inside a vdev cut away
    if pool.name is None and pool.rows and _below_a_vdev(pool.rows):
        # Pool-level class rows (logs, cache) give the pool's width; without them the shallowest
        # rows are top-level vdevs.
        classes = any(line.split()[0] in _CLASS for _, line in pool.rows)
        cut_below = 0 if classes else 1
        above = [f"{UNNAMED_POOL}  {UNSEEN}", f"  {UNSHOWN_VDEV}  {UNSEEN}"]
        pool.name = UNNAMED_POOL
        pool.out[:0] = [f"  pool: {pool.name}", f" state: {UNSEEN}", "config:"]
    elif pool.name is None and pool.rows:  # headless: the pool row names the pool
        words = pool.rows[0][1].split()
        # the table opens at a row, not at a NAME STATE header, and every row is a device's
        # (corpus 211)
        bare = pool.rows[0][0] == pool.first and all(_bare_device(line) for _, line in pool.rows)
        if is_fragment(words) or bare:
            above = [f"{UNNAMED_POOL}  {UNSEEN}"]
            if not is_top_name(words[0]):
                above.append(f"  {UNSHOWN_VDEV}  {UNSEEN}")
        pool.name = UNNAMED_POOL if above else words[0]
        state = UNSEEN if above else words[1] if len(words) > 1 else ""
        pool.out[:0] = [f"  pool: {pool.name}", f" state: {state}", "config:"]
    widths = sorted({width(line) for _, line in pool.rows})
    rank = {w: k for k, w in enumerate(widths)}
    names = [line.split()[0] for _, line in pool.rows]
    offset = len(above) if cut_below is None else cut_below
    depths = [rank[width(line)] + offset for _, line in pool.rows]
    if not above and mangled(names, depths):
        depths = by_names(names)
    pool.out += ["\t" + "  " * k + text.strip() for k, text in enumerate(above)]
    for (_, line), depth in zip(pool.rows, depths):
        m = _ROW.fullmatch(line.strip())
        text = line.strip() if m is None else line.strip()[: m.end(1)] + _decimal(line.strip()[m.end(1) :])
        pool.out.append("\t" + "  " * depth + text)
    pool.out.append("")
    pool.rows = []


def pool_text(pool: StatusPool) -> str:
    return "\n".join(pool.out).rstrip("\n") + "\n"
