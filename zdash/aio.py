"""`within(aw, timeout)`: asyncio.wait_for without the cancel it can lose.

On Python < 3.12, `asyncio.wait_for` returns the inner result when the awaitable it waits on
completes in the same loop iteration that cancels the caller: the caller's cancel is dropped
(python/cpython#86296, fixed in 3.12 by rebuilding wait_for on asyncio.timeout). zdash waits in
loops (`while True: report = await wait_for(queue.get(), 3)`), so one dropped cancel is a loop
that runs on after it was told to stop, and whatever waits for it to end (quitting the
dashboard, a test runner's teardown) waits for ever: one of the two causes of UI test runs that
hung in pytest-asyncio's `_cancel_all_tasks` (the other: zdash.sources.spawn).

`within` waits with `asyncio.wait`, which never cancels what it waits on and raises the
caller's own CancelledError, so a cancel always reaches the caller. Nothing is lost on a
timeout either: what finished at the same moment as the bound is returned, not dropped (a
queue item got at the last moment stays got).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(aw: Awaitable[T], timeout: float) -> T:
    """`await aw`, or asyncio.TimeoutError after `timeout` seconds (aw is then cancelled)."""
    task = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            task.cancel()
            # Let it unwind (a cancelled read leaves its data in the stream); a cancel of ours
            # arriving meanwhile still raises here, from asyncio.wait itself.
            await asyncio.wait({task})
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task.cancelled():
        raise asyncio.TimeoutError
    return task.result()
