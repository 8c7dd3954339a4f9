"""SMART as people paste it: smartd's log lines and `smartctl -a` / `-x` text, into SmartReports.

A forum post about a disk quotes what the admin saw, and that is rarely `smartctl -j`:
- smartd's syslog / journal / mail line, `Device: /dev/sde [SAT], 146 Offline uncorrectable
  sectors` (after any syslog prefix: `Oct 05 07:18:54 host smartd[1802]: `). Read: the pending
  and offline-uncorrectable counts (`N Currently unreadable (pending) sectors`, `N Offline
  uncorrectable sectors`, with or without smartd's `(changed +N)`), `FAILED SMART self-check`
  and `SMART Failure:` (the drive's own verdict), `Failed SMART usage Attribute: 5
  Reallocated_Sector_Ct.` (an attribute at its threshold) and the device-info line's serial
  and model. Everything else smartd says is no fault: normalised values that move (`SMART
  Usage Attribute: 194 Temperature_Celsius changed from 32 to 30`, `Raw_Read_Error_Rate
  changed from 83 to 84`), start-up lines, temperature notices.
- smartctl's text: the information section (model, serial), the health line (`SMART
  overall-health self-assessment test result: PASSED` / `FAILED!`, SCSI's `SMART Health
  Status: OK`) and the ATA attribute table in either layout (`-a`: FLAG VALUE WORST THRESH TYPE
  UPDATED WHEN_FAILED RAW_VALUE; `-x`: FLAGS VALUE WORST THRESH FAIL RAW_VALUE), the raw value's
  leading integer (`24 (Min/Max 23/40)` is 24; `12345h+06m` is 12345). smartctl's text does not
  name the device: the `smartctl -a /dev/sdb` line above it does, when it was pasted.

The words mean the same as in zdash.parse.smartctl (attributes 5, 187, 197, 198, 199; the
overall verdict; attributes failing now) so zdash.checks._evidence grades them alike. Pure
functions; strings from the drive are capped and stripped of controls as the JSON parser does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zdash.model import SmartReport
from zdash.parse.smartctl import ATA_IDS, COUNT_MAX, drive_string

_MAX_LINE = 4096  # a longer "line" is not smartd's

_TEMPERATURE_IDS = (194, 190)
_POWER_ON_ID = 9

# smartd: `Device: /dev/sde [SAT], message` or `Device: /dev/sdf, message` (no type), the device
# name without spaces, any number of bracketed types (`/dev/bus/0 [megaraid_disk_00] [SAT]`).
_SMARTD = re.compile(r"\bDevice: (?P<dev>/dev/\S+?)((?: \[[^\]\n]{1,60}\])*), (?P<msg>.+)$")
_COUNT_MSG = re.compile(
    r"^(?P<n>\d{1,19}) (?P<what>Currently unreadable \(pending\) sectors|Offline uncorrectable sectors)\b"
)
_FAILED_ATTR = re.compile(
    r"^Failed SMART (?:usage|prefailure) Attribute: (?P<id>\d{1,3}) (?P<name>\S+?)\.?$", re.I
)
_INFO = re.compile(r"^(?P<model>[^,]{1,80}), S/N:(?P<serial>[^,\s]{1,60}),")

# smartctl text
_ROW_A = re.compile(
    r"^\s*(?P<id>\d{1,3})\s+(?P<name>\S+)\s+0x[0-9a-fA-F]{4}\s+(?P<value>\d{1,3})\s+\d{1,3}\s+(?P<thresh>\d{1,3}|---)"
    r"\s+(?:Pre-fail|Old_age)\s+(?:Always|Offline)\s+(?P<failed>\S+)\s+(?P<raw>\S.*?)\s*$"
)
_ROW_X = re.compile(
    r"^\s*(?P<id>\d{1,3})\s+(?P<name>\S+)\s+[-POSRCK]{6}\s+(?P<value>\d{1,3})\s+\d{1,3}\s+(?P<thresh>\d{1,3}|---)"
    r"\s+(?P<failed>-|NOW|Past|FAILING_NOW|In_the_past)\s+(?P<raw>\S.*?)\s*$"
)
_HEALTH = re.compile(
    r"^\s*(?:SMART overall-health self-assessment test result|SMART Health Status):\s*(?P<word>\S+)"
)
_FIELD = re.compile(
    r"^\s*(?P<key>Device Model|Model Number|Product|Serial Number|Serial number):\s*(?P<value>\S.*?)\s*$"
)
_COMMAND = re.compile(r"\bsmartctl\b[^\n]*?\s(?P<dev>/dev/\S+)")
_RAW_INT = re.compile(r"^(\d{1,19})")


def _text(s: str) -> str:
    return drive_string(s) or ""


def _count(s: str) -> int | None:
    n = int(s)
    return n if n < COUNT_MAX else None


@dataclass
class _Reading:
    """What is read of one disk so far; later lines win (a log is oldest first)."""

    device: str
    fields: dict[str, Any] = field(default_factory=dict)
    failing_now: list[str] = field(default_factory=list)
    found: bool = False  # something SMART was read (not only the device's name)

    def report(self) -> SmartReport:
        return SmartReport(self.device, failing_now=tuple(self.failing_now), **self.fields)


@dataclass(frozen=True, slots=True)
class SmartdLine:
    """One smartd line that says something about a disk's health or identity."""

    device: str
    pending: int | None = None
    offline_uncorrectable: int | None = None
    failed: bool = False  # the drive's own verdict: FAILED SMART self-check / SMART Failure
    failing_attribute: str | None = None  # "Reallocated_Sector_Ct", as the JSON reader names it
    model: str | None = None
    serial: str | None = None


