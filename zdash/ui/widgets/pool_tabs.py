"""One line naming every pool with its health, the shown one highlighted. `[` and `]` move
between pools; a click works too. Hidden when there is a single pool."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from zdash.feed.frame import Frame
from zdash.model import Pool
from zdash.ui.markup import tag
from zdash.ui.roles import ROLE_VAR, state_role


def tabs_markup(pools: Sequence[Pool], current: str | None) -> str:
    parts = []
    for i, p in enumerate(pools):
        dot = tag("●", ROLE_VAR[state_role(p.state)])
        name = tag(f" {p.name} ", "reverse bold" if p.name == current else "")
        parts.append(f"[@click=screen.select_pool({i})]{name}[/]{dot}")
    return "  ".join(parts)


class PoolTabs(Widget):
    """Bound to its screen's frame and pool (data_bind)."""

    frame: reactive[Frame | None] = reactive(None)
    pool_name: reactive[str | None] = reactive(None)

    def watch_frame(self, frame: Frame | None) -> None:
        if frame is not None:
            self.display = len(frame.snapshot.pools) > 1

    def render(self) -> Content:
        if self.frame is None:
            return Content()
        return Content.from_markup(tabs_markup(self.frame.snapshot.pools, self.pool_name))
