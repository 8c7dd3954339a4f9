"""A wall tile: one pool, read from across the room. Its largest element is the verdict, the
severity word and glyph (OK / WARN / CRIT / STALE) in big letters of the level's colour, then
the subject and the one-line why ("sick is dragging mirror-1" / "%util 82 % vs 2 % on its
peers"), then the capacity (with the writable headroom, the pool's state and a running scan).

The wall decides the letters' scale for all tiles at once (zdash.ui.wall_layout); a tile only
draws. One piece of content drawn by render(), built as Content (names are data, never markup).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from zdash import fmt
from zdash.checks.capacity import headroom
from zdash.checks.finding import Finding, Severity
from zdash.model import Pool, Snapshot
from zdash.ui.big_word import big_lines
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, severity_role, state_role, state_word
from zdash.ui.vdev_rows import fill_role
from zdash.ui.widgets.pool_header import pool_findings

Level = Literal["ok", "warn", "crit"]
LEVEL_ORDER: dict[Level, int] = {"crit": 0, "warn": 1, "ok": 2}
OK_WORD = "● OK"
STALE_WORD = SEVERITY_ICON[Severity.UNKNOWN]  # "? STALE"
# The widest word a tile normally shows: the wall sizes its letters for it, so a pool going from
# OK to WARN does not shrink every tile (STALE, wider, does when it comes).
WIDEST_USUAL = SEVERITY_ICON[Severity.WARNING]
# A device path in a title, read across a room by its last part: /dev/mapper/sick -> sick.
_DEVICE = re.compile(r"/dev/(?:[\w.+-]+/)*([\w.:+-]+)")


def tile_level(pool: Pool, findings: Sequence[Finding]) -> Level:
    """The worse of the pool's state and its worst finding (UNKNOWN, zdash cannot see, is as
    alarming as CRITICAL)."""
    worst = max((f.severity for f in pool_findings(pool, findings)), default=Severity.INFO)
    role = state_role(pool.state)
    if role == "crit" or severity_role(worst) == "crit":
        return "crit"
    if role == "warn" or worst == Severity.WARNING:
        return "warn"
    return "ok"


def split_title(title: str) -> tuple[str, str]:
    """(subject, why): a finding's title up to its first colon and the rest, device paths by
    their last part ("sick is dragging mirror-1", "%util 82.3 % vs 2.0 % on its peers")."""
    head, _, rest = title.partition(": ")
    return _DEVICE.sub(r"\1", head).strip(), _DEVICE.sub(r"\1", rest).strip()


@dataclass(frozen=True, slots=True)
class TileView:
    """What a tile shows; compared by value, so an unchanged tile is not redrawn."""

    level: Level
    word: str  # "▲ WARN": glyph and severity word, drawn big
    subject: str  # the worst finding's subject, or the pool's state word when all is well
    why: str  # the rest of its title (may be empty)
    more: int  # further findings above INFO on this pool
    state: str  # the pool's state word
    fill: float | None  # capacity, %
    writable: float | None  # bytes still writable (the capacity check's figure)
    scan: str  # "resilver 45%", "scrub paused" or ""


def tile_view(
    pool: Pool, findings: Sequence[Finding], snap: Snapshot | None = None, stale: str | None = None
) -> TileView:
    """`stale`: why the data is old (no frame for a while, collection failed): the tile then
    says STALE and what it last showed, never an OK that may no longer be true."""
    mine = pool_findings(pool, findings)
    scan = pool.scan
    if scan is not None and scan.state == "scanning" and scan.pct_done is not None:
        scan_text = f"{scan.function} {scan.pct_done:.0f}%"
    elif scan is not None and scan.state == "paused":
        scan_text = f"{scan.function} paused"
    else:
        scan_text = ""
    level = tile_level(pool, findings)
    if mine:
        worst = mine[0]
        word = SEVERITY_ICON[worst.severity]
        subject, why = split_title(worst.title)
    else:
        word, subject, why = OK_WORD, state_word(pool.state), "nothing above INFO"
    if stale is not None:
        last = f"last seen {word}: {subject}"
        level, word, subject, why = "crit", STALE_WORD, stale, last
    room = headroom(snap, pool)[0] if snap is not None else None
    return TileView(
        level,
        word,
        subject,
        why,
        max(len(mine) - 1, 0),
        state_word(pool.state),
        pool.fill_pct,
        room,
        scan_text,
    )


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def tile_content(view: TileView, scale: int, width: int, lines: int = 3) -> Content:
    """The tile's text `width` columns wide: the verdict at `scale` (plain bold at 0 or when
    the word has no big form), then subject, why (when `lines` is 3) and capacity."""
    colour = ROLE_VAR[view.level]
    big = big_lines(view.word, scale)
    out: list[Content] = [Content.styled(line, f"bold {colour}") for line in big or (view.word,)]
    more = f"  +{view.more} more" if view.more else ""
    subject = _fit(view.subject, width - (len(more) if lines < 3 else 0))
    out.append(Content.assemble((subject, "bold"), (more if lines < 3 else "", "$foreground-muted")))
    if lines >= 3:
        why = _fit(view.why, width - len(more))
        out.append(Content.assemble((why, "$foreground-muted"), (more, "$foreground-muted")))
    out.append(_capacity(view, width))
    return Content("\n").join(out)


def _capacity(view: TileView, width: int) -> Content:
    # The state, unless the subject line says it already (a pool with nothing to report).
    tail = ([view.state] if view.subject != view.state else []) + ([view.scan] if view.scan else [])
    if view.writable is not None:
        tail.insert(0, f"{fmt.fmt_bytes(max(view.writable, 0))} writable")
    text = " · ".join(tail)
    if view.fill is None:
        return Content.assemble(("CAP", "$foreground-muted"), " ?  ", _fit(text, width - 7))
    pct = fmt.fill(view.fill)
    role = fill_role(view.fill)
    bar_w = max(0, min(20, width - len(pct) - len(text) - 7))
    filled, empty = fmt.bar_cells(view.fill / 100, bar_w)
    parts: list[tuple[str, str] | str] = [("CAP ", "$foreground-muted"), (pct, f"bold {ROLE_VAR[role]}")]
    if bar_w >= 5:
        parts += [" ", (filled, ROLE_VAR[role]), (empty, "$zd-bar-free")]
    parts += ["  ", _fit(text, width - len(pct) - 6 - (bar_w + 1 if bar_w >= 5 else 0))]
    return Content.assemble(*parts)


class PoolTile(Widget):
    """One pool's tile; the wall sets `view`, `scale` and `lines` (every tile the same scale)."""

    view: reactive[TileView | None] = reactive(None)
    scale: reactive[int] = reactive(1)
    lines: reactive[int] = reactive(3)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.pool_name = name
        self.border_title = Content(name)  # a name is text, never markup

    def watch_view(self, view: TileView | None) -> None:
        for level in ("ok", "warn", "crit"):
            self.set_class(view is not None and view.level == level, f"-{level}")

    def render(self) -> Content:
        if self.view is None:
            return Content()
        return tile_content(self.view, self.scale, self.content_region.width or self.size.width, self.lines)

    @property
    def text(self) -> str:
        """What the tile shows, as plain text."""
        return self.render().plain
