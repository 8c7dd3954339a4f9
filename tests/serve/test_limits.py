"""zdash serve bounded (issue #25): a viewer's terminal size clamped, messages that are not the
page's dropped (said once), connections capped below the file limit with idle ones given up
first and 503 beyond. (End to end, with 2,000 real connections and a 6000x6000 resize:
tests/hostile/floods.py.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("textual_serve", reason="the serve extra is not installed: pip install 'zdash[serve]'")
from aiohttp import WSMsgType

from zdash.serve import limits
from zdash.serve.limits import Connections, connection_cap
from zdash.serve.session import MAX_COLUMNS, MAX_ROWS, clamp_size, relay


@pytest.mark.parametrize(
    "asked, got",
    [
        ((6000, 6000), (MAX_COLUMNS, MAX_ROWS)),
        (("6000", "6000"), (MAX_COLUMNS, MAX_ROWS)),
        ((120, 40), (120, 40)),
        ((-5, 0), (20, 5)),
        ((1e308, float("nan")), (80, 24)),
        (("abc", None), (80, 24)),
        ((True, [1]), (80, 24)),
    ],
)
def test_a_terminal_size_is_clamped_and_nonsense_keeps_the_size_there_is(asked, got):
    assert clamp_size(*asked) == got


class _Service:
    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []
        self.keys: list[bytes] = []

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    async def send_bytes(self, data: bytes) -> bool:
        self.keys.append(data)
        return True

    async def blur(self) -> None: ...

    async def focus(self) -> None: ...


class _Socket:
    """What relay reads: the page's messages, then the end."""

    def __init__(self, *messages) -> None:
        self.messages = list(messages)
        self.sent: list[object] = []

    def __aiter__(self):
        return self

    async def __anext__(self):
        if not self.messages:
            raise StopAsyncIteration
        return self.messages.pop(0)

    async def send_json(self, data: object) -> None:
        self.sent.append(data)


def _text(data: str):
    return SimpleNamespace(type=WSMsgType.TEXT, data=data)


async def test_bad_messages_are_dropped_and_said_once_the_session_goes_on(capsys, monkeypatch):
    monkeypatch.setattr(limits, "_said", {})
    service = _Service()
    socket = _Socket(
        _text("not json {"),
        SimpleNamespace(type=WSMsgType.BINARY, data=b"\x00\xff"),
        _text('["resize", {"width": 6000, "height": 6000}]'),
        _text('{"a": 1}'),
        _text('["stdin", 5]'),
        _text('["resize", {"width": "x"}]'),
        _text('["stdin", "q"]'),
        _text('["ping", "t1"]'),
    )
    await relay(socket, service, (80, 24))
    assert service.sizes == [(MAX_COLUMNS, MAX_ROWS), (MAX_COLUMNS, MAX_ROWS)] and service.keys == [b"q"]
    assert socket.sent == [["pong", "t1"]]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not JSON" in err and "Traceback" not in err


class _Transport:
    def __init__(self, name: str) -> None:
        self.name, self.closed, self.aborted, self.written = name, False, False, b""

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.closed = True

    def write(self, data: bytes) -> None:
        self.written += data


def test_past_the_cap_the_oldest_idle_connection_makes_room_else_503(monkeypatch):
    monkeypatch.setattr(limits.asyncio, "Transport", _Transport)
    monkeypatch.setattr(limits.asyncio, "WriteTransport", _Transport)
    monkeypatch.setattr(limits, "_said", {})
    cap = Connections(2)
    a, b, c, d = (_Transport(n) for n in "abcd")
    cap.arrived(a)
    cap.arrived(b)
    cap.busy[b] = 1  # b is answering a request (or holds a session)
    cap.arrived(c)  # over the cap: a, idle and oldest, goes
    assert a.aborted and not b.aborted and list(cap.open) == [b, c]
    cap.busy[c] = 1
    cap.arrived(d)  # every connection busy: the newcomer is told so
    assert d.closed and d.written.startswith(b"HTTP/1.1 503") and list(cap.open) == [b, c]
    assert (cap.evicted, cap.refused) == (1, 1)


def test_the_cap_stays_below_the_file_limit():
    assert connection_cap(10, limit=1024) == 256
    assert connection_cap(10, limit=300) < 300 - limits.BACKLOG
    assert connection_cap(10, limit=100) >= 8
