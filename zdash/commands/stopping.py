"""How a headless command stops: SIGINT (Ctrl-C), SIGTERM (systemd, kill) and SIGHUP (a closed
terminal or ssh session) all end its work the same orderly way, so its `finally` blocks run:
the recording keeps every complete tick, and no `zpool` child is left behind (they run in
sessions of their own, so a signal to zdash's process group never reaches them).

The first signal sets `stop` and cancels the work. A command whose loop checks `stop` ends at
its next tick even when a cancellation is lost (Python 3.11's asyncio.wait_for can drop one that
arrives as the awaited result does). Later signals do nothing: the shutdown is bounded already.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_stoppable(work: Callable[[asyncio.Event], Coroutine[Any, Any, T]]) -> tuple[T | None, str | None]:
    """asyncio.run(work(stop)): its result and None, or (None, the signal's name) when a signal
    stopped it before it returned. A work that returns after `stop` is set returns its result
    with the signal's name."""

    async def main() -> tuple[T | None, str | None]:
        stop = asyncio.Event()
        task = asyncio.ensure_future(work(stop))
        loop = asyncio.get_running_loop()
        got: list[str] = []

        def stopped(sig: signal.Signals) -> None:
            if not got:
                got.append(sig.name)
                stop.set()
                task.cancel()

        # Signals reach only the main thread (asyncio refuses handlers elsewhere: set_wakeup_fd);
        # a command run in another thread (a test's watcher, an embedding program) stops by
        # its caller instead.
        handled = SIGNALS if threading.current_thread() is threading.main_thread() else ()
        for sig in handled:
            loop.add_signal_handler(sig, stopped, sig)
        try:
            return await task, (got[0] if got else None)
        except asyncio.CancelledError:
            if got:
                return None, got[0]
            raise
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)

    return asyncio.run(main())
