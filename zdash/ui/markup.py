"""Building Textual content from data: every dynamic string is text, never markup, and every
colour a theme $variable.

Names come from outside (a device path `/dev/disk[slot=3]/d2`, a dataset a `zfs allow` user
made): parsed as markup, a bracket in one was a tag, and a name cut at the width of a title
inside its bracket raised MarkupError and ended the dashboard. So content is assembled as
Content objects (`tag` styles a piece of text, `join` and `lines` put pieces together): a name
is never parsed at all. (Control characters never reach here: zdash.visible shows them escaped
where outside text enters the model.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.content import Content

from zdash.ui.roles import ROLE_VAR, Cell, Role

NEWLINE = Content("\n")


def tag(text: str, style: str = "") -> Content:
    """`text` styled `style` (markup style text: '$zd-crit', 'bold $primary', 'reverse $warning'),
    taken literally whatever it holds."""
    return Content.styled(text, style) if style else Content(text)


def join(*parts: Content | str) -> Content:
    """Pieces (content or plain text) one after the other."""
    return Content.assemble(*parts)


def lines(parts: Iterable[Content | str]) -> Content:
    """Pieces one per line."""
    return NEWLINE.join(parts)


def merge_runs(chars: Iterable[tuple[str, Role]]) -> Cell:
    """Join neighbouring (text, role) pairs of the same role: fewer spans to style."""
    merged: list[tuple[str, Role]] = []
    for text, role in chars:
        if merged and merged[-1][1] == role:
            merged[-1] = (merged[-1][0] + text, role)
        else:
            merged.append((text, role))
    return tuple(merged)


def cell_content(cell: Cell) -> Content:
    return join(*(tag(text, ROLE_VAR[role]) for text, role in cell))


def cell_text(cell: Cell, styles: Mapping[Role, Style], justify: JustifyMethod = "left") -> Text:
    """A cell for a DataTable or Tree, styled by role (roles.role_styles)."""
    return Text.assemble(*((text, styles[role]) for text, role in cell), end="", justify=justify)
