"""Host strings that reach ssh as options (class `ssh`): `--host` and the config's `hosts:` for
every command that goes over ssh (check, record, plan, the dashboard and its fleet). The fake
ssh (tests/fakes/bin/ssh) appends every argv it gets to FAKE_SSH_LOG: a refused host must be
refused before ssh runs at all, with one line naming it; an accepted one must reach ssh as data
(`-l user -p port -- host`) with a config file zdash chose (never one in the working directory)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.faults.harness import Failed, Result, Sandbox
from tests.hostile.harness import add, expect, probe

# What ssh would read as an option, a token or something else than one host name.
BAD_HOSTS = {
    "user-is-F-option": "-Fcfg@nas1",
    "user-is-o-option": "-oProxyCommand=touch${IFS}pwned@nas1",
    "user-is-E-option": "-Epwned.log@nas1",
    "user-with-space": "ad min@nas1",
    "user-with-newline": "admin\n-Fcfg@nas1",
    "user-with-escape": "ad\x1b]0;x\x07min@nas1",
    "user-with-percent-token": "%C@nas1",
    "host-with-percent-token": "admin@nas%h",
    "host-is-option": "-oProxyCommand=x",
}


def _calls(sb: Sandbox) -> list[list[str]]:
    log = Path(sb.path("ssh.log"))
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def _refused(sb: Sandbox, res: Result, spec: str) -> None:
    calls = _calls(sb)
    expect(not calls, f"ssh ran {len(calls)} time(s) for host {spec!r}: {calls[:1]}")
    expect(res.rc not in (0, None), f"exit {res.rc} for host {spec!r}: {res.brief()}")
    lines = [x for x in res.err.splitlines() if x.strip()]
    expect(len(lines) == 1 and "host" in res.err.lower(), f"not one line naming the host: {res.brief()}")
    expect("\x1b" not in res.err, "the refusal prints the host's escape sequence raw")


def _command(cmd: str, spec: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        env = {"FAKE_SSH_LOG": sb.path("ssh.log")}
        if cmd == "check":
            res = sb.run("check", "--samples", "2", "--interval", "0.2", f"--host={spec}", **env)
        elif cmd == "record":
            res = sb.run("record", "-o", sb.path("r.zdash"), "--duration", "0.5", f"--host={spec}", **env)
        elif cmd == "plan":
            res = sb.run("plan", "scrub", "healthy", f"--host={spec}", **env)
        else:
            raise AssertionError(cmd)
        _refused(sb, res, spec)

    return fn


for _name, _spec in BAD_HOSTS.items():
    add("ssh", f"check-host-{_name}", _command("check", _spec))
for _cmd in ("record", "plan"):
    add("ssh", f"{_cmd}-host-user-is-F-option", _command(_cmd, BAD_HOSTS["user-is-F-option"]))
    add("ssh", f"{_cmd}-host-user-with-percent-token", _command(_cmd, BAD_HOSTS["user-with-percent-token"]))


def _dashboard(hosts: list[str], via: str) -> Callable[[Sandbox], None]:
    def fn(sb: Sandbox) -> None:
        env = {"FAKE_SSH_LOG": sb.path("ssh.log")}
        argv: list[str] = []
        if via == "config":
            sb.write("config/zdash/config.yaml", json.dumps({"hosts": hosts}))
        else:
            for h in hosts:
                argv.append(f"--host={h}")
        t = sb.terminal(*argv, **env)
        try:
            rc = t.wait_exit(20)
        except Failed:
            t.close()
            raise Failed("fail", f"the dashboard started with hosts {hosts!r}") from None
        calls = _calls(sb)
        expect(not calls, f"ssh ran {len(calls)} time(s) for hosts {hosts!r}: {calls[:1]}")
        expect(rc != 0, f"exit {rc}")
        expect("host" in t.screen_text.lower(), "the refusal does not name the host")

    return fn


add("ssh", "config-hosts-user-is-F-option", _dashboard(["-Fcfg@nas1"], "config"))
add("ssh", "config-hosts-user-with-percent-token", _dashboard(["nas2", "%r@nas1"], "config"))
add("ssh", "fleet-second-host-user-is-o-option", _dashboard(["nas1", "-oProxyCommand=x@nas2"], "argv"))


@probe("ssh")
def p_host_reaches_ssh_as_data_with_a_known_config(sb: Sandbox) -> None:
    """An accepted host: `-l USER -p PORT ... -- HOST`, and `-F` names a file that is not in the
    working directory (where a `cfg` with a ProxyCommand could sit)."""
    res = sb.run(
        "check", "--samples", "2", "--interval", "0.2", "--host=admin@nas1:2222",
        FAKE_SSH_LOG=sb.path("ssh.log"),
    )  # fmt: skip
    calls = _calls(sb)
    expect(bool(calls), f"ssh never ran: {res.brief()}")
    for argv in calls:
        cut = argv.index("--") if "--" in argv else -1
        expect(cut > 0 and argv[cut + 1] == "nas1", f"the host is not the first word after --: {argv}")
        opts = argv[:cut]
        expect("-l" in opts and opts[opts.index("-l") + 1] == "admin", f"no -l admin: {argv}")
        expect("-p" in opts and opts[opts.index("-p") + 1] == "2222", f"no -p 2222: {argv}")
        expect("-F" in opts, f"ssh reads whatever config it finds (no -F): {argv}")
        config = opts[opts.index("-F") + 1]
        expect(
            config == "none" or not str(Path(config).resolve()).startswith(str(sb.dir.resolve())),
            f"-F {config}: a file in the working directory",
        )


@probe("ssh")
def p_ssh_config_keeps_the_admins_own_settings(sb: Sandbox) -> None:
    """-F never drops what the admin's ~/.ssh/config and the system's say (aliases, jump hosts):
    the file zdash gives ssh includes both, by absolute path."""
    home = Path(sb.path("home"))
    (home / ".ssh").mkdir(mode=0o700)
    (home / ".ssh" / "config").write_text("Host nas1\n  HostName 192.0.2.10\n")
    sb.run("check", "--samples", "2", "--interval", "0.2", "--host=nas1", FAKE_SSH_LOG=sb.path("ssh.log"))
    calls = _calls(sb)
    expect(bool(calls), "ssh never ran")
    opts = calls[0][: calls[0].index("--")]
    expect("-F" in opts, f"no -F: {calls[0]}")
    config = opts[opts.index("-F") + 1]
    expect(config != "none", "-F none: the admin's ssh config is ignored")
    text = Path(config).read_text() if Path(config).exists() else ""
    expect("/etc/ssh/ssh_config" in text, f"{config} does not include the system's ssh config")
