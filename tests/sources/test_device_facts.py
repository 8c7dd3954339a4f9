"""A disk's medium as zdash reads it, on real outputs: the lab VM's NVMe and virtio disks, whole
(partitioned by zpool), under dm-delay and a dm-linear slice, and null_blk disks flagged
rotational or not (tests/captures/devices, capture.sh there), read by the local sysfs reader and
by the remote one (`stat -L` + `lsblk -P`); and the transports of published sysfs paths."""

from __future__ import annotations

import asyncio
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zdash.media import medium
from zdash.parse.devices import parse_devices
from zdash.raw import RawSample
from zdash.sources.procfs import clean_model, transport_of
from zdash.sources.remote import describe_remote_devices

HERE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "captures", "devices")
NVME0 = "/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_zfslab-nvme0-part1"
VIRTIO0 = "/dev/disk/by-id/virtio-zfslab-disk0-part1"
# leaf -> (medium, model) as the capture's build made them
EXPECTED = {
    NVME0: ("NVMe SSD", "QEMU NVMe Ctrl"),  # a partition: the model is its disk's
    VIRTIO0: ("HDD", None),  # virtio-blk sets no solid-state flag
    "/dev/mapper/media_delay": ("NVMe SSD", "QEMU NVMe Ctrl"),  # dm-delay over one NVMe disk
    "/dev/mapper/media_slice": ("HDD", None),  # dm-linear over a virtio disk
    "/dev/spin": ("HDD", None),  # null_blk, rotational set to 1
    "/dev/flash": ("SSD", None),
}


def _read(name: str) -> str:
    with open(os.path.join(HERE, name)) as f:
        return f.read()


def _media(text: str) -> dict[str, tuple[str | None, str | None]]:
    return {p: (medium(f.rotational, f.transport), f.model) for p, f in parse_devices(text).items()}


def test_the_local_reader_knows_each_leafs_medium_and_model():
    assert _media(_read("describe-devices.txt")) == EXPECTED


class _Runner:
    """The far side as captured: `stat -L` and `lsblk -P` answer with the lab's outputs."""

    async def run(self, key, argv, timeout=None):
        out = _read("stat-L.txt") if argv[0] == "stat" else _read("lsblk-P.txt")
        return RawSample(key, tuple(argv), 0, out)


def test_the_remote_reader_agrees_with_the_local_one():
    sample = asyncio.run(describe_remote_devices(_Runner(), list(EXPECTED)))
    assert sample.error is None
    assert _media(sample.stdout) == EXPECTED
    remote, local = parse_devices(sample.stdout), parse_devices(_read("describe-devices.txt"))
    for path, facts in local.items():
        assert (remote[path].device, remote[path].native_sector) == (facts.device, facts.native_sector)
    # lsblk 2.38 has no name for virtio's transport; sysfs's path does: neither makes a medium
    assert remote[VIRTIO0].transport is None and local[VIRTIO0].transport == "virtio"


def _sys_paths() -> list[tuple[str, str | None, str]]:
    captured = {
        "nvme0n1p1": "nvme",
        "nvme1n1": "nvme",
        "vda1": "virtio",
        "vdb": "virtio",
        "dm-0": None,  # a dm device is virtual: the reader follows it to its disk first
        "spin": None,
    }
    rows = [line.split(" ", 1) for line in _read("sys-block-paths.txt").splitlines()]
    out = [(name, captured[name], path) for name, path in rows if name in captured]
    for line in _read("published-sys-paths.txt").splitlines():
        if line and not line.startswith("#"):
            name, transport, path = line.split(" ", 2)
            out.append((name, transport, path))
    return out


@pytest.mark.parametrize(("name", "transport", "path"), _sys_paths())
def test_the_transport_of_a_disk_is_where_it_hangs_in_sysfs(name, transport, path):
    assert transport_of(path) == transport, name


def test_a_recording_made_before_transport_and_model_were_read_still_reads():
    facts = parse_devices("/dev/sda\tsda\t4096\t1\n")["/dev/sda"]
    assert (facts.rotational, facts.transport, facts.model) == (True, None, None)
    assert medium(facts.rotational, facts.transport) == "HDD"


def test_a_model_is_shown_printable_and_short():
    assert clean_model("  WDC  WD40EFRX-68N\\x00\n") == "WDC WD40EFRX-68N\\x00"
    assert clean_model("\x1b[31mevil\tmodel\x07") == "[31mevil model"
    assert clean_model("x" * 300) == "x" * 40
    assert clean_model(" \n\t") is None


@given(st.text(max_size=300))
def test_any_model_string_is_one_printable_field(raw):
    text = clean_model(raw)
    assert text is None or (text.isprintable() and "\t" not in text and len(text) <= 40)
