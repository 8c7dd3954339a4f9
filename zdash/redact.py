"""Secrets kept out of what zdash writes about itself (crash reports, the audit log): the serve
token is a password to the dashboard (with --allow-actions, to the host's pools), and a crash
report is a file an admin attaches to a public bug report."""

from __future__ import annotations

import re
from collections.abc import Sequence

REDACTED = "<redacted>"
SECRET_OPTIONS = ("--token",)
SECRET_ENV = ("ZDASH_SERVE_TOKEN",)
# `--token X`, `--token=X`, `'--token', 'X'` (an argv's repr), `?token=X` / `&token=X` in a URL,
# `ZDASH_SERVE_TOKEN=X`, and the cookie's `zdash_token...=X`.
_IN_TEXT = re.compile(
    r"((?:--token[= ]|--token['\"],\s*|[?&;]token=|ZDASH_SERVE_TOKEN=|zdash_token\w*=)['\"]?)[^\s&'\";,)\]]+"
)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """argv with the value of every secret option replaced."""
    out: list[str] = []
    hide_next = False
    for word in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
        elif word in SECRET_OPTIONS:
            out.append(word)
            hide_next = True
        elif any(word.startswith(o + "=") for o in SECRET_OPTIONS):
            out.append(word.split("=", 1)[0] + "=" + REDACTED)
        else:
            out.append(redact_text(word))
    return out


def redact_text(text: str) -> str:
    """`text` with every token it holds (as an option, a URL query or a variable) replaced."""
    return _IN_TEXT.sub(lambda m: m.group(1) + REDACTED, text)
