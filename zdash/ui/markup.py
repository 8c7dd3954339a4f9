"""Building Textual content markup from data: every dynamic string is escaped, every colour
is a theme $variable, and a Cell of (text, role) runs converts to markup or to Rich Text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.markup import escape

from zdash.ui.roles import ROLE_VAR, Cell, Role


def tag(text: str, style: str = "") -> str:
    """`style` is markup style text: '$zd-crit', 'bold $primary', 'reverse $warning'."""
    return f"[{style}]{escape(text)}[/]" if style else escape(text)


def merge_runs(chars: Iterable[tuple[str, Role]]) -> Cell:
    """Join neighbouring (text, role) pairs of the same role: fewer spans to style."""
    merged: list[tuple[str, Role]] = []
    for text, role in chars:
        if merged and merged[-1][1] == role:
            merged[-1] = (merged[-1][0] + text, role)
        else:
            merged.append((text, role))
    return tuple(merged)


def cell_markup(cell: Cell) -> str:
    return "".join(tag(text, ROLE_VAR[role]) for text, role in cell)


def cell_text(cell: Cell, styles: Mapping[Role, Style], justify: JustifyMethod = "left") -> Text:
    """A cell for a DataTable or Tree, styled by role (roles.role_styles)."""
    return Text.assemble(*((text, styles[role]) for text, role in cell), end="", justify=justify)
