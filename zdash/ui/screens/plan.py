"""A guided action's plan: the command, what it does, the pre-flight checks, and the
confirmation. Everything that decides whether it may run lives in zdash.actions; this screen
only shows it and asks (confirmation_ok), and the app runs it (run_plan), on the live host only.

In a replay the same steps are practice: the plan against the recorded pool, its pre-flight, the
risk to accept, the device name typed; then "practice: nothing was run" with the exact argv.
Nothing is handed to the app to run (and its executor refuses any mode but live anyway).

Why the layout: the command stays at the top and the prompt with its input at the bottom,
whatever scrolls in between, so the admin never confirms something scrolled out of sight."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Final

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from zdash.actions import ActionPlan, Outcome, Request, confirmation_ok, progress, prompt
from zdash.feed.fleet import qualified
from zdash.ui.app import ZdashApp
from zdash.ui.markup import join, lines, tag
from zdash.ui.plan_markup import (
    PRACTICE_NOTE,
    command_content,
    outcome_content,
    outcome_line,
    plan_content,
    practised_content,
    preflight_tally,
    progress_line,
)

ACCEPT_PROMPT: Final = (
    "This plan takes away what the failed check names. Press A (shift+a) to accept that risk "
    "(the pool is checked again, then you confirm), Escape to cancel."
)


def as_shown(plan: ActionPlan) -> ActionPlan:
    """A fleet's plan with its pool (and promote's dataset) named as the fleet's frames name
    them (HOST:POOL), to follow its progress there."""
    if not plan.host:
        return plan
    r = plan.request
    device = qualified(plan.host, r.device) if r.action == "promote" and r.device else r.device
    return replace(plan, request=replace(r, pool=qualified(plan.host, r.pool), device=device))


class PlanScreen(ModalScreen[None]):
    app = getters.app(ZdashApp)
    # What `y` may do follows these (check_action): bindings=True re-checks it on every change.
    plan: var[ActionPlan | None] = var(None, bindings=True)
    outcome: var[Outcome | None] = var(None, bindings=True)
    running: var[bool] = var(False, bindings=True)
    practised: var[bool] = var(False, bindings=True)  # a replay's plan, confirmed: nothing ran

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "help", "Keys", tooltip="This help"),
        Binding("y", "confirm", "Run", tooltip="Run a plan that needs no device name typed"),
        Binding("A", "accept_risk", "Accept risk", tooltip="Accept the risk a failed check names"),
        # here, not only on the scroll: the checks must scroll while the input has focus
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-5)", show=False),
        Binding("pagedown", "scroll(5)", show=False),
    ]

    def __init__(self, request: Request) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="plan-dialog"):
            yield Static(
                tag(f"Plan: {self.request.action} in {self.request.pool}{self._where}"),
                classes="dialog-title",
                id="plan-title",
            )
            yield Static(id="plan-command")
            with VerticalScroll(id="plan-scroll"):
                yield Static("checking it against the pool…", id="plan-body")
                yield Static(id="plan-outcome")
            yield Static(id="plan-status")
            yield Input(placeholder="device name", id="plan-token")
            yield Static("esc close · ↑↓ scroll · ? keys", classes="hint")

    @property
    def _where(self) -> str:
        return f" on {self.request.host}" if self.request.host else ""

    def _exact(self, plan: ActionPlan) -> tuple[str, ...]:
        """The ssh argv that runs a fleet's plan on its host; () for this host's own."""
        runner = self.app.feed.runner_for(plan.host) if plan.host else None
        return runner.exec_argv(plan.argv) if runner is not None and plan.argv else ()

    @property
    def live(self) -> bool:
        return self.app.action_mode == "live"

    @property
    def practice(self) -> bool:
        """A recording (replay, demo): every step as on the live host, and nothing runs."""
        return self.app.action_mode == "replay"

    def on_mount(self) -> None:
        token = self.query_one(Input)
        token.display, token.cursor_blink = False, False
        self.query_one("#plan-scroll").focus()
        self.watch(self.app, "frame", lambda _f: self._show_progress(), init=False)
        self.run_worker(self._build(), group="plan", exit_on_error=False)

    async def _build(self) -> None:
        try:
            self.plan = plan = await self.app.plan_action(self.request)
        except Exception as e:  # noqa: BLE001 - an unreadable host is a message, not a crash
            self._status(tag(f"Cannot build the plan: {e}", "bold $zd-crit"))
            return
        self.query_one("#plan-title", Static).update(tag(plan.title + self._where))
        self.query_one("#plan-command", Static).update(command_content(plan))
        self.query_one("#plan-body", Static).update(plan_content(plan, self._exact(plan)))
        if not (self.live or self.practice):
            return
        note = join(tag(PRACTICE_NOTE, "bold $zd-warn"), "\n") if self.practice else ""
        if self._may_accept():
            self._status(join(note, preflight_tally(plan), " ", tag(ACCEPT_PROMPT, "bold $zd-crit")))
            return
        self._status(
            join(note, preflight_tally(plan), " ", tag(prompt(plan), "bold" if plan.ok else "bold $zd-crit"))
        )
        if plan.ok and plan.confirm_token:
            token = self.query_one(Input)
            token.display = True
            token.focus()
            self._fit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm":  # only y-plans, live, once: a token plan is confirmed by typing
            p = self.plan
            return self._may_confirm() and p is not None and p.ok and not p.confirm_token
        if action == "accept_risk":
            return self._may_accept()
        return True

    def _may_accept(self) -> bool:
        """Only a plan blocked by nothing but risks to accept, not accepted yet, on the live host
        or in practice."""
        p = self.plan
        return (
            self._may_confirm()
            and p is not None
            and not self.request.accept_risk
            and bool(p.needs_acceptance)
            and len(p.needs_acceptance) == len(p.failures)
        )

    def action_accept_risk(self) -> None:
        """The same request with the risk accepted, planned again against fresh state: the
        checks then read ACCEPTED and the usual confirmation (the device name typed) follows."""
        if not self._may_accept():
            return
        self.request = replace(self.request, accept_risk=True)
        self.plan = None
        self.query_one("#plan-body", Static).update("checking it against the pool again…")
        self._status(tag("Risk accepted: checking the pool again…", "bold $zd-warn"))
        self.run_worker(self._build(), group="plan", exit_on_error=False)

    def _may_confirm(self) -> bool:
        return (
            (self.live or self.practice)
            and self.plan is not None
            and self.outcome is None
            and not self.running
            and not self.practised
        )

    def action_help(self) -> None:
        from zdash.ui.screens.help import PLAN_KEYS, PLAN_LEGEND, HelpScreen

        self.app.push_screen(HelpScreen(self, PLAN_KEYS, PLAN_LEGEND))

    def action_scroll(self, lines: int) -> None:
        self.query_one("#plan-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_confirm(self) -> None:
        self._confirm(None, "y")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._confirm(event.value, "enter")

    def _confirm(self, typed: str | None, key: str) -> None:
        plan = self.plan
        if plan is None or not self._may_confirm():
            return
        if not confirmation_ok(plan, typed, key):
            if plan.ok and plan.confirm_token:
                self._status(
                    tag(f"Nothing ran: type the device name exactly. {prompt(plan)}", "bold $zd-warn")
                )
            return
        if not self.live:  # practice: confirmed as on the live host, and nothing is run
            self.practised = True
            self.query_one(Input).display = False
            self._fit()
            self._status(practised_content(plan))
            return
        self.running = True
        self.query_one(Input).disabled = True
        self._status(
            tag(f"Running {plan.shell_text}{self._where} (checking the pool once more first)…", "bold")
        )
        # On the app, not this screen: closing the screen must not cancel a command mid-run.
        self.app.run_worker(self._run(plan), group="action", exit_on_error=False)

    async def _run(self, plan: ActionPlan) -> None:
        try:
            self.outcome = out = await self.app.run_plan(plan)
        except Exception as e:  # noqa: BLE001 - execute() reports refusals itself; this is a bug
            self.outcome = out = Outcome(plan, "refused", refused_reason=f"{type(e).__name__}: {e}")
        self.running = False
        if not self.is_attached:  # closed meanwhile: still tell the admin what happened
            self.app.notify(
                outcome_line(out).plain, severity="information" if out.ok else "error", markup=False
            )
            return
        self.query_one(Input).display = False
        self._fit()
        self._status(outcome_line(out))
        self.query_one("#plan-outcome", Static).update(outcome_content(out, self.app.audit.path))
        self._show_progress()
        self.query_one("#plan-scroll", VerticalScroll).scroll_end(animate=False)

    def _show_progress(self) -> None:
        out, frame = self.outcome, self.app.frame
        if out is None or not out.ok or frame is None or not self.is_attached:
            return
        now = progress(as_shown(out.plan), frame.snapshot, since=out.started)
        self._status(lines((outcome_line(out), progress_line(now))))

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """A 1fr scroll in an auto-height dialog fills 90% of any terminal; instead the scroll
        gets what the fixed parts leave (border, title, command, status ≤ 4 lines, hint, the
        input), so a short plan makes a short dialog and the prompt is never pushed out."""
        fixed = 11 + (3 if self.query_one(Input).display else 0)
        self.query_one("#plan-scroll").styles.max_height = max(3, int(self.size.height * 0.9) - fixed)

    def _status(self, content: Content) -> None:
        self.query_one("#plan-status", Static).update(content)
