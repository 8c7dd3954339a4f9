"""One way to read any recording: format 1 (YAML stream, `.yaml`/`.yaml.gz`, read whole into
memory: fine for the short training scenarios) or format 2 (`.zdash`, SQLite with keyframes:
random access, for day-long sessions). The replay feed and `zdash check --replay` see only this.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any, Protocol

from zdash.raw import Tick
from zdash.sources.session import (
    SessionError,
    SessionHeader,
    SessionReport,
    onset_of,
    read_session,
    visible_header,
)
from zdash.sources.store import StoreError, StoreReader, is_store

Keyframe = tuple[int, dict[str, Any], "dict[str, Any] | None"]


class Recording(Protocol):
    header: SessionHeader
    report: SessionReport  # what could not be read (damaged or cut-off ticks)

    def count(self) -> int: ...
    def times(self) -> list[float]: ...
    def index_at(self, t: float) -> int: ...
    def tick(self, i: int) -> Tick: ...
    def ticks(self, start: int = 0) -> Iterator[Tick]: ...
    def keyframe(self, i: int, fold: int) -> Keyframe | None: ...
    def close(self) -> None: ...


class YamlRecording:
    """Format 1: every tick in memory (the reader is a stream; seeking needs them all)."""

    def __init__(self, path: str) -> None:
        self.report = SessionReport()
        self.header, ticks = read_session(path, self.report)
        self._ticks = list(ticks)
        self._times = [t.time for t in self._ticks]

    def count(self) -> int:
        return len(self._ticks)

    def times(self) -> list[float]:
        return list(self._times)

    def index_at(self, t: float) -> int:
        return max(0, bisect.bisect_right(self._times, t) - 1)

    def tick(self, i: int) -> Tick:
        return self._ticks[i]

    def ticks(self, start: int = 0) -> Iterator[Tick]:
        return iter(self._ticks[start:])

    def keyframe(self, i: int, fold: int) -> Keyframe | None:
        return None  # format 1 has none: fold from the start

    def close(self) -> None:
        self._ticks = []


def _text(value: object) -> str | None:
    return None if value is None else str(value)


class StoreRecording:
    """Format 2: ticks and keyframes read on demand."""

    def __init__(self, path: str) -> None:
        self._store = StoreReader(path)
        self.report = SessionReport()
        m = self._store.meta
        self.header = visible_header(
            SessionHeader(
                2,
                str(m.get("created")),
                _text(m.get("host")),
                m.get("interval"),
                _text(m.get("zdash_version")),
                _text(m.get("description")),
                onset_of(m.get("onset"), path),
            )
        )

    def count(self) -> int:
        return self._store.count()

    def times(self) -> list[float]:
        return self._store.times()

    def index_at(self, t: float) -> int:
        return self._store.index_at(t)

    def tick(self, i: int) -> Tick:
        return self._store.tick(i)

    def ticks(self, start: int = 0) -> Iterator[Tick]:
        return self._store.ticks(start)

    def keyframe(self, i: int, fold: int) -> Keyframe | None:
        return self._store.keyframe(i, fold)

    def close(self) -> None:
        self._store.close()


def open_recording(path: str) -> Recording:
    """The recording at `path`, by its content (an SQLite file is format 2, else format 1).
    Raises SessionError with one line for the admin."""
    if is_store(path):
        try:
            return StoreRecording(path)
        except StoreError as e:
            raise SessionError(str(e)) from None
    return YamlRecording(path)
