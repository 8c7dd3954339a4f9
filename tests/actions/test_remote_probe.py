"""RemoteProbe reads another host's disk facts with commands over ssh (a fleet's plan checks the
pool's own host). Through the stand-in ssh (tests/fakes/bin/ssh: the remote words run here),
the far side is this machine, so the remote probe must say exactly what the local probe says
about the same paths; and a host ssh cannot reach is an error, never "no such disk"."""

import os

import pytest

from tests.fakes import use_fake_ssh
from zdash.actions.probe import HostProbe
from zdash.actions.remote_probe import RemoteProbe, RemoteProbeError
from zdash.sources.remote import RemoteRunner, SshHost


@pytest.fixture
def remote(monkeypatch, tmp_path):
    use_fake_ssh(monkeypatch, tmp_path, path_tail=os.environ["PATH"])
    return RemoteProbe(RemoteRunner(SshHost.parse("nas1")))


def _block_devices() -> list[str]:
    """This machine's readable whole disks (the far side, here), e.g. /dev/vda."""
    out = []
    for name in sorted(os.listdir("/sys/class/block")):
        path = f"/dev/{name}"
        if os.path.exists(f"/sys/class/block/{name}/partition") or not os.path.exists(path):
            continue
        if name.startswith(("loop", "ram", "zram")):
            continue
        out.append(path)
    return out[:2]


@pytest.mark.slow
def test_the_remote_probe_says_what_the_local_one_says(remote, tmp_path):
    image = tmp_path / "vdev.img"
    image.write_bytes(b"\0" * 4096)
    paths = [str(image), str(tmp_path / "missing"), "/dev/null", *_block_devices()]
    local = HostProbe()
    for p in paths:
        assert remote.info(p) == local.info(p), p
        assert remote.size(p) == local.size(p), p
    devices = _block_devices()
    if devices:  # a bare name is looked up where zpool looks (/dev first)
        bare = os.path.basename(devices[0])
        assert remote.info(bare) == local.info(bare)
        assert remote.info(bare).kind == "block" and remote.info(bare).size


def test_an_unreachable_host_is_an_error_not_a_missing_disk(remote, tmp_path):
    (tmp_path / "down").write_text("nas1\n")
    with pytest.raises(RemoteProbeError, match="nas1: ssh: connect to host nas1 port 22: Connection refused"):
        remote.info("/dev/sdz")
    assert remote.runner.unreachable_since is not None


def test_a_path_a_shell_would_read_is_not_sent(remote, tmp_path, monkeypatch):
    log = tmp_path / "ssh.log"
    monkeypatch.setenv("FAKE_SSH_LOG", str(log))
    info = remote.info("/dev/disk/by-id/$(reboot)")
    assert info.kind == "unknown" and not info.exists
    assert not log.exists() or "reboot" not in log.read_text()
