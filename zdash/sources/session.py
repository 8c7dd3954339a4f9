"""The session file: a recording of raw samples, tick by tick.

Format (version 1), a YAML stream of documents, gzip-compressed when the name ends in .gz:
  document 1, the header:  zdash_session: 1, created (ISO UTC), host, interval (s),
                           zdash_version, description (optional: what a trainee should look for),
                           onset (optional: epoch s at which the recorded incident begins: the
                           fault injected, or the action that reveals it; the replay bar marks it)
  each further document, one tick:  t (epoch s), samples: a list of
      {key, argv (list), rc (int | null), time, duration, error (str | null), stdout, stderr}
Outputs are stored verbatim (literal blocks where YAML allows, quoted escapes otherwise).

Crash safety: every document is appended and flushed on its own, and in a `.gz` file each one
is its own gzip member (concatenated members are one valid gzip file: `zcat` reads it), so a
writer killed mid-tick (SIGKILL, a dropped ssh session) leaves every earlier tick decodable.
The reader decodes member by member and parses document by document: a damaged tick (a bad byte,
a malformed field) is skipped and counted, never the end of the file. One writer at a time (an
exclusive lock); `SessionReport` says what could not be read.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field, replace

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

from zdash.raw import RawSample, Tick
from zdash.safe_files import create_stream, write_atomic
from zdash.visible import visible, visible_text
from zdash.yaml_doc import load_recording_document

FORMAT_VERSION = 1
# YAML's printable set minus its other line breaks (\r, NEL, U+2028/9) and the BOM: a literal
# block would normalise those; such outputs are stored as escaped double-quoted strings.
_NOT_LITERAL = re.compile(
    "[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


class SessionError(Exception):
    """A session file we cannot read; str() is one line for the admin."""


def exists_message(path: str) -> str:
    """Why a recording is not written over an existing file (both formats say it the same)."""
    return f"{path} already exists: zdash never overwrites a recording (choose another name, or pass --force)"


@dataclass(frozen=True, slots=True)
class SessionHeader:
    version: int
    created: str
    host: str | None
    interval: float | None
    zdash_version: str | None = None
    description: str | None = None
    onset: float | None = None  # epoch s: when the recorded incident begins (training scenarios)


def visible_header(h: SessionHeader) -> SessionHeader:
    """The header's text as the model may hold it (zdash.visible): a recording may come from
    anywhere, and its description and host are shown (the about panel, summary, the status bar)."""
    return replace(
        h,
        created=visible(h.created),
        host=visible(h.host) if h.host else h.host,
        zdash_version=visible(h.zdash_version) if h.zdash_version else h.zdash_version,
        description=visible_text(h.description) if h.description else h.description,
    )


@dataclass
class SessionReport:
    """What reading a recording could not use, for the admin (filled in as ticks are read)."""

    read: int = 0
    damaged: list[str] = field(default_factory=list)  # "tick 3: unreadable (...), skipped"
    truncated: str | None = None  # why the file ends early, if it does

    def summary(self) -> str | None:
        if not self.damaged and not self.truncated:
            return None
        parts = []
        if self.damaged:
            parts.append(
                f"{len(self.damaged)} of {self.read + len(self.damaged)} ticks unreadable, skipped "
                f"({self.damaged[0]}{'; …' if len(self.damaged) > 1 else ''})"
            )
        if self.truncated:
            parts.append(self.truncated)
        return "; ".join(parts)


MAX_DOCUMENT = 64 << 20  # one tick's text: far beyond any real one (a 5,000-disk status is ~5 MB)


def _text(s: str) -> str:
    if not s:
        return s
    # Double quotes escape everything YAML would otherwise fold (\N, \L, \r, \0...).
    return DoubleQuotedScalarString(s) if _NOT_LITERAL.search(s) else LiteralScalarString(s)


class SessionWriter:
    def __init__(
        self,
        path: str,
        host: str | None,
        interval: float | None,
        description: str | None = None,
        created: str | None = None,
        *,
        force: bool = False,
        onset: float | None = None,
    ) -> None:
        """Refuses an existing file (FileExistsError, one line) unless `force`."""
        from zdash import __version__

        self.path = path
        self._gz = path.endswith(".gz")
        # zdash.safe_files.create_stream: never through a link; with force a fresh file renamed
        # over the old one, unless another zdash still writes that one (its lock is held).
        try:
            fd = create_stream(
                path, force=force, busy=f"{path} is being written by another zdash: refusing a second writer"
            )
        except FileExistsError:
            raise FileExistsError(exists_message(path)) from None
        self._f = os.fdopen(fd, "wb")
        self._yaml = YAML()
        self._yaml.width = 1 << 20  # never fold long lines (status JSON is one line)
        self._raw(f"# zdash session, format {FORMAT_VERSION} (see docs/recordings.md)\n")
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
        if onset is not None:
            header["onset"] = onset
        self._dump(header)

    def _raw(self, text: str) -> None:
        data = text.encode("utf-8")
        # One gzip member per document: whatever is cut off, the members before it decode.
        self._f.write(gzip.compress(data, mtime=0) if self._gz else data)
        self._f.flush()

    def _dump(self, doc: Mapping[str, object]) -> None:
        buf = io.StringIO()
        buf.write("---\n")
        self._yaml.dump(doc, buf)
        self._raw(buf.getvalue())

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


def onset_of(value: object, path: str) -> float | None:
    """A header's onset: absent (every recording made before it existed), or epoch seconds."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e11:
        raise SessionError(f"{path}: the header's onset {value!r} is not a time (epoch seconds)")
    return float(value)


