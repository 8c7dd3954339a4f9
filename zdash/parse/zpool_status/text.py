"""Text `zpool status [-v] [-p] [-P] [-s] [-c ...]` of OpenZFS 0.8 to 2.4 into Pool records.

Layout (§3.1 of docs/zfs-output-reference.md): one block per pool, each made of labelled
fields right-aligned on the colon ("  pool:", " state:", "status:", "   see:", "  scan:",
"config:", "errors:"); a field's continuation lines start with a TAB (eight spaces once
pasted). A pool may have two scan: blocks (scrub and rebuild, §3.3), or a " scrub:" block
for an error scrub. Space, I/O and disk facts are left None: other parsers fill them.
"""

from __future__ import annotations

import re

from zdash.model import Pool, Vdev
from zdash.parse import ParseError
from zdash.parse.reuse import Reuse
from zdash.parse.units import parse_count
from zdash.parse.zpool_status.common import msgid_in, one_line
from zdash.parse.zpool_status.text_config import is_header, parse_config
from zdash.parse.zpool_status.text_scan import parse_scan_block, says_none

_FIELD = re.compile(
    r" {0,8}(pool|state|status|action|see|scan|scrub|remove|checkpoint|expand|"
    r"config|errors|dedup|scan warning|raidz expand):(?: (.*))?"
)
_DATA_ERRORS = re.compile(
    r"([0-9]{1,20}(?:\.[0-9]{1,10})?[KMGTPEZ]?) data errors?, use '-v' for a list", re.ASCII
)


class _PoolBlock:
    """The lines of one pool, sorted by field while reading; turned into a Pool at the end."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, list[str]] = {}
        self.scans: list[list[str]] = []  # one list of lines per scan:/scrub: block
        self.header: str | None = None
        self.rows: list[str] = []
        self.errors_line: str | None = None
        self.error_files: list[str] = []

    def to_pool(self, reuse: Reuse[Vdev] | None = None) -> Pool:
        if self.header is None:
            raise ParseError(f"pool {self.name!r}: no config table (NAME STATE ... header)")
        # The config table alone makes the tree: the same table as last time (a scrub moves
        # only its scan lines) is the same tree, every node reused.
        known = ("text config", self.name, self.header, tuple(self.rows))
        root = reuse.get(known) if reuse is not None else None
        if root is None:
            root = parse_config(self.name, self.header, self.rows)
            if reuse is not None:
                reuse.put(known, root)
        state = " ".join(self.fields.get("state", [])).strip() or root.state
        see = " ".join(self.fields.get("see", []))
        count, files = _errors(self.errors_line, self.error_files)
        read = [(block, parse_scan_block(block)) for block in self.scans]
        scans = tuple(s for _, s in read if s is not None)
        return Pool(
            name=self.name,
            state=state,
            root=root,
            status=one_line("\n".join(self.fields.get("status", []))),
            action=one_line("\n".join(self.fields.get("action", []))),
            msgid=msgid_in(see),
            scans=scans,
            scans_known=all(s is not None or says_none(block) for block, s in read),
            error_count=count,
            error_files=files,
        )


def parse_status_text(text: str, reuse: Reuse[Vdev] | None = None) -> tuple[Pool, ...]:
    """Every pool of a text `zpool status` report, in printed order. `reuse`: the trees of the
    caller's last parse, by their config table (zdash.parse.reuse); the result is equal either
    way."""
    blocks: list[_PoolBlock] = []
    block: _PoolBlock | None = None
    target: list[str] | None = None  # where continuation lines of the current field go
    mode = "fields"  # fields | config | rows | files
    for line in text.splitlines():
        # Field labels never start with a TAB; config rows and continuations always do
        # (pasted text: many spaces), so a missing blank line cannot swallow "errors:".
        m = None if line.startswith("\t") else _FIELD.fullmatch(line)
        if m is not None:
            label, value = m.group(1), m.group(2) or ""
            if label == "pool":
                if not value.strip():
                    raise ParseError("zpool status: 'pool:' line without a name")
                block = _PoolBlock(value.strip())
                blocks.append(block)
                target, mode = None, "fields"
                continue
            if block is None:
                continue  # -T timestamp or other preamble
            mode, target = {"config": "config", "errors": "files"}.get(label, "fields"), []
            if label in ("scan", "scrub"):
                block.scans.append(target)
            elif label == "errors":
                block.errors_line = value.strip()
            else:
                block.fields[label] = target
            target.append(value)
            continue
        if block is None:
            continue
        if not line.strip():
            if mode == "rows":
                mode, target = "fields", None  # the blank line that ends the table
            elif mode == "fields":
                target = None
            continue
        if mode == "config" and is_header(line):
            block.header, mode = line, "rows"
        elif mode == "rows":
            block.rows.append(line)
        elif mode == "files":
            block.error_files.append(line.strip())
        elif target is not None and line[:1] in ("\t", " "):
            target.append(line)
    if not blocks:
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        raise ParseError(f"zpool status: no 'pool:' block in the output: {first[:80]!r}")
    return tuple(b.to_pool(reuse) for b in blocks)


def _errors(line: str | None, files: list[str]) -> tuple[int | None, tuple[str, ...]]:
    """error_count and files from the errors: line (§3.1).

    The text never prints the count next to the file list; the number of listed files is
    then a lower bound (JSON error_count counts error-log entries: 1280 for one file in the
    errors/permanent capture).
    """
    if line is None:
        return None, ()
    if line.startswith("No known data errors"):
        return 0, ()
    m = _DATA_ERRORS.fullmatch(line)
    if m is not None:
        return parse_count(m.group(1)), ()
    if line.startswith("Permanent errors have been detected"):
        # zpool prints the heading only for a non-empty error log: at least one, even when
        # the list under it was cut (a paste, corpus 149)
        return max(len(files), 1), tuple(files)
    return None, ()
