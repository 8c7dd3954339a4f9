"""Find the command outputs in a paste: `zpool status`, `zpool list [-v]`, `zpool iostat [-v]
[-l]` and `zfs list`, alone or several together, with shell prompts and stray lines around them.

split_pasted(text) -> PastedDoc. Each block is recognised by its shape, not by the prompt
(a paste often has none): status by its `pool:` line, list and zfs list by their header, iostat
by its `capacity operations bandwidth` header. A prompt line, when present, tells which command
ran. Every non-blank line ends up either used by a block or in `unread` with its line number
and why; nothing is dropped silently.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeAlias

from zdash.model import Pool
from zdash.parse import ParseError
from zdash.parse.vdev_ashift import TopVdevAshift
from zdash.parse.zpool_history import is_history_command
from zdash.parse.zpool_iostat_hist import parse_histograms
from zdash.parse.zpool_status.json_scan import JsonObject
from zdash.parse.zpool_status.json_tree import parse_status_document
from zdash.paste.ashift import (
    GREPPED,
    VdevProps,
    all_vdevs_pool,
    grepped_pool,
    is_all_vdevs_row,
    read_zdb,
    starts_zdb,
    take_all_vdevs,
    take_zdb,
)
from zdash.paste.depth import UNNAMED_POOL, UNSHOWN_VDEV
from zdash.paste.json_docs import JsonFound, command_of, drop_cut, json_at, starts_json
from zdash.paste.json_members import is_member, members_status, take_members
from zdash.paste.lines import MARKUP, clean_lines, flags, is_imported, prompt_command
from zdash.paste.report_table import report_row, take_report
from zdash.paste.stray import stray_reason, timestamp
from zdash.paste.table import Unreadable
from zdash.paste.unwrap import unflatten
from zdash.paste.zfs_list import ZfsRows, is_zfs_header, rows_from_json, take_zfs
from zdash.paste.zpool_iostat import (
    IostatEntry,
    is_histogram_header,
    is_iostat_header,
    scripted_layout,
    take_histogram,
    take_iostat,
    take_scripted_iostat,
)
from zdash.paste.zpool_list import (
    GET_COLUMNS,
    ListEntry,
    entries_from_get,
    entries_from_json,
    headerless_columns,
    headerless_get_row,
    is_list_header,
    take_list,
)
from zdash.paste.zpool_status import (
    StatusPool,
    is_config_header,
    starts_device_rows,
    starts_fragment,
    starts_leaf_fragment,
    starts_status,
    take_status,
)

_GOT = [[p] for p in GET_COLUMNS]  # a `zpool get` row's property, as lines[j].split()[1:2]
MAX_JSON_TRIES = 64  # JSON documents cut or broken before the rest of a paste is read as text
_TABLE = re.compile(r"NAME(?:\s+[A-Z][A-Z0-9_%@/-]*)+")
# `zpool status -x POOL` for a pool that needs no attention: its name and ONLINE, nothing more.
_HEALTHY = re.compile(r"pool '([^'\s]+)' is healthy")


@dataclass(frozen=True, slots=True)
class Unread:
    line: int
    text: str
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text.strip()} ({self.why})"


# What a line can start: the four outputs an import reads, and three it recognises to report
# (a `zpool iostat -w/-r` histogram, a config table without its pool: lines, another table).
BlockKind: TypeAlias = Literal[
    "status", "list", "iostat", "zfs", "histogram", "config", "table", "get", "report"
]
ReadKind: TypeAlias = Literal["status", "list", "iostat", "zfs", "ashift", "histogram"]


@dataclass
class Block:
    """One command output found in the paste; the subclass holds what was read from it."""

    kind: ClassVar[ReadKind]
    first: int  # line number of its first line
    last: int
    command: tuple[str, ...] | None  # the prompt's command line, when pasted


@dataclass
class StatusPaste(Block):
    kind: ClassVar[ReadKind] = "status"
    pools: list[StatusPool] = field(default_factory=list)


@dataclass
class JsonStatusPaste(Block):
    """`zpool status -j`: the pools as its parser read them, and each pool's object as pasted
    (what the tick's status sample carries)."""

    kind: ClassVar[ReadKind] = "status"
    pools: tuple[Pool, ...] = ()
    objects: dict[str, JsonObject] = field(default_factory=dict)


@dataclass
class ListPaste(Block):
    kind: ClassVar[ReadKind] = "list"
    entries: list[ListEntry] = field(default_factory=list)
    from_get: bool = False  # pool rows read from `zpool get` (a real `zpool list` wins over them)


@dataclass
class IostatPaste(Block):
    kind: ClassVar[ReadKind] = "iostat"
    reports: list[list[IostatEntry]] = field(default_factory=list)  # an interval paste has several


@dataclass
class ZfsPaste(Block):
    kind: ClassVar[ReadKind] = "zfs"
    rows: ZfsRows = field(default_factory=ZfsRows)


@dataclass
class AshiftPaste(Block):
    """Top-level vdevs' configured ashift: a zdb dump's pools, a grep's `ashift:` values (the
    pool the transcript last named, see PastedDoc.named), or an all-vdevs table."""

    kind: ClassVar[ReadKind] = "ashift"
    zdb: dict[str, list[TopVdevAshift]] = field(default_factory=dict)
    grepped: list[int] = field(default_factory=list)
    vdevs: VdevProps | None = None


@dataclass
class HistogramPaste(Block):
    """`zpool iostat -w` (or -r) as printed: kept whole, imported beside its pool's status or
    list (zdash.paste.samples), where the finding about a disk compares it with its peers."""

    kind: ClassVar[ReadKind] = "histogram"
    text: str = ""


@dataclass
class PastedDoc:
    lines: list[str]
    blocks: list[
        StatusPaste | JsonStatusPaste | ListPaste | IostatPaste | ZfsPaste | AshiftPaste | HistogramPaste
    ] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # line numbers a block or prompt used
    times: list[float] = field(default_factory=list)  # `-T u` / `-T d` timestamps seen
    # `zfs clone [-o p=v] A@s B` / `zfs snapshot A@s` lines of a transcript: (origin, clone or
    # None, line number), evidence of datasets and a clone relation beside `zfs list`.
    clones: list[tuple[str, str | None, int]] = field(default_factory=list)
    # `zfs promote C` lines (C, line number): the clones above are replayed through them.
    promoted: list[tuple[str, int]] = field(default_factory=list)
    # `zpool add POOL VDEV...` lines of a transcript (argv, line number): evidence that those
    # vdevs came after the pool was created (read as `zpool history` would print them).
    added: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what reading the blocks found worth saying
    # Pools a transcript's command lines name (line, pool, a `zpool create` of it): whose the
    # `ashift:` lines of a `zdb | grep ashift` below them are, and which pool of a reused name.
    named: list[tuple[int, str, bool]] = field(default_factory=list)
    # `zpool iostat` command lines (line, the names they give: pools, or a pool and its vdevs):
    # whose pool a report of named vdevs is (corpus 214).
    iostat_names: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    # `zpool status -x`'s "all pools are healthy" (line numbers): pools the paste shows without
    # a state read ONLINE (zdash.paste.samples).
    all_healthy: list[int] = field(default_factory=list)


def _block_at(lines: list[str], i: int) -> BlockKind | None:
    line = lines[i]
    if not line.strip():
        return None
    if starts_status(line):
        return "status"
    if is_iostat_header(lines, i):
        return "iostat"
    if is_histogram_header(lines, i):
        return "histogram"
    if is_list_header(line) or headerless_columns(line) is not None:
        return "list"
    if is_zfs_header(line):
        return "zfs"
    if (
        is_config_header(line)
        or starts_fragment(line)
        or starts_leaf_fragment(lines, i)
        or starts_device_rows(lines, i)
    ):
        return "config"
    if _TABLE.fullmatch(line.strip()):
        return "table"
    if report_row(line) is not None:
        return "report"
    if (pool := headerless_get_row(line)) is not None and i + 1 < len(lines):
        return "get" if headerless_get_row(lines[i + 1]) == pool else None
    return None


def split_pasted(text: str) -> PastedDoc:
    doc = PastedDoc(clean_lines(text))
    # Blocks are found in a view where Markdown/HTML lines (fences, <pre>, rules) are blank:
    # they neither start nor break a block, and are reported for what they are.
    lines: list[str] = []
    for n, line in enumerate(doc.lines, 1):
        markup = bool(line.strip()) and MARKUP.fullmatch(line.strip()) is not None
        if markup:
            doc.unread.append(Unread(n, line, "Markdown/HTML formatting, not command output"))
        lines.append("" if markup else line)
    command: tuple[str, ...] | None = None

    def ends(j: int) -> bool:
        return _block_at(lines, j) is not None or prompt_command(lines[j])[0]

    i = 0
    json_tries = MAX_JSON_TRIES  # each try may read the rest of the paste: a garbage paste of
    while i < len(lines):  # `{` lines must not cost it once per line
        line, n = lines[i], i + 1
        if json_tries and starts_json(line) and (found := json_at(lines, i)) is not None:
            _take_json(doc, lines, found, command)
            json_tries -= found.doc is None or bool(found.cut)
            i = found.last
            continue
        if (flat := unflatten(line)) is not None:
            _take_flat(doc, flat, n, command)
            i += 1
            continue
        if starts_zdb(lines, i):
            end = take_zdb(lines, i, lambda j: _block_at(lines, j) is not None or prompt_command(lines[j])[0])
            _take_zdb_dump(doc, lines, i, end, command)
            i = end
            continue
        if GREPPED.fullmatch(line):
            end = i
            while end < len(lines) and GREPPED.fullmatch(lines[end]):
                end += 1
            values = [int(m.group(1)) for j in range(i, end) if (m := GREPPED.fullmatch(lines[j]))]
            doc.blocks.append(AshiftPaste(n, end, command, grepped=values))
            doc.used.update(range(n, end + 1))
            i = end
            continue
        if line.strip() == "all pools are healthy":
            doc.all_healthy.append(n)  # used, or reported, once the pools are known
            i += 1
            continue
        if (healthy := _HEALTHY.fullmatch(line.strip())) is not None:
            out = [f"  pool: {healthy[1]}", " state: ONLINE"]
            pool = StatusPool(healthy[1], n, used=[n], out=out, healthy_line=True)
            doc.used.add(n)
            doc.blocks.append(StatusPaste(n, n, command, [pool]))
            i += 1
            continue
        if is_member(line):
            i = _take_members(doc, lines, i, command)
            continue
        kind = _block_at(lines, i)
        if kind is None and _scripted_iostat(command) and (end := _take_scripted(doc, lines, i, command)):
            i = end
            continue
        if kind is None:
            if line.strip():
                command = _loose_line(doc, n, line, command)
            i += 1
            continue
        end = _take(doc, kind, lines, i, command, ends)
        i = max(end, i + 1)
    _name_vdev_reports(doc)
    return doc


def _name_vdev_reports(doc: PastedDoc) -> None:
    """Reports of named vdevs (`zpool iostat -v POOL VDEV...`, no pool row) under the pool a
    `zpool iostat` command line of the paste names with those vdevs: the block's own prompt,
    else the nearest such line (an excerpt can keep the command below its output, corpus 214)."""
    for b in doc.blocks:
        if not isinstance(b, IostatPaste):
            continue
        for k, report in enumerate(b.reports):
            if report[0].name != UNNAMED_POOL:
                continue
            shown = {e.name for e in report[1:]} - {UNSHOWN_VDEV}
            given = [(0, _positional(b.command))] if b.command else []
            given += sorted(((abs(n - b.first), names) for n, names in doc.iostat_names), key=lambda x: x[0])
            pool = next(
                (
                    names[0]
                    for _, names in given
                    if len(names) > 1 and shown <= set(names[1:]) and _POOL.fullmatch(names[0])
                ),
                None,
            )
            if pool is not None:
                b.reports[k] = [dataclasses.replace(report[0], name=pool), *report[1:]]


def _take_members(doc: PastedDoc, lines: list[str], i: int, command: tuple[str, ...] | None) -> int:
    """Members of a JSON document whose opening is not in the paste (corpus 156): the vdevs
    they show, as a config table of a pool the paste does not name; else every line reported."""
    end, objects = take_members(lines, i)
    numbers = [j + 1 for j in range(i, end) if lines[j].strip()]
    shown = members_status(objects)
    if shown is None:
        why = "a piece of JSON whose opening line is not in the paste, showing no vdev: not read"
        doc.unread += [Unread(n, doc.lines[n - 1], why) for n in numbers]
        return end
    pool, text = shown
    doc.used.update(numbers)
    doc.notes.append(
        f"lines {numbers[0]}-{numbers[-1]}: vdevs of a JSON document cut above them (zpool status "
        "-j), read as a config table; what the cut took (the pool, a disk's name or state) is unknown"
    )
    sp = StatusPool(pool, i + 1, headless=True, used=numbers, out=text.rstrip("\n").split("\n"))
    doc.blocks.append(StatusPaste(i + 1, end, command, [sp]))
    return end


def _take_get(
    doc: PastedDoc,
    lines: list[str],
    first: int,
    end: int,
    header: int | None,
    command: tuple[str, ...] | None,
) -> int:
    """`zpool get` rows lines[first:end] (under the header at lines[header], or none: first) as
    the pool rows `zpool list` would give; end, or 0 when they are not pool properties."""
    got = entries_from_get(lines[first:end], first + 1)
    if got is None:
        return 0
    read = {j + 1 for j in range(first, end) if lines[j].split()[1:2] in _GOT}
    read |= {header + 1} if header is not None else set()
    if not read:
        return 0
    doc.used |= read
    for j in range(first, end):
        if lines[j].strip() and j + 1 not in read:
            doc.unread.append(Unread(j + 1, lines[j], "`zpool get`: a property zdash does not read"))
    doc.blocks.append(ListPaste(min(read), max(read), command, got, from_get=True))
    return end


def _scripted_iostat(command: tuple[str, ...] | None) -> bool:
    return (
        command is not None
        and command[:2] == ("zpool", "iostat")
        and scripted_layout(flags(command)) is not None
    )


def _take_scripted(doc: PastedDoc, lines: list[str], i: int, command: tuple[str, ...] | None) -> int:
    """`zpool iostat -H` rows after its prompt (corpus 175): the prompt's flags say the columns
    the header would have. 0 when lines[i] is not such a row."""
    layout = scripted_layout(flags(command))
    assert command is not None and layout is not None
    end, reports, unread = take_scripted_iostat(lines, i, layout, frozenset(_positional(command)))
    if not reports and not unread:
        return 0
    refused = {n for n, _, _ in unread}
    doc.unread += [Unread(n, t, w) for n, t, w in unread]
    doc.used.update(n for n in range(i + 1, end + 1) if lines[n - 1].strip() and n not in refused)
    if reports:
        doc.blocks.append(IostatPaste(i + 1, end, command, reports))
    return end


def _positional(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The names a zpool command line gives (pools, or a pool and its vdevs), in order, without
    its options, their values and the interval and count."""
    valued, skip, out = "oTc", False, []
    for word in argv[2:]:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = not word.startswith("--") and word[-1] in valued
        elif not re.fullmatch(r"[0-9.]+", word):
            out.append(word)
    return tuple(out)


# A pool's name as zpool allows it: a letter first, then letters, digits, _ - . : (no '/').
_POOL = re.compile(r"[A-Za-z][\w.:-]{0,255}")


def _loose_line(doc: PastedDoc, n: int, line: str, command: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """A line outside every block: a prompt, a timestamp, a known message or a stray."""
    is_cmd, argv = prompt_command(line)
    if is_cmd:
        _name_pool(doc, n, line, argv)
        if argv is not None and argv[:2] == ("zpool", "iostat"):
            doc.iostat_names.append((n, _positional(argv)))
        relation = _clone_relation(argv)
        if relation is not None:
            doc.clones.append((*relation, n))
            doc.used.add(n)
        elif (promoted := _promoted(argv)) is not None:
            doc.promoted.append((promoted, n))
            doc.used.add(n)
        elif argv is not None and is_history_command(argv):
            doc.added.append((argv, n))
            doc.used.add(n)
        elif is_imported(argv):
            doc.used.add(n)
        else:
            why = (
                f"`{' '.join(argv[:2])}` output is not imported"
                if argv
                else "a shell command, not zpool or zfs output"
            )
            doc.unread.append(Unread(n, line, why))
        return argv
    stamp = timestamp(line)
    if stamp is not None:
        doc.times.append(stamp)
        doc.used.add(n)
        return command
    doc.unread.append(Unread(n, line, stray_reason(line, command)))
    return command


def _name_pool(doc: PastedDoc, n: int, line: str, argv: tuple[str, ...] | None) -> None:
    """Remember the pool a command line names: `zpool create|add|status|get ... POOL`, `zdb POOL`."""
    if argv is None:
        pool = grepped_pool(line)
        if pool is not None:
            doc.named.append((n, pool, False))
        return
    if argv[0] != "zpool" or argv[1] not in ("create", "add", "status", "get", "list", "iostat", "scrub"):
        return
    words, k = list(argv[2:]), 0
    while k < len(words) and words[k].startswith("-"):
        k += 2 if words[k] in ("-o", "-O", "-m", "-R", "-t") else 1
    names = words[k:]
    if argv[1] == "get" and len(names) >= 2:
        names = names[1:]
    if names and re.fullmatch(r"[A-Za-z][\w.:-]{0,255}", names[0]):
        doc.named.append((n, names[0], argv[1] == "create"))


def _take_zdb_dump(
    doc: PastedDoc, lines: list[str], i: int, end: int, command: tuple[str, ...] | None
) -> None:
    numbers = [j + 1 for j in range(i, end) if lines[j].strip()]
    try:
        pools = read_zdb("\n".join(lines[i:end]))
    except ParseError as e:
        doc.unread += [Unread(n, doc.lines[n - 1], f"zdb output: {e}") for n in numbers]
        return
    doc.used.update(numbers)
    doc.blocks.append(AshiftPaste(i + 1, end, command, zdb=pools))


def _promoted(argv: tuple[str, ...] | None) -> str | None:
    """The filesystem of `zfs promote FS`; None for anything else."""
    if argv is None or argv[:2] != ("zfs", "promote"):
        return None
    names = [w for w in argv[2:] if not w.startswith("-")]
    return names[0] if len(names) == 1 and "@" not in names[0] and not _scripted_name(names[0]) else None


def _scripted_name(name: str) -> bool:
    """A script's variable or glob (`zfs snap -r $POOL/x@s`, corpus 127): no dataset's name."""
    return any(c in name for c in "$`*{")


def _clone_relation(argv: tuple[str, ...] | None) -> tuple[str, str | None] | None:
    """(snapshot, clone) of `zfs clone [-p] [-o p=v]... A@s B`, (snapshot, None) of `zfs snapshot
    [-r] A@s`; None for anything else."""
    if argv is None or argv[0] != "zfs" or argv[1] not in ("clone", "snapshot", "snap"):
        return None
    words, k = list(argv[2:]), 0
    names = []
    while k < len(words):
        if words[k] == "-o":
            k += 2
            continue
        if not words[k].startswith("-"):
            names.append(words[k])
        k += 1
    if any(_scripted_name(name) for name in names):
        return None
    if argv[1] == "clone" and len(names) == 2 and "@" in names[0] and "@" not in names[1]:
        return names[0], names[1]
    if argv[1] != "clone" and len(names) == 1 and "@" in names[0]:
        return names[0], None
    return None


def _take_json(doc: PastedDoc, lines: list[str], found: JsonFound, command: tuple[str, ...] | None) -> None:
    """A JSON document: the block its command gives, or every line of it reported with why not."""
    numbers = [n for n in range(found.first, found.last + 1) if lines[n - 1].strip()]
    block, why = (None, found.why) if found.doc is None else _json_block(doc, found, command)
    if block is None:
        doc.unread += [Unread(n, doc.lines[n - 1], why) for n in numbers]
        return
    doc.used.update(numbers)
    doc.blocks.append(block)


def _json_block(
    doc: PastedDoc, found: JsonFound, command: tuple[str, ...] | None
) -> tuple[JsonStatusPaste | ListPaste | ZfsPaste | None, str]:
    assert found.doc is not None
    what, document = command_of(found.doc)
    first, last = found.first, found.last
    if what is not None and found.cut:
        doc.notes += drop_cut(what, document, found.cut)
    try:
        if what == "zpool status":
            pools = parse_status_document(document)
            objects = document.get("pools")
            if not pools or not isinstance(objects, dict):
                return None, "`zpool status -j` output with no pool in it"
            by_name = dict(zip((p.name for p in pools), objects.values()))
            return JsonStatusPaste(first, last, command, pools, by_name), ""
        if what in ("zpool list", "zpool get") and "pools" in document:
            rows = entries_from_json(document["pools"], first, vdevs=what == "zpool list")
            entries = [e for pool in rows for e in pool]
            return ListPaste(first, last, command, entries, from_get=what == "zpool get"), ""
        if what in ("zfs list", "zfs get"):  # the datasets, and what of theirs zfs list would show
            return ZfsPaste(first, last, command, rows_from_json(document.get("datasets"), first)), ""
    except ParseError as e:
        return None, f"`{what} -j` output could not be read: {e}"
    if what is None and found.cut:
        return None, "zpool/zfs JSON cut short before it says which command printed it: not read"
    if what is None:
        return None, "JSON that is not zpool or zfs output zdash knows"
    return None, f"`{what} -j` output: not imported"


def _take_flat(doc: PastedDoc, flat: list[str], n: int, command: tuple[str, ...] | None) -> None:
    """A report flattened onto line n: read from its rebuilt lines, every use pointed at line n.
    Only when they open with a pool (a glued `state:ONLINE` runs into the pool's name: then
    the pool is not known, and what follows belongs to none)."""
    if not flat or not starts_status(flat[0]):
        doc.unread.append(Unread(n, doc.lines[n - 1], "not recognised as a zpool status report"))
        return
    taken = take_status(flat, 0, lambda _: False)
    for pool in taken.pools:
        pool.first, pool.used = n, [n] if pool.used else []
    if any(p.used for p in taken.pools):
        doc.used.add(n)
        doc.blocks.append(StatusPaste(n, n, command, taken.pools))
    else:
        doc.unread.append(Unread(n, doc.lines[n - 1], "not recognised as a zpool status report"))


def _take(
    doc: PastedDoc,
    kind: BlockKind,
    lines: list[str],
    i: int,
    command: tuple[str, ...] | None,
    ends: Callable[[int], bool],
) -> int:
    if kind == "report":  # a report script's pool table (zdash.paste.report_table)
        end, entries, notes = take_report(lines, i)
        doc.used.update(range(i + 1, end + 1))
        doc.notes += notes
        doc.blocks.append(ListPaste(i + 1, end, command, entries, from_get=True))
        return end
    if kind == "get":  # `zpool get` rows without their header: the run of rows of one pool
        pool, end = headerless_get_row(lines[i]), i
        while end < len(lines) and headerless_get_row(lines[end]) == pool:
            end += 1
        if not _take_get(doc, lines, i, end, None, command):  # none zdash reads: said, not dropped
            doc.unread += [
                Unread(
                    j + 1,
                    lines[j],
                    "`zpool get`: a value zdash cannot read"
                    if lines[j].split()[1:2] in _GOT
                    else "`zpool get`: a property zdash does not read",
                )
                for j in range(i, end)
            ]
        return end
    if kind in ("histogram", "table"):
        end = take_histogram(lines, i, ends) if kind == "histogram" else _table_end(lines, i, ends)
        words = lines[i].split()
        if kind == "histogram" and _take_histogram_block(doc, lines, i, end, command):
            return end
        if (
            kind == "table"
            and words[1:3] == ["PROPERTY", "VALUE"]
            and i + 1 < len(lines)
            and is_all_vdevs_row(lines[i + 1])
        ):
            # every row is `vdev property value source` (root-0's would start a headerless get)
            end = i + 1
            while end < len(lines) and len(lines[end].split()) >= 3 and not prompt_command(lines[end])[0]:
                end += 1
            vdevs = take_all_vdevs(lines, i + 1, end, all_vdevs_pool(command))
            if vdevs is not None:
                doc.blocks.append(AshiftPaste(i + 1, end, command, vdevs=vdevs))
                doc.used.update(j + 1 for j in range(i, end) if lines[j].strip())
                return end
        if (
            kind == "table"
            and words[1:3] == ["PROPERTY", "VALUE"]
            and _take_get(doc, lines, i + 1, end, i, command)
        ):
            return end
        why = (
            "`zpool iostat -w/-r` histogram: not imported"
            if kind == "histogram"
            else "`zpool get` / `zfs get` output: not imported"
            if words[1:2] == ["PROPERTY"]
            else f"a table zdash does not import (header {' '.join(words[:4])} ...)"
        )
        for j in range(i, end):
            if lines[j].strip():
                doc.unread.append(Unread(j + 1, lines[j], why))
        return end
    unread: list[Unreadable]
    block: StatusPaste | ListPaste | IostatPaste | ZfsPaste  # its last line is set below
    if kind in ("status", "config"):
        taken = take_status(
            lines,
            i,
            lambda j: _block_at(lines, j) not in (None, "status", "config"),
            headless=kind == "config",
        )
        end, unread = taken.end, taken.unread
        used = {n for p in taken.pools for n in p.used}
        block = StatusPaste(i + 1, 0, command, taken.pools)
    else:
        if kind == "list":
            end, entries, unread = take_list(lines, i, ends)
            block = ListPaste(i + 1, 0, command, entries)
        elif kind == "iostat":
            end, reports, unread = take_iostat(lines, i, ends)
            block = IostatPaste(i + 1, 0, command, reports)
        else:
            end, rows, unread = take_zfs(lines, i, ends)
            block = ZfsPaste(i + 1, 0, command, rows)
        reported = {n for n, _, _ in unread}
        used = {j + 1 for j in range(i, end) if lines[j].strip() and j + 1 not in reported}
    doc.used |= used
    doc.unread += [Unread(n, t, w) for n, t, w in unread]
    block.last = max([*used, *(n for n, _, _ in unread)], default=i + 1)
    doc.blocks.append(block)
    return end


def _table_end(lines: list[str], i: int, ends: Callable[[int], bool]) -> int:
    j = i + 1
    while j < len(lines) and lines[j].strip() and not ends(j):
        j += 1
    return j


def _take_histogram_block(
    doc: PastedDoc, lines: list[str], i: int, end: int, command: tuple[str, ...] | None
) -> bool:
    """A histogram table zdash can read, kept for import (the lines it holds are the block's;
    samples.py says why when its pool is not in the paste)."""
    text = "\n".join(lines[i:end]) + "\n"
    try:
        if not parse_histograms(text):
            return False
    except ParseError:
        return False
    doc.blocks.append(HistogramPaste(i + 1, end, command, text=text))
    return True
