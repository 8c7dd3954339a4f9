"""The recording format for long sessions (format 2, files ending in `.zdash`): an SQLite
database of raw ticks with periodic keyframes.

Why SQLite (stdlib `sqlite3`), as dolphie records its replays:
- random access by time: `ticks(seq, t, samples)` with an index on t, so the first frame reads
  one row and a seek reads a keyframe and the few ticks after it, whatever the file's length;
- crash-safe appends: one transaction per tick in WAL mode; a killed writer (SIGKILL, a dropped
  ssh session) loses at most the tick it was writing, and the file needs no repair;
- readable while it is being written: WAL readers see every committed tick (rewind a live
  recording);
- compact: each tick's samples are JSON compressed with zlib (raw outputs repeat a lot).

Raw samples stay the truth, as in format 1: a parser fix applies to old recordings. Keyframes
are a cache of the fold's state (zdash.builder.SnapshotBuilder.checkpoint and
zdash.checks.registry.CheckEngine.checkpoint) every `keyframe_every` ticks, tagged with the
fold that wrote them (`fold`: zdash.fold.fold_key, the fold version and the digest of the config
it judged with); a reader asks only for keyframes of its own key, so one of another version or
other thresholds folds from the start instead (slow but exact; `zdash convert` rewrites them).

Schema:
  meta(key TEXT PRIMARY KEY, value TEXT)          format, created, host, interval, zdash_version,
                                                  description, onset (optional), incident (the
                                                  flight recorder's: zdash.sources.incidents)
  ticks(seq INTEGER PRIMARY KEY, t REAL, samples BLOB)
  keyframes(seq INTEGER PRIMARY KEY, t REAL, fold INTEGER, builder BLOB, checks BLOB)

Nothing is written through a link (zdash.safe_files): the file and its lock are created without
following one, leftover SQLite journals (-wal, -shm, -journal) are refused (with --force
removed, links and all, never followed), and once SQLite has opened the file by its name zdash
checks that it holds the very file zdash created, before anything is written into it.

A second writer is refused (an exclusive flock for the writer's life on a sidecar, FILE-lock:
on NFS and 9p the kernel emulates flock with the same byte-range locks SQLite takes, so a
flock on the database itself made every write there fail with "database is locked"); an
existing file is never overwritten unless asked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import fcntl
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import zlib
from collections.abc import Iterator
from typing import Any

from zdash.raw import RawSample, Tick
from zdash.safe_files import UnsafePath, create_new, lexists, move_new, open_lock, opened_elsewhere, unlink
from zdash.sources.session import exists_message

FORMAT = "zdash-recording"
FORMAT_VERSION = 2
SUFFIX = ".zdash"
KEYFRAME_EVERY = 60  # ticks: the most a seek ever folds
# What folding from a keyframe to any tick should cost at most (CPU of the recorder's own fold).
# A seek also restores the keyframe (~30 ms at 100 leaves) and reads the ticks: with 0.05 a
# 1 h file's worst seek was 95 ms, at the edge of the 100 ms a seek should take.
WAL_LIMIT = 512 << 10  # bytes the write-ahead log is cut back to at each checkpoint
SEEK_BUDGET_S = 0.035
KEYFRAME_SHARE = 0.2  # keyframes may add at most this fraction to the recorder's fold CPU
JOURNALS = ("-wal", "-shm", "-journal")  # what SQLite keeps beside a database


class KeyframePolicy:
    """When to write a keyframe. Often enough that a seek folds at most SEEK_BUDGET_S worth of
    ticks on this pool, but not so often that keyframes cost more than KEYFRAME_SHARE of the
    recorder's fold (a keyframe, the fold's whole state serialised, costs two or three ticks);
    never more than KEYFRAME_EVERY apart, never closer than 5. Both costs are measured as the
    recording runs (running means of seconds per fold and per keyframe)."""

    def __init__(self) -> None:
        self.cost = 0.0  # seconds per tick of fold + checks
        self.keyframe_cost = 0.0  # seconds per keyframe (checkpoint and compression)
        self.since = 0

    @staticmethod
    def _mean(old: float, new: float) -> float:
        return new if old == 0.0 else 0.9 * old + 0.1 * new

    def observe(self, seconds: float) -> None:
        self.cost = self._mean(self.cost, seconds)

    def observe_keyframe(self, seconds: float) -> None:
        self.keyframe_cost = self._mean(self.keyframe_cost, seconds)

    @property
    def gap(self) -> int:
        if self.cost <= 0:
            return KEYFRAME_EVERY
        by_seek = SEEK_BUDGET_S / self.cost
        by_cost = self.keyframe_cost / (KEYFRAME_SHARE * self.cost)
        return max(5, min(KEYFRAME_EVERY, int(max(by_seek, by_cost))))

    def due(self) -> bool:
        """Called once per tick before it is written; True: write a keyframe with this tick."""
        self.since += 1
        if self.since > self.gap:
            self.since = 1
            return True
        return False


class StoreError(Exception):
    """A recording that cannot be opened or written; str() is one line for the admin."""


def _pack(value: Any, level: int = 6) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"), level)


def _unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob).decode("utf-8"))


def _sample_row(s: RawSample) -> list[Any]:
    return [s.key, list(s.argv), s.rc, s.stdout, s.stderr, s.time, round(s.duration, 6), s.error]


def _sample(row: list[Any]) -> RawSample:
    key, argv, rc, stdout, stderr, t, duration, error = row
    return RawSample(
        str(key), tuple(str(a) for a in argv), rc, str(stdout), str(stderr), float(t), float(duration), error
    )


def pack_tick(tick: Tick, level: int = 6) -> bytes:
    """A tick's samples as a `ticks.samples` blob (the flight recorder keeps its ring in this
    form, at a faster zlib level: an incident's minutes before go into the file as they are)."""
    return _pack([_sample_row(s) for s in tick.samples], level)