_MEMBER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00"  # how each member the writer makes begins
# Decoded bytes: a member beyond this is handed over in pieces. Read compressed in READ blocks.
# Small on purpose: a 1 MiB piece and 1 MiB reads (each a few copies in flight: the block, the
# decoded bytes, their text, the document they join) left the reader of a file gzipped whole at
# 61 MB peak for 780 ticks of a 100-leaf host against 53 MB for 78 (glibc keeps the freed
# megabytes); 128 KiB pieces from 64 KiB reads: 49.6 against 48.7 MB, the same CPU.
CHUNK = 128 << 10
READ = 64 << 10


def _chunks(path: str, report: SessionReport) -> Generator[str, None, None]:
    """The file's text in pieces: a `.gz` decoded member by member, each handed over once whole
    (a damaged member is skipped to the next member's start and counted; one cut short by a
    killed writer ends the file with everything before it kept), except a member larger than
    CHUNK, handed over as it decodes: a file gzipped whole (`gzip rec.yaml`) is one member, and
    held whole it took the whole text in memory (peak RSS 3x for 10x the ticks); plain files as
    they are. No piece decodes to more than CHUNK at once, whatever the compression ratio.
    Invalid UTF-8 becomes lone surrogates, which the YAML reader refuses: the tick holding them
    is counted as damaged, never silently altered."""
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the generator
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            f.close()
            raise SessionError(f"{path} is not a regular file: not a zdash session")
    except OSError as e:
        raise SessionError(f"cannot read session {path}: {e.strerror or e}") from None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    with f:
        gz = f.read(2) == b"\x1f\x8b"
        f.seek(0)
        if not gz:
            while block := f.read(READ):
                yield decoder.decode(block)
            yield decoder.decode(b"", final=True)
            return
        z, inside, skipping, data = zlib.decompressobj(wbits=31), False, False, b""
        member: list[bytes] = []
        while block := f.read(READ):
            data += block
            while data:
                if skipping:  # after a damaged member: the next one's header
                    at = data.find(_MEMBER)
                    if at < 0:
                        data = data[-(len(_MEMBER) - 1) :]
                        break
                    data, skipping = data[at:], False
                    z, member = zlib.decompressobj(wbits=31), []
                try:
                    member.append(z.decompress(data, CHUNK))
                    inside = True
                except zlib.error as e:
                    report.damaged.append(f"compressed data damaged ({e}), skipped to the next tick")
                    data, skipping, inside = data[1:], True, False
                    continue
                if z.eof:  # one member (one document) complete; the next starts in the rest
                    yield decoder.decode(b"".join(member))
                    data, z, member, inside = z.unused_data, zlib.decompressobj(wbits=31), [], False
                    continue
                data = z.unconsumed_tail  # what CHUNK of output left undecoded
                if sum(map(len, member)) >= CHUNK:  # not one of the writer's: a file gzipped whole
                    yield decoder.decode(b"".join(member))
                    member = []
        if inside:
            # Cut short inside a member: what it decoded so far is handed over all the same. The
            # writer's members are one tick each (that tick is then cut off and said so), but a
            # file gzipped whole (`gzip session.yaml`) is one member: zcat recovers every
            # complete tick before the cut, and so must zdash (it read none).
            report.truncated = "the last tick was cut off (the writer stopped mid-tick)"
            yield decoder.decode(b"".join(member))
        yield decoder.decode(b"", final=True)


