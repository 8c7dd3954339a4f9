"""zdash.aio.within: a bounded wait that never loses the caller's cancel (asyncio.wait_for on
Python < 3.12 does when the awaited thing completes as the cancel arrives: a dashboard that does
not quit, a test run that hangs in teardown)."""

import asyncio

import pytest

from zdash.aio import within


async def _loop_over(queue: asyncio.Queue, got: list, wait) -> None:
    while True:  # the shape of LiveSource's report loop
        got.append(await wait(queue.get(), 10))


@pytest.mark.parametrize("rounds", range(5))
async def test_a_cancel_arriving_with_the_result_still_stops_the_loop(rounds):
    queue: asyncio.Queue = asyncio.Queue()
    got: list = []
    task = asyncio.create_task(_loop_over(queue, got, within))
    for _ in range(rounds + 1):
        await asyncio.sleep(0)
    # The report arrives and the cancel with it, in the same loop iteration.
    queue.put_nowait("report")
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)
    assert task in done and task.cancelled(), "the loop ran on after its cancel"


async def test_the_bound_raises_timeout_and_cancels_the_wait():
    blocker = asyncio.Event()
    with pytest.raises(asyncio.TimeoutError):
        await within(blocker.wait(), 0.01)
    queue: asyncio.Queue = asyncio.Queue()
    with pytest.raises(asyncio.TimeoutError):
        await within(queue.get(), 0.01)
    queue.put_nowait(1)  # the timed-out get is gone: nobody steals this item
    assert await within(queue.get(), 1) == 1


async def test_results_and_errors_come_through():
    async def fails():
        raise ValueError("from inside")

    assert await within(asyncio.sleep(0, "done"), 1) == "done"
    with pytest.raises(ValueError, match="from inside"):
        await within(fails(), 1)
