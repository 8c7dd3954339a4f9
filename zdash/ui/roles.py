"""Colour roles: what a piece of text means (ok, warn, crit, muted, …), never which colour it
is. The colours come from the active theme, by one of two routes:

- markup (Static, render()): ROLE_VAR gives the role's theme $variable, e.g. "[$zd-crit]";
- Rich text cells (DataTable, Tree render Rich Text, not markup): the widget declares the
  zd--<role> component classes (ROLE_CLASSES), themes/zdash.tcss styles them with the same
  variables, and role_styles(widget) reads them back, so a theme switch restyles the cells.
"""

from __future__ import annotations

from typing import Literal, get_args

from rich.style import Style
from textual.widget import Widget

from zdash.checks.finding import Severity
from zdash.model import BAD_STATES, UNSEEN

Role = Literal[
    "ok", "warn", "crit", "info", "muted", "text", "bar", "bar-free", "mark", "bold", "crit-bold", "warn-bold"
]
ROLES: tuple[Role, ...] = get_args(Role)
Cell = tuple[tuple[str, Role], ...]  # a table cell as (text, role) runs


def component(role: Role) -> str:
    return f"zd--{role}"


ROLE_CLASSES: frozenset[str] = frozenset(component(r) for r in ROLES)

# Markup. Table cells take the same meaning from themes/zdash.tcss (.zd--<role>), except "bar":
# the cells' bars are $zd-bar-used, the header's gauges $primary.
ROLE_VAR: dict[Role, str] = {
    "ok": "$zd-ok",
    "warn": "$zd-warn",
    "crit": "$zd-crit",
    "info": "$text-primary",
    "muted": "$foreground-muted",
    "text": "",
    "bar": "$primary",
    "bar-free": "$zd-bar-free",
    "mark": "$foreground",
    "bold": "bold",
    "crit-bold": "bold $zd-crit",
    "warn-bold": "bold $zd-warn",
}


def role_styles(widget: Widget) -> dict[Role, Style]:
    """The Rich style of each role from `widget`'s zd--<role> component classes (it must list
    ROLE_CLASSES in COMPONENT_CLASSES). Rich colours are opaque, so a translucent theme colour
    ($foreground-muted) is blended onto the widget's own background, as CSS would draw it."""
    background = widget.styles.background
    styles: dict[Role, Style] = {}
    for role in ROLES:
        css = widget.get_component_styles(component(role))
        style = css.partial_rich_style  # text-style, and the colour as declared
        if css.has_rule("color"):
            style += Style(color=(background + css.color).rich_color)
        styles[role] = style
    return styles


def state_word(state: str) -> str:
    """A pool's or device's state as shown: zpool's word, "-" where the input did not show it
    (UNSEEN, zdash's own name for that, as in a paste of `zpool iostat`, is not a public word)."""
    return "-" if state == UNSEEN else state


def state_role(state: str) -> Role:
    """ONLINE green; DEGRADED/OFFLINE amber (redundancy reduced); FAULTED and worse red."""
    if state in ("ONLINE", "AVAIL", "INUSE"):
        return "ok"
    if state in ("DEGRADED", "OFFLINE", "REMOVED"):
        return "warn"
    return "crit" if state in BAD_STATES else "muted"


def severity_role(sev: Severity) -> Role:
    """UNKNOWN (zdash cannot see) is shown as alarming as CRITICAL."""
    if sev in (Severity.CRITICAL, Severity.UNKNOWN):
        return "crit"
    return "warn" if sev == Severity.WARNING else "info"


SEVERITY_ICON = {
    Severity.CRITICAL: "✖ CRIT",
    Severity.UNKNOWN: "? STALE",
    Severity.WARNING: "▲ WARN",
    Severity.INFO: "● INFO",
}
