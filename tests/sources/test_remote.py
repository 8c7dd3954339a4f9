"""Another host over ssh: the argv zdash hands to ssh (never a shell string), every read of the
far side's state going through it, and an unreachable host as a one-line source failure. A
stand-in ssh (tests/fakes/bin/ssh) runs the remote words here through `sh -c`, as sshd would."""

import json
import os
import shutil
import stat
import tempfile
import time

import pytest

from tests.fakes import use_fake_ssh
from zdash.builder import SnapshotBuilder
from zdash.sources import remote
from zdash.sources.live import LiveSource
from zdash.sources.remote import HostError, RemoteRunner, SshHost, control_dir, remote_words, ssh_argv


@pytest.fixture
def fake_ssh(monkeypatch, tmp_path):
    use_fake_ssh(monkeypatch, tmp_path, log=True)
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "deranged-disk")
    return tmp_path


def _calls(tmp_path):
    return [json.loads(line) for line in (tmp_path / "ssh.log").read_text().splitlines()]


@pytest.mark.parametrize(
    "spec, host, user, port, label",
    [
        ("nas1", "nas1", None, None, "nas1"),
        ("admin@nas1:2222", "nas1", "admin", 2222, "nas1:2222"),
        ("root@10.0.0.5", "10.0.0.5", "root", None, "10.0.0.5"),
        ("[2001:db8::1]:22", "2001:db8::1", None, 22, "[2001:db8::1]:22"),
    ],
)
def test_host_spec(spec, host, user, port, label):
    h = SshHost.parse(spec)
    assert (h.host, h.user, h.port, h.label) == (host, user, port, label)


@pytest.mark.parametrize(
    "spec",
    [
        "", "-oProxyCommand=x", "nas1:0", "nas1:http", "a b", "us;er@nas1", "nas1;reboot",
        # a user or host ssh would read as an option, a % token, whitespace, a control character
        "-Fcfg@nas1", "-Epwned.log@nas1", "admin@-oProxyCommand=x", "%C@nas1", "admin@nas%h",
        "ad min@nas1", "admin\n-F@nas1", "ad\x1bmin@nas1", "admin@nas1\x07", ".hidden@nas1",
    ],
)  # fmt: skip
def test_bad_host_spec_is_one_line(spec):
    with pytest.raises(HostError, match="host") as refused:
        SshHost.parse(spec)
    assert "\n" not in str(refused.value) and "\x1b" not in str(refused.value)


def test_a_user_starting_with_a_dash_is_named_as_an_option():
    with pytest.raises(HostError, match=r"the user '-Fcfg' starts with '-' \(ssh would read an option\)"):
        SshHost.parse("-Fcfg@nas1")


def test_ssh_argv_gives_the_host_as_data_after_its_options(fake_ssh):
    argv = ssh_argv(SshHost.parse("admin@nas1:2222"), ("zpool", "status", "-p", "tank"))
    cut = argv.index("--")
    assert (
        argv[0] == "ssh" and argv[cut + 1] == "nas1" and argv[cut + 2 :] == ("zpool", "status", "-p", "tank")
    )
    opts = argv[1:cut]
    assert "ControlMaster=auto" in opts and "BatchMode=yes" in opts and "ControlPersist=60" in opts
    assert opts[opts.index("-p") + 1] == "2222" and opts[opts.index("-l") + 1] == "admin"
    path = next(o for o in opts if o.startswith("ControlPath="))[len("ControlPath=") :]
    assert path == f"{control_dir()}/%C"
    assert stat.S_IMODE(os.stat(control_dir()).st_mode) == 0o700


def _control_path(argv):
    return next(o for o in argv if o.startswith("ControlPath="))[len("ControlPath=") :]


def test_the_control_socket_lives_in_a_short_runtime_dir(monkeypatch):
    short = tempfile.mkdtemp(prefix="zr", dir="/tmp")
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", short)
        path = _control_path(ssh_argv(SshHost.parse("nas1"), ("true",)))
        assert path == f"{short}/zdash-ssh-{os.getuid()}/%C"
    finally:
        shutil.rmtree(short)


async def test_a_runtime_dir_too_long_for_a_socket_path_is_not_used(fake_ssh, monkeypatch):
    """ssh binds the master's socket at ControlPath (%C: 40 hex digits) plus a 17-character
    suffix, in sun_path's 108 bytes: from a 91-byte ControlPath on, OpenSSH fails every command
    with exit 255 (measured with 9.2; the fake ssh does the same). A long XDG_RUNTIME_DIR or
    TMPDIR (macOS's /var/folders/…/T/, a test's tmp_path) made every host "unreachable"."""
    long_dir = fake_ssh / ("r" * 60)
    long_dir.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(long_dir))
    path = _control_path(ssh_argv(SshHost.parse("nas1"), ("true",))).replace("%C", "c" * 40)
    assert len(path) + 17 < 108 and not path.startswith(str(long_dir))
    runner = RemoteRunner(SshHost.parse("nas1"), timeout=5.0)
    sample = await runner.run("version", ("zpool", "version"))
    assert sample.ok, sample.error
    assert runner.unreachable_since is None


def test_no_master_when_no_socket_path_fits(fake_ssh, monkeypatch):
    monkeypatch.setattr(remote, "SUN_PATH", 20)
    argv = ssh_argv(SshHost.parse("nas1"), ("true",))
    assert "ControlMaster=no" in argv and "ControlPath=none" in argv
    assert not any(o.startswith("ControlPersist") for o in argv)


