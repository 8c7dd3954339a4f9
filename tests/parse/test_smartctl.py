"""smartctl -j: the figures an admin reads first, from real published reports (ATA, SCSI, NVMe,
a USB bridge without SMART; tests/captures/smartctl-published/SOURCES.md) and the lab's own
(QEMU's NVMe controller, dm/loop/multipath devices, a non-root user)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mutate import FUZZED, mutated
from zdash.model import SmartReport
from zdash.parse import ParseError
from zdash.parse.smartctl import parse_smartctl

PUBLISHED = Path(__file__).resolve().parents[1] / "captures" / "smartctl-published"
LAB = Path(__file__).resolve().parents[1] / "captures" / "evidence"


def published(name: str) -> SmartReport:
    return parse_smartctl((PUBLISHED / name).read_text())


def lab(name: str) -> SmartReport:
    return parse_smartctl((LAB / name).read_text())


def test_ata_disk_with_pending_and_reallocated_sectors_says_it_is_failing():
    r = published("ata-pending-reallocated-failed.json")
    assert (r.device, r.protocol, r.model) == ("/dev/sdc", "ATA", "Hitachi HDS721050DLE630")
    assert (r.reallocated, r.pending, r.offline_uncorrectable, r.crc_errors) == (1975, 8, 0, 0)
    assert r.passed is False and r.exit_status == 216
    assert r.failing_now == ("Reallocated_Sector_Ct",)
    assert r.power_on_hours == 65592 and r.temperature_c == 25
    assert r.self_test is not None and r.self_test.passed and r.self_test.kind == "Short offline"
    assert r.unavailable is None


def test_ata_disk_with_reallocated_sectors_only_still_passes():
    r = published("ata-reallocated.json")
    assert (r.reallocated, r.pending, r.passed) == (304, 0, True)
    assert r.failing_now == ()


def test_scsi_disk_with_grown_defects():
    r = published("scsi-grown-defects.json")
    assert (r.protocol, r.model, r.grown_defects) == ("SCSI", "SEAGATE ST373453LC", 260)
    assert r.uncorrected_errors == 1 + 535  # read + write, from the error counter log
    assert r.passed is True and r.power_on_hours == 102880
    assert r.reallocated is None and r.critical_warning is None  # no ATA or NVMe figures


def test_nvme_critical_warning_is_the_drive_saying_it_fails():
    r = published("nvme-critical-warning.json")
    assert (r.protocol, r.critical_warning, r.passed, r.exit_status) == ("NVMe", 16, False, 8)
    assert (r.media_errors, r.available_spare, r.available_spare_threshold) == (0, 100, 10)


def test_nvme_media_errors():
    r = published("nvme-media-errors.json")
    assert (r.media_errors, r.critical_warning, r.percentage_used, r.passed) == (7, 0, 3, True)
    assert r.model == "Samsung SSD 970 EVO 500GB"


def test_usb_bridge_without_smart_is_not_an_error():
    r = published("usb-bridge-unknown.json")
    assert r.unavailable_kind == "usb-bridge"
    assert "Unknown USB bridge [0x048d:0x1234 (0x200)]" in (r.unavailable or "")
    assert r.device == "/dev/disk/by-id/usb-Flash_Disk_3.0_7966051146147389472-0:0"
    assert r.passed is None and r.protocol is None


def test_smartctl_before_7_has_no_json():
    r = parse_smartctl((PUBLISHED / "smartctl-6.6-no-json.txt").read_text(), "/dev/sda")
    assert r.unavailable_kind == "old-smartctl" and "smartmontools 7" in (r.unavailable or "")


def test_lab_nvme_is_healthy():
    r = lab("smartctl-j-a-n-standby.nvme0n1.txt")
    assert (r.device, r.protocol, r.model, r.serial) == (
        "/dev/nvme0n1",
        "NVMe",
        "QEMU NVMe Ctrl",
        "zfslab-nvme0",
    )
    assert (r.passed, r.critical_warning, r.media_errors, r.temperature_c) == (True, 0, 0, 50)
    assert r.unavailable is None


def test_lab_devices_without_smart_say_why():
    assert lab("smartctl-j-a-n-standby.dm-mpath.txt").unavailable_kind == "unsupported"
    assert lab("smartctl-j-a-n-standby.loop.txt").unavailable_kind == "unsupported"
    assert lab("smartctl-j-a.dm-delay.txt").unavailable == "/dev/mapper/slownv: Unable to detect device type"
    denied = lab("smartctl-j-a.not-root.txt")
    assert denied.unavailable_kind == "permission" and "Permission denied" in (denied.unavailable or "")
    assert lab("smartctl-j-a.no-such-device.txt").unavailable_kind == "gone"


def test_drive_strings_cannot_carry_terminal_escapes():
    doc = json.loads((LAB / "smartctl-j-a-n-standby.nvme0n1.txt").read_text())
    doc["model_name"] = "EVIL\x1b[2J\x1b]0;owned\x07 DISK" + "x" * 500
    r = parse_smartctl(json.dumps(doc))
    assert r.model is not None and "\x1b" not in r.model and "\x07" not in r.model
    assert r.model.startswith("EVIL[2J]0;owned DISK") and len(r.model) <= 120


def test_not_smartctl_is_a_clear_error():
    for text in ("", "{}", "[1, 2]", '{"smartctl": 3}', "garbage"):
        try:
            parse_smartctl(text)
        except ParseError as e:
            assert "smartctl" in str(e)
        else:
            raise AssertionError(f"{text!r} parsed")
    try:
        parse_smartctl("[" * 100_000)
    except ParseError:
        pass


SEEDS = [p.read_text()[:4000] for p in sorted(PUBLISHED.glob("*.json"))] + [
    (LAB / "smartctl-j-a-n-standby.nvme0n1.txt").read_text()
]
_SNIPPET = st.one_of(
    st.sampled_from(list('{}[]",:0123456789-') + ["null", "true", '"x"', "1e999"]), st.text(max_size=4)
)


@FUZZED
@given(mutated(SEEDS, _SNIPPET))
def test_fuzzed_reports_give_a_report_or_a_clear_error(text):
    try:
        r = parse_smartctl(text)
    except ParseError as e:
        assert str(e) and "\n" not in str(e)
        return
    assert isinstance(r, SmartReport) and isinstance(r.device, str)


def _values():
    return st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=12,
    )


@settings(deadline=None, database=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "smartctl",
                "device",
                "smart_status",
                "ata_smart_attributes",
                "nvme_smart_health_information_log",
                "scsi_error_counter_log",
                "ata_smart_self_test_log",
                "nvme_self_test_log",
                "scsi_self_test_0",
                "temperature",
                "model_name",
                "scsi_grown_defect_list",
            ]
        ),
        _values(),
    )
)
def test_any_shape_of_json_gives_a_report_or_a_clear_error(doc):
    doc.setdefault("smartctl", {})
    try:
        r = parse_smartctl(json.dumps(doc))
    except ParseError:
        return
    assert isinstance(r, SmartReport)
