"""The live source on a host whose zpool misbehaves: every failure becomes a one-line message,
the last good data stays (marked stale) and ticks keep coming. A stand-in zpool
(tests/fakes/bin) replays real captured output and misbehaves on demand."""

import asyncio
import os

import pytest

from zdash.aio import within
from zdash.builder import SnapshotBuilder
from zdash.sources import iostat_stream
from zdash.sources.live import LiveSource

FAKES = os.path.join(os.path.dirname(__file__), "..", "fakes", "bin")


def _path(monkeypatch, with_zpool=True, **env):
    base = "/usr/bin:/bin"
    monkeypatch.setenv("PATH", f"{os.path.abspath(FAKES)}:{base}" if with_zpool else base)
    for k, v in env.items():
        monkeypatch.setenv(k, v)


async def _snapshots(n, **kw):
    src = LiveSource(kw.pop("interval", 0.2), structure_every=0.2, timeout=kw.pop("timeout", 2.0), **kw)
    b = SnapshotBuilder(src.interval)
    out = []
    gen = src.ticks()
    async for tick in gen:
        out.append(b.feed(tick))
        if len(out) >= n:
            break
    await gen.aclose()
    return out


async def test_fake_host_gives_pools_with_io(monkeypatch):
    _path(monkeypatch, FAKE_ZPOOL_SCENARIO="deranged-disk")
    snaps = await _snapshots(4)
    pool = snaps[-1].pool("deranged")
    assert pool is not None and pool.state == "ONLINE"
    assert [v.name for v in pool.top_level] == ["mirror-0", "mirror-1"]
    assert pool.top_level[0].alloc is not None  # from zpool list
    assert any(pool.io_of(v) is not None for v in pool.leaves())  # from the iostat stream


async def test_no_zpool_is_one_clear_message(monkeypatch):
    _path(monkeypatch, with_zpool=False)
    snaps = await _snapshots(2)
    msgs = {s.message for s in snaps[-1].problems}
    assert snaps[-1].pools == ()
    assert "zpool not found on PATH (is ZFS installed?)" in msgs


@pytest.mark.parametrize(
    "mode, expect",
    [
        ("hang", "timed out after 1 s"),
        ("garbage", "unreadable output"),
        ("fail", "cannot open 'tank': no such pool"),
    ],
)
async def test_failing_status_keeps_last_good_data_marked_stale(monkeypatch, mode, expect):
    _path(monkeypatch, FAKE_ZPOOL_SCENARIO="healthy")
    src = LiveSource(0.2, structure_every=0.2, timeout=1.0)
    b = SnapshotBuilder(src.interval)
    gen = src.ticks()
    good = b.feed(await gen.__anext__())
    assert good.pool("healthy") is not None
    monkeypatch.setenv("FAKE_ZPOOL_MODE", mode)  # the pool falls sick now
    snap = good
    for _ in range(40):
        snap = b.feed(await gen.__anext__())
        status = next(s for s in snap.sources if s.key == "status")
        if not status.ok:
            break
    await gen.aclose()
    assert not status.ok and expect in status.message

    def tree(p):
        return [(v.name, v.state, v.alloc) for v in p.root.walk()]

    kept = snap.pool("healthy")  # the last good tree is still shown
    assert kept is not None and tree(kept) == tree(good.pool("healthy"))


async def test_closing_ends_the_iostat_stream_even_when_its_cancel_is_lost(monkeypatch):
    """A wait that drops a cancellation arriving just as its read completes (Python 3.11's
    asyncio.wait_for does) lets the stream read on. Closing the source (the end of `zdash check`
    and `zdash record`) must still stop zpool iostat instead of waiting for it forever."""
    _path(monkeypatch, FAKE_ZPOOL_SCENARIO="healthy")
    # zdash's own wait (zdash.aio.within) keeps the cancel; a read deaf to it stands for any
    # await that still drops one (Textual's, a library's).

    async def deaf_within(aw, timeout):  # that race, every time
        read = asyncio.ensure_future(aw)
        try:
            return await within(asyncio.shield(read), timeout)
        except asyncio.TimeoutError:
            read.cancel()
            raise
        except asyncio.CancelledError:
            return await read  # the chunk instead of the cancellation

    monkeypatch.setattr(iostat_stream, "within", deaf_within)
    src = LiveSource(0.2, structure_every=0.2, timeout=2.0)
    gen = src.ticks()
    for _ in range(3):
        await gen.__anext__()
    closing = asyncio.ensure_future(gen.aclose())
    done, _ = await asyncio.wait({closing}, timeout=10)
    if not done:  # leave no zpool behind, then fail
        await src._stream.stop()
        await closing
    assert done and src._stream_task.done()


async def test_closing_on_a_sick_pool_waits_once_for_everything_not_once_per_child(monkeypatch):
    """`q` on a pool whose zpool children do not die (D state on a sick disk): the source's
    close gives them all one bound together. One after another, each with its own, it took over
    30 s in the lab; here a stop that never ends would have held the close for ever."""
    from zdash.sources import live

    _path(monkeypatch, FAKE_ZPOOL_SCENARIO="deranged-disk")
    monkeypatch.setattr(live, "CLOSE_WAIT_S", 0.5)
    src = LiveSource(0.2, structure_every=0.2, timeout=2.0)
    gen = src.ticks()
    async for _ in gen:
        if src._events is not None and src._stream is not None:
            break

    async def never() -> None:
        await asyncio.Event().wait()

    stuck = []
    for stream in (src._events, src._stream):
        stuck.append(stream._proc)
        monkeypatch.setattr(stream, "stop", never)
    await within(gen.aclose(), 5)  # raises TimeoutError when the close waits on the stops
    for proc in stuck:  # the children the stub did not stop: not left to the test run
        if proc is not None and proc.returncode is None:
            proc.kill()
            await proc.wait()
