"""One way to read a YAML document zdash did not necessarily write (recordings, the config file,
themes): safe types only, a size cap, no aliases, and deep flow nesting refused before the
parser sees it.

Aliases: `&a [x]` then `*a` nine times, nine levels deep, is 380 bytes that stand for a billion
strings (the "billion laughs"). The loader shares the aliased objects, but anything that walks or
prints the result (an error message's repr of a bad value, str() of a header field) expands it:
2.4 GB before MemoryError in the probe round of issue #25. No file zdash writes or documents
uses aliases or merge keys, so a document with any is refused at once, before it is built. A
document without `&` cannot hold an alias (an alias must name an anchor), so only those that do
are scanned for one.

Depth: ruamel's scanner is quadratic in flow depth (it re-checks every open flow level's possible
simple key on each token): `[[[[…` 20,000 deep takes ~2 s of CPU before it ends in a
RecursionError. No document zdash writes or documents nests flow collections more than a few
levels, so 64 openers in a row (blanks between them allowed) is refused at once.

Size: every reader states its cap (a config or theme: 1 MiB; a recording's document: its own).
"""

from __future__ import annotations

import re

MAX_YAML_BYTES = 1 << 20  # a config file or a theme: far beyond any real one
_DEEP_FLOW = re.compile(r"(?:[\[{][ \t\r\n]*){64}")


class YamlRefused(ValueError):
    """A document zdash will not read (str(): what is wrong, for a one-line message)."""


class TooDeep(YamlRefused):
    """A document nested too deeply to be one of zdash's files."""


class HasAliases(YamlRefused):
    """A document with YAML aliases (*name), which zdash's files never hold."""


class TooLarge(YamlRefused):
    """A file larger than the cap its reader states."""


def load_yaml(text: str, max_bytes: int = MAX_YAML_BYTES) -> object:
    """The document as plain Python data. Raises YamlRefused (a ValueError: too large, too deep,
    aliases) and ruamel's YAMLError for anything else that is not YAML."""
    from ruamel.yaml import YAML  # imported here: commands that read no YAML do not pay for it

    if len(text) > max_bytes:
        raise TooLarge(f"larger than {_size(max_bytes)}")
    if _DEEP_FLOW.search(text):
        raise TooDeep("nested too deeply")
    yaml = YAML(typ="safe")
    if "&" in text:
        _refuse_aliases(yaml, text)
    try:
        return yaml.load(text)
    except RecursionError:
        raise TooDeep("nested too deeply") from None


def load_yaml_file(path: str, max_bytes: int = MAX_YAML_BYTES) -> object:
    """The file's document (UTF-8), read no further than the cap: OSError when it cannot be
    read, UnicodeDecodeError, and what load_yaml raises."""
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooLarge(f"larger than {_size(max_bytes)}")
    return load_yaml(data.decode("utf-8"), max_bytes)


def _refuse_aliases(yaml: object, text: str) -> None:
    """HasAliases at the first alias event (the parser's events: no object is built)."""
    from ruamel.yaml.events import AliasEvent

    for event in yaml.parse(text):  # type: ignore[attr-defined]
        if isinstance(event, AliasEvent):
            mark = event.start_mark
            where = f" (line {mark.line + 1})" if mark is not None else ""
            raise HasAliases(f"holds a YAML alias *{event.anchor}{where}: zdash's files never use aliases")


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"
