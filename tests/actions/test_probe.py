"""The host probe, on what a dev box has: files, /dev/null, a fake blkid, fake mounts."""

import os
import stat

import pytest

from zdash.actions import preflight as pf
from zdash.actions.probe import DeviceInfo, HostProbe, ReplayProbe, resolve


def test_resolve_like_zpool():
    assert resolve("/dev/disk/by-id/x") == "/dev/disk/by-id/x"
    assert resolve("null") == "/dev/null"
    assert resolve("no-such-disk-zz") == "/dev/no-such-disk-zz"


def test_files_missing_and_char_devices(tmp_path):
    f = tmp_path / "vdev"
    f.write_bytes(b"\0" * 4096)
    info = HostProbe().info(str(f))
    assert info.kind == "file" and info.size == 4096 and pf.target_exists(info).ok
    gone = HostProbe().info(str(tmp_path / "nope"))
    assert not gone.exists and "does not exist" in pf.target_exists(gone).reason
    null = HostProbe().info("/dev/null")
    assert null.kind == "other" and "not a block device" in pf.target_exists(null).reason


def test_mounts_and_swaps(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/sdz1 /srv/my\\040data ext4 rw 0 0\nproc /proc proc rw 0 0\n/dev/sdy1 /other ext4 rw 0 0\n"
    )
    swaps = tmp_path / "swaps"
    swaps.write_text("Filename Type Size Used Priority\n/dev/sdz2 partition 1 0 -2\n")
    probe = HostProbe(mounts=str(mounts), swaps=str(swaps))
    assert probe._mounted(("sdz", "sdz1", "sdz2")) == ("/srv/my data", "swap")
    assert probe._mounted(("sdx",)) == ()


def test_signatures_through_blkid(tmp_path, monkeypatch):
    fake = tmp_path / "blkid"
    fake.write_text(
        '#!/bin/sh\ncase "$4" in\n'
        "  /dev/sdz) echo PTTYPE=gpt; exit 0;;\n"
        "  /dev/sdz1) printf 'LABEL=oldpool\\nTYPE=zfs_member\\n'; exit 0;;\n"
        "  *) exit 2;;\nesac\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(os, "access", lambda *a, **k: True)
    sigs, err = HostProbe(blkid=str(fake))._signatures(("sdz", "sdz1", "sdz9"))
    assert err is None and sigs == (("sdz1", "zfs_member", "oldpool"),)  # a bare GPT is no use
    sigs, err = HostProbe(blkid=str(tmp_path / "none"))._signatures(("sdz",))
    assert sigs == () and "not installed" in err
    warn = pf.target_not_in_pool(
        DeviceInfo("/dev/sdz", True, "block", "/dev/sdz", "sdz", 1, probe_error=err), pf.Snapshot(0.0)
    )
    assert warn.mark == "WARN"


def test_unreadable_device_is_said_so(monkeypatch):
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    sigs, err = HostProbe()._signatures(("sdz",))
    assert sigs == () and "not root" in err


def test_stable_aliases(tmp_path):
    target = tmp_path / "node"
    target.write_text("")
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "ata-DISK").symlink_to(target)
    (by_id / "wwn-0x5").symlink_to(target)
    (by_id / "other").symlink_to(tmp_path)
    assert HostProbe(by_id=str(by_id))._aliases(str(target)) == (
        str(by_id / "wwn-0x5"),
        str(by_id / "ata-DISK"),
    )


def _some_block_device():
    for name in sorted(os.listdir("/sys/class/block")) if os.path.isdir("/sys/class/block") else ():
        if os.path.exists(f"/dev/{name}") and stat.S_ISBLK(os.stat(f"/dev/{name}").st_mode):
            return name
    return None


@pytest.mark.skipif(_some_block_device() is None, reason="no block device on this host")
def test_a_real_block_device():
    name = _some_block_device()
    info = HostProbe().info(f"/dev/{name}")
    with open(f"/sys/class/block/{name}/size") as f:
        assert info.kind == "block" and info.kernel == name and info.size == int(f.read()) * 512
    assert info.logical_sector in (512, 1024, 2048, 4096) and info.physical_sector
    assert HostProbe().size(f"/dev/{name}") == (info.size or None)


def test_replay_probe_checks_nothing_on_this_host():
    info = ReplayProbe().info("/dev/sdz")
    assert info.kind == "unknown"
    for check in (
        pf.target_exists(info),
        pf.target_unused(info),
        pf.target_not_mounted(info),
        pf.target_not_in_pool(info, pf.Snapshot(0.0)),
    ):
        assert check.mark == "WARN" and "replay" in check.reason