def _documents(path: str, report: SessionReport) -> Generator[str, None, None]:
    """YAML documents as text, split at the `---` lines the writer puts before each: the
    writer never writes `---` at the start of a line inside a document (literal blocks are
    indented, other strings escaped). Each piece is searched once: a document larger than a
    piece (a 5,000-disk tick is ~5 MB) is kept as its pieces and joined once, not searched again
    from its start as each piece arrives."""
    doc: list[str] = []  # the document being read, in pieces
    size = 0
    tail = ""  # its last 4 characters: a separator may straddle two pieces
    first = True  # a file may start with its separator (the writer's begins with a comment)
    for chunk in _chunks(path, report):
        joined = tail + chunk
        parts = joined.split("\n---\n")  # str.split: a regex with ^ took ~15 ms a megabyte
        if len(parts) == 1:
            doc.append(chunk)
            size += len(chunk)
            tail = joined[-4:]
        else:
            # parts[0] starts with `tail`, already in `doc` (or with the start of it, when the
            # separator began inside it): the document is what came before `tail`, then parts[0].
            text = "".join(doc)
            parts[0] = text[: len(text) - len(tail)] + parts[0]
            if first:
                parts[0], first = parts[0].removeprefix("---\n"), False
            for text in parts[:-1]:
                if _has_content(text):
                    yield text + "\n"
            doc, size, tail = [parts[-1]], len(parts[-1]), parts[-1][-4:]
        if size > MAX_DOCUMENT:
            report.truncated = f"a document over {MAX_DOCUMENT >> 20} MiB: not a zdash recording from here on"
            return
    # A compressed file cut short (_chunks says so): its last document is the one cut, even when
    # what is left of it still reads as YAML (a literal block cut mid-line does): never a tick.
    pending = "".join(doc)
    if first:
        pending = pending.removeprefix("---\n")
    if _has_content(pending) and not report.truncated:
        yield pending


def _has_content(doc: str) -> bool:
    """Not only blank lines and comments (the file's first line is a comment). A tick's first
    line (`t: ...`) says so: the rest of its lines are split only when that one does not."""
    end = doc.find("\n") + 1
    return _content_in(doc[:end] or doc) or (0 < end < len(doc) and _content_in(doc))


