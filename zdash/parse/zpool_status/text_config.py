"""The `config:` table of text `zpool status` (0.8 to 2.4) into the pool's root Vdev.

Traps handled (§3.1, §3.2, §12 of docs/zfs-output-reference.md):
- depth is the number of spaces after the row's leading TAB, halved; pasted text often turned
  that TAB into spaces, so depth is measured relative to the pool row, tabs expanded;
- class headers (dedup, special, logs, cache, spares) are bare words at the pool's depth;
- counters are nicenum ("1.68K") unless -p; SLOW/POWER/DIO and -c script columns are optional
  and known only from the header row; spare rows have no counters at all;
- the annotations after the counters are separated by two spaces: "was <path>", aux words,
  "block size: 512B configured, 4096B native", "(resilvering)"...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypedDict

from zdash.model import Vdev, VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import STATUS_HEADINGS
from zdash.parse.units import parse_count
from zdash.parse.zpool_status.common import MAX_DEPTH, kind_from_name

_FIXED_COLUMNS = ("READ", "WRITE", "CKSUM", "SLOW", "POWER", "DIO")
# Row: name, at least two spaces (the "%-*s  %-8s" format), the state, then the rest.
_ROW = re.compile(r"(?P<name>\S(?:.*?\S)?)\s{2,}(?P<state>[A-Z][A-Z_]*)(?P<rest>(?:\s.*)?)")
_COUNTER = re.compile(r"-|[0-9]{1,20}(?:\.[0-9]{1,10})?[KMGTPEZ]?", re.ASCII)
_BLOCK_SIZE = re.compile(r"block size: ([0-9]{1,9})B configured, ([0-9]{1,9})B native", re.ASCII)


class _Extra(TypedDict, total=False):
    """What a row's counters and annotations tell: keyword arguments of Vdev."""

    vclass: VdevClass
    path: str | None
    guid: str | None
    read_errors: int
    write_errors: int
    checksum_errors: int
    slow_ios: int | None
    aux: str | None
    was: str | None
    physical_ashift: int | None
    configured_ashift: int | None


class _Named(TypedDict):
    name: str
    kind: str
    state: str


class _Fields(_Named, _Extra):
    """A row's keyword arguments of Vdev, all but its children."""


@dataclass
class _Node:
    """A row being assembled; frozen into a Vdev once all its children are known."""

    depth: int
    fields: _Fields
    children: list[_Node] = field(default_factory=list)

    def freeze(self) -> Vdev:
        children = tuple(c.freeze() for c in self.children)  # depth <= MAX_DEPTH: bounded
        fields = self.fields.copy()
        if children:
            fields["slow_ios"] = None  # SLOW is a leaf fact; -p prints 0 on interior rows
        return Vdev(children=children, **fields)


def is_header(line: str) -> bool:
    words = line.split()
    return len(words) >= 2 and words[0] == "NAME" and words[1] == "STATE"


def parse_config(pool: str, header: str, rows: list[str]) -> Vdev:
    """Root Vdev (kind "root") from the NAME header line and the rows under it."""
    columns = header.split()[2:]
    fixed = 0
    while fixed < len(columns) and columns[fixed] in _FIXED_COLUMNS:
        fixed += 1
    fixed_columns, script_columns = columns[:fixed], len(columns) - fixed
    root: _Node | None = None
    stack: list[_Node] = []
    vclass: VdevClass = "normal"
    base = None
    for raw in rows:
        line = raw.expandtabs(8).rstrip()
        indent = len(line) - len(line.lstrip(" "))
        base = indent if base is None else base
        depth = (indent - base) // 2
        text = line.strip()
        if depth <= 0 and text in STATUS_HEADINGS:
            vclass = STATUS_HEADINGS[text]
            del stack[1:]
            continue
        if depth < 0 or depth > MAX_DEPTH:
            raise ParseError(f"pool {pool!r}: config row at an impossible depth: {text[:60]!r}")
        node = _Node(depth, _row_fields(text, fixed_columns, script_columns, vclass))
        if root is None:
            if depth != 0:
                raise ParseError(f"pool {pool!r}: config table does not start with the pool row")
            root = node
            root.fields["kind"], root.fields["vclass"], root.fields["path"] = "root", "normal", None
            stack = [root]
            continue
        if depth == 0:
            raise ParseError(f"pool {pool!r}: second pool-level row in config: {text[:60]!r}")
        while len(stack) > 1 and stack[-1].depth >= depth:
            stack.pop()
        stack[-1].children.append(node)  # lenient on skipped levels: nearest shallower row
        stack.append(node)
    if root is None:
        raise ParseError(f"pool {pool!r}: empty config table")
    return root.freeze()


def _row_fields(text: str, fixed_columns: list[str], script_columns: int, vclass: VdevClass) -> _Fields:
    m = _ROW.fullmatch(text)
    if m is None:
        words = text.split(None, 2)
        if len(words) < 2:
            raise ParseError(f"config row without a state: {text[:60]!r}")
        name, state, rest = words[0], words[1], words[2] if len(words) > 2 else ""
    else:
        name, state, rest = m.group("name"), m.group("state"), m.group("rest")
    extra: _Extra = {"vclass": vclass}
    if vclass != "spare":  # print_spares(): spare rows carry no counters (§3.1)
        rest = _take_counters(rest, fixed_columns, extra)
    if script_columns and rest.strip():  # -c values follow the annotations, space-joined
        words = rest.split()
        rest = " ".join(words[:-script_columns]) if len(words) > script_columns else ""
    _annotations(rest, extra)
    kind = kind_from_name(name, extra.get("was"))
    if kind == "missing":
        extra["guid"] = name
    elif name.startswith("/"):
        extra["path"] = name  # -P, or a file vdev (always printed in full, §0)
    return {"name": name, "kind": kind, "state": state, **extra}


def _take_counters(rest: str, fixed_columns: list[str], fields: _Extra) -> str:
    words = rest.split(None, len(fixed_columns))
    for column, word in zip(fixed_columns, words):
        if column == "POWER":
            continue  # on/off/-: not in the model
        if not _COUNTER.fullmatch(word):
            return " ".join(words[fixed_columns.index(column) :])  # counters cut short
        value = parse_count(word)
        if column == "SLOW":
            fields["slow_ios"] = value
        elif value is None:  # '-': the error counters stay 0
            continue
        elif column == "READ":
            fields["read_errors"] = value
        elif column == "WRITE":
            fields["write_errors"] = value
        elif column == "CKSUM":
            fields["checksum_errors"] = value
    return words[len(fixed_columns)] if len(words) > len(fixed_columns) else ""


def _annotations(rest: str, fields: _Extra) -> None:
    aux: list[str] = []
    for piece in re.split(r"\s{2,}", rest.strip()):
        if not piece:
            continue
        if piece.startswith("was "):
            fields["was"] = piece[4:].strip()
            continue
        m = _BLOCK_SIZE.fullmatch(piece)
        if m is not None and int(m.group(2)) > 0:
            # configured < native: the leaf's physical sector size is 2**physical_ashift (§5)
            fields["physical_ashift"] = int(m.group(2)).bit_length() - 1
            fields["configured_ashift"] = max(int(m.group(1)), 1).bit_length() - 1
            continue
        aux.append(piece)
    if aux:
        fields["aux"] = "  ".join(aux)
