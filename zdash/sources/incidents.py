"""Incident recordings on disk: the files the flight recorder (zdash.feed.flight) writes, one
`.zdash` recording per incident, in one directory ($XDG_STATE_HOME/zdash/incidents by default,
0700). Here: their names, what `zdash incidents` and `zdash replay --list` say about each (read
from the file's own header), the retention by count and size, and the free-space rule.

The directory is private (zdash.safe_files.private_dir: 0700, this user's, reached through
directories no one else can change); each file is created by StoreWriter without following a
link; a file is removed only by `prune`, only files named as incidents, never through a link."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time
from dataclasses import dataclass

from zdash.resources import state_dir
from zdash.safe_files import lexists, private_dir, unlink
from zdash.sources.store import SUFFIX, StoreError, StoreReader, StoreWriter

# 20261128-031205-nas1-tank-deranged_disk.zdash: when (UTC), host, pool, check.
_NAME = re.compile(r"^\d{8}-\d{6}-[A-Za-z0-9._-]+\.zdash$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SIDECARS = ("-wal", "-shm", "-lock", "-journal")
PART = ".part"  # an incident being started: its header and the minutes before not all in yet
META_KEY = "incident"  # the recording's meta row describing the incident (JSON)


def default_dir() -> str:
    return os.path.join(state_dir(), "incidents")


def incident_name(onset: float, host: str | None, pool: str | None, check: str) -> str:
    """A file name from hostile parts (pool and host names are anyone's): only [A-Za-z0-9._-],
    each part cut short, never empty, never starting with a dot."""

    def part(text: str | None, fallback: str) -> str:
        clean = _UNSAFE.sub("_", text or "").strip("._")[:40]
        return clean or fallback

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(onset))
    return f"{stamp}-{part(host, 'host')}-{part(pool, 'host')}-{part(check, 'finding')}{SUFFIX}"


def is_incident_file(name: str) -> bool:
    return bool(_NAME.match(name))


def free_bytes(directory: str) -> int:
    st = os.statvfs(directory)
    return st.f_bavail * st.f_frsize


def file_bytes(path: str) -> int:
    """The recording and its write-ahead log (what it takes on disk while written)."""
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            total += os.path.getsize(path + suffix)
    return total


def make_dir(directory: str) -> None:
    """The incidents directory, 0700 and checked (recordings hold every pool's and disk's names,
    and root writes there): UnsafePath, an OSError with one line, when it is not private."""
    private_dir(directory)


def open_incident(
    directory: str, name: str, host: str | None, interval: float, description: str, onset: float, about: dict
) -> StoreWriter:
    """A new incident recording, under a temporary name (`.NAME.part`: no incident file, never
    listed) until `publish` gives it its own once its first ticks are in. Raises OSError /
    StoreError with one line."""
    make_dir(directory)
    writer = StoreWriter(os.path.join(directory, f".{name}{PART}"), host, interval, description, onset=onset)
    writer.set_meta(META_KEY, about)
    return writer


def publish(writer: StoreWriter, name: str) -> str:
    """The incident under its own name (a second one in the same second gets a suffix): whole
    from the first moment a reader can find it. Returns its path."""
    directory = os.path.dirname(writer.path)
    final, n = name, 1
    while lexists(os.path.join(directory, final)):
        n += 1
        final = f"{name[: -len(SUFFIX)]}-{n}{SUFFIX}"
    writer.move(final)
    return writer.path


@dataclass(frozen=True, slots=True)
class Incident:
    path: str
    onset: float | None
    host: str | None
    pool: str | None
    severity: str
    title: str
    start: float | None  # the first and last tick: the recording's span
    end: float | None
    ended: str | None  # why it ended: cleared, cap, size cap, disk full, zdash stopped; None: not yet
    recording: bool  # a zdash is writing it now
    size: int

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def state(self) -> str:
        if self.recording:
            return "recording"
        return self.ended or "cut short"


def _locked(path: str) -> bool:
    """Is a writer holding the file's lock now (a killed one leaves the sidecar, unlocked)?"""
    try:
        with open(path + "-lock", "rb") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            return False
    except OSError:
        return False


def read_incident(path: str) -> Incident | None:
    """What an incident file says about itself; None when it is not readable as one."""
    try:
        reader = StoreReader(path)
    except StoreError:
        return None
    try:
        about = reader.meta.get(META_KEY) or {}
        start, end = reader.span()
    except Exception:  # noqa: BLE001 - a damaged file is listed as unreadable, never a crash
        return None
    finally:
        reader.close()
    if not isinstance(about, dict):
        about = {}
    onset = reader.meta.get("onset")
    return Incident(
        path,
        float(onset) if isinstance(onset, (int, float)) else None,
        reader.meta.get("host"),
        about.get("pool"),
        str(about.get("severity") or "?"),
        str(about.get("title") or ""),
        start,
        end,
        about.get("ended"),
        _locked(path),
        file_bytes(path),
    )


def incident_paths(directory: str) -> list[str]:
    """The incident files in `directory`, oldest first (by name: the onset's UTC time)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in sorted(names) if is_incident_file(n)]


def list_incidents(directory: str) -> list[Incident | str]:
    """Every incident file, oldest first: its Incident, or its path when it cannot be read."""
    return [read_incident(p) or p for p in incident_paths(directory)]


def remove(path: str) -> None:
    """An incident file and its sidecars, never through a link; what is missing is skipped."""
    for suffix in ("", *_SIDECARS):
        with contextlib.suppress(OSError):
            unlink(path + suffix)


def _stale_parts(directory: str) -> list[str]:
    """Incidents a killed zdash left half-started (`.NAME.part`, nobody holding its lock)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    parts = [os.path.join(directory, n) for n in names if n.startswith(".") and n.endswith(SUFFIX + PART)]
    # and a lock moved ahead of its file by a kill between the two renames of `publish`
    parts += [
        os.path.join(directory, n[: -len("-lock")])
        for n in names
        if n.endswith(SUFFIX + "-lock") and n[: -len("-lock")] not in names
    ]
    return [p for p in parts if not _locked(p)]


def prune(directory: str, keep: int, max_bytes: int, writing: str | None = None) -> list[str]:
    """Remove the oldest incident files until at most `keep` remain and they take at most
    `max_bytes` (the one being written, `writing`, counts but is never removed), and what a
    killed zdash left half-started. Returns the paths removed."""
    for part in _stale_parts(directory):
        remove(part)
    paths = incident_paths(directory)
    sizes = {p: file_bytes(p) for p in paths}
    total = sum(sizes.values())
    removed: list[str] = []
    for p in paths:
        if len(paths) - len(removed) <= keep and total <= max_bytes:
            break
        if p == writing:
            continue
        remove(p)
        total -= sizes[p]
        removed.append(p)
    return removed


def describe_ended(writer: StoreWriter, about: dict, why: str) -> None:
    """Say in the file why its recording ended (kept in its meta: `zdash incidents` reads it)."""
    writer.set_meta(META_KEY, {**about, "ended": why})