def _content_in(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def _load(text: str) -> object:
    return load_recording_document(text, MAX_DOCUMENT)


def read_session(
    path: str, report: SessionReport | None = None
) -> tuple[SessionHeader, Generator[Tick, None, None]]:
    """Header now, ticks lazily. A damaged tick is skipped and counted in `report`; a file cut
    short ends the iteration after its last complete tick."""
    report = report if report is not None else SessionReport()
    docs = _documents(path, report)
    try:
        first = next(docs, None)
        head = _load(first) if first is not None else None
    except ValueError as e:
        raise SessionError(f"{path} is not a zdash session (YAML error: {str(e).splitlines()[0]})") from None
    if not isinstance(head, dict) or "zdash_session" not in head:
        raise SessionError(f"{path} is not a zdash session (no zdash_session header)")
    # "1" as well as 1: a header edited by hand, or written by another YAML tool, may quote it
    # (zdash said "format 1 is not supported (this zdash reads format 1)").
    if isinstance(head["zdash_session"], bool) or str(head["zdash_session"]).strip() != str(FORMAT_VERSION):
        raise SessionError(
            f"{path}: session format {head['zdash_session']!r:.40} is not supported "
            f"(this zdash reads format {FORMAT_VERSION})"
        )
    interval = head.get("interval")
    if interval is not None and (
        isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 < interval < 86400
    ):
        raise SessionError(f"{path}: the header's interval {interval!r} is not a number of seconds")
    header = visible_header(
        SessionHeader(
            FORMAT_VERSION,
            str(head.get("created")),
            _optional_str(head.get("host")),
            float(interval) if interval is not None else None,
            _optional_str(head.get("zdash_version")),
            _optional_str(head.get("description")),
            onset_of(head.get("onset"), path),
        )
    )

    def ticks() -> Generator[Tick, None, None]:
        n = 0
        nxt = next(docs, None)
        while nxt is not None:
            doc, nxt = nxt, next(docs, None)
            n += 1
            try:
                data = _load(doc)
                if not isinstance(data, dict) or "t" not in data:
                    raise ValueError("not a tick")
                samples = data.get("samples") or ()
                if not isinstance(samples, list):
                    raise TypeError("samples is not a list")
                tick = Tick(float(data["t"]), tuple(_sample(s) for s in samples))
            except (KeyError, TypeError, ValueError) as e:
                if nxt is None and not doc.endswith("\n"):
                    report.truncated = "the last tick was cut off (the writer stopped mid-tick)"
                    return
                report.damaged.append(f"tick {n}: unreadable ({' '.join(str(e).split())[:80]})")
                continue
            report.read += 1
            yield tick

    return header, ticks()


def set_onset(path: str, onset: float) -> None:
    """Write `onset` into the header of the format-1 file at `path`, every tick's text left as it
    was. The header is written before the first tick, but a scenario learns when its fault
    begins only while it records (fixtures/make_fixtures.py calls this at the end)."""
    set_header(path, onset=round(onset, 3))


def set_description(path: str, description: str) -> None:
    """Replace the description in the header of the format-1 file at `path` (a bundled
    scenario's, when its story is retold: zdash.scenarios holds the words), every tick's text
    left as it was."""
    set_header(path, description=_text(description))


def set_header(path: str, **fields: object) -> None:
    """Set header fields of the format-1 file at `path`, every tick's text left as it was. The
    file is replaced atomically (written beside it, then renamed)."""
    with open(path, "rb") as f:
        data = f.read()
    gz = data[:2] == b"\x1f\x8b"
    members: list[tuple[bytes, str]] = []  # (as stored, its text): a .gz is one or more members
    while gz and data:
        z = zlib.decompressobj(wbits=31)
        text = z.decompress(data)
        members.append((data[: len(data) - len(z.unused_data)], text.decode("utf-8")))
        data = z.unused_data
    if not gz:
        members = [(data, data.decode("utf-8"))]
    at = next((i for i, (_, t) in enumerate(members) if re.search(r"(?m)^zdash_session:", t)), None)
    if at is None:
        raise SessionError(f"{path} is not a zdash session (no zdash_session header)")
    docs = re.split(r"(?m)(?=^---\n)", members[at][1])
    k = next(i for i, d in enumerate(docs) if re.search(r"(?m)^zdash_session:", d))
    yaml = YAML()  # round trip: the description keeps its literal block
    yaml.width = 1 << 20
    head = yaml.load(docs[k])
    head.update(fields)
    buf = io.StringIO()
    buf.write("---\n")
    yaml.dump(head, buf)
    docs[k] = buf.getvalue()
    text = "".join(docs).encode("utf-8")
    new = gzip.compress(text, mtime=0) if gz else text
    out = b"".join(new if i == at else raw for i, (raw, _) in enumerate(members))
    write_atomic(path, out, mode=0o644)
