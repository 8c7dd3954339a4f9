"""Guided actions (issue 5): plans as data, pre-flight checks, confirmation, execution, audit.

The UI uses only what is exported here; see docs in each module. No Textual imports.
"""

from __future__ import annotations

from zdash.actions.audit import AuditLog, default_path
from zdash.actions.catalog import UnknownAction, build_plan
from zdash.actions.confirm import accepted_answers, confirmation_ok, prompt
from zdash.actions.executor import Mode, Outcome, OutcomeStatus, execute
from zdash.actions.fresh import fresh_snapshot
from zdash.actions.plan import (
    ACTIONS,
    ActionName,
    ActionPlan,
    Check,
    Mark,
    Request,
    difference,
    fingerprint,
    is_action,
)
from zdash.actions.probe import DeviceInfo, HostProbe, ReplayProbe
from zdash.actions.progress import Progress, progress
from zdash.actions.suggest import NotGuided, needs_new_device, request_from_suggestion


async def plan_now(request: Request, probe: HostProbe | None = None) -> ActionPlan:
    """A plan against the host as it is this second (one fresh status/list round), the way
    `zdash plan` and the confirm screen in live mode should build it."""
    import asyncio

    snap = await fresh_snapshot(request.pool, datasets=request.action == "promote")
    return await asyncio.to_thread(build_plan, snap, request, probe)


__all__ = [
    "ACTIONS",
    "ActionName",
    "ActionPlan",
    "AuditLog",
    "Check",
    "DeviceInfo",
    "HostProbe",
    "Mark",
    "Mode",
    "NotGuided",
    "Outcome",
    "OutcomeStatus",
    "Progress",
    "ReplayProbe",
    "Request",
    "UnknownAction",
    "accepted_answers",
    "build_plan",
    "confirmation_ok",
    "default_path",
    "difference",
    "execute",
    "fingerprint",
    "fresh_snapshot",
    "is_action",
    "needs_new_device",
    "plan_now",
    "progress",
    "prompt",
    "request_from_suggestion",
]
