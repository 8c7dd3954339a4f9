"""One finding opened: its why, its evidence and the suggested commands (read-only here:
guided actions are a separate feature). Follows the finding live by its key, and says so when
the check stops reporting it."""
from __future__ import annotations

import shlex

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...checks.finding import Finding
from .. import fmt
from ..feed import Frame
from ..markup import tag
from ..palette import SEVERITY_ICON, SEVERITY_VAR


def finding_markup(f: Finding, gone_at: float | None = None) -> tuple[str, str]:
    """(title, body) markup."""
    title = f"{tag(SEVERITY_ICON[f.severity], 'bold ' + SEVERITY_VAR[f.severity])}  {tag(f.title, 'bold')}"
    lines = [tag(f"{f.check} · pool {f.pool or '-'} · {f.subject_kind} {f.subject}", "$foreground-muted")]
    if gone_at is not None:
        lines.append(tag(f"No longer reported as of {fmt.clock(gone_at)}.", "bold $text-success"))
    lines += ["", tag("Why", "bold $text-primary"), tag(f.why)]
    if f.evidence:
        width = max(len(k) for k, _ in f.evidence)
        lines += ["", tag("Evidence", "bold $text-primary")]
        lines += [f"  {tag(k.ljust(width), '$foreground-muted')}  {tag(v)}" for k, v in f.evidence]
    lines += ["", tag("Suggested actions", "bold $text-primary")]
    if f.actions:
        for a in f.actions:
            lines.append(f"• {tag(a.label)}")
            lines.append(f"  {tag('$ ' + shlex.join(a.argv), 'bold $text-accent')}")
        lines.append(tag("zdash does not run these from here: check them, then run them yourself.",
                         "$foreground-muted"))
    else:
        lines.append(tag("none: this is for information", "$foreground-muted"))
    return title, "\n".join(lines)


class FindingScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]

    def __init__(self, finding: Finding) -> None:
        super().__init__()
        self.finding = finding
        self._gone_at: float | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="finding-dialog"):
            yield Static(classes="dialog-title", id="finding-title")
            yield Static(id="finding-body")
            yield Static("esc close · ↑↓ scroll", classes="hint")

    def on_mount(self) -> None:
        self._draw()
        self.watch(self.app, "frame", self._on_frame, init=False)

    def _on_frame(self, frame: Frame | None) -> None:
        if frame is None:
            return
        now = next((f for f in frame.findings if f.key == self.finding.key), None)
        if now is None:
            self._gone_at = self._gone_at or frame.time
        else:
            self.finding, self._gone_at = now, None
        self._draw()

    def _draw(self) -> None:
        title, body = finding_markup(self.finding, self._gone_at)
        self.query_one("#finding-title", Static).update(title)
        self.query_one("#finding-body", Static).update(body)