def unpack_tick(t: float, blob: bytes) -> Tick:
    return Tick(float(t), tuple(_sample(r) for r in _unpack(blob)))


def is_store(path: str) -> bool:
    """Does the file start like an SQLite database (whatever its name)?"""
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


class StoreWriter:
    """Appends ticks (and keyframes) to a new recording. Not thread-safe: one writer thread."""

    def __init__(
        self,
        path: str,
        host: str | None,
        interval: float | None,
        description: str | None = None,
        *,
        force: bool = False,
        created: str | None = None,
        onset: float | None = None,
    ) -> None:
        from zdash import __version__

        if lexists(path) and not force:
            raise StoreError(exists_message(path))
        self.path = path
        self._lock_path = path + "-lock"
        try:
            self._lock = open_lock(self._lock_path)
        except UnsafePath as e:
            raise StoreError(str(e)) from None
        except OSError as e:
            raise StoreError(f"cannot write {path}: {e.strerror or e}") from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock)
            raise StoreError(f"{path} is being written by another zdash: refusing a second writer") from None
        new_fd = -1
        try:
            for suffix in ("", *JOURNALS):
                if force:
                    unlink(path + suffix)  # a link itself, never what it points to
                elif suffix and lexists(path + suffix):
                    raise StoreError(
                        f"{path}{suffix} exists (left by another recording): remove it, or record with --force"
                    )
            try:
                new_fd = create_new(path)
            except FileExistsError:
                raise StoreError(exists_message(path)) from None
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            if not opened_elsewhere(new_fd):
                self._db.close()
                raise StoreError(f"{path} was replaced while it was being opened: refusing to write it")
            os.close(new_fd)
            new_fd = -1
            self._wal()
            self._db.executescript(
                "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
                "CREATE TABLE IF NOT EXISTS ticks(seq INTEGER PRIMARY KEY, t REAL NOT NULL, samples BLOB NOT NULL);"
                "CREATE INDEX IF NOT EXISTS ticks_t ON ticks(t);"
                "CREATE TABLE IF NOT EXISTS keyframes(seq INTEGER PRIMARY KEY, t REAL NOT NULL, fold INTEGER NOT NULL,"
                " builder BLOB NOT NULL, checks BLOB);"
            )
            created = created or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            meta = {
                "format": FORMAT,
                "format_version": str(FORMAT_VERSION),
                "created": created,
                "host": host,
                "interval": interval,
                "zdash_version": __version__,
                "description": description,
            }
            if onset is not None:
                meta["onset"] = round(onset, 3)
            self._db.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
            )
        except StoreError:
            self._release(new_fd)
            raise
        except (sqlite3.Error, OSError) as e:
            self._release(new_fd)
            raise StoreError(
                f"cannot write {path}: {e.strerror if isinstance(e, OSError) and e.strerror else e}"
            ) from None
        self.count = 0
        self.keyframes = KeyframePolicy()
        # Where each raw sample went (key, time) -> (tick, position): a keyframe refers to the
        # tick that holds a slow command's output instead of storing it again.
        self._placed: dict[tuple[str, float], tuple[int, int]] = {}

    def _wal(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable against a killed process
        # The write-ahead log folded back every 512 KiB and cut back to that after: a tick per
        # transaction adds whole pages, and left alone the log grew to 4 MiB beside a 200 KiB
        # recording (what the flight recorder's size cap counts).
        self._db.execute("PRAGMA wal_autocheckpoint=128")
        self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")

    def move(self, new_name: str) -> None:
        """Go on under `new_name` in the same directory (never over an existing file): what is
        written so far is folded into the file itself first, so a reader of the new name finds
        it whole. The flight recorder writes an incident's header and minutes before under a
        temporary name and moves it once they are in: a kill never leaves a half-made incident.
        The lock moves with it, held all along."""
        # Closed in WAL mode, the log folded in and removed (its name follows the file's): the
        # file alone is whole, and it stays in WAL mode, so reopening it switches nothing (a
        # switch of journal modes writes a rollback journal, and a kill then left one that no
        # read-only reader can roll back).
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()
        except sqlite3.Error as e:
            raise OSError(f"cannot write {self.path}: {e}") from None
        self._lock_path = move_new(self._lock_path, new_name + "-lock")
        try:
            self.path = move_new(self.path, new_name)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._wal()
        except sqlite3.Error as e:
            raise OSError(f"cannot write {self.path}: {e}") from None

    def _by_reference(self, builder: dict[str, Any]) -> dict[str, Any]:
        slots = {}
        for key, slot in builder.get("slots", {}).items():
            raw = slot.get("raw")
            where = self._placed.get((raw["key"], raw["time"])) if raw else None
            slots[key] = {**slot, "raw": None, "ref": list(where)} if where else slot
        return {**builder, "slots": slots}

    def write(
        self, tick: Tick, keyframe: tuple[int, dict[str, Any], dict[str, Any] | None] | None = None
    ) -> None:
        """One tick, in its own transaction; with the fold's state after it when given
        (fold version, builder checkpoint, check engine checkpoint)."""
        try:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO ticks(seq, t, samples) VALUES (?, ?, ?)",
                (self.count, tick.time, pack_tick(tick)),
            )
            if keyframe is not None:
                fold, builder, checks = keyframe
                builder = self._by_reference(builder)
                self._db.execute(
                    "INSERT OR REPLACE INTO keyframes VALUES (?, ?, ?, ?, ?)",
                    (self.count, tick.time, fold, _pack(builder), _pack(checks) if checks else None),
                )
            self._db.execute("COMMIT")
            self.placed(self.count, tick)
        except sqlite3.Error as e:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise OSError(f"cannot write tick {self.count} to {self.path}: {e}") from None
        self.count += 1

    def write_packed(self, ticks: Iterator[tuple[float, bytes]]) -> int:
        """Ticks already packed (pack_tick), in one transaction, without keyframes: the flight
        recorder's minutes before an incident, written in a moment (folding them for keyframes
        took minutes in the emulator; `write_keyframe` adds those afterwards). Returns the seq
        of the first."""
        first = self.count
        try:
            self._db.execute("BEGIN")
            for t, blob in ticks:
                self._db.execute("INSERT INTO ticks(seq, t, samples) VALUES (?, ?, ?)", (self.count, t, blob))
                self.count += 1
            self._db.execute("COMMIT")
        except sqlite3.Error as e:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            self.count = first
            raise OSError(f"cannot write {self.path}: {e}") from None
        return first

    def placed(self, seq: int, tick: Tick) -> None:
        """Tick `seq` holds these samples: a later keyframe refers to them instead of storing
        them again (write does this itself)."""
        for n, s in enumerate(tick.samples):
            self._placed[(s.key, s.time)] = (seq, n)
        if len(self._placed) > 4096:  # only the newest sample of each key is ever referred to
            newest: dict[str, tuple[tuple[str, float], tuple[int, int]]] = {}
            for k, v in self._placed.items():
                if k[0] not in newest or v > newest[k[0]][1]:
                    newest[k[0]] = (k, v)
            self._placed = dict(newest.values())

    def write_keyframe(
        self, seq: int, t: float, keyframe: tuple[int, dict[str, Any], dict[str, Any] | None]
    ) -> None:
        """The fold's state before tick `seq` (already written)."""
        fold, builder, checks = keyframe
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO keyframes VALUES (?, ?, ?, ?, ?)",
                (seq, t, fold, _pack(self._by_reference(builder)), _pack(checks) if checks else None),
            )
        except sqlite3.Error as e:
            raise OSError(f"cannot write {self.path}: {e}") from None

    def set_meta(self, key: str, value: object) -> None:
        """One header field, written now (the flight recorder says at the end why it ended)."""
        try:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
        except sqlite3.Error as e:
            raise OSError(f"cannot write {self.path}: {e}") from None

    def close(self) -> None:
        """Fold the WAL back in so a finished recording is one self-contained file (a reader
        still attached keeps it in WAL mode, which is harmless)."""
        try:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._db.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.Error:
                pass
            self._db.close()
        finally:
            self._release()

    def _release(self, new_fd: int = -1) -> None:
        """The sidecar goes before its lock: the next writer finds no stray file."""
        if new_fd >= 0:
            os.close(new_fd)
        with contextlib.suppress(OSError):
            unlink(self._lock_path)
        os.close(self._lock)

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


