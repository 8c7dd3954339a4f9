"""Guided actions (issue 5): plans as data, pre-flight checks, confirmation, execution, audit.

The UI uses only what is exported here; see docs in each module. No Textual imports.
"""
from __future__ import annotations

from .audit import AuditLog, default_path
from .catalog import UnknownAction, build_plan
from .confirm import accepted_answers, confirmation_ok, prompt
from .executor import Outcome, execute
from .fresh import fresh_snapshot
from .plan import ACTIONS, ActionPlan, Check, Request, difference, fingerprint
from .probe import DeviceInfo, HostProbe, ReplayProbe
from .progress import Progress, progress
from .suggest import NotGuided, needs_new_device, request_from_suggestion


async def plan_now(request: Request, probe: HostProbe | None = None) -> ActionPlan:
    """A plan against the host as it is this second (one fresh status/list round), the way
    `zdash plan` and the confirm screen in live mode should build it."""
    import asyncio
    snap = await fresh_snapshot(request.pool, datasets=request.action == "promote")
    return await asyncio.to_thread(build_plan, snap, request, probe)


__all__ = ["ACTIONS", "ActionPlan", "AuditLog", "Check", "DeviceInfo", "HostProbe", "NotGuided",
           "Outcome", "Progress", "ReplayProbe", "Request", "UnknownAction", "accepted_answers",
           "build_plan", "confirmation_ok", "default_path", "difference", "execute", "fingerprint",
           "fresh_snapshot", "needs_new_device", "plan_now", "progress", "prompt",
           "request_from_suggestion"]
