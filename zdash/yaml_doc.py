"""One way to read a YAML document zdash did not necessarily write (recordings, the config file,
themes): safe types only, and deep flow nesting refused before the parser sees it.

ruamel's scanner is quadratic in flow depth (it re-checks every open flow level's possible simple
key on each token): `[[[[…` 20,000 deep takes ~2 s of CPU before it ends in a RecursionError, and
every file zdash reads is open to that (a damaged recording, a config copied from a web page).
No document zdash writes or documents nests flow collections more than a few levels, so 64
openers in a row (blanks between them allowed) is refused at once with the same message a
RecursionError gets.
"""

from __future__ import annotations

import re

_DEEP_FLOW = re.compile(r"(?:[\[{][ \t\r\n]*){64}")


class TooDeep(ValueError):
    """A document nested too deeply to be one of zdash's files."""


def load_yaml(text: str) -> object:
    """The document as plain Python data. Raises TooDeep (a ValueError) for deep nesting and
    ruamel's YAMLError for anything else that is not YAML."""
    from ruamel.yaml import YAML  # imported here: commands that read no YAML do not pay for it

    if _DEEP_FLOW.search(text):
        raise TooDeep("nested too deeply")
    try:
        return YAML(typ="safe").load(text)
    except RecursionError:
        raise TooDeep("nested too deeply") from None
