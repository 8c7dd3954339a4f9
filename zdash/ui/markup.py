"""Building Textual content markup from data: every dynamic string is escaped, every colour
is a theme $variable, and a Cell (text, role) sequence converts to markup or to Rich Text."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.markup import escape

# roles (ui.palette) as theme variables for markup
ROLE_VAR = {
    "ok": "$text-success",
    "warn": "$text-warning",
    "crit": "$text-error",
    "info": "$text-primary",
    "muted": "$foreground-muted",
    "text": "",
    "bar": "$primary",
    "bar-free": "$zd-bar-free",
    "mark": "$foreground",
    "bold": "bold",
    "crit-bold": "bold $text-error",
    "warn-bold": "bold $text-warning",
}


def tag(text: str, style: str = "") -> str:
    """`style` is markup style text: '$text-error', 'bold $primary', 'reverse $warning'."""
    return f"[{style}]{escape(text)}[/]" if style else escape(text)


def merge_runs(chars):
    """Join neighbouring (text, role) pairs of the same role: fewer spans to style."""
    merged: list[tuple[str, str]] = []
    for text, role in chars:
        if merged and merged[-1][1] == role:
            merged[-1] = (merged[-1][0] + text, role)
        else:
            merged.append((text, role))
    return tuple(merged)


def cell_markup(cell) -> str:
    return "".join(tag(text, ROLE_VAR.get(role, "")) for text, role in cell)


def cell_text(cell, pal: dict[str, Style], justify: str = "left") -> Text:
    return Text.assemble(*((text, pal.get(role, Style())) for text, role in cell), end="", justify=justify)  # type: ignore[arg-type]
