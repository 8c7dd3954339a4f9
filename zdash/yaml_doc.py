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

Speed: a recording is thousands of documents, and ruamel.yaml's scanner is pure Python (the C
one is not installed with it): ~78 ms a tick of a 1,000-leaf host, 2-6x the fold of the same
tick. load_recording_document reads them with PyYAML's libyaml parser instead (~1.6 ms), under
the same guards, resolving plain scalars as ruamel does (YAML 1.2's core schema: `on`, `yes`,
`1:20` stay text; YAML 1.1 made an argv `on` True), duplicate keys refused as ruamel refuses them.
Configs and themes, one small document read once, stay with ruamel (its messages).
"""

from __future__ import annotations

import functools
import re
from typing import Any

MAX_YAML_BYTES = 1 << 20  # a config file or a theme: far beyond any real one
# Led by its first opener (not a group): the regex engine then skips to candidates at C speed
# (18 ms -> 4 ms on a 1,000-leaf tick, searched on every document of a recording).
_DEEP_FLOW = re.compile(r"[\[{](?:[ \t\r\n]*[\[{]){63}")


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


def load_recording_document(text: str, max_bytes: int) -> object:
    """A recording's document as plain Python data, fast (see Speed above). Raises YamlRefused
    (too large, too deep, aliases) and NotYaml (a ValueError) for anything else."""
    import yaml
    from ruamel.yaml.error import YAMLError

    if len(text) > max_bytes:
        raise TooLarge(f"larger than {_size(max_bytes)}")
    # libyaml 0.2.5+ refuses flow nested past 1,000 levels by itself, in linear time (then
    # ruamel, below, says "nested too deeply"): the search, a third of reading a 100-leaf tick
    # (the status JSON's braces are each a candidate), is needed only before a Python scanner.
    if not _libyaml_bounds_depth() and _DEEP_FLOW.search(text):
        raise TooDeep("nested too deeply")
    loader = _recording_loader()
    try:
        if "&" in text and any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=loader)):
            raise HasAliases("holds a YAML alias: zdash's files never use aliases")
        return yaml.load(text, Loader=loader)  # a SafeLoader subclass: plain data only
    except yaml.YAMLError:
        # libyaml refuses some YAML that ruamel (and the spec) reads: a literal block whose first
        # line starts with a tab ("found a tab character where an indentation space is
        # expected"), as zpool's text outputs do. ruamel, the writer's own reader, decides.
        pass
    except RecursionError:
        raise TooDeep("nested too deeply") from None
    try:
        return load_yaml(text, max_bytes)
    except YAMLError as e:
        raise NotYaml(" ".join(str(e).split())) from None


class NotYaml(ValueError):
    """A recording's document that is not YAML (str(): PyYAML's message, on one line)."""


@functools.cache
def _libyaml_bounds_depth() -> bool:
    """PyYAML parses with libyaml 0.2.5 or later (its wheels bundle it; a build against an older
    system libyaml has no nesting limit, and PyYAML's pure-Python scanner is ruamel's)."""
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        return False
    try:
        from yaml import _yaml

        return tuple(_yaml.get_version()) >= (0, 2, 5)
    except (ImportError, AttributeError):
        return False


@functools.cache
def _recording_loader() -> type:
    """PyYAML's safe loader (libyaml's C parser where PyYAML was built with it), resolving plain
    scalars by YAML 1.2's core schema as ruamel.yaml, the writer, does, and refusing duplicate
    keys as ruamel does."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader: Any = type("RecordingLoader", (base,), {})
    replaced = (_BOOL, _INT, _FLOAT)
    loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in replaced]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    loader.add_implicit_resolver(
        _INT, re.compile(r"^(?:[-+]?[0-9][0-9_]*|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
    )
    loader.add_implicit_resolver(
        _FLOAT,
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    )
    loader.add_constructor(_INT, _int)
    loader.add_constructor("tag:yaml.org,2002:map", _mapping)
    return loader


_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"


def _int(loader: Any, node: Any) -> int:
    text = loader.construct_scalar(node).replace("_", "")
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # "0777" is 777 in YAML 1.2 (octal 511 in 1.1)


def _mapping(loader: Any, node: Any) -> dict[Any, Any]:
    import yaml

    pairs = loader.construct_pairs(node, deep=True)
    out = dict(pairs)
    if len(out) != len(pairs):
        raise yaml.constructor.ConstructorError(None, None, "found a duplicate key", node.start_mark)
    return out


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
