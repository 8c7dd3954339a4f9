"""One line naming every pool with its health, the shown one highlighted. `[` and `]` move
between pools; a click works too. Hidden when there is a single pool."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from zdash.model import Pool
from zdash.ui.markup import tag
from zdash.ui.palette import STATE_VAR, state_role


class PoolTabs(Static):
    def on_mount(self) -> None:
        self._shown: str | None = None

    def show(self, pools: Sequence[Pool], current: str | None) -> None:
        self.display = len(pools) > 1
        parts = []
        for i, p in enumerate(pools):
            dot = tag("●", STATE_VAR[state_role(p.state)])
            name = tag(f" {p.name} ", "reverse bold" if p.name == current else "")
            parts.append(f"[@click=screen.select_pool({i})]{name}[/]{dot}")
        text = "  ".join(parts)
        if text != self._shown:
            self._shown = text
            self.update(text)