@pytest.mark.parametrize("word", ["a b", "$(reboot)", "x;y", "`id`", "it's", "*", "~root", ""])
def test_a_word_a_shell_would_read_is_refused(word):
    with pytest.raises(ValueError, match="refusing to send"):
        ssh_argv(SshHost.parse("nas1"), ("zpool", "status", word))


def test_remote_words_set_the_locale_and_clear_the_name_variables():
    words = remote_words(("zpool", "list"))
    assert words[0] == "env" and words[-2:] == ("zpool", "list")
    assert {"LC_ALL=C", "TZ=UTC", "ZPOOL_VDEV_NAME_PATH"} <= set(words)


async def _snapshots(n, runner, **kw):
    src = LiveSource(0.2, structure_every=0.2, timeout=5.0, runner=runner, **kw)
    b = SnapshotBuilder(src.interval, src.host)
    out = []
    gen = src.ticks()
    async for tick in gen:
        out.append(b.feed(tick))
        if len(out) >= n:
            break
    await gen.aclose()
    return src, out


async def test_every_read_of_the_far_side_goes_through_ssh(fake_ssh):
    runner = RemoteRunner(SshHost.parse("nas1"), timeout=5.0)
    src, snaps = await _snapshots(4, runner)
    assert src.host == "nas1" and snaps[-1].host == "nas1"
    pool = snaps[-1].pool("deranged")
    assert pool is not None and any(pool.io_of(v) is not None for v in pool.leaves())
    remote = [c[c.index("--") + 2 :] for c in _calls(fake_ssh)]
    commands = {
        tuple(w for w in r if "=" not in w and w not in ("env", "-u") and not w.startswith("ZPOOL_"))[:2]
        for r in remote
    }
    assert {
        ("zpool", "version"),
        ("zpool", "status"),
        ("zpool", "iostat"),
        ("zpool", "events"),
        ("cat", "/proc/diskstats"),
    } <= commands
    assert runner.unreachable_since is None


async def test_unreachable_host_is_a_source_failure_naming_host_and_reason(fake_ssh):
    (fake_ssh / "down").write_text("nas1\n")
    runner = RemoteRunner(SshHost.parse("nas1"), timeout=5.0)
    _, snaps = await _snapshots(2, runner)
    msgs = {s.message for s in snaps[-1].problems}
    assert snaps[-1].pools == ()
    assert "nas1: ssh: connect to host nas1 port 22: Connection refused" in msgs
    assert runner.unreachable_since is not None


async def test_the_command_that_connects_gets_the_connect_timeout_on_top(fake_ssh, monkeypatch):
    """The first command pays for the connection (TCP, handshake, key exchange: ssh's
    ConnectTimeout bounds them) before its own run; the ones through the master do not."""
    short = tempfile.mkdtemp(prefix="zr", dir="/tmp")  # a fresh dir: no master from elsewhere
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", short)
        monkeypatch.setenv("FAKE_SSH_CONNECT_S", "1.3")
        # 1.3 s of connecting is beyond the command's own 1 s: it succeeds only because the
        # connect timeout is added on top (3 s of it: room for a busy machine's ssh start-up)
        runner = RemoteRunner(SshHost.parse("nas1"), timeout=1.0, connect_timeout=3.0)
        first = await runner.run("version", ("zpool", "version"))
        assert first.ok and first.duration >= 1.3, first.error
        assert runner.connected
        again = await runner.run("version", ("zpool", "version"))
        assert again.ok and again.duration < 1.3
        (fake_ssh / "down").write_text("nas1\n")  # the host goes: the master with it
        assert not (await runner.run("version", ("zpool", "version"))).ok
        assert not runner.connected
        (fake_ssh / "down").write_text("")
        back = await runner.run("version", ("zpool", "version"))  # reconnects: slow again
        assert back.ok and back.duration >= 1.3, back.error
    finally:
        shutil.rmtree(short)


def test_a_silent_drop_keeps_the_reason_ssh_gave_and_says_what_it_is():
    """The wall's "unreachable since …: why" line: ssh's own reason stays when a later session
    ends silently (a multiplexed session exits 255 without a word when its master goes)."""
    runner = RemoteRunner(SshHost.parse("nas2"))
    runner.heard(255, "")
    assert runner.unreachable_why == "the ssh connection closed without a message (ssh exit code 255)"
    runner.heard(255, "ssh: connect to host nas2 port 22: Connection refused\n")
    runner.heard(255, "")
    assert runner.unreachable_why == "ssh: connect to host nas2 port 22: Connection refused"
    runner.heard(0)
    assert runner.unreachable_since is None and runner.unreachable_why is None


def test_a_session_from_before_the_drop_does_not_say_the_host_is_back():
    """As a host dies, a session of its can end with another code than ssh's 255 (its remote
    command killed before the connection closed). That is no answer from the host: "unreachable"
    stays, with its first "since" (the wall's banner must not flicker and restart its clock). A
    command started after the drop that answers does bring it back."""
    runner = RemoteRunner(SshHost.parse("nas2"))
    before = time.time() - 5.0
    runner.heard(255, "ssh: connect to host nas2 port 22: Connection refused\n", time.time())
    since = runner.unreachable_since
    runner.heard(137, "", before)  # a zpool iostat of the dying session, killed
    runner.heard(0, "", before)
    assert runner.unreachable_since == since and not runner.connected
    runner.heard(0, "", time.time() + 1.0)
    assert runner.unreachable_since is None and runner.connected
