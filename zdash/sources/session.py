"""The session file: a recording of raw samples, tick by tick.

Format (version 1), a YAML stream of documents, gzip-compressed when the name ends in .gz:
  document 1, the header:  zdash_session: 1, created (ISO UTC), host, interval (s),
                           zdash_version, description (optional: what a trainee should look for)
  each further document, one tick:  t (epoch s), samples: a list of
      {key, argv (list), rc (int | null), time, duration, error (str | null), stdout, stderr}
Outputs are stored verbatim (literal blocks where YAML allows, quoted escapes otherwise).
Ticks are appended and flushed one document at a time, so a recording cut short by a crash or
Ctrl-C is still readable up to its last complete tick.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import io
import re
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import IO, Literal

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

from zdash.raw import RawSample, Tick

FORMAT_VERSION = 1
# YAML's printable set minus its other line breaks (\r, NEL, U+2028/9) and the BOM: a literal
# block would normalise those; such outputs are stored as escaped double-quoted strings.
_NOT_LITERAL = re.compile(
    "[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


class SessionError(Exception):
    """A session file we cannot read; str() is one line for the admin."""


@dataclass(frozen=True, slots=True)
class SessionHeader:
    version: int
    created: str
    host: str | None
    interval: float | None
    zdash_version: str | None = None
    description: str | None = None


def _text(s: str) -> str:
    if not s:
        return s
    # Double quotes escape everything YAML would otherwise fold (\N, \L, \r, \0...).
    return DoubleQuotedScalarString(s) if _NOT_LITERAL.search(s) else LiteralScalarString(s)


def _open(path: str, mode: Literal["r", "w"]) -> IO[str]:
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb" if mode == "r" else "wb"), encoding="utf-8")
    return open(path, mode, encoding="utf-8")


class SessionWriter:
    def __init__(
        self,
        path: str,
        host: str | None,
        interval: float | None,
        description: str | None = None,
        created: str | None = None,
    ) -> None:
        from zdash import __version__

        self._f = _open(path, "w")
        self._yaml = YAML()
        self._yaml.width = 1 << 20  # never fold long lines (status JSON is one line)
        self._f.write(f"# zdash session, format {FORMAT_VERSION} (see README, 'Session files')\n")
        created = created or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        header: dict[str, object] = {
            "zdash_session": FORMAT_VERSION,
            "created": created,
            "host": host,
            "interval": interval,
            "zdash_version": __version__,
        }
        if description:
            header["description"] = _text(description)
        self._dump(header)

    def _dump(self, doc: Mapping[str, object]) -> None:
        self._f.write("---\n")
        self._yaml.dump(doc, self._f)
        self._f.flush()

    def write(self, tick: Tick) -> None:
        self._dump(
            {
                "t": tick.time,
                "samples": [
                    {
                        "key": s.key,
                        "argv": list(s.argv),
                        "rc": s.rc,
                        "time": s.time,
                        "duration": round(s.duration, 6),
                        "error": s.error,
                        "stdout": _text(s.stdout),
                        "stderr": _text(s.stderr),
                    }
                    for s in tick.samples
                ],
            }
        )

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _sample(d: object) -> RawSample:
    """A sample as read back from YAML; TypeError/KeyError/ValueError on a damaged one."""
    if not isinstance(d, dict):
        raise TypeError("a sample is not a mapping")
    argv, rc, error = d["argv"], d.get("rc"), d.get("error")
    if not isinstance(argv, list) or (rc is not None and not isinstance(rc, int)):
        raise TypeError("a sample's argv is not a list or its rc not an integer")
    return RawSample(
        str(d["key"]),
        tuple(str(a) for a in argv),
        rc,
        _output(d.get("stdout")),
        _output(d.get("stderr")),
        _seconds(d.get("time")),
        _seconds(d.get("duration")),
        None if error is None else str(error),
    )


def _output(value: object) -> str:
    if not value:
        return ""
    if not isinstance(value, str):
        raise TypeError("a sample's output is not text")
    return value


def _seconds(value: object) -> float:
    if not value:
        return 0.0
    if not isinstance(value, (int, float, str)):
        raise TypeError("a sample's time is not a number")
    return float(value)


def _optional_str(value: object) -> str | None:
    return None if value is None else str(value)


def read_session(path: str) -> tuple[SessionHeader, Generator[Tick, None, None]]:
    """Header now, ticks lazily. A truncated last tick ends the iteration quietly."""
    try:
        f = _open(path, "r")
        docs = YAML(typ="safe").load_all(f)
        head = next(docs, None)
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise SessionError(f"cannot read session {path}: {e}") from None
    except YAMLError as e:
        raise SessionError(f"{path} is not a zdash session (YAML error: {str(e).splitlines()[0]})") from None
    if not isinstance(head, dict) or "zdash_session" not in head:
        raise SessionError(f"{path} is not a zdash session (no zdash_session header)")
    if head["zdash_session"] != FORMAT_VERSION:
        raise SessionError(
            f"{path}: session format {head['zdash_session']} is not supported "
            f"(this zdash reads format {FORMAT_VERSION})"
        )
    interval = head.get("interval")
    header = SessionHeader(
        FORMAT_VERSION,
        str(head.get("created")),
        _optional_str(head.get("host")),
        interval if isinstance(interval, (int, float)) and not isinstance(interval, bool) else None,
        _optional_str(head.get("zdash_version")),
        _optional_str(head.get("description")),
    )

    def ticks() -> Generator[Tick, None, None]:
        try:
            for doc in docs:
                if not isinstance(doc, dict) or "t" not in doc:
                    continue
                yield Tick(float(doc["t"]), tuple(_sample(s) for s in doc.get("samples") or ()))
        except (YAMLError, EOFError, OSError, KeyError, TypeError, ValueError):
            return  # a recording cut short: everything before the damage has been yielded
        finally:
            f.close()

    return header, ticks()
