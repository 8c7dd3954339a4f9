"""Rich styles for DataTable cells, resolved from the active theme's variables. DataTable
renders Rich text (not Textual markup), so its colours are looked up here by role; widgets
call `palette(app)` on every theme change and redraw, so no colour is ever a literal."""

from __future__ import annotations

from rich.style import Style
from textual.app import App
from textual.color import Color

from zdash.checks.finding import Severity
from zdash.model import BAD_STATES

# role -> theme variables to try in order (zd-* are zdash's own, with Textual fallbacks)
ROLES = {
    "ok": ("text-success",),
    "warn": ("text-warning",),
    "crit": ("text-error",),
    "info": ("text-primary",),
    "muted": ("foreground-muted", "foreground"),
    "text": ("foreground",),
    "bar": ("zd-bar-used", "primary"),
    "bar-free": ("zd-bar-free", "panel-lighten-2", "panel"),
    "mark": ("foreground",),
}


def _resolve(app: App, names: tuple[str, ...]) -> Color:
    variables = app.theme_variables
    bg = Color.parse(variables.get("background", "#000000"))
    for name in names:
        value = variables.get(name)
        if value:
            try:
                return bg + Color.parse(value)  # blend alpha colours onto the background
            except Exception:  # noqa: BLE001 - "auto 60%" and friends: try the next name
                continue
    return Color.parse(variables.get("foreground", "#ffffff"))


def palette(app: App) -> dict[str, Style]:
    styles = {role: Style(color=_resolve(app, names).rich_color) for role, names in ROLES.items()}
    styles["crit-bold"] = styles["crit"] + Style(bold=True)
    styles["warn-bold"] = styles["warn"] + Style(bold=True)
    styles["bold"] = Style(bold=True)
    return styles


def severity_role(sev: Severity) -> str:
    return {Severity.CRITICAL: "crit", Severity.UNKNOWN: "crit", Severity.WARNING: "warn"}.get(sev, "info")


def state_role(state: str) -> str:
    """ONLINE green; DEGRADED/OFFLINE amber (redundancy reduced); FAULTED and worse red."""
    if state in ("ONLINE", "AVAIL", "INUSE"):
        return "ok"
    if state in ("DEGRADED", "OFFLINE", "REMOVED"):
        return "warn"
    return "crit" if state in BAD_STATES or state in ("UNAVAIL", "FAULTED", "SUSPENDED") else "muted"


SEVERITY_ICON = {
    Severity.CRITICAL: "✖ CRIT",
    Severity.UNKNOWN: "? STALE",
    Severity.WARNING: "▲ WARN",
    Severity.INFO: "● INFO",
}
SEVERITY_VAR = {
    Severity.CRITICAL: "$text-error",
    Severity.UNKNOWN: "$text-error",
    Severity.WARNING: "$text-warning",
    Severity.INFO: "$text-primary",
}
STATE_VAR = {
    "ok": "$text-success",
    "warn": "$text-warning",
    "crit": "$text-error",
    "muted": "$foreground-muted",
}
