"""A pool's state word in three-row letters, drawn with the same box-drawing strokes as
Textual's Digits (which has only 0-9 and A-F), so a wall tile's health reads across the room
beside its capacity digits.

Only the letters ZFS's pool states need (ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL, REMOVED,
SUSPENDED) are drawn big; any other word is returned as None and shown in ordinary bold text."""

from __future__ import annotations

# Three rows per letter; every letter three cells wide except the ones that need four.
_FONT: dict[str, tuple[str, str, str]] = {
    "A": ("╭─╮", "├─┤", "╵ ╵"),
    "D": ("┌─╮", "│ │", "└─╯"),
    "E": ("╭─╴", "├─ ", "╰─╴"),
    "F": ("╭─╴", "├─ ", "╵  "),
    "G": ("╭─╴", "│╶╮", "╰─╯"),
    "I": ("╶┬╴", " │ ", "╶┴╴"),
    "L": ("╷  ", "│  ", "╰─╴"),
    "M": ("╭┬╮", "│││", "╵╵╵"),
    "N": ("╭╮╷", "│││", "╵╰╯"),
    "O": ("╭─╮", "│ │", "╰─╯"),
    "P": ("┌─╮", "├─╯", "╵  "),
    "R": ("┌─╮", "├┬╯", "╵╰╴"),
    "S": ("╭─╴", "╰─╮", "╶─╯"),
    "T": ("╶┬╴", " │ ", " ╵ "),
    "U": ("╷ ╷", "│ │", "╰─╯"),
    "V": ("╷ ╷", "╲ ╱", " ╵ "),
}


def big_rows(word: str) -> tuple[str, str, str] | None:
    """The word as three lines of box-drawing letters (one space between letters), or None
    when a letter has no big form."""
    if not word or any(ch not in _FONT for ch in word):
        return None
    rows = [" ".join(_FONT[ch][i] for ch in word) for i in range(3)]
    return rows[0], rows[1], rows[2]


def big_width(word: str) -> int:
    rows = big_rows(word)
    return len(rows[0]) if rows else len(word)
