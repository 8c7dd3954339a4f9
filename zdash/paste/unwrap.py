"""What mail clients, forums, logs and web pages do to a paste, undone line by line.

Each line keeps its number (an unread line is still pointed at where the user sees it); only
its text changes:

- a run of lines carrying the same prefix: `> ` mail quoting (the rest of the paste need not
  be quoted), a log's `07:18:29.34 ` time of day or `20181103_110000<TAB>ERROR<TAB>` stamp and level, a diff's `+`, a script comment's `#`. A
  run is at least two lines (three for `#` and `+`, which also start a root prompt or a
  `set -x` trace) and holds something zpool prints, so a lone `# zpool status` prompt or a
  quoted sentence keeps its prefix;
- forum bold around a row (`**  sdb  ONLINE 0 0 0**`), a stray backtick before a label
  (`` ` pool: tank ``);
- a shell prompt with the command glued to the `pool:` line because the newline was lost
  (`$ sudo zpool status  pool: tank`, `#zpool statuspool: mypool`): the line becomes the
  `pool:` line (the command only said which output follows);
- a `scan:` line hard-wrapped by a mail client (`... with 0 errors on Sun Apr 14 03:03:58` /
  `2019`): the tail goes back onto the scan line and its own line is left blank.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_QUOTE = re.compile(r"\s{0,3}>(?: |(?=\t)|$)")
# A script comment that quotes its command's output (`# > NAME SIZE ...`, corpus 238): both marks
# at once (taken one at a time neither run looks like zpool output: `> ` is not at the line's
# start, and what `#` leaves starts with `> `).
_HASH_QUOTE = re.compile(r"\s{0,8}#\s?>(?: |(?=\t)|$)")
_CLOCK = re.compile(r"\s{0,4}[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?: |$)")
# A script's log: a date-time stamp (20181103_110000, 2018-11-03 11:00:00[.123][Z]), then
# perhaps a level, each followed by one tab or by spaces (a config row's own tab is kept).
_LOG = re.compile(
    r"\s{0,4}(?:[0-9]{8}[_T-]?[0-9]{6}"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}[ T_][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)"
    r"(?:\t| +)(?:(?:INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRIT|CRITICAL|DEBUG)(?:\t| +|$))?"
)
_PLUS = re.compile(r"\+(?!\+)")
_HASH = re.compile(r"\s{0,8}#(?!!)")
# What zpool prints, once a prefix is gone: a status label, a table header or a config row.
_ZFS_LIKE = re.compile(
    r"\s*(?:(?:pool|state|config|scan|errors|status|action|id):(?:\s|$)"
    r"|NAME\s+(?:STATE|SIZE|USED)\b|capacity\s+operations"
    r"|\S+\s+(?:ONLINE|DEGRADED|FAULTED|UNAVAIL|OFFLINE|REMOVED|AVAIL|INUSE)\b)"
)
_BOLD = re.compile(r"\*\*(?P<body>.*?)\*\*\s*")
# (also before a root or user prompt: an inline code span opened on a transcript, corpus 264)
_TICK = re.compile(r"`+(?=\s*(?:pool|state|config|NAME)\b|[#$] )")
_GLUED = re.compile(r".*?\bzpool\s+(?:status|import)\b[^:]*?\s*(?P<rest>pool:\s*\S+)\s*")
# Every scan: summary ends with a date ("... on Sun Apr 14 03:03:58 2019", "since ... 2023"):
# one that stops short of its year, followed by an unindented fragment that ends with one, was
# cut in two by a line wrap.
_SCAN_HEAD = re.compile(r"\s{0,8}(?:scan|scrub):\s.*\S")
_ENDS_WITH_YEAR = re.compile(r".*\b[12][0-9]{3}")
_TAIL = re.compile(r"(?:[0-9A-Za-z][0-9A-Za-z: ]{0,30} )?[12][0-9]{3}")


def _strip_runs(lines: list[str], prefix: re.Pattern[str], least: int) -> list[str]:
    """Remove `prefix` from every line of each run of at least `least` consecutive lines that
    carry it (blank lines inside a run are kept) when the run holds zpool output."""
    out = list(lines)
    i = 0
    while i < len(lines):
        if not prefix.match(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and (prefix.match(lines[j]) or (not lines[j].strip() and j + 1 < len(lines))):
            j += 1
        while j > i and not prefix.match(lines[j - 1]):
            j -= 1  # a run ends on a prefixed line
        run = range(i, j)
        stripped = {k: prefix.sub("", lines[k], count=1) for k in run if prefix.match(lines[k])}
        if len(stripped) >= least and any(_ZFS_LIKE.match(t) for t in stripped.values()):
            for k, text in stripped.items():
                out[k] = text
        i = max(j, i + 1)
    return out


def _each(lines: list[str], fix: Callable[[str], str]) -> list[str]:
    return [fix(line) for line in lines]


def _unbold(line: str) -> str:
    m = _BOLD.fullmatch(line.strip())
    if m is None or not _ZFS_LIKE.match(m.group("body")):
        return line
    lead = line[: len(line) - len(line.lstrip())]
    return lead + m.group("body").rstrip()


def _unglue(line: str) -> str:
    if "pool:" not in line or "zpool" not in line:
        return line
    m = _GLUED.fullmatch(line)
    if m is not None and not line.lstrip().startswith("pool:"):
        return "  " + m.group("rest")
    return line


def _rejoin_scan_dates(lines: list[str]) -> list[str]:
    out = list(lines)
    for k in range(1, len(out)):
        head, tail = out[k - 1], out[k]
        if (
            _TAIL.fullmatch(tail)
            and _SCAN_HEAD.fullmatch(head)
            and not _ENDS_WITH_YEAR.fullmatch(head)
            and len(head) >= 50  # long enough to have been wrapped
        ):
            out[k - 1], out[k] = f"{head.rstrip()} {tail}", ""
    return out


def unwrap(lines: list[str]) -> list[str]:
    lines = _strip_runs(lines, _HASH_QUOTE, 2)
    lines = _strip_runs(lines, _QUOTE, 2)
    lines = _strip_runs(lines, _CLOCK, 2)
    lines = _strip_runs(lines, _LOG, 2)
    lines = _strip_runs(lines, _PLUS, 3)
    lines = _strip_runs(lines, _HASH, 3)
    lines = _each(lines, _unbold)
    lines = _each(lines, lambda line: _TICK.sub("", line, count=1) if "`" in line else line)
    return _rejoin_scan_dates(_each(lines, _unglue))


_FLAT = re.compile(r"pool:\s*\S+\s+(?:id:\s*\S+\s+)?state:\s*\S+.*?\bconfig:\s")
# A label starts after anything but a lowercase letter: the lost newline glues it to the value
# before (`state: ONLINEstatus: One or more`, `... 0 0 1errors: No known`, corpus 236), where
# `\b` found no boundary; `zpool:` or `guid:` are not labels.
_FLAT_LABEL = re.compile(r"(?<![a-z])(pool|id|state|status|action|see|scan|scrub|config|errors):\s")
_STATES = frozenset(
    {"ONLINE", "DEGRADED", "FAULTED", "UNAVAIL", "OFFLINE", "REMOVED", "AVAIL", "INUSE", "SUSPENDED"}
)
_COUNTER_COLUMNS = frozenset({"READ", "WRITE", "CKSUM", "SLOW"})


def unflatten(line: str) -> list[str] | None:
    """A whole `zpool status` report flattened onto one line (a web page's HTML turned to text:
    newlines and runs of spaces gone, the prompt glued on) as the lines zpool printed, config
    rows all at one depth (zdash.paste.depth tells it from the names); None for any other line."""
    m = _FLAT.search(line)
    if m is None:
        return None
    text = line[m.start() :]
    marks = list(_FLAT_LABEL.finditer(text))
    out: list[str] = []
    for k, mark in enumerate(marks):
        label = mark.group(1)
        value = text[mark.end() : marks[k + 1].start() if k + 1 < len(marks) else len(text)].strip()
        if label != "config":
            out.append(f"{label:>6}: {value}")
            continue
        out += ["config:", ""]
        words = value.split()
        header = ["NAME", "STATE"] if words[:2] == ["NAME", "STATE"] else []
        p = len(header)
        while header and p < len(words) and words[p] in _COUNTER_COLUMNS:
            header.append(words[p])
            p += 1
        out.append("\t" + "  ".join(header or ["NAME", "STATE", "READ", "WRITE", "CKSUM"]))
        starts = [q for q in range(p, len(words) - 1) if words[q + 1] in _STATES]
        for a, b in zip(starts, [*starts[1:], len(words)]):
            out.append("\t" + "  ".join([words[a], words[a + 1], " ".join(words[a + 2 : b])]).rstrip())
        out.append("")
    return out
