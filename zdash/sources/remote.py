"""Another host's pools, over the system `ssh`: the same commands, no agent on the far side.

Why the system ssh (and not a library): the admin's ~/.ssh/config, keys, agent, known_hosts and
jump hosts apply as they do for their own `ssh nas1`. One connection per host: the first command
opens a ControlMaster (its socket in a private 0700 directory) that every later command and both
long-lived streams go through, and ControlPersist keeps it 60 s past the last. BatchMode: a
password prompt would hang a headless check, so a host without key access is a one-line error.

A host string is data, never an option: `[user@]host[:port]` is parsed strictly (SshHost.parse:
a user or host that starts with '-', holds whitespace, a control character or an ssh `%`
token is refused with one line), and ssh gets `-l USER -p PORT -- HOST`, so whatever follows
`--` is the host. ssh reads the config file zdash names with -F: one zdash writes in its private
directory that includes, by absolute path, exactly what ssh reads without -F (this user's
~/.ssh/config, then /etc/ssh/ssh_config): the admin's aliases and jump hosts apply, and no other
file is ever read (`--host=-Fcfg@x` made ssh read ./cfg, whose ProxyCommand ran as root).

ssh hands the remote side one string (the words after `--` joined by spaces), which the remote
login shell parses. So every word must mean the same to a shell as it does here: RemoteRunner
refuses a word with anything but the characters below (zpool/zfs/cat argv never have any), and
never quotes. `env` in front sets what Runner.command_env sets locally (C locale, UTC, the vdev
name variables unset) and a PATH that has zpool in it (a non-root login's PATH on Debian lacks
/usr/sbin).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass

from zdash.raw import RawSample
from zdash.sources.procfs import SLAVES_FOLLOWED, clean_model
from zdash.sources.runner import NAME_VARS, Runner, first_line

# What a silent exit 255 is, in the lab: a multiplexed session whose master connection went
# (the sshd stopped); ssh prints nothing then.
SILENT_DROP = "the ssh connection closed without a message (ssh exit code 255)"
SSH_RC = 255  # ssh's own failure (cannot connect, authentication, the connection dropped)
CONNECT_TIMEOUT_S = 5
CONTROL_PERSIST_S = 60
REMOTE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# A word a POSIX shell reads as itself: no spaces, quotes, $, `, ;, &, |, <, >, *, ?, [, ~, #...
SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./-]+\Z")
# A user or host name: letters, digits, _ . - and never a '-' first (ssh would read an option).
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")
SSH_CONFIG = "ssh_config"  # zdash's -F file, in its private directory


class HostError(ValueError):
    """A --host (or config `hosts:`) entry that is not [user@]host[:port] (message is user-facing)."""


@dataclass(frozen=True, slots=True)
class SshHost:
    """`[user@]host[:port]`, or an ssh config alias (a host name ssh resolves itself)."""

    host: str
    user: str | None = None
    port: int | None = None

    @classmethod
    def parse(cls, spec: str) -> SshHost:
        """HostError (one line, the spec shown with its control characters escaped) for anything
        but `[user@]host[:port]`, `[user@][ipv6]:port` or an alias."""
        text = spec.strip()
        user = None
        if "@" in text:
            user, text = text.rsplit("@", 1)
            if user.startswith("-"):
                raise HostError(
                    f"host {spec!r}: the user {user!r} starts with '-' (ssh would read an option)"
                )
            if not _USER.match(user):
                raise HostError(
                    f"host {spec!r}: bad user name {user!r} (letters, digits, _ . - only; no spaces, "
                    "control characters or %)"
                )
        port = None
        if text.startswith("["):  # [2001:db8::1]:2222
            close = text.find("]")
            if close < 0:
                raise HostError(f"host {spec!r}: no closing ']'")
            host, rest = text[1:close], text[close + 1 :]
            if rest and not rest.startswith(":"):
                raise HostError(f"host {spec!r}: expected :PORT after ']'")
            port_text = rest[1:] if rest else None
            ok = bool(re.fullmatch(r"[0-9A-Fa-f:.]+", host))
        else:
            host, _, port_text = text.partition(":")
            port_text = port_text or None
            ok = bool(_HOST.match(host))
        if host.startswith("-"):
            raise HostError(f"host {spec!r}: the host starts with '-' (ssh would read an option)")
        if not host or not ok:
            raise HostError(f"host {spec!r}: expected [user@]host[:port] or an ssh config alias")
        if port_text is not None:
            if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
                raise HostError(f"host {spec!r}: port must be 1 to 65535")
            port = int(port_text)
        return cls(host, user, port)

    @property
    def label(self) -> str:
        """How zdash names the host on screen and in pool names: host[:port], no user."""
        name = f"[{self.host}]" if ":" in self.host else self.host
        return f"{name}:{self.port}" if self.port else name


# A unix socket's path must fit in sockaddr_un.sun_path: 108 bytes with its NUL on Linux, 104 on
# macOS and the BSDs. The master binds "<ControlPath>.<16 random chars>" first and renames it (ssh
# adds 17 bytes), and %C expands to 40 hex digits. OpenSSH 9.2, measured: a ControlPath of 91
# bytes or more fails every command with exit 255 ('unix_listener: path "…" too long for Unix
# domain socket', from 108: 'ControlPath too long'), which zdash would show as the host
# unreachable. A long XDG_RUNTIME_DIR or TMPDIR (macOS: /var/folders/…/T/, ~49 bytes; pytest's
# tmp_path) is enough, so the directory is only used where the socket fits.
SUN_PATH = 108 if sys.platform.startswith("linux") else 104
SSH_TEMP_SUFFIX = 17  # ".XXXXXXXXXXXXXXXX" on the master's socket while it binds
CONTROL_NAME = 40  # %C: a SHA-1 of the connection, in hex


def socket_fits(directory: str) -> bool:
    """Whether ssh can bind its master's socket in `directory` (see SUN_PATH)."""
    path = os.path.join(directory, "x" * CONTROL_NAME)
    return len(os.fsencode(path)) + SSH_TEMP_SUFFIX < SUN_PATH


