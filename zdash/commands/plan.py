"""`zdash plan ACTION POOL [DEVICE] [NEW_DEVICE] [--json] [--host H]`: the plan and its
pre-flight, printed, never run. For scripts, reviews and change tickets. With --host, planned
against that host over ssh: its pool, its fresh state, its disks.

Exit: 0 every check passes (warnings allowed), 1 a check fails, 3 the pool cannot be read
(no zpool, zpool status failed, no such pool). JSON: ActionPlan.to_dict() (schema 1) plus
"exit_code" and "zdash_version".
"""

from __future__ import annotations

import json
import sys
import textwrap
from argparse import Namespace

from zdash.actions.catalog import build_plan
from zdash.actions.confirm import prompt
from zdash.actions.fresh import fresh_snapshot
from zdash.actions.plan import ActionName, ActionPlan, Request


def exit_code(plan: ActionPlan) -> int:
    if any(c.name in ("pool found", "fresh state") and c.blocks for c in plan.checks):
        return 3
    return 0 if plan.ok else 1


def render(plan: ActionPlan, width: int = 100) -> str:
    def wrap(text: str, indent: str) -> str:
        return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent)

    lines = [
        plan.title + (f" on {plan.host}" if plan.host else ""),
        f"  {plan.host or ''}$ {plan.shell_text}"
        + (f"   (run through {plan.via})" if plan.via != "cli" else "")
        + (f"   (runs on {plan.host}, over ssh)" if plan.host else ""),
        "",
    ]
    if plan.summary:
        lines += [wrap(plan.summary, "  "), ""]
    if plan.duration:
        lines.append(f"  Duration: {plan.duration}")
    lines.append("  Risk: " + ("disruptive" if plan.disruptive else "routine") + f". {prompt(plan)}")
    lines += ["", "Pre-flight:"]
    w = max((len(c.name) for c in plan.checks), default=0)
    for c in plan.checks:
        lines.append(f"  {c.mark:4}  {c.name:{w}}  {c.reason}")
    if plan.alternatives:
        lines.append(f"\nInstead: {', '.join(f'zdash plan {a} {plan.pool}' for a in plan.alternatives)}")
    n = len(plan.failures)
    lines.append("")
    if n and len(plan.needs_acceptance) == n:
        lines.append(
            f"{n} check(s) failed: this plan runs only if you accept the risk it names "
            "(--accept-risk here; in the dashboard, press A (shift+a) on the plan)."
        )
    elif n:
        lines.append(f"{n} check(s) failed: this plan would not run.")
    else:
        accepted = [c for c in plan.checks if c.mark == "ACCEPTED"]
        lines.append(
            "All checks passed"
            + (f" ({len(plan.warnings)} warning(s))" if plan.warnings else "")
            + (f"; {len(accepted)} risk(s) accepted." if accepted else ".")
        )
    return "\n".join(lines)


def run_plan(
    action: ActionName,
    pool: str,
    device: str | None,
    new_device: str | None,
    as_json: bool,
    accept_risk: bool = False,
    host: str | None = None,
) -> int:
    from zdash import __version__
    from zdash.commands.stopping import run_stoppable

    runner, probe = None, None
    if host:
        from zdash.actions.remote_probe import RemoteProbe
        from zdash.sources.remote import HostError, RemoteRunner, SshHost

        try:
            runner = RemoteRunner(SshHost.parse(host))
        except HostError as e:
            print(f"zdash plan: {e}", file=sys.stderr)
            return 3
        probe = RemoteProbe(runner)
    request = Request(action, pool, device, new_device, accept_risk, runner.host if runner else None)
    try:
        snap, signalled = run_stoppable(
            lambda _stop: fresh_snapshot(pool, datasets=action == "promote", runner=runner)
        )
        if snap is None:
            print(f"zdash plan: stopped by {signalled}", file=sys.stderr)
            return 3
        plan = build_plan(snap, request, probe)
    except RuntimeError as e:  # another host that ssh cannot reach (fresh state or its disks)
        print(f"zdash: cannot plan on {host}: {e}", file=sys.stderr)
        return 3
    code = exit_code(plan)
    if as_json:
        print(json.dumps({**plan.to_dict(), "exit_code": code, "zdash_version": __version__}, indent=2))
    else:
        print(render(plan))
    if code == 3:
        why = next(c.reason for c in plan.checks if c.blocks)
        print(f"zdash: cannot read pool {pool}: {why}", file=sys.stderr)
    return code


def run(args: Namespace) -> int:
    # The names as the model holds them (zdash.visible): a device pasted from elsewhere can hold
    # escape sequences; the plan shows and matches the escaped name, which zpool will not find.
    from zdash.visible import visible

    device, new_device = (visible(d) if d else d for d in (args.device, args.new_device))
    return run_plan(
        args.action, visible(args.pool), device, new_device, args.json, args.accept_risk, args.host
    )