def parse_smartd_line(line: str) -> SmartdLine | None:
    """The health facts of one smartd log line, None for anything else (its other lines, a
    line of any other program)."""
    if len(line) > _MAX_LINE or "Device: " not in line:
        return None
    m = _SMARTD.search(line.rstrip())
    if m is None:
        return None
    device, msg = _text(m["dev"]), m["msg"].strip()
    if (c := _COUNT_MSG.match(msg)) is not None:
        n = _count(c["n"])
        if c["what"].startswith("Currently"):
            return SmartdLine(device, pending=n)
        return SmartdLine(device, offline_uncorrectable=n)
    if msg.startswith(("FAILED SMART self-check", "SMART Failure:")):
        return SmartdLine(device, failed=True)
    if (f := _FAILED_ATTR.match(msg)) is not None:
        return SmartdLine(device, failing_attribute=_text(f["name"]))
    if (i := _INFO.match(msg)) is not None:
        return SmartdLine(device, model=_text(i["model"].strip()), serial=_text(i["serial"]))
    return None


def smartd_reports(lines: Iterable[str]) -> list[SmartReport]:
    """The disks smartd's lines say something wrong of (or that name a disk's identity), one
    report per device, in the order first named; counts from the newest line."""
    readings: dict[str, _Reading] = {}
    for line in lines:
        s = parse_smartd_line(line)
        if s is None:
            continue
        r = readings.setdefault(s.device, _Reading(s.device))
        if s.pending is not None:
            r.fields["pending"], r.found = s.pending, True
        if s.offline_uncorrectable is not None:
            r.fields["offline_uncorrectable"], r.found = s.offline_uncorrectable, True
        if s.failed:
            r.fields["passed"], r.found = False, True
        if s.failing_attribute is not None and s.failing_attribute not in r.failing_now:
            r.failing_now.append(s.failing_attribute)
            r.found = True
        if s.serial is not None:
            r.fields["model"], r.fields["serial"] = s.model, s.serial
    return [r.report() for r in readings.values() if r.found]


def _raw(text: str) -> int | None:
    m = _RAW_INT.match(text.strip())
    return _count(m[1]) if m else None


def smartctl_line(line: str) -> bool:
    """Whether parse_smartctl_text reads this line (a health line, a model or serial, an
    attribute row): the paste layer counts such lines as read."""
    if len(line) > _MAX_LINE:
        return False
    return any(p.match(line) for p in (_HEALTH, _FIELD, _ROW_A, _ROW_X))


def parse_smartctl_text(text: str, device: str | None = None) -> SmartReport | None:
    """smartctl -a / -x text of one disk, None when it holds neither a health line nor an
    attribute row. `device`: the path it was asked about, when the paste shows the command."""
    r = _Reading(device or "")
    for line in text.splitlines():
        if len(line) > _MAX_LINE:
            continue
        if device is None and (c := _COMMAND.search(line)) is not None:
            r.device = _text(c["dev"])
            continue
        if (h := _HEALTH.match(line)) is not None:
            word = h["word"].rstrip("!").upper()
            r.fields["passed"] = word in ("PASSED", "OK")
            r.found = True
            continue
        if (f := _FIELD.match(line)) is not None:
            key = "serial" if f["key"].lower().startswith("serial") else "model"
            r.fields.setdefault(key, _text(f["value"]))
            continue
        row = _ROW_A.match(line) or _ROW_X.match(line)
        if row is None:
            continue
        r.found = True
        ident, raw = int(row["id"]), _raw(row["raw"])
        if ident in ATA_IDS:
            r.fields[ATA_IDS[ident]] = raw
        elif ident in _TEMPERATURE_IDS and raw is not None and raw < 200:
            r.fields.setdefault("temperature_c", raw)
        elif ident == _POWER_ON_ID:
            r.fields["power_on_hours"] = raw
        if row["failed"] in ("FAILING_NOW", "NOW"):
            r.failing_now.append(_text(row["name"]))
    if not r.found:
        return None
    if any(k in r.fields for k in ATA_IDS.values()):
        r.fields["protocol"] = "ATA"
    return r.report()
