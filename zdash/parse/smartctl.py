"""`smartctl -j -a [-n standby] DEVICE` (smartmontools >= 7, JSON format 1) into a SmartReport.

What is read, per protocol (the figures an admin looks at first):
- ATA: the overall health verdict; attributes 5 (reallocated), 187 (reported uncorrectable),
  197 (pending), 198 (offline uncorrectable), 199 (UDMA CRC errors), each attribute's
  `when_failed` "now"; temperature and power-on hours; the newest self-test.
- SCSI/SAS: the health verdict, the grown defect list, the error counter log's uncorrected
  errors (read + write + verify), the SSD endurance indicator, the newest self-test.
- NVMe: the critical warning bits, media and data integrity errors, percentage used, spare and
  its threshold, the newest self-test (7.4+ prints the log).

When there is no SMART data (a USB bridge smartctl does not know, a dm or loop device, no
permission, a disk in standby under `-n standby`, a device gone) the report says why, in
smartctl's own words, with a kind the checks can act on; never an error. smartctl's exit status
is a bit field (smartctl(8) RETURN VALUES): 0x1 command line, 0x2 device open failed, 0x4 a
command failed, 0x8 the disk is failing, 0x10 pre-fail attributes at threshold, 0x20 some
attribute was at threshold in the past, 0x40 the error log has errors, 0x80 the self-test log.

Strings from the drive (model, serial, firmware, self-test wording) are outside input: control
characters are dropped and their length capped here; they are shown as plain text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from zdash.model import SelfTest, SmartReport
from zdash.parse import ParseError

MAX_TEXT = 4 << 20  # smartctl -x of a busy SAS disk is ~100 KB; anything far larger is not smartctl
MAX_STRING = 120  # of a model or firmware string shown on screen
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
COUNT_MAX = 2**63  # a counter beyond this is garbage, not a reading

# ATA attribute ids -> SmartReport field (the standard meanings; vendors agree on these).
ATA_IDS = {
    5: "reallocated",
    187: "reported_uncorrect",
    197: "pending",
    198: "offline_uncorrectable",
    199: "crc_errors",
}

# Kinds that say smartctl cannot read SMART on this host at all, whatever the disk.
HOST_WIDE_KINDS = ("old-smartctl", "permission")
# smartctl's messages when it cannot read a device, and the kind each is.
_UNAVAILABLE = (
    ("Unknown USB bridge", "usb-bridge"),
    ("Permission denied", "permission"),
    ("Operation not permitted", "permission"),
    ("STANDBY", "standby"),
    ("SLEEP", "standby"),
    ("Unable to detect device type", "unsupported"),
    ("Please specify device type", "unsupported"),
    ("No such device", "gone"),
    ("No such file or directory", "gone"),
)


def parse_smartctl(text: str, device: str = "") -> SmartReport:
    """The report for `device` (the path smartctl was given; the JSON's own name wins)."""
    if not isinstance(text, str):
        raise ParseError(f"smartctl: expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ParseError(f"smartctl: {len(text)} characters is not a smartctl report")
    stripped = text.strip()
    if not stripped.startswith("{"):
        return _not_json(stripped, device)
    try:
        doc = json.loads(stripped)
    except (ValueError, RecursionError) as e:
        raise ParseError(f"smartctl -j: not JSON ({str(e)[:60]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("smartctl"), dict):
        raise ParseError("smartctl -j: no 'smartctl' section: not smartctl's JSON")
    return _report(doc, device)


def _not_json(text: str, device: str) -> SmartReport:
    """smartctl before 7 has no -j: it prints its usage error in text."""
    if "UNRECOGNIZED OPTION" in text or "unrecognized option" in text:
        return SmartReport(
            device,
            unavailable="this smartctl has no JSON output (-j): SMART needs smartmontools 7 or later",
            unavailable_kind="old-smartctl",
        )
    raise ParseError("smartctl -j: expected JSON, got text")


def _report(doc: dict[str, Any], device: str) -> SmartReport:
    head = doc["smartctl"]
    dev = _dict(doc.get("device"))
    asked = [a for a in _list(head.get("argv")) if isinstance(a, str) and a.startswith("/")]
    name = drive_string(dev.get("name")) or device or (drive_string(asked[-1]) if asked else None) or "?"
    exit_status = _int(head.get("exit_status"))
    messages = [
        drive_string(m.get("string")) or "" for m in _list(head.get("messages")) if isinstance(m, dict)
    ]
    protocol = drive_string(dev.get("protocol"))
    if protocol is not None and protocol not in ("ATA", "SCSI", "NVMe"):
        protocol = protocol[:10]
    model = (
        drive_string(doc.get("model_name")) or drive_string(doc.get("scsi_model_name")) or _scsi_model(doc)
    )
    status = _dict(doc.get("smart_status"))
    passed = status.get("passed") if isinstance(status.get("passed"), bool) else None
    fields: dict[str, Any] = {
        "protocol": protocol,
        "model": model,
        "serial": drive_string(doc.get("serial_number")),
        "firmware": drive_string(doc.get("firmware_version")) or drive_string(doc.get("scsi_revision")),
        "passed": passed,
        "exit_status": exit_status,
        "temperature_c": _int(_dict(doc.get("temperature")).get("current")),
        "power_on_hours": _int(_dict(doc.get("power_on_time")).get("hours")),
    }
    fields.update(_ata(doc))
    fields.update(_scsi(doc))
    fields.update(_nvme(doc))
    fields["self_test"] = _self_test(doc)
    has_data = passed is not None or any(
        fields.get(k) is not None
        for k in ("reallocated", "grown_defects", "critical_warning", "temperature_c")
    )
    if not has_data:
        why, kind = _why_unavailable(doc, messages, exit_status)
        fields["unavailable"], fields["unavailable_kind"] = why, kind
    return SmartReport(name, **fields)


def _why_unavailable(doc: dict[str, Any], messages: list[str], exit_status: int | None) -> tuple[str, str]:
    for message in messages:
        for needle, kind in _UNAVAILABLE:
            if needle.lower() in message.lower():
                return message, kind
    support = _dict(doc.get("smart_support"))
    if support.get("available") is False:
        return "the device has no SMART (smartctl: SMART support unavailable)", "unsupported"
    if support.get("enabled") is False:
        return "SMART is disabled on the device (smartctl -s on enables it)", "unsupported"
    if messages:
        return messages[0], "failed"
    if exit_status:
        return f"smartctl exited with status {exit_status} and no SMART data", "failed"
    return "smartctl printed no SMART data for it", "unsupported"


def _ata(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    failing = []
    for attr in _list(_dict(doc.get("ata_smart_attributes")).get("table")):
        if not isinstance(attr, dict):
            continue
        ident = _int(attr.get("id"))
        field = ATA_IDS.get(ident) if ident is not None else None
        if field is not None:
            raw = _int(_dict(attr.get("raw")).get("value"))
            if field == "reported_uncorrect" and raw is not None:
                raw &= 0xFFFF  # some vendors pack more counters into the upper bytes
            out[field] = raw
        if drive_string(attr.get("when_failed")) == "now":
            failing.append(drive_string(attr.get("name")) or f"attribute {ident}")
    if failing:
        out["failing_now"] = tuple(failing[:16])
    return out


def _scsi(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "scsi_grown_defect_list" in doc:
        out["grown_defects"] = _int(doc.get("scsi_grown_defect_list"))
    log = _dict(doc.get("scsi_error_counter_log"))
    totals = [_int(_dict(log.get(k)).get("total_uncorrected_errors")) for k in ("read", "write", "verify")]
    known = [t for t in totals if t is not None]
    if known:
        out["uncorrected_errors"] = sum(known)
    used = _int(doc.get("scsi_percentage_used_endurance_indicator"))
    if used is not None:
        out["percentage_used"] = used
    return out


def _nvme(doc: dict[str, Any]) -> dict[str, Any]:
    log = doc.get("nvme_smart_health_information_log")
    if not isinstance(log, dict):
        return {}
    return {
        "critical_warning": _int(log.get("critical_warning")),
        "media_errors": _int(log.get("media_errors")),
        "percentage_used": _int(log.get("percentage_used")),
        "available_spare": _int(log.get("available_spare")),
        "available_spare_threshold": _int(log.get("available_spare_threshold")),
    }


def _self_test(doc: dict[str, Any]) -> SelfTest | None:
    """The newest self-test in the log (smartctl lists the newest first)."""
    ata = _list(_dict(_dict(doc.get("ata_smart_self_test_log")).get("standard")).get("table"))
    if ata and isinstance(ata[0], dict):
        t = ata[0]
        status = _dict(t.get("status"))
        passed = status.get("passed") if isinstance(status.get("passed"), bool) else None
        return SelfTest(
            drive_string(_dict(t.get("type")).get("string")) or "self-test",
            passed,
            drive_string(status.get("string")) or "",
            _int(t.get("lifetime_hours")),
        )
    nvme = _list(_dict(doc.get("nvme_self_test_log")).get("table"))
    if nvme and isinstance(nvme[0], dict):
        t = nvme[0]
        result = _dict(t.get("self_test_result"))
        code = _int(result.get("value"))
        # NVMe result 0 is "completed without error"; 1-2 aborted by the host; 5-8 failures.
        passed = None if code is None or code in (1, 2, 3, 4, 0xF) else code == 0
        return SelfTest(
            drive_string(_dict(t.get("self_test_code")).get("string")) or "self-test",
            passed,
            drive_string(result.get("string")) or "",
            _int(t.get("power_on_hours")),
        )
    scsi = _dict(doc.get("scsi_self_test_0"))
    if scsi:
        result = _dict(scsi.get("result"))
        code = _int(result.get("value"))
        # SCSI self-test results: 0 completed, 1-2 aborted, 3 unknown error, 4-7 failed segments.
        passed = None if code is None or code in (1, 2, 15) else code == 0
        return SelfTest(
            drive_string(_dict(scsi.get("code")).get("string")) or "self-test",
            passed,
            drive_string(result.get("string")) or "",
            _int(_dict(scsi.get("power_on_time")).get("hours")),
        )
    return None


def _scsi_model(doc: dict[str, Any]) -> str | None:
    vendor, product = drive_string(doc.get("scsi_vendor")), drive_string(doc.get("scsi_product"))
    both = " ".join(p for p in (vendor, product) if p)
    return both or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if -COUNT_MAX < value < COUNT_MAX else None


def drive_string(value: Any) -> str | None:
    """A drive's string, safe to show: control and direction characters dropped, capped."""
    if not isinstance(value, str):
        return None
    clean = _CONTROL.sub("", value).strip()
    if len(clean) > MAX_STRING:
        clean = clean[: MAX_STRING - 1] + "…"
    return clean or None
