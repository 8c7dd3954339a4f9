"""The app's two doors to guided actions: build a plan, run a confirmed plan. Screens go through
these and never call the executor themselves, so the mode that decides whether anything runs
comes from one place (the feed and --wall), not from whichever screen happens to ask."""

from __future__ import annotations

import asyncio

from zdash.actions import ActionPlan, AuditLog, Outcome, ReplayProbe, Request, build_plan, execute, plan_now


class ActionHost:
    """Mixed into ZdashApp (`self.feed`, `self.wall`, `self.frame`)."""

    audit: AuditLog
    action_kwargs: dict

    def init_actions(self, audit: AuditLog | None, action_kwargs: dict | None) -> None:
        # Injectable so tests (and a future config option) give a fake runner, probe and fresh
        # state, and a log in a temporary directory; production uses the executor's defaults.
        self.audit = audit or AuditLog()
        self.action_kwargs = dict(action_kwargs or {})

    @property
    def action_mode(self) -> str:
        """ "live" only on the live host outside --wall. A demo is a recording: it counts as a
        replay, also in the audit log's mode field."""
        if self.wall:
            return "wall"
        return "live" if self.feed.mode == "live" else "replay"

    async def plan_action(self, request: Request) -> ActionPlan:
        """Live: against the host as it is now (one fresh status/list round, the state the
        executor will check again). Otherwise against the recorded frame with ReplayProbe,
        which never touches this machine's disks: the recording's host is not this one."""
        if self.action_mode != "live":
            if self.frame is None:
                raise RuntimeError("no data yet")
            return await asyncio.to_thread(build_plan, self.frame.snapshot, request, ReplayProbe())
        probe = self.action_kwargs.get("probe")
        fresh_state = self.action_kwargs.get("fresh_state")
        if fresh_state is None:
            return await plan_now(request, probe)
        # The executor's fresh_state reads only .pool and .action, which a Request has too.
        snap = await fresh_state(request)
        return await asyncio.to_thread(build_plan, snap, request, probe)

    async def run_plan(self, plan: ActionPlan) -> Outcome:
        """Not named run_action: that is Textual's App method every key binding goes through.
        execute() refuses every mode but "live" (and still writes its audit line); the plan
        screen does not even offer a confirmation outside live mode."""
        return await execute(plan, self.action_mode, audit=self.audit, **self.action_kwargs)