def control_dir() -> str | None:
    """A directory only this user can enter, for the masters' sockets (%C: a hash of the
    connection), where the socket's path fits: $XDG_RUNTIME_DIR, else the temp dir, else /tmp.
    None when no socket path fits anywhere (then no master: one connection per command)."""
    bases = [os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir(), "/tmp"]
    for base in dict.fromkeys(b for b in bases if b):
        path = os.path.join(base, f"zdash-ssh-{os.getuid()}")
        if not socket_fits(path):
            continue
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
            if st.st_uid == os.getuid() and os.path.isdir(path) and not os.path.islink(path):
                if st.st_mode & 0o077:
                    os.chmod(path, 0o700)
                return path
        except OSError:
            pass
        with contextlib.suppress(OSError):  # someone else's or unusable: a fresh one beside it
            fresh = tempfile.mkdtemp(prefix="zdash-ssh-", dir=base)
            if socket_fits(fresh):
                return fresh
            os.rmdir(fresh)
    return None


def config_file() -> str:
    """zdash's -F file: this user's ssh config and the system's, included by absolute path in
    the order ssh reads them without -F (files that do not exist are skipped by ssh). Written in
    zdash's private directory (the masters' one, else the state directory); "none" (no config at
    all) only when no private directory can be had."""
    from zdash.resources import private_state_dir
    from zdash.safe_files import UnsafePath, own_home, write_atomic

    user_config = os.path.join(own_home(), ".ssh", "config")  # ssh's ~ is the password entry's
    text = (
        "# Written by zdash, given to ssh with -F: what ssh reads by default, and nothing else.\n"
        f'Include "{user_config}"\n'
        'Include "/etc/ssh/ssh_config"\n'
    )
    for directory in (control_dir, private_state_dir):
        try:
            where = directory()
            if where is None:
                continue
            path = os.path.join(where, SSH_CONFIG)
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() == text:
                        return path
            except OSError:
                pass
            write_atomic(path, text.encode(), mode=0o600, force=True)
            return path
        except (UnsafePath, OSError):
            continue
    return "none"


def control_options() -> tuple[str, ...]:
    directory = control_dir()
    if directory is None:
        return ("-o", "ControlMaster=no", "-o", "ControlPath=none")
    return (
        "-o", "ControlMaster=auto",
        "-o", f"ControlPath={directory}/%C",
        "-o", f"ControlPersist={CONTROL_PERSIST_S}",
    )  # fmt: skip


