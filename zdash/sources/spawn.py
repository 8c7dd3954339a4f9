"""Child processes without asyncio's subprocess transport: `spawn(argv)` -> Child.

Why not asyncio.create_subprocess_exec: a task cancelled while it connects the child's pipes
waits in `transport._wait()` for those pipes, which a second task connects; when a loop's
shutdown cancels every task at once (the end of asyncio.run, so the end of every zdash run, and
pytest-asyncio's teardown) that second task is cancelled too and the wait never ends. zdash hung
at exit: one UI test run in ~15 under load, and 30 of 40 rounds of "start four commands, cancel
everything" (tests/sources/test_spawn.py). Closing a half-made transport also reaps the child
behind asyncio's child watcher, which then reports exit code 255 ("Unknown child process"):
ssh's own failure code, so a host read as unreachable.

Here the child starts synchronously (Popen: fork and exec, no await, so no cancel lands midway),
each pipe is read through loop.connect_read_pipe (a cancel there leaves nothing waiting), and
the exit status is collected by this module alone, with a non-blocking waitpid (Popen.poll),
after the pipes close: no watcher thread, nothing else reaps the child.

A long-lived stream's child (`zpool events -f`, `zpool iostat … 1`) is started to die with
zdash (`die_with_parent`: Linux's PR_SET_PDEATHSIG, SIGKILL): a SIGKILLed `zdash record` left
`zpool events -f` running for good (it writes only when an event comes, so a closed pipe never
reaches it). One-shot commands end on their own (each has a timeout) and keep the cheaper start
(a preexec function rules out vfork).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence

POLL_MIN_S, POLL_MAX_S = 0.001, 0.05  # how often an exit is looked for (backing off)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_prctl: Callable[..., int] | None = None
# Every child spawned and not yet reaped, for kill_all (a watchdog thread reads it: only
# added to, removed from and copied whole, each one step under the GIL).
_unreaped: set[subprocess.Popen[bytes]] = set()


def _death_signal() -> Callable[[], None] | None:
    """A preexec function that has the child killed when zdash dies; None where Linux's prctl is
    not there, or off the main thread (the signal follows the thread that forked, not the
    process: a worker thread's end would kill the stream)."""
    global _prctl
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    if _prctl is None:
        try:
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return None
    prctl, parent = _prctl, os.getpid()

    def die_with_parent() -> None:  # in the child, between fork and exec: no allocation, no lock
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # zdash died before prctl took: nothing would kill us later
            os._exit(1)

    return die_with_parent


class Child:
    """What zdash uses of asyncio.subprocess.Process: pid, stdout, stderr, returncode, wait(),
    communicate(), and kill() (a zombie is signalled harmlessly: its pid is not free yet)."""

    def __init__(
        self, proc: subprocess.Popen[bytes], stdout: asyncio.StreamReader, stderr: asyncio.StreamReader
    ):
        self._proc = proc
        self.pid = proc.pid
        self.stdout, self.stderr = stdout, stderr

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    def kill(self) -> None:
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    async def wait(self) -> int:
        delay = POLL_MIN_S
        while (rc := _poll(self._proc)) is None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)
        return rc

    async def communicate(self) -> tuple[bytes, bytes]:
        """Both outputs to their ends, then the exit status (as asyncio's, without stdin)."""
        out, err = await asyncio.gather(self.stdout.read(), self.stderr.read())
        await self.wait()
        return out, err


async def _reader(loop: asyncio.AbstractEventLoop, pipe: object) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=1 << 20, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return reader


async def spawn(
    argv: Sequence[str], env: Mapping[str, str] | None = None, *, die_with_parent: bool = False
) -> Child:
    """Start argv (no shell; stdin /dev/null; a session of its own, so a signal to zdash's
    process group never reaches it) with stdout and stderr to read. OSError as Popen raises it
    (no such program, permission). A cancel while the pipes connect kills the child.
    `die_with_parent`: a long-lived stream, killed when zdash dies however it dies."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        start_new_session=True,
        preexec_fn=_death_signal() if die_with_parent else None,
    )
    assert proc.stdout is not None and proc.stderr is not None  # both PIPEs, asked for above
    _unreaped.add(proc)
    loop = asyncio.get_running_loop()
    connected: list[object] = []
    try:
        stdout = await _reader(loop, proc.stdout)
        connected.append(proc.stdout)
        stderr = await _reader(loop, proc.stderr)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        for pipe in (proc.stdout, proc.stderr):
            if pipe not in connected:  # a connected pipe's transport closes itself at EOF
                with contextlib.suppress(OSError):
                    pipe.close()
        _reap_later(proc)
        raise
    return Child(proc, stdout, stderr)


def _reap_later(proc: subprocess.Popen[bytes]) -> None:
    """The killed child's exit status, collected without awaiting (the caller is being
    cancelled): a few non-blocking polls on the loop, so no zombie is left behind."""
    loop = asyncio.get_running_loop()

    def poll(tries: int) -> None:
        if _poll(proc) is None and tries > 0 and not loop.is_closed():
            loop.call_later(POLL_MAX_S, poll, tries - 1)

    loop.call_soon(poll, 200)


def _poll(proc: subprocess.Popen[bytes]) -> int | None:
    """Popen.poll, and the child off the unreaped set once its status is collected."""
    rc = proc.poll()
    if rc is not None:
        _unreaped.discard(proc)
    return rc


def kill_all() -> None:
    """SIGKILL every child not yet reaped, with its process group (each leads its own session).
    For a zdash about to leave through os._exit, which runs no cleanup: a one-shot command has no
    death signal, and a `zpool status` hung on a sick pool would outlive zdash for good (a
    hang-up under load: the exit watchdog fired before the feed had stopped its children)."""
    for proc in list(_unreaped):
        if proc.returncode is None:  # not reaped: its pid is still its own
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
