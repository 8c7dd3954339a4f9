"""One line naming every pool with its health, the shown one highlighted. `[` and `]` move
between pools; a click works too. Hidden when there is a single pool.

A fleet (--host a --host b) groups them by host: each host a tab of its own pools, its name
first ("nas1 ▸ tank ● backup ●"), and a host that does not answer says so in its tab
("nas2 ✕ unreachable ▸ tank ●": its pools keep their last data)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from textual import getters
from textual.content import Content
from textual.reactive import reactive, var
from textual.widget import Widget

from zdash.feed.frame import Frame
from zdash.model import Pool
from zdash.ui.app import ZdashApp
from zdash.ui.markup import join, tag
from zdash.ui.roles import ROLE_VAR, state_role


def _tab(i: int, p: Pool, label: str, current: str | None) -> Content:
    dot = tag("●", ROLE_VAR[state_role(p.state)])
    name = tag(f" {label} ", "reverse bold" if p.name == current else "")
    return join(name.stylize_before(f"@click=screen.select_pool({i})"), dot)


def tabs_content(
    pools: Sequence[Pool], current: str | None, hosts: Sequence[str] = (), down: Collection[str] = ()
) -> Content:
    """`hosts`: a fleet's hosts, whose pools are named HOST:POOL; `down`: those unreachable."""
    if not hosts:
        return Content("  ").join(_tab(i, p, p.name, current) for i, p in enumerate(pools))
    groups = []
    for host in hosts:
        mine = [(i, p) for i, p in enumerate(pools) if p.name.startswith(host + ":")]
        head = tag(host, "bold")
        if host in down:
            head += join(" ", tag("✕ unreachable", "bold $zd-crit"))
        tabs = Content("  ").join(_tab(i, p, p.name[len(host) + 1 :], current) for i, p in mine)
        groups.append(
            join(head, " ▸ ", tabs) if mine else join(head, " ", tag("(no pools seen)", "$foreground-muted"))
        )
    return Content("   │   ").join(groups)


class PoolTabs(Widget):
    """Bound to its screen's frame and pool (data_bind)."""

    app = getters.app(ZdashApp)

    # Not a repainting reactive: with one pool the tabs are hidden, and a hidden widget's
    # repaint every frame was work for nothing.
    frame: var[Frame | None] = var(None)
    pool_name: reactive[str | None] = reactive(None)

    def watch_frame(self, frame: Frame | None) -> None:
        if frame is not None:
            self.display = len(frame.snapshot.pools) > 1
        if self.display:
            self.refresh()

    def render(self) -> Content:
        if self.frame is None:
            return Content()
        snap, hosts = self.frame.snapshot, self.app.feed.hosts
        down = {h for h in hosts if any(s.key == f"{h} ssh" and not s.ok for s in snap.sources)}
        return tabs_content(snap.pools, self.pool_name, hosts, down)