def ssh_argv(
    host: SshHost, remote: tuple[str, ...], connect_timeout: float = CONNECT_TIMEOUT_S
) -> tuple[str, ...]:
    """The ssh command that runs `remote` on `host`; ValueError for a word a shell would read."""
    for word in remote:
        if not SAFE_WORD.match(word):
            raise ValueError(
                f"{host.label}: refusing to send {word!r} over ssh: the remote shell would "
                "interpret it (only letters, digits and _@%+=:,./- are sent)"
            )
    user = ("-l", host.user) if host.user else ()
    port = ("-p", str(host.port)) if host.port else ()
    return (
        "ssh",
        "-F", config_file(),
        *control_options(),
        "-o", "BatchMode=yes",
        "-o", f"ConnectTimeout={max(1, round(connect_timeout))}",
        # A connection that stops answering (the host is off the network) ends in ~15 s.
        "-o", "ServerAliveInterval=5",
        "-o", "ServerAliveCountMax=3",
        *user,
        *port,
        "--",
        host.host,
        *remote,
    )  # fmt: skip


def remote_words(argv: tuple[str, ...]) -> tuple[str, ...]:
    """argv behind `env`, which sets on the far side what command_env sets here."""
    unset = tuple(w for name in NAME_VARS for w in ("-u", name))
    return ("env", *unset, "LC_ALL=C", "LANG=C", "TZ=UTC", f"PATH={REMOTE_PATH}", *argv)


