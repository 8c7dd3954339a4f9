"""Vocabulary shared by the text and JSON `zpool status` parsers, so both give one model.

Kinds, classes, state and aux names all follow what text `zpool status` prints; the JSON
parser maps its raw enums onto them (§4.3 of docs/zfs-output-reference.md).
"""

from __future__ import annotations

import re

# The deepest real tree is root > raidz > spare-N > replacing-N > leaf (depth 4); anything
# far deeper is damaged output, and refusing it keeps Vdev.walk() far from the recursion limit.
MAX_DEPTH = 16

# Interior vdevs are named <type>-<id> (§0 "Vdev names"); dRAID: draid2:4d:1s:8c-0. Before the
# ids (Solaris 10, FreeBSD 8, ZFS on Linux 0.6.0-0.6.2) the type alone: "raidz2", "replacing".
_INTERIOR = re.compile(
    r"(mirror|raidz[1-3]?|draid[1-3]?:[0-9a-z:]*|replacing|spare|root|indirect|hole)-[0-9]{1,9}"
    r"|(mirror|raidz[1-3]?|replacing|spare)",
    re.ASCII,
)
# A dRAID distributed spare leaf: draid<parity>-<top id>-<spare id> (e.g. draid1-0-3).
_DSPARE = re.compile(r"draid[1-3]-[0-9]{1,9}-[0-9]{1,9}", re.ASCII)
_GUID = re.compile(r"[0-9]{1,20}", re.ASCII)


def kind_from_name(name: str, was: str | None = None) -> str:
    """The vdev kind as far as its printed name tells (text output has no type column)."""
    m = _INTERIOR.fullmatch(name)
    if m is not None:
        kind = m.group(1) or m.group(2)
        if kind.startswith("draid"):
            return "draid"
        return "raidz1" if kind == "raidz" else kind
    if _DSPARE.fullmatch(name):
        return "dspare"
    if was is not None and _GUID.fullmatch(name):
        return "missing"  # a device that is gone prints as its GUID plus "was <path>" (§12.13)
    if name.startswith("/") and not name.startswith("/dev/"):
        return "file"
    return "disk"


def kind_from_vdev_type(vdev_type: str, name: str) -> str:
    """JSON vdev_type to a kind: JSON says "raidz" and only the name carries the parity."""
    if vdev_type == "raidz":
        m = _INTERIOR.fullmatch(name)
        kind = (m.group(1) or m.group(2)) if m is not None else None
        return kind if kind is not None and kind != "raidz" else "raidz1"
    return vdev_type


# vdev_aux_t names (JSON "aux", lib vdev_aux_strings[]) to the words text status prints
# (print_status_config()). SPARED prints "in use by pool 'x'" when the spare serves another
# pool; JSON cannot say which, so it reads "currently in use".
AUX_TEXT = {
    "OPEN_FAILED": "cannot open",
    "CORRUPT_DATA": "corrupted data",
    "NO_REPLICAS": "insufficient replicas",
    "BAD_GUID_SUM": "missing device",
    "TOO_SMALL": "corrupted data",
    "BAD_LABEL": "invalid label",
    "VERSION_NEWER": "newer version",
    "VERSION_OLDER": "corrupted data",
    "UNSUP_FEAT": "unsupported feature(s)",
    "SPARED": "currently in use",
    "ERR_EXCEEDED": "too many errors",
    "IO_FAILURE": "experienced I/O failures",
    "BAD_LOG": "bad intent log",
    "EXTERNAL": "external device fault",
    "SPLIT_POOL": "split into new pool",
    "BAD_ASHIFT": "corrupted data",
    "EXTERNAL_PERSIST": "corrupted data",
    "ACTIVE": "currently in use",
    "CHILDREN_OFFLINE": "all children offline",
    "ASHIFT_TOO_BIG": "unsupported minimum blocksize",
}

# Raw vdev_state_t names (JSON) to text names, as zpool_state_to_name() does (§4.3).
_JSON_STATE = {"CLOSED": "OFFLINE", "CANT_OPEN": "UNAVAIL", "HEALTHY": "ONLINE"}


def text_state(raw: str, aux: str | None) -> str:
    if raw == "CANT_OPEN" and aux in ("CORRUPT_DATA", "BAD_LOG"):
        return "FAULTED"
    if raw == "CANT_OPEN" and aux == "SPLIT_POOL":
        return "SPLIT"
    return _JSON_STATE.get(raw, raw)


_MSGID = re.compile(r"ZFS-[0-9]{4}-[0-9A-Z]{2}", re.ASCII)


def msgid_in(text: str) -> str | None:
    """ZFS-8000-xx out of a `see:` URL (0.8 used zfsonlinux.org, 2.x openzfs.github.io)."""
    m = _MSGID.search(text)
    return m.group(0) if m else None


def one_line(text: str | None) -> str | None:
    """status:/action: text as one line; zpool wraps it with "\\n\\t" (text and JSON alike)."""
    if text is None:
        return None
    joined = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return joined or None
