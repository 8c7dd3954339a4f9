"""The audit log: one JSON object per line, appended, never rewritten.

Why this shape: JSON lines survive a crash mid-write (at most the last line is torn, the
rest stay readable), grep and jq read them, and O_APPEND makes each write land at the end even
with two zdash instances logging at once (one write() per line, well under PIPE_BUF-like sizes
on local filesystems). fsync after each line: the log matters most right after something went
wrong, which is also when the machine may go down.

Where: zdash's private state directory (0700, this user's, checked before every use: see
zdash.safe_files.private_dir), appended without following a link, only to a regular file of this
user's with one name. Root under `sudo -E` keeps the invoking user's HOME: that home is passed
over for root's own (zdash.resources.state_dirs), so the user can neither read root's log nor
point it at another file. No secret is logged: every string field is redacted (zdash.redact).

Fields (schema 1): time (ISO 8601 UTC), user, sudo_user, host (where zdash ran), mode, action,
target_host (the host the command ran on over ssh, a fleet's pool; null: this host), pool, device,
new_device, argv, shell, via, outcome (ok, failed, refused), refused_reason,
difference (what changed since the plan), exit_code, stderr, stdout, duration_s, preflight
(the checks of the plan as confirmed) and preflight_fresh (as re-validated right before running).
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import socket
from collections.abc import Mapping

from zdash.redact import redact_argv, redact_text
from zdash.resources import state_dir
from zdash.safe_files import open_append, private_dir

SCHEMA = 1


def default_path() -> str:
    return os.path.join(state_dir(), "audit.jsonl")


class AuditError(OSError):
    pass


class AuditLog:
    def __init__(self, path: str | None = None) -> None:
        self.path = path or default_path()

    def open(self) -> int:
        """Opened before anything runs: an action whose record cannot be written is refused."""
        try:
            private_dir(os.path.dirname(os.path.abspath(self.path)))
            return open_append(self.path, 0o600)
        except OSError as e:
            raise AuditError(e.errno, f"cannot write the audit log {self.path}: {e.strerror or e}") from None

    def write(self, record: Mapping[str, object], fd: int | None = None) -> dict[str, object]:
        """Appends `record` with the common fields (schema, time, user, sudo_user, host) in
        front; `fd` from open() when the caller opened the log before acting."""
        full: dict[str, object] = {
            "schema": SCHEMA,
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
            "user": _user(),
            "sudo_user": os.environ.get("SUDO_USER"),
            "host": socket.gethostname(),
            **{k: _redacted(v) for k, v in record.items()},
        }
        line = (json.dumps(full, ensure_ascii=False, default=str) + "\n").encode()
        out = self.open() if fd is None else fd
        try:
            while line:  # one write() per line in practice; loop only on a partial write
                line = line[os.write(out, line) :]
            os.fsync(out)
        finally:
            if fd is None:
                os.close(out)
        return full

    def read(self) -> list[dict[str, object]]:
        """Every complete record (a torn last line is skipped): for tests and `zdash` history views."""
        out: list[dict[str, object]] = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict):  # a torn line can still parse (as a number)
                        out.append(record)
        except FileNotFoundError:
            pass
        return out


def _redacted(value: object) -> object:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return redact_argv(value)
    return value


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry (containers): the uid still identifies
        return str(os.getuid())
