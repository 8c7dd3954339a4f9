"""The terminal driver: Textual's LinuxDriver, whose input thread sleeps while no key comes.

Textual's input thread waits for the terminal's input at most 0.1 s at a time: then it looks
whether it should stop and whether a lone Escape (or the start of a key's sequence) has waited
long enough to be taken as it is. Ten wake-ups a second, whatever the terminal does: about 1 ms
of CPU a second, the whole of an idle Textual app's cost and a tenth of the dashboard's at 1 Hz.

`QuietDriver` reads the input as Textual's thread does (the same parser, the same events), but
waits up to IDLE_WAIT_S while no input came in the last BUSY_FOR_S, and 0.1 s as Textual does
after input (so a lone Escape is still taken ESCDELAY after it came). A stop of the input
(quitting, a suspend) wakes the thread at once through a pipe of its own, so quitting does not
wait for it. Everything else is LinuxDriver's."""

from __future__ import annotations

import contextlib
import os
import selectors
import time
from codecs import getincrementaldecoder

from textual import constants
from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

BUSY_WAIT_S = 0.1  # Textual's own wait
IDLE_WAIT_S = 1.0
# How long after input the thread waits as Textual does: past a lone Escape's ESCDELAY.
BUSY_FOR_S = max(1.0, 2 * getattr(constants, "ESCAPE_DELAY", 0.1))


class QuietDriver(LinuxDriver):
    """See the module."""

    _wake: tuple[int, int] | None = None  # the input thread's wake-up pipe (read, write)

    def disable_input(self) -> None:
        wake, thread = self._wake, self._key_thread
        if wake is not None and thread is not None and thread.is_alive():
            with contextlib.suppress(OSError):
                os.write(wake[1], b"\0")  # left unread: every wait returns until the thread stops
        super().disable_input()

    def run_input_thread(self) -> None:
        """LinuxDriver.run_input_thread, with the waits above and the wake-up pipe."""
        wake_read, wake_write = self._wake = os.pipe()
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)

        fileno = self.fileno
        EVENT_READ = selectors.EVENT_READ

        parser = XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick

        decode = getincrementaldecoder("utf-8")().decode
        read = os.read

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            ours = [(key, mask) for key, mask in selector_events if key.fd == fileno]
            for last, (_selector_key, mask) in loop_last(ours):
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        # This can occur if the stdin is piped
                        break
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        busy_until = 0.0
        try:
            while not self.exit_event.is_set():
                wait = BUSY_WAIT_S if time.monotonic() < busy_until else IDLE_WAIT_S
                selector_events = selector.select(wait)
                if any(key.fd == fileno for key, _mask in selector_events):
                    busy_until = time.monotonic() + BUSY_FOR_S
                process_selector_events(selector_events)
            selector.unregister(self.fileno)
            process_selector_events(selector.select(BUSY_WAIT_S), final=True)
        finally:
            selector.close()
            self._wake = None
            os.close(wake_read)
            os.close(wake_write)
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