TICKS_BATCH = 256  # ticks read at once by StoreReader.ticks (each a few KiB compressed)
TICK_AHEAD = 16  # rows read at once by StoreReader.tick: the asked one and the next 15


class StoreReader:
    """Random access to a recording: its header, tick times, ticks by index, keyframes."""

    def __init__(self, path: str) -> None:
        if not is_store(path):
            raise StoreError(f"{path} is not a zdash recording (not an SQLite file)")
        self.path = path
        self._copy: str | None = None
        # The replay and its timeline scan (a thread of its own) share this connection. SQLite's
        # serialised mode makes queries safe together, not a close during a query: quitting a
        # replay while the scan read a tick ended the process with a segmentation fault. Every
        # query and the close hold this lock; a query after the close is a StoreError.
        self._use = threading.RLock()
        self._closed = False
        self._ahead: dict[int, tuple[float, bytes]] = {}  # rows read with the last tick asked (tick)
        try:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            try:
                meta = self._meta()
            except sqlite3.OperationalError as e:
                if "readonly" not in str(e):
                    raise
                meta = self._meta_of_copy()
        except (sqlite3.Error, json.JSONDecodeError, OSError) as e:
            raise StoreError(f"cannot read {path}: {e}") from None
        if meta.get("format") != FORMAT:
            raise StoreError(f"{path} is an SQLite file but not a zdash recording")
        if str(meta.get("format_version")) != str(FORMAT_VERSION):
            raise StoreError(
                f"{path}: recording format {meta.get('format_version')} is not supported "
                f"(this zdash reads format {FORMAT_VERSION} and 1)"
            )
        self.meta = meta

    def _rows(self, sql: str, args: tuple[object, ...] = ()) -> list[Any]:
        """The query's rows, read whole under the connection's lock."""
        with self._use:
            if self._closed:
                raise StoreError(f"{self.path}: the recording was closed")
            return self._db.execute(sql, args).fetchall()

    def _meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self._rows("SELECT key, value FROM meta")}

    def _meta_of_copy(self) -> dict[str, Any]:
        """A writer killed while it closed (switching the file out of WAL mode) leaves a rollback
        journal for the next writer to undo, which a read-only reader cannot do ("attempt to
        write a readonly database"). Read a private copy of the file, its journal and its log
        instead, made whole there: the recording's own files are never written by a reader."""
        self._db.close()
        self._copy = tempfile.mkdtemp(prefix="zdash-read-")
        copy = os.path.join(self._copy, "recording.zdash")
        for suffix in ("", "-wal", "-journal"):
            with (
                contextlib.suppress(FileNotFoundError),
                open(self.path + suffix, "rb") as src,
                open(copy + suffix, "xb") as dst,
            ):
                shutil.copyfileobj(src, dst)
        self._db = sqlite3.connect(copy, check_same_thread=False)
        return self._meta()

    def count(self) -> int:
        """Ticks committed so far (grows while a writer is still recording)."""
        return int(self._rows("SELECT COUNT(*) FROM ticks")[0][0])

    def times(self) -> list[float]:
        return [t for (t,) in self._rows("SELECT t FROM ticks ORDER BY seq")]

    def span(self) -> tuple[float | None, float | None]:
        """The first and last tick's time (None, None: no tick yet)."""
        first, last = self._rows("SELECT MIN(t), MAX(t) FROM ticks")[0]
        return first, last

    def index_at(self, t: float) -> int:
        """The last tick at or before time t (the first tick when t is before the recording)."""
        rows = self._rows("SELECT seq FROM ticks WHERE t <= ? ORDER BY t DESC, seq DESC LIMIT 1", (t,))
        return int(rows[0][0]) if rows else 0

    def tick(self, seq: int) -> Tick:
        """Tick `seq`. A replay asks for them one after the other, a tick a second: each miss
        reads the next TICK_AHEAD ticks' rows in the same query (their blobs, unpacked only when
        asked for), so a replay at 1x queries the file once every TICK_AHEAD ticks."""
        with self._use:
            row = self._ahead.pop(seq, None)
        if row is None:
            rows = self._rows(
                "SELECT seq, t, samples FROM ticks WHERE seq >= ? AND seq < ? ORDER BY seq",
                (seq, seq + TICK_AHEAD),
            )
            if not rows or rows[0][0] != seq:
                raise StoreError(f"{self.path}: no tick {seq}")
            row = rows[0][1:]
            with self._use:
                self._ahead = {n: (t, blob) for n, t, blob in rows[1:]}
        return self._tick(row)

    def ticks(self, start: int = 0, stop: int | None = None) -> Iterator[Tick]:
        """Ticks start..stop-1 in order; a damaged tick is skipped (see `damaged`)."""
        # In batches, each read whole under the lock: never a cursor open across a yield
        query = "SELECT seq, t, samples FROM ticks WHERE seq >= ?" + (
            " AND seq < ?" if stop is not None else ""
        )
        query += " ORDER BY seq LIMIT ?"
        while True:
            args = (start, stop, TICKS_BATCH) if stop is not None else (start, TICKS_BATCH)
            rows = self._rows(query, args)
            for _, t, blob in rows:
                try:
                    yield self._tick((t, blob))
                except (zlib.error, ValueError, TypeError, KeyError):
                    continue
            if len(rows) < TICKS_BATCH:
                return
            start = int(rows[-1][0]) + 1

    @staticmethod
    def _tick(row: tuple[float, bytes]) -> Tick:
        t, blob = row
        return unpack_tick(t, blob)

    def keyframe(self, seq: int, fold: int) -> tuple[int, dict[str, Any], dict[str, Any] | None] | None:
        """The newest keyframe at or before tick `seq` written by this fold version."""
        rows = self._rows(
            "SELECT seq, builder, checks FROM keyframes WHERE seq <= ? AND fold = ? ORDER BY seq DESC LIMIT 1",
            (seq, fold),
        )
        if not rows:
            return None
        row = rows[0]
        try:
            builder = _unpack(row[1])
            for slot in builder.get("slots", {}).values():
                ref = slot.pop("ref", None)
                if ref is not None:  # the raw sample lives in the tick it arrived with
                    sample = self.tick(int(ref[0])).samples[int(ref[1])]
                    slot["raw"] = {f.name: getattr(sample, f.name) for f in dataclasses.fields(sample)}
            return int(row[0]), builder, _unpack(row[2]) if row[2] is not None else None
        except (zlib.error, ValueError, KeyError, IndexError, TypeError, StoreError):
            return None

    def close(self) -> None:
        with self._use:
            self._closed = True
            self._db.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)


def set_header(path: str, **fields: object) -> None:
    """Header fields of a finished recording at `path` set (a bundled scenario's description,
    retold: zdash.scenarios holds the words), every tick left as it was."""
    if not is_store(path):
        raise StoreError(f"{path} is not a zdash recording (not an SQLite file)")
    db = sqlite3.connect(path, isolation_level=None)
    try:
        with contextlib.closing(db):
            db.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in fields.items()]
            )
    except sqlite3.Error as e:
        raise StoreError(f"cannot write {path}: {e}") from None
