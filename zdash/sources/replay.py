"""The replay source: a recording's ticks (either format), lazily."""

from __future__ import annotations

from collections.abc import Generator

from zdash.raw import Tick
from zdash.sources.recording import open_recording
from zdash.sources.session import SessionHeader, read_session
from zdash.sources.store import is_store


def replay_ticks(path: str) -> tuple[SessionHeader, Generator[Tick, None, None]]:
    """The header now, the ticks lazily, never loaded whole; closing the generator (or reading
    it to the end) closes the file."""
    if is_store(path):
        rec = open_recording(path)

        def ticks() -> Generator[Tick, None, None]:
            try:
                yield from rec.ticks()
            finally:
                rec.close()

        return rec.header, ticks()
    return read_session(path)
