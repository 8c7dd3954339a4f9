"""The checks' memory as plain JSON, for recording keyframes: a replay that seeks restores the
check engine exactly as it stood, instead of folding every snapshot since the start.

The trackers keep small, plain state (dataclasses, deques, dicts with tuple keys, numbers and
strings). This codec writes those as tagged JSON and reads back only what it wrote: dataclasses
are rebuilt from an allowlist of zdash's own types (by module and name), never imported by a
name found in the file, so a recording from elsewhere cannot make zdash run code.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections import deque
from typing import Any

from zdash.checks import (
    _deranged_samples,
    capacity,
    deranged_disk,
    finding,
    imbalance,
    media_mix,
    scan,
)
from zdash.checks.health import memory as health_memory

# The dataclasses a tracker's state may hold: every one is a plain record of values.
_TYPES: dict[str, type] = {
    f"{cls.__module__}.{cls.__qualname__}": cls
    for cls in (
        deranged_disk._Leaf,
        deranged_disk._PoolIo,
        _deranged_samples.LeafSample,
        health_memory.Leaf,
        health_memory.PoolMemory,
        imbalance._Vdev,
        imbalance._Pool,
        media_mix._Vdev,
        finding.Finding,
        finding.SuggestedAction,
    )
}
_ENUMS: dict[str, type[enum.Enum]] = {"Severity": finding.Severity}
del capacity, scan  # their state is deques and dicts only


class StateError(ValueError):
    """A keyframe that cannot be read back (another zdash, a damaged file)."""


def encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"e": type(value).__name__, "v": value.value}
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"l": [encode(v) for v in value]}
    if isinstance(value, deque):
        return {"q": [encode(v) for v in value], "m": value.maxlen}
    if isinstance(value, dict):
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = f"{type(value).__module__}.{type(value).__qualname__}"
        if name not in _TYPES:
            raise StateError(f"cannot keep {name} in a keyframe")
        return {"c": name, "f": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise StateError(f"cannot keep a {type(value).__name__} in a keyframe")


def decode(data: Any) -> Any:
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise StateError("damaged keyframe")
    if "t" in data:
        return tuple(decode(v) for v in data["t"])
    if "l" in data:
        return [decode(v) for v in data["l"]]
    if "q" in data:
        return deque((decode(v) for v in data["q"]), maxlen=data.get("m"))
    if "d" in data:
        out = {}
        for pair in data["d"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise StateError("damaged keyframe")
            out[decode(pair[0])] = decode(pair[1])
        return out
    if "e" in data:
        cls = _ENUMS.get(data["e"])
        if cls is None:
            raise StateError(f"unknown value kind {data['e']!r} in a keyframe")
        return cls(data["v"])
    if "c" in data:
        cls = _TYPES.get(data["c"])
        if cls is None or not isinstance(data.get("f"), dict):
            raise StateError(f"unknown record {data['c']!r} in a keyframe")
        try:
            return cls(**{k: decode(v) for k, v in data["f"].items()})
        except TypeError as e:
            raise StateError(f"keyframe record {data['c']}: {e}") from None
    raise StateError("damaged keyframe")


def dumps(value: Any) -> str:
    return json.dumps(encode(value), separators=(",", ":"))


def loads(text: str) -> Any:
    try:
        return decode(json.loads(text))
    except (json.JSONDecodeError, RecursionError) as e:
        raise StateError(f"damaged keyframe: {e}") from None
