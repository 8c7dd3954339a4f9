"""One finding opened: its why, its evidence and the suggested commands. Guided suggestions
(a catalog action) are numbered and open their plan on 1..9; read-only ones are only shown.
Not in wall mode: a wall is read-only and nobody stands at it. Follows the finding live by
its key, and says so when the check stops reporting it."""

from __future__ import annotations

import shlex
from typing import ClassVar

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Static

from zdash import fmt
from zdash.actions import Mode, needs_new_device
from zdash.checks.finding import Finding, SuggestedAction
from zdash.feed.frame import Frame
from zdash.ui.app import ZdashApp
from zdash.ui.latency_strip import strip_content
from zdash.ui.markup import NEWLINE, join, tag
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, severity_role
from zdash.ui.widgets.latency_panel import histogram_rows

GUIDED_HINT: dict[Mode, str] = {
    "live": "Press its number to open a plan: zdash checks it against the pool and asks you to "
    "confirm before anything runs.",
    "replay": "Press its number to practise it: its plan, the pre-flight checks against the recorded "
    "pool, the confirmation (a recording: nothing runs).",
}

READ_ONLY_HINT = (
    "Read-only here: zdash opens no plan and runs nothing. Check them, then run them on the host."
)


def guided(f: Finding) -> tuple[SuggestedAction, ...]:
    return tuple(a for a in f.actions if a.action is not None)[:9]


def finding_content(
    f: Finding,
    gone_at: float | None = None,
    mode: Mode = "wall",
    host: str | None = None,
    picture: Content | None = None,
) -> tuple[Content, Content]:
    """(title, body); mode "live" or "replay" numbers the guided actions, "wall" does not.
    `picture`: drawn after the evidence (the disk's latency histogram)."""
    icon = tag(SEVERITY_ICON[f.severity], "bold " + ROLE_VAR[severity_role(f.severity)])
    title = join(icon, "  ", tag(f.title, "bold"))
    said = [f.check, f"pool {f.pool or '-'}"]
    if not (f.subject_kind == "pool" and f.subject == f.pool):  # the pool's own: said once
        said.append(f"{f.subject_kind} {f.subject}")
    lines: list[Content | str] = [tag(" · ".join(said), "$foreground-muted")]
    if gone_at is not None:
        lines.append(tag(f"No longer reported as of {fmt.clock(gone_at)}.", "bold $zd-ok"))
    lines += ["", tag("Why", "bold $text-primary"), tag(f.why)]
    if f.evidence:
        width = max(len(k) for k, _ in f.evidence)
        lines += ["", tag("Evidence", "bold $text-primary")]
        lines += [join("  ", tag(k.ljust(width), "$foreground-muted"), "  ", tag(v)) for k, v in f.evidence]
    if picture is not None:
        lines += ["", picture]
    lines += ["", tag("Suggested actions", "bold $text-primary")]
    numbered = guided(f) if mode in GUIDED_HINT else ()
    for a in f.actions:
        mark = tag(f"{numbered.index(a) + 1}", "bold reverse $text-accent") if a in numbered else "•"
        lines.append(join(mark, " ", tag(a.label)))
        # A plan that asks for the new disk: its argv ends with it, so the command shows where.
        new = " NEW_DISK" if needs_new_device(a) == "required" else ""
        lines.append(join("  ", tag("$ " + shlex.join(a.argv) + new, "bold $text-accent")))
    if host is not None and f.actions:  # a pool of another host (--host): its commands run there
        lines.append(tag(f"These commands are for {host}: its pool is {f.pool}.", "bold $zd-warn"))
    if numbered:
        where = f" Plans are checked and run on {host}, over ssh." if host and mode == "live" else ""
        lines.append(tag(GUIDED_HINT[mode] + where, "$foreground-muted"))
    elif f.actions and mode == "read-only":
        lines.append(tag(READ_ONLY_HINT, "$foreground-muted"))
    elif f.actions:
        lines.append(tag("Check them, then run them yourself.", "$foreground-muted"))
    else:
        lines.append(tag("none: this is for information", "$foreground-muted"))
    return title, NEWLINE.join(lines)


class FindingScreen(ModalScreen[None]):
    app = getters.app(ZdashApp)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "dismiss", "Close"),
        *(Binding(str(n), f"plan({n - 1})", f"Plan {n}", show=False) for n in range(1, 10)),
    ]
    # How many numbered plans the finding offers (none on a wall): keys 1..plans apply, and
    # bindings=True re-checks them when the finding, followed live, offers a different number.
    plans: var[int] = var(0, bindings=True)

    def __init__(self, finding: Finding) -> None:
        super().__init__()
        self.finding = finding
        self._gone_at: float | None = None

    @property
    def mode(self) -> Mode:
        return self.app.action_mode  # "wall", "read-only": nothing numbered, nothing opens

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="finding-dialog"):
            yield Static(classes="dialog-title", id="finding-title")
            yield Static(id="finding-body")
            yield Static(id="finding-hint", classes="hint")

    def on_mount(self) -> None:
        self._draw()
        self.call_after_refresh(self._draw)  # the picture fitted to the dialog's laid-out width
        self.watch(self.app, "frame", self._on_frame, init=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "plan":
            index = parameters[0]
            return isinstance(index, int) and index < self.plans
        return True

    def action_plan(self, index: int) -> None:
        actions = guided(self.finding)
        if index < self.plans:
            from zdash.ui.screens.guided import open_guided

            open_guided(self.app, actions[index], self._host())

    def _host(self) -> str | None:
        """The finding's host in a fleet (its pool is HOST:POOL); None: this host."""
        pool = self.finding.pool or ""
        return next((h for h in self.app.feed.hosts if pool.startswith(h + ":")), None)

    def _on_frame(self, frame: Frame | None) -> None:
        if frame is None:
            return
        now = next((f for f in frame.findings if f.key == self.finding.key), None)
        if now is None:
            self._gone_at = self._gone_at or frame.time
        else:
            self.finding, self._gone_at = now, None
        self._draw()

    def _picture(self) -> Content | None:
        """A finding about a disk zdash has latency histograms of: their picture."""
        frame, f = self.app.frame, self.finding
        pool = frame.snapshot.pool(f.pool) if frame is not None and f.pool else None
        leaf = pool.find(f.subject) if pool is not None and f.subject_kind == "leaf" else None
        got = histogram_rows(frame.snapshot, pool, leaf.key) if frame and pool and leaf else None
        if got is None:
            return None
        rows, title = got
        body = self.query_one("#finding-body", Static).content_size.width  # 0 before the first layout
        return strip_content(rows, max(body or self.size.width - 12, 40), title)

    def _draw(self) -> None:
        mode = self.mode
        title, body = finding_content(self.finding, self._gone_at, mode, self._host(), self._picture())
        self.query_one("#finding-title", Static).update(title)
        self.query_one("#finding-body", Static).update(body)
        self.plans = n = len(guided(self.finding)) if mode in GUIDED_HINT else 0
        keys = f" · 1–{n} plan" if n > 1 else " · 1 plan" if n == 1 else ""
        self.query_one("#finding-hint", Static).update(f"esc close · ↑↓ scroll{keys}")
