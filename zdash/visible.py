"""Text from outside zdash made safe to show: every control character shown as a visible escape.

Names reach zdash from outside: pool, vdev and device names (a device path can hold any byte but
/ and NUL), dataset names (a `zfs allow` user makes them), zpool's own error text, recording
descriptions, pastes. A terminal obeys what it is sent: ESC ] 0 ; … BEL sets the window title,
ESC ] 52 ; … writes the clipboard (tmux with set-clipboard on hands it to the outer terminal),
a C1 byte 0x9b is CSI on many terminals, a bidi override (U+202E) makes `gnp.exe` read as
`exe.png`, a newline in a name forges a line of its own in `zdash check`. Rich and Textual strip
only BEL, BS, VT, FF and CR, never ESC.

So every outside string passes through here where it enters the model (zdash.builder: each raw
sample of every command, live, recorded or pasted; recording headers; the replay's file name),
and what comes out holds no C0 or C1 control, DEL, bidi control or line/paragraph separator:
each is shown as `\\x1b`, `\\x9b`, `\\u202e`, as Python writes them. A multi-line output keeps
its newlines and tabs (the parsers' structure); a name keeps none. JSON outputs (`zpool status
-j`) hold controls as escapes (`\\u001b`) that the parser would decode: those escapes become
the escaped backslash and the same visible form, so the decoded name reads `\\x1b` too.
Applying it twice changes nothing. A backslash itself is left alone: udev's own escapes
(`by-label/My\\x20Disk`) are real names.
"""

from __future__ import annotations

import re

# C0 (but tab and newline in text), DEL, C1, the bidi controls (ALM, LRM, RLM, LRE..RLO,
# LRI..PDI) and the Unicode line and paragraph separators (str.splitlines() breaks on them).
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_TEXT_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
# A JSON string escape, matched whole so an escaped backslash (\\) is never read as the start of
# another escape.
_JSON_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])')
_JSON_LETTER = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# The bytes of ASCII text that are no control (tab, newline, space to ~): deleting them from an
# output leaves nothing when it holds no control, a test ~4x faster than the regex (~0.14 ms per
# 100 KB: a 1,000-disk iostat report is read every tick).
_ASCII_SHOWN = bytes(b for b in range(128) if b in (9, 10) or 32 <= b < 127)


def _shown(c: str) -> str:
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def _replace(m: re.Match[str]) -> str:
    return _shown(m.group())


def visible(name: str) -> str:
    """A one-line string (a name, a description's line, an error message) with every control,
    tab and newline included, shown escaped."""
    return _NAME_CONTROLS.sub(_replace, name) if _NAME_CONTROLS.search(name) else name


def visible_text(text: str) -> str:
    """A command's whole output: controls shown escaped, newlines and tabs kept; in a JSON
    document, the escapes that would decode to a control too."""
    if text.encode("ascii").translate(None, _ASCII_SHOWN) if text.isascii() else _TEXT_CONTROLS.search(text):
        text = _TEXT_CONTROLS.sub(_replace, text)
    if "\\" in text and text.lstrip()[:1] in ("{", "["):
        text = _JSON_ESCAPE.sub(_json_escape, text)
    return text


def _json_escape(m: re.Match[str]) -> str:
    token = m.group()
    kind = token[1]
    char = chr(int(token[2:], 16)) if kind == "u" else _JSON_LETTER.get(kind)
    if char is None or not _NAME_CONTROLS.match(char):
        return token
    return "\\\\" + _shown(char)[1:]  # JSON for a backslash, then the rest of the visible form
