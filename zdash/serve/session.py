"""One browser's session: its websocket and the zdash process that draws for it, bounded.

textual-serve's own handler trusted the page. Measured before (issue #25): one viewer's resize
to 6000x6000 took its session to 1.8 GB at full CPU; a message that was not JSON, or a tab
closed the ordinary way, printed a traceback; a session whose browser went without a goodbye
ran on for minutes (its zdash, blocked writing to a pipe nobody read any more, never saw the
quit). Here:

- The terminal size a browser asks for, at the start (?width=&height=) and in every resize, is
  clamped to MAX_COLUMNS x MAX_ROWS (a 4K screen in the smallest font xterm.js draws is under
  that); a size that is no number is ignored.
- A message that is not one of the page's own (JSON, a list, a known kind with the right
  shapes) is dropped and said once per session in one line; the session goes on.
- The browser's end is noticed within HEARTBEAT_S (a websocket ping), and the session's zdash
  is then told to quit, given QUIT_S, then ended (SIGTERM, then SIGKILL) with its whole process
  group: it runs in a session of its own, started without a shell (no `sh -c`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
from asyncio.subprocess import Process
from typing import Any

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService

from zdash.serve.limits import once

MAX_COLUMNS, MAX_ROWS = 640, 200  # 3840 px / 6 px, 2160 px / 11 px: the smallest font of a 4K wall
MIN_COLUMNS, MIN_ROWS = 20, 5
DEFAULT_SIZE = (80, 24)
HEARTBEAT_S = 5.0  # a ping each 5 s: a browser gone without a goodbye is noticed within ~8 s
QUIT_S = 3.0  # what a session's zdash gets to quit on its own
KILL_S = 2.0  # after SIGTERM, before SIGKILL
MAX_MESSAGE = 64 << 10  # the page sends keystrokes, sizes and pings: a few bytes each
MAX_STDIN = 4096  # characters of one keystroke message (a paste included)


def clamp_size(width: object, height: object, now: tuple[int, int] = DEFAULT_SIZE) -> tuple[int, int]:
    """A terminal size within bounds; `now` where the browser's is no number."""

    def one(value: object, low: int, high: int, keep: int) -> int:
        if isinstance(value, bool):
            return keep
        if isinstance(value, str):
            value = value.strip()
            if not value.isdigit():
                return keep
            value = int(value)
        if isinstance(value, float) and value == value and abs(value) < 1e9:
            value = int(value)
        if not isinstance(value, int):
            return keep
        return max(low, min(high, value))

    return one(width, MIN_COLUMNS, MAX_COLUMNS, now[0]), one(height, MIN_ROWS, MAX_ROWS, now[1])


class ZdashAppService(AppService):
    """textual-serve's AppService, its zdash started without a shell in a process group of its
    own (so all of it can be ended), and stopped within QUIT_S + KILL_S whatever it does."""

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *shlex.split(self.command),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Quit as the page would (a quit message), then end the process group."""
        task, process = self._task, self._process
        self._task = None
        if task is None:
            return
        with contextlib.suppress(Exception):
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send_meta({"type": "quit"}), QUIT_S)
        done, _ = await asyncio.wait({task}, timeout=QUIT_S)
        if process is not None and process.returncode is None:
            for sig, wait in ((signal.SIGTERM, KILL_S), (signal.SIGKILL, KILL_S)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
                try:
                    await asyncio.wait_for(process.wait(), wait)
                    break
                except asyncio.TimeoutError:
                    continue
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def on_data(self, payload: bytes) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):  # the browser is gone: its reader ends
            await self.remote_write_bytes(payload)


class _Refused(ValueError):
    """A message that is not one of the page's own."""


def _envelope(message: Any) -> list[Any]:
    if message.type != WSMsgType.TEXT:
        raise _Refused("a binary message")
    try:
        envelope = json.loads(message.data)
    except ValueError:
        raise _Refused("a message that is not JSON") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise _Refused("a message of an unknown shape")
    return envelope


async def relay(websocket: web.WebSocketResponse, service: AppService, size: tuple[int, int]) -> None:
    """The page's messages to the session until the browser goes; a bad one is dropped."""
    said = False
    async for message in websocket:
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            break
        try:
            envelope = _envelope(message)
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin":
                if not isinstance(data, str) or len(data) > MAX_STDIN:
                    raise _Refused("a keystroke message that is no text or too long")
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize":
                if not isinstance(data, dict):
                    raise _Refused("a resize without a size")
                size = clamp_size(data.get("width"), data.get("height"), size)
                await service.set_terminal_size(*size)
            elif kind == "ping":
                await websocket.send_json(["pong", data if isinstance(data, (str, int, float)) else None])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()
            else:
                raise _Refused(f"a message of unknown kind {kind[:20]!r}")
        except _Refused as e:
            if not said:
                said = True
                once(f"zdash serve: a browser sent {e}; ignored (said once per session)")


async def _close(websocket: web.WebSocketResponse) -> None:
    await websocket.close()


async def session(request: web.Request, command: str, server: Any) -> web.WebSocketResponse:
    """The websocket of one browser and its zdash, from the first message to both ends."""
    websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_MESSAGE)
    size = clamp_size(request.query.get("width", "80"), request.query.get("height", "24"))
    service: ZdashAppService | None = None
    try:
        await websocket.prepare(request)
        service = ZdashAppService(
            command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=lambda: _close(websocket),
            download_manager=server.download_manager,
            debug=server.debug,
        )
        await service.start(*size)
        await relay(websocket, service, size)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await websocket.close()
        raise
    except (ConnectionError, asyncio.TimeoutError):
        pass  # the browser went mid-message: nothing to say
    except Exception as e:  # noqa: BLE001 - one session's failure is one line, never a traceback
        once(f"zdash serve: a session ended: {type(e).__name__}: {' '.join(str(e).split())[:200]}")
    finally:
        if service is not None:
            await service.stop()
        with contextlib.suppress(Exception):
            await websocket.close()
    return websocket