class RemoteRunner(Runner):
    """Runner whose commands run on `host` over ssh. Knows whether the host answers: ssh's own
    exit code 255 (connect refused or timed out, authentication, the connection dropped) makes
    it unreachable, from that moment until a command gets through again.

    The command that opens the connection (the first, and the first after the host was
    unreachable: the master went with the connection) gets ConnectTimeout more than the others:
    ssh may spend that long on TCP, the handshake and the key exchange before the command's own
    run starts. Without it the first `zpool version` on a slow host (measured in the emulated
    lab: 9 s of a 10 s budget, over it under load) timed out, and a failed version is never
    asked again: a failed source all session long."""

    def __init__(self, host: SshHost, timeout: float = 10.0, connect_timeout: float = CONNECT_TIMEOUT_S):
        super().__init__(timeout)
        self.ssh = host
        self.host = host.label
        self.connect_timeout = min(connect_timeout, timeout)
        self.unreachable_since: float | None = None
        self.unreachable_why: str | None = None  # ssh's own line: "ssh: connect to host …"
        self.connected = False  # a command got through since the start or since unreachable

    def alongside(self) -> RemoteRunner:
        """A runner for the same host over the same connection (ssh's ControlPath is the
        host's), with its own keys in flight: a guided action's fresh `zpool status` must not
        be refused as Busy because the dashboard's own is running at that moment (found by the
        fleet action lab test)."""
        other = RemoteRunner(self.ssh, self.timeout, self.connect_timeout)
        other.connected = self.connected
        return other

    def with_overhead(self, budget: float) -> float:
        return budget if self.connected else budget + self.connect_timeout

    def exec_argv(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        return ssh_argv(self.ssh, remote_words(argv), self.connect_timeout)

    def cannot_start(self, argv: tuple[str, ...], e: OSError) -> str:
        if isinstance(e, FileNotFoundError):
            return f"{self.host}: ssh not found on PATH (install openssh-client)"
        return f"{self.host}: cannot run ssh: {e.strerror or e}"

    def failure(self, argv: tuple[str, ...], rc: int | None, stderr: str, verb: str = "") -> str:
        if rc == SSH_RC:
            return f"{self.host}: {first_line(stderr) or SILENT_DROP}"
        return f"{self.host}: {super().failure(argv, rc, stderr, verb)}"

    def timed_out(self, argv: tuple[str, ...], timeout: float) -> str:
        return f"{self.host}: {super().timed_out(argv, timeout)}"

    def heard(self, rc: int | None, stderr: str = "", started: float | None = None) -> bool:
        if rc == SSH_RC:
            if self.unreachable_since is None:
                self.unreachable_since = time.time()
            # ssh's own line when it gave one; a silent exit (a multiplexed session whose master
            # went with the connection) keeps the reason already known, if any.
            self.unreachable_why = first_line(stderr) or self.unreachable_why or SILENT_DROP
            self.connected = False
            return True
        if rc is not None and rc >= 0:  # the far side answered (a zpool error is an answer)
            # ...unless the command began before the host was seen gone: as a host dies, a session
            # of its can end with another code than 255 (its remote command killed before the
            # connection closed). Taken as an answer, that cleared "unreachable" for a tick and the
            # wall's banner flickered with a new "since" (found by the fleet lab test). A session
            # from before the drop cannot say the host is back; one started after it can.
            since = self.unreachable_since
            if since is not None and started is not None and started < since:
                return False
            self.unreachable_since = self.unreachable_why = None
            self.connected = True
        return False


LSBLK_DEVICE_COLUMNS = "KNAME,MAJ:MIN,PHY-SEC,ROTA,PKNAME,TRAN,MODEL"
LSBLK_PAIR = re.compile(r'([A-Z_:-]+)="([^"]*)"')


def _lsblk_name(column: str) -> str:
    return "MAJ:MIN" if column == "MAJ_MIN" else column.replace("_", "-")


def _inherited(
    row: dict[str, str], column: str, by_kname: dict[str, dict[str, str]], parents: dict[str, set[str]]
) -> str:
    """A column of the device's lsblk row, or where it is empty, of the device it sits on (a
    partition's disk, a dm device's one device beneath), down to SLAVES_FOLLOWED levels: lsblk
    gives a partition the disk's TRAN but not its MODEL, a dm device neither."""
    for _ in range(SLAVES_FOLLOWED + 1):
        if row.get(column):
            return row[column]
        above = parents.get(row.get("KNAME", ""), set()) - {""}
        if len(above) != 1 or (parent := by_kname.get(next(iter(above)))) is None:
            return ""
        row = parent
    return ""


async def describe_remote_devices(runner: Runner, paths: list[str]) -> RawSample:
    """zdash.sources.procfs.describe_devices for the far side, in the same text (so a replay
    reads it the same): each /dev leaf's kernel device from `stat -L` (major:minor, which
    `lsblk` names with its sector size, rotational flag, transport and model; a partition or a
    dm device over one disk takes the last two from the disk beneath, as the local reader does).
    Two commands, no shell; '-' where either cannot say (a file vdev, a path with unusual
    characters, no lsblk: not Linux)."""
    start = time.time()
    devs = sorted({p for p in paths if p.startswith("/dev/") and SAFE_WORD.match(p)})
    majmin: dict[str, str] = {}
    rows: dict[str, dict[str, str]] = {}  # maj:min -> lsblk's columns
    parents: dict[str, set[str]] = {}  # kname -> the knames lsblk lists it under
    problems = []
    if devs:
        st = await runner.run("devices", ("stat", "-L", "-c", "%t:%T:%F:%n", "--", *devs))
        for line in st.stdout.splitlines():
            parts = line.split(":", 3)
            if len(parts) == 4 and parts[2] == "block special file":
                try:
                    majmin[parts[3]] = f"{int(parts[0], 16)}:{int(parts[1], 16)}"
                except ValueError:
                    continue
        if st.error and not majmin:
            problems.append(st.error)
        if majmin:
            ls = await runner.run("devices", ("lsblk", "-P", "-n", "-o", LSBLK_DEVICE_COLUMNS))
            for line in ls.stdout.splitlines():
                # util-linux 2.37.0 named -P's columns as shell variables (MAJ_MIN, PHY_SEC)
                row = {_lsblk_name(k): v for k, v in LSBLK_PAIR.findall(line)}
                if "KNAME" in row and "MAJ:MIN" in row:
                    row["KNAME"] = row["KNAME"].replace("/", "!")
                    rows[row["MAJ:MIN"]] = row
                    parents.setdefault(row["KNAME"], set()).add(row.get("PKNAME", "").replace("/", "!"))
            if ls.error:
                problems.append(ls.error)
    by_kname = {row["KNAME"]: row for row in rows.values()}
    lines = []
    for p in sorted(set(paths)):
        row = rows.get(majmin.get(p, ""), {})
        transport = _inherited(row, "TRAN", by_kname, parents)
        model = clean_model(_inherited(row, "MODEL", by_kname, parents))
        fields = (p, row.get("KNAME"), row.get("PHY-SEC"), row.get("ROTA"), transport, model)
        lines.append("\t".join((f or "-").replace("\t", " ") for f in fields))
    return RawSample(
        "devices",
        ("zdash", "describe-devices"),
        0,
        "\n".join(lines) + "\n",
        "\n".join(problems),
        time.time(),
        time.time() - start,
    )
