"""The kernel log (dmesg --time-format iso, journalctl short-iso, pastes of plain dmesg) and
which disks stand under a leaf (lsblk, sysfs): real lab captures of a partitioned NVMe disk, a
dm-delay device over one, dm multipath over two loop paths, a loop device and file vdevs."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from zdash.model import KernelLine
from zdash.parse import ParseError
from zdash.parse.blockdev import parse_lsblk, parse_sysfs, resolve
from zdash.parse.devices import DeviceFacts
from zdash.parse.kernel_log import kernel_log_argv, naming, parse_kernel_log

LAB = Path(__file__).resolve().parents[1] / "captures" / "evidence"


def test_dmesg_iso_lines_have_epoch_times():
    lines = parse_kernel_log((LAB / "dmesg-time-format-iso.txt").read_text())
    assert len(lines) > 400
    first = lines[0]
    assert first.time is not None and abs(first.time - 1795880100) < 600
    assert all(ln.time is not None for ln in lines)  # continuation lines take their message's time


def test_the_lines_that_name_a_controller_after_its_reset():
    lines = parse_kernel_log((LAB / "dmesg-time-format-iso.txt").read_text())
    reset_at = 1795880210.0  # `echo 1 > /sys/class/nvme/nvme1/reset_controller`
    found = naming(lines, ["nvme1n1", "nvme1n1p1", "nvme1"], since=reset_at)
    assert [ln.text for ln in found] == [
        "nvme nvme1: 2/0/0 default/read/poll queues",
        "nvme nvme1: Ignoring bogus Namespace Identifiers",
    ]
    everything = naming(lines, ["nvme1"])
    assert len(everything) == 5 and not any("nvme0" in ln.text for ln in everything)


def test_names_match_whole_words_only():
    lines = parse_kernel_log(
        "[ 1.0] sd 2:0:0:0: [sdb] tag#3 FAILED Result: hostbyte=DID_OK\n"
        "[ 1.1] sdba: p1\n"
        "[ 1.2] ata3.00: exception Emask 0x0 SAct 0x800 SErr 0x0 action 0x0\n"
        "[ 1.3] ata31: SATA link up 6.0 Gbps\n"
        "[ 1.4] zio pool=tank vdev=/dev/disk/by-id/ata-WDC_X-part1 error=5 type=1\n"
    )
    got = [ln.text[:12] for ln in naming(lines, ["sdb", "ata3", "2:0:0:0", "ata-WDC_X-part1"])]
    assert got == ["sd 2:0:0:0: ", "ata3.00: exc", "zio pool=tan"]
    assert all(ln.time is None for ln in lines)  # seconds since boot: no absolute time


def test_journal_lines_and_notes():
    text = (
        "-- Journal begins at Mon 2024-01-01 00:00:00 UTC. --\n"
        "2024-01-05T10:11:12.123456+0100 nas kernel: ata3: hard resetting link\n"
        "2024-01-05T10:11:13.000001+01:00 nas kernel: ata3: SATA link up 1.5 Gbps (SStatus 113 SControl 310)\n"
        "-- No entries --\n"
    )
    lines = parse_kernel_log(text)
    assert [ln.text for ln in lines] == [
        "ata3: hard resetting link",
        "ata3: SATA link up 1.5 Gbps (SStatus 113 SControl 310)",
    ]
    assert lines[0].time == 1704445872.123456  # 09:11:12 UTC
    assert naming(lines, ["ata3"], last=1) == (lines[1],)


def test_an_empty_journal_and_hostile_lines():
    assert parse_kernel_log((LAB / "journalctl-k.no-journal.txt").read_text()) == ()
    (line,) = parse_kernel_log(
        "2024-01-05T10:11:12+0000 h kernel: usb 1-1: Product: \x1b]0;x\x07EVIL\u202e" + "y" * 900
    )
    assert "\x1b" not in line.text and "\u202e" not in line.text and len(line.text) <= 400


def test_kernel_log_argv():
    assert kernel_log_argv(1700000000.7)[-2:] == ("--since", "@1700000000")
    assert kernel_log_argv(None, "dmesg") == ("dmesg", "--time-format", "iso")


def _lab_facts() -> dict[str, DeviceFacts]:
    kname = {}
    for line in (LAB / "readlink-leaf-paths.txt").read_text().splitlines():
        path, real = line.split()
        kname[path] = real.rsplit("/", 1)[-1]
    facts = {p: DeviceFacts(p, k, 512, False) for p, k in kname.items()}
    facts["/tmp/f1.img"] = DeviceFacts("/tmp/f1.img", None, None, None)
    return facts


def test_every_kind_of_leaf_in_the_lab_resolves_or_says_why():
    devs = parse_lsblk((LAB / "lsblk-P.txt").read_text())
    sysfs = parse_sysfs((LAB / "readlink-sysfs.txt").read_text())
    got = {d.path: d for d in resolve(_lab_facts(), devs, sysfs)}
    delayed = got["/dev/mapper/slownv"]
    assert (delayed.device, delayed.disks, delayed.multipath) == ("dm-0", ("nvme0n1",), False)
    assert {"slownv", "dm-0", "nvme0n1", "nvme0"} <= set(delayed.names)
    part = got["/dev/nvme1n1p1"]
    assert part.disks == ("nvme1n1",) and {"nvme1", "nvme1n1p1"} <= set(part.names)
    mpath = got["/dev/mapper/mpathz"]
    assert mpath.multipath and mpath.disks == () and "loop" in (mpath.why_not or "")
    assert "loop device over a file" in (got["/dev/loop2"].why_not or "")
    assert got["/tmp/f1.img"].why_not == "a file vdev: there is no disk under it"


def test_multipath_over_real_disks_is_one_disk_many_paths():
    devs = parse_lsblk(
        'KNAME="sdc" PKNAME="" TYPE="disk" NAME="sdc" TRAN="sas" HCTL="1:0:0:0"\n'
        'KNAME="dm-2" PKNAME="sdc" TYPE="mpath" NAME="mpatha" TRAN="" HCTL=""\n'
        'KNAME="sdd" PKNAME="" TYPE="disk" NAME="sdd" TRAN="sas" HCTL="2:0:0:0"\n'
        'KNAME="dm-2" PKNAME="sdd" TYPE="mpath" NAME="mpatha" TRAN="" HCTL=""\n'
        'KNAME="dm-3" PKNAME="dm-2" TYPE="part" NAME="mpatha-part1" TRAN="" HCTL=""\n'
    )
    (leaf,) = resolve(
        {"/dev/mapper/mpatha-part1": DeviceFacts("/dev/mapper/mpatha-part1", "dm-3", 512, True)}, devs
    )
    assert leaf.multipath and leaf.disks == ("sdc", "sdd") and leaf.transport == "sas"
    assert {"1:0:0:0", "2:0:0:0", "mpatha", "mpatha-part1"} <= set(leaf.names)


def test_without_lsblk_the_usual_names_still_give_the_disk():
    facts = {"/dev/disk/by-id/ata-X-part1": DeviceFacts("/dev/disk/by-id/ata-X-part1", "sdb1", 512, True)}
    (leaf,) = resolve(facts, None)
    assert leaf.disks == ("sdb",) and {"sdb", "sdb1", "ata-X", "ata-X-part1"} <= set(leaf.names)
    (dm,) = resolve({"/dev/mapper/x": DeviceFacts("/dev/mapper/x", "dm-4", 512, True)}, None)
    assert dm.disks == () and "unknown" in (dm.why_not or "")


@settings(deadline=None, database=None)
@given(st.text(max_size=300))
def test_any_text_is_lines_or_a_clear_error(text):
    for parse in (parse_kernel_log, parse_lsblk, parse_sysfs):
        try:
            got = parse(text)
        except ParseError as e:
            assert "\n" not in str(e)
            continue
        if parse is parse_kernel_log:
            assert all(isinstance(ln, KernelLine) and "\n" not in ln.text for ln in got)
