"""`zpool version` / `zpool version -j`: the userland and kernel-module versions.

Text (0.8+): `zfs-2.3.2-2~bpo12+2` then `zfs-kmod-2.3.2-2~bpo12+2`; distributions append
their own release suffix (`-1ubuntu12`, `-FreeBSD_g...`). The two can differ; the output
format follows the userland, kernel-backed values need the kmod too (reference §0). Without a
loaded module the kmod line is missing (stderr says why): kmod None.
JSON (2.3+): {"zfs_version": {"userland": "zfs-...", "kernel": "zfs-kmod-..."}} (§4.5).
"""

from __future__ import annotations

import json
import re

from zdash.parse import ParseError

Version = tuple[int, int, int]
_VERSION = re.compile(r"zfs-(kmod-)?v?(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?(?=$|[-_.~+\s])", re.ASCII)


def _one(s: str) -> tuple[bool, Version] | None:
    m = _VERSION.match(s.strip())
    if not m:
        return None
    major, minor, patch = (int(g) if g else 0 for g in m.group(2, 3, 4))
    return bool(m.group(1)), (major, minor, patch)


def _from_json(text: str) -> list[str]:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise ParseError("zpool version -j: not valid JSON") from None
    versions = doc.get("zfs_version") if isinstance(doc, dict) else None
    if not isinstance(versions, dict):
        raise ParseError("zpool version -j: no zfs_version object")
    return [v for v in (versions.get("userland"), versions.get("kernel")) if isinstance(v, str)]


def parse_version(text: str) -> tuple[Version | None, Version | None]:
    """(userland, kmod) as (major, minor, patch); either is None when not reported."""
    if not isinstance(text, str):
        raise ParseError(f"zpool version: expected text, got {type(text).__name__}")
    lines = _from_json(text) if text.lstrip().startswith("{") else text.splitlines()
    userland = kmod = None
    for line in lines:
        found = _one(line)
        if found is None:
            continue
        is_kmod, version = found
        if is_kmod:
            kmod = kmod or version
        else:
            userland = userland or version
    if userland is None and kmod is None:
        first = text.strip().splitlines()[0][:60] if text.strip() else "empty output"
        raise ParseError(f"zpool version: no zfs-X.Y.Z line ({first!r})")
    return userland, kmod
