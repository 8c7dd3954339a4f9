"""`zpool status -j` decoded, each pool's vdev tree taken from the last answer when its text is
the same (zdash.parse.reuse).

A pool being scrubbed or written to prints a new status every few seconds; what moves is the
scan's figures (and, while data is written, the top-level vdevs' space). The vdev tree, nearly
all of the document's 400 KB at 1,000 disks, usually reads exactly as before: decoding it again
and comparing it with the last one was most of a status answer's cost. Here the document's top
levels (the document, "pools", each pool) are walked by hand, every value decoded by json's own
reader, and a pool's "vdevs" value whose text is the same as last time, character for character,
is the object decoded then (a JSON object's text decodes to the same value wherever it stands,
so the result is what json.loads gives). Anything the walk does not expect is decoded by
json.loads whole: the same document, or the same error.
"""

from __future__ import annotations

import json
from typing import Any

from zdash.parse.reuse import Reuse

_DECODER = json.JSONDecoder()  # what json.loads uses with no arguments
_SPACE = " \t\n\r"  # JSON's whitespace (json's own WHITESPACE)


class _Unexpected(Exception):
    """Not the shape the walk reads: json.loads decodes the text instead."""


def decode(text: str, reuse: Reuse[Any]) -> Any:
    """json.loads(text), with each pool's vdev tree reused from the last pass where its text is
    unchanged; raises what json.loads raises."""
    try:
        return _Walk(text, reuse).document()
    except (_Unexpected, ValueError, RecursionError):
        return json.loads(text)


class _Walk:
    __slots__ = ("at", "reuse", "text")

    def __init__(self, text: str, reuse: Reuse[Any]) -> None:
        self.text, self.reuse, self.at = text, reuse, 0

    def _skip(self) -> None:
        text, at = self.text, self.at
        while at < len(text) and text[at] in _SPACE:
            at += 1
        self.at = at

    def _value(self) -> Any:
        value, self.at = _DECODER.raw_decode(self.text, self.at)
        return value

    def document(self) -> Any:
        self._skip()
        doc = self._object(self._top)
        self._skip()
        if self.at != len(self.text):
            raise _Unexpected  # (json.loads: "Extra data")
        return doc

    def _object(self, member: Any) -> dict[str, Any]:
        """An object whose members' values `member(key)` reads."""
        text = self.text
        if not text.startswith("{", self.at):
            raise _Unexpected
        self.at += 1
        out: dict[str, Any] = {}
        self._skip()
        if text.startswith("}", self.at):
            self.at += 1
            return out
        while True:
            if not text.startswith('"', self.at):
                raise _Unexpected
            key = self._value()
            self._skip()
            if not text.startswith(":", self.at):
                raise _Unexpected
            self.at += 1
            self._skip()
            out[key] = member(key)
            self._skip()
            if text.startswith(",", self.at):
                self.at += 1
                self._skip()
                continue
            if text.startswith("}", self.at):
                self.at += 1
                return out
            raise _Unexpected

    def _top(self, key: str) -> Any:
        if key == "pools" and self.text.startswith("{", self.at):
            return self._object(self._pool)
        return self._value()

    def _pool(self, name: str) -> Any:
        if not self.text.startswith("{", self.at):
            return self._value()
        return self._object(lambda key: self._vdevs(name) if key == "vdevs" else self._value())

    def _vdevs(self, pool: str) -> Any:
        """A pool's "vdevs": the object decoded last time when its text is the same."""
        text, start = self.text, self.at
        key = ("status -j vdevs", pool)
        known = self.reuse.known(key)
        if known is not None and text.startswith("{", start) and text.startswith(known[0], start):
            # An object's text ends where its braces close: the same characters are the same value.
            self.at = start + len(known[0])
            self.reuse.keep(key, known)
            return known[1]
        value = self._value()
        if isinstance(value, dict):
            self.reuse.keep(key, (text[start : self.at], value))
        return value
