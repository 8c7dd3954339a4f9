"""Why a line outside every block was not read: the messages zpool, zfs and ZED print instead
of a report, JSON, `-H` output, prose. And the `-T u` / `-T d` stamp lines, which are used."""

from __future__ import annotations

import re

from zdash.parse import ParseError
from zdash.parse.units import parse_ctime
from zdash.paste.lines import flags, is_imported
from zdash.paste.zpool_iostat import scripted_layout

# Messages zpool/zfs print instead of a report, and what they mean for an import.
_MESSAGES = [
    (re.compile(r"no pools available|no datasets available"), "no pools or datasets in this output"),
    (
        re.compile(r"all pools are healthy|pool '.+' is healthy"),
        "`zpool status -x` summary: no details to import",
    ),
    (re.compile(r"cannot open '.*'.*|cannot .*: .*"), "zpool/zfs error message"),
    (re.compile(r"Can't run -c .*"), "zpool refused the -c scripts: no report"),
    (re.compile(r"(?:invalid|missing|unrecognized) (?:option|argument).*|usage:.*"), "zpool/zfs usage error"),
    (
        re.compile(r"(?:eid|class|host|time|vtype|vpath|vguid|vphys|pool_guid|result):\s.*"),
        "a ZED notification field, not command output",
    ),
    (re.compile(r"ZFS has (?:finished|detected) .*"), "a ZED notification line, not command output"),
]
_EPOCH = re.compile(r"[0-9]{9,11}")
_JSON = re.compile(r"[{}\[\]].*|\"[^\"]{1,80}\"\s*:.*")


def stray_reason(line: str, command: tuple[str, ...] | None) -> str:
    """command: the zpool/zfs command of the last prompt line, if any."""
    text = line.strip()
    why = next((w for p, w in _MESSAGES if p.fullmatch(text)), None)
    if why is None and _JSON.fullmatch(text):
        why = "a piece of JSON whose opening line is not in the paste: not read"
    elif why is None and is_imported(command) and "H" in flags(command) and not _read_headerless(command):
        why = f"`{' '.join(command[:2])} -H` output has no header to read it by: paste it without -H"
    if why is None:
        why = (
            f"output of `{' '.join(command[:2])}`, not imported"
            if command and not is_imported(command)
            else "not recognised as zpool status, zpool list, zpool iostat or zfs list output"
        )
    return why


def timestamp(line: str) -> float | None:
    """`-T u` (epoch seconds) or `-T d` (a date) line before a report."""
    text = line.strip()
    if _EPOCH.fullmatch(text):
        return float(text)
    try:
        t = parse_ctime(text)
    except ParseError:
        return None
    return float(t) if t is not None else None


def _read_headerless(command: tuple[str, ...]) -> bool:
    """`zpool iostat -H` without columns of its own: its rows are read by the prompt's flags."""
    return command[:2] == ("zpool", "iostat") and scripted_layout(flags(command)) is not None
