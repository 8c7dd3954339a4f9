"""Run a confirmed plan, live only, after checking it once more against fresh state.

Order matters: the audit log is opened first (an action that cannot be recorded does not run),
the mode is checked (replay, wall and read-only never run anything, whatever the caller thinks), then the
plan is re-built from a fresh `zpool status`/`zpool list` and compared with the confirmed one:
if the pool changed, or any check fails now (the new disk vanished, a scrub started), nothing
runs and the admin sees the difference. Exactly one line goes to the audit log per call.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, TypeAlias, TypedDict

from zdash.actions.audit import AuditError, AuditLog
from zdash.actions.catalog import build_plan
from zdash.actions.fresh import fresh_snapshot
from zdash.actions.plan import ActionName, ActionPlan, CheckDict, Via, difference
from zdash.actions.probe import HostProbe
from zdash.actions.promote import lzc_promote
from zdash.model import Snapshot
from zdash.sources.runner import Runner

# Where the plan was made: on the live host, from a recording (or the demo), on a wall display,
# on a dashboard started --read-only (what `zdash serve` gives a browser). Only "live" runs.
Mode: TypeAlias = Literal["live", "replay", "wall", "read-only"]
# ok: the command ran and exited 0; failed: it ran and did not (or timed out); refused: nothing ran.
OutcomeStatus: TypeAlias = Literal["ok", "failed", "refused"]


class Target(Protocol):
    """What fresh state is read for: a plan, or the request a plan is about to be built from."""

    @property
    def pool(self) -> str: ...

    @property
    def action(self) -> ActionName: ...


# How the executor reads the host right before running (tests and the UI inject their own).
FreshState = Callable[[ActionPlan], Awaitable[Snapshot]]
_running = False  # one action at a time per process: a double submit must not run twice


class AuditRecord(TypedDict):
    """The executor's line in the audit log (AuditLog.write adds schema, time, user, host)."""

    mode: Mode
    action: ActionName
    target_host: str | None  # the host it ran on over ssh (a fleet's pool); None: this one
    pool: str
    device: str | None
    new_device: str | None
    argv: list[str]
    shell: str
    via: Via
    outcome: OutcomeStatus
    refused_reason: str | None
    difference: list[str]
    exit_code: int | None
    stderr: str
    stdout: str
    duration_s: float
    preflight: list[CheckDict]  # the checks of the plan as confirmed
    preflight_fresh: list[CheckDict] | None  # as re-validated right before running


@dataclass(frozen=True, slots=True)
class Outcome:
    plan: ActionPlan  # the re-validated plan that ran (or the one refused)
    status: OutcomeStatus
    rc: int | None = None
    stdout: str = ""
    stderr: str = ""
    refused_reason: str | None = None
    difference: tuple[str, ...] = ()  # "- old line" / "+ new line" when the pool changed
    started: float = field(default_factory=time.time)
    finished: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


async def default_fresh_state(target: Target) -> Snapshot:
    """A FreshState that also serves a Request (the state a plan is first built against)."""
    return await fresh_snapshot(target.pool, datasets=target.action == "promote")


async def execute(
    plan: ActionPlan,
    mode: Mode,
    *,
    fresh_state: FreshState = default_fresh_state,
    probe: HostProbe | None = None,
    audit: AuditLog | None = None,
    runner: Runner | None = None,
    timeout: float = 120.0,
) -> Outcome:
    """mode: "live", "replay", "wall" or "read-only" (only "live" runs). Never raises for a refusal or a
    failed command: the Outcome says what happened, and the audit log has the same."""
    global _running
    audit = audit or AuditLog()
    try:
        fd = audit.open()
    except AuditError as e:
        return Outcome(plan, "refused", refused_reason=str(e), finished=time.time())
    try:
        if mode != "live":
            return _log(
                audit,
                fd,
                mode,
                plan,
                Outcome(
                    plan,
                    "refused",
                    refused_reason=(f"zdash never runs actions in {mode} mode: the plan is for reading only"),
                ),
            )
        if _running:
            return _log(
                audit,
                fd,
                mode,
                plan,
                Outcome(plan, "refused", refused_reason="another action is still running"),
            )
        _running = True
        try:
            return _log(
                audit,
                fd,
                mode,
                plan,
                await _revalidate_and_run(
                    plan, fresh_state, probe or HostProbe(), runner or Runner(timeout), timeout
                ),
            )
        finally:
            _running = False
    finally:
        os.close(fd)


async def _revalidate_and_run(
    plan: ActionPlan, fresh_state: FreshState, probe: HostProbe, runner: Runner, timeout: float
) -> Outcome:
    if not plan.ok:
        return Outcome(
            plan,
            "refused",
            refused_reason="pre-flight failed: " + "; ".join(f"{c.name}: {c.reason}" for c in plan.failures),
        )
    try:
        snap = await fresh_state(plan)
        fresh = await asyncio.to_thread(build_plan, snap, plan.request, probe)
    except Exception as e:  # noqa: BLE001 - an unreadable host is a refusal, not a crash of the dashboard
        return Outcome(plan, "refused", refused_reason=f"cannot re-check the pool: {e}")
    diff = difference(plan.based_on, fresh.based_on)
    if diff:
        return Outcome(
            fresh,
            "refused",
            difference=diff,
            refused_reason=(f"{plan.pool} changed since the plan was made; review the new plan"),
        )
    if fresh.argv != plan.argv:
        return Outcome(
            fresh,
            "refused",
            difference=(f"- {plan.shell_text}", f"+ {fresh.shell_text}"),
            refused_reason="the command would differ from the one confirmed",
        )
    if not fresh.ok:
        return Outcome(
            fresh,
            "refused",
            refused_reason="pre-flight fails now: "
            + "; ".join(f"{c.name}: {c.reason}" for c in fresh.failures),
        )
    started = time.time()
    if fresh.via == "libzfs_core":
        try:
            await asyncio.to_thread(lzc_promote, fresh.request.device or "")
            return Outcome(fresh, "ok", 0, started=started, finished=time.time())
        except Exception as e:  # noqa: BLE001 - the binding raises typed errors (ZFSError subclasses)
            return Outcome(
                fresh, "failed", 1, stderr=f"{type(e).__name__}: {e}", started=started, finished=time.time()
            )
    sample = await runner.run("action", fresh.argv, timeout)
    stderr = sample.stderr or (sample.error or "")
    status: OutcomeStatus = "ok" if sample.rc == 0 else "failed"
    return Outcome(fresh, status, sample.rc, sample.stdout, stderr, started=started, finished=time.time())


def _log(audit: AuditLog, fd: int, mode: Mode, confirmed: ActionPlan, out: Outcome) -> Outcome:
    finished = out.finished
    if finished is None:
        finished = time.time()
        out = replace(out, finished=finished)
    p = out.plan
    record: AuditRecord = {
        "mode": mode,
        "action": p.action,
        "target_host": p.host,
        "pool": p.pool,
        "device": p.request.device,
        "new_device": p.request.new_device,
        "argv": list(p.argv),
        "shell": p.shell_text,
        "via": p.via,
        "outcome": out.status,
        "refused_reason": out.refused_reason,
        "difference": list(out.difference),
        "exit_code": out.rc,
        "stderr": out.stderr,
        "stdout": out.stdout,
        "duration_s": round(finished - out.started, 3),
        "preflight": [c.to_dict() for c in confirmed.checks],
        "preflight_fresh": [c.to_dict() for c in p.checks] if p is not confirmed else None,
    }
    audit.write(record, fd)
    return out
