"""An action plan is data: what would run, why it is safe (or not), and what it was checked
against. Nothing here runs anything, so the same plan is shown by the UI's confirm screen,
printed by `zdash plan`, stored in the audit log and re-built right before execution.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypedDict, TypeGuard, get_args

from zdash.model import Pool, Vdev

# Catalog names. Scrub is three actions because start, pause and stop are different commands
# with different risks, and a running scrub turns "start" into a choice between the other two.
# (zdash.cli keeps a copy for a cheap --help; tests/commands/test_cli.py holds them equal.)
ActionName: TypeAlias = Literal[
    "attach",
    "detach",
    "replace",
    "offline",
    "online",
    "clear",
    "scrub",
    "scrub-pause",
    "scrub-stop",
    "promote",
]
ACTIONS: tuple[ActionName, ...] = get_args(ActionName)

# How much a failed check weighs: "fail" blocks the plan, "warn" is shown but does not, "accept"
# blocks until the admin explicitly accepts the risk it names (taking away a vdev's last
# redundancy: possible, sometimes right, never routine).
Severity: TypeAlias = Literal["fail", "warn", "accept"]
FAIL: Final = "fail"
WARN: Final = "warn"
ACCEPT: Final = "accept"
# A check's result as `zdash plan` prints it (lower-cased in JSON and the audit log).
Mark: TypeAlias = Literal["PASS", "FAIL", "WARN", "ACCEPTED"]
# How the command runs: the zpool/zfs CLI, or pyzfs for promote (see promote.py).
Via: TypeAlias = Literal["cli", "libzfs_core"]
SCHEMA_VERSION = 1


def is_action(name: str) -> TypeGuard[ActionName]:
    """Whether `name` is a catalog action (a suggestion or a command line says it is)."""
    return name in ACTIONS


class CheckDict(TypedDict):
    """A check in `zdash plan --json` and the audit log."""

    name: str
    ok: bool
    severity: Severity
    result: str  # pass, fail, warn
    reason: str


class PlanDict(TypedDict):
    """`zdash plan --json` and the audit log (schema 1; fields are only ever added)."""

    schema: int
    action: ActionName
    host: str | None  # the host it is for, over ssh (zdash plan --host); None: this host
    pool: str
    device: str | None
    new_device: str | None
    argv: list[str]
    shell: str
    title: str
    summary: str
    duration: str
    disruptive: bool
    confirm_token: str | None
    via: Via
    alternatives: list[ActionName]
    ok: bool
    checks: list[CheckDict]
    based_on: list[str]


@dataclass(frozen=True, slots=True)
class Check:
    """One pre-flight check. `severity` matters only when not ok: a failed "fail" check blocks
    the plan, a failed "warn" check is shown but does not (a bare /dev/sdX path, for one)."""

    name: str
    ok: bool
    reason: str
    severity: Severity = FAIL
    accepted: bool = False  # an "accept" check the admin accepted (Request.accept_risk)

    @property
    def blocks(self) -> bool:
        return not self.ok and (self.severity == FAIL or (self.severity == ACCEPT and not self.accepted))

    @property
    def needs_acceptance(self) -> bool:
        return not self.ok and self.severity == ACCEPT and not self.accepted

    @property
    def mark(self) -> Mark:
        if self.ok:
            return "PASS"
        if self.severity == WARN:
            return "WARN"
        return "ACCEPTED" if self.severity == ACCEPT and self.accepted else "FAIL"

    def to_dict(self) -> CheckDict:
        return {
            "name": self.name,
            "ok": self.ok,
            "severity": self.severity,
            "result": self.mark.lower(),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Request:
    """What the admin asked for; a plan is re-built from it against fresh state."""

    action: ActionName
    pool: str
    device: str | None = None  # leaf path/name/GUID; the dataset for promote
    new_device: str | None = None  # attach and replace
    accept_risk: bool = False  # the admin explicitly accepted what an "accept" check names
    # The host it runs on, over ssh (its --host label: "nas1", "nas2:2222"); None: this host.
    # `pool` is the pool's own name there, as the command carries it.
    host: str | None = None


@dataclass(frozen=True, slots=True)
class ActionPlan:
    request: Request
    argv: tuple[str, ...]  # () when the request cannot even be expressed (no such pool)
    title: str  # one line: "Attach /dev/sdc to /dev/sdb in tank"
    summary: str  # what will happen, a few sentences
    duration: str  # how long it may take, in words
    disruptive: bool  # wipes a disk, drops redundancy, or loses progress
    confirm_token: str | None  # text the admin must type; None: an explicit key will do
    checks: tuple[Check, ...]
    based_on: tuple[str, ...]  # fingerprint of the pool this plan was made from
    via: Via = "cli"  # libzfs_core: promote when pyzfs is importable
    alternatives: tuple[ActionName, ...] = ()  # to offer instead (a running scrub: pause, stop)

    @property
    def action(self) -> ActionName:
        return self.request.action

    @property
    def pool(self) -> str:
        return self.request.pool

    @property
    def host(self) -> str | None:
        return self.request.host

    @property
    def shell_text(self) -> str:
        """The argv as a shell would need it typed: quoting shown, never executed by one."""
        return shlex.join(self.argv)

    @property
    def ok(self) -> bool:
        return bool(self.argv) and not any(c.blocks for c in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.blocks)

    @property
    def needs_acceptance(self) -> tuple[Check, ...]:
        """Checks that block only until the admin accepts the risk (and nothing else blocks)."""
        return tuple(c for c in self.checks if c.needs_acceptance)

    @property
    def warnings(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok and c.severity == WARN)

    def to_dict(self) -> PlanDict:
        """`zdash plan --json` and the audit log (schema 1; fields are only ever added)."""
        r = self.request
        return {
            "schema": SCHEMA_VERSION,
            "action": r.action,
            "host": r.host,
            "pool": r.pool,
            "device": r.device,
            "new_device": r.new_device,
            "argv": list(self.argv),
            "shell": self.shell_text,
            "title": self.title,
            "summary": self.summary,
            "duration": self.duration,
            "disruptive": self.disruptive,
            "confirm_token": self.confirm_token,
            "via": self.via,
            "alternatives": list(self.alternatives),
            "ok": self.ok,
            "checks": [c.to_dict() for c in self.checks],
            "based_on": list(self.based_on),
        }


def argv_for(r: Request) -> tuple[str, ...]:
    """What runs, from the request alone (names resolved by the builders before this)."""
    verb: dict[ActionName, tuple[str, ...]] = {
        "scrub": ("scrub",),
        "scrub-pause": ("scrub", "-p"),
        "scrub-stop": ("scrub", "-s"),
    }
    if r.action == "promote":
        return ("zfs", "promote", r.device or "")
    if r.action in verb:
        return ("zpool", *verb[r.action], r.pool)
    return tuple(x for x in ("zpool", r.action, r.pool, r.device, r.new_device) if x is not None)


def fingerprint(pool: Pool | None) -> tuple[str, ...]:
    """The parts of a pool's state a plan depends on, one readable line each, so a re-check can
    show exactly what changed. Counters and scan progress are left out on purpose: they move
    every second and do not change what a command will do; states, membership and the kind of
    scan running do."""
    if pool is None:
        return ("(pool not found)",)
    lines = [f"pool {pool.name} {pool.state} guid={pool.guid or '?'}"]
    scan = pool.scan
    if scan is not None and scan.state in ("scanning", "paused"):
        lines.append(f"scan {scan.function} {scan.state}")

    def walk(v: Vdev, depth: int) -> None:
        for c in v.children:
            where = f" path={c.path}" if c.path and c.path != c.name else ""
            lines.append(f"{'  ' * depth}{c.name} {c.kind} {c.state} guid={c.guid or '?'}{where}")
            walk(c, depth + 1)

    walk(pool.root, 1)
    return tuple(lines)


def difference(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """'- line' for what is gone, '+ line' for what appeared; empty when nothing changed."""
    gone = [f"- {line.strip()}" for line in old if line not in new]
    came = [f"+ {line.strip()}" for line in new if line not in old]
    return tuple(gone + came)
