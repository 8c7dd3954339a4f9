"""Replay a recording (either format): an index moves through it under the viewer's control,
and the fold follows it. Playing forward folds one tick at a time (snapshot builder and check
engine, exactly as live did); a jump restores the nearest keyframe (the file's, for `.zdash`,
or one this feed kept in memory while it played) and folds the few ticks after it. Nothing is
folded ahead of need, so a day-long recording shows its first frame at once, and memory stays
flat however long it plays: the charts' window is bounded, the frame cache and the in-memory
keyframes too.

After a jump the charts show the ticks folded since the keyframe (up to a minute before the
target) and fill as the replay plays on."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable

from zdash.config import CheckConfig
from zdash.feed.clock import REAL_CLOCK, Clock
from zdash.feed.frame import Feed, Frame, Position
from zdash.feed.scan_child import config_arg, decode
from zdash.feed.timeline import Timeline
from zdash.fold import Fold
from zdash.fold import frame as fold
from zdash.fold.fold import Mark
from zdash.fold.recording import has_keyframes, restore_at
from zdash.sources.recording import Recording, open_recording
from zdash.sources.runner import first_line, kill
from zdash.sources.session import SessionHeader
from zdash.sources.spawn import spawn
from zdash.visible import visible

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
# A training recording opens paused this long before its onset (the first marker): the viewer
# reads the description, then sees the fault arrive, not ten quiet minutes first.
LEAD_S = 5.0
_CACHE = 128  # frames kept for stepping back and forth
KEEP_EVERY = 60  # ticks between the keyframes kept in memory while playing
# In-memory keyframes (oldest dropped first), for recordings without their own (format 1): each
# holds a copy of the checks' memory, ~0.8 MB at 100 leaves.
KEEP_MAX = 64
# A playing replay that fell further behind its schedule than this starts the schedule over
# instead of folding its way back (see ReplayFeed._advance).
CATCH_UP_S = 1.0
# A playing replay shows a frame at most this often: ticks that come due faster (a 1 s
# recording at 64x: one every 16 ms) are each folded, and the newest drawn every FRAME_S. A
# frame costs far more than a tick's fold; drawing each of 64 ticks a second left a busy
# machine no time to fold them (issue #28: >= 30 frames a second of the latest state).
FRAME_S = 1 / 60
# A frame behind its schedule takes at most the ticks due within this many frame slots (100 ms
# of the schedule: 6 ticks at 64x).
CATCH_UP_SLOTS = 6


async def _in_daemon_thread(fn: Callable[[str], Recording], path: str) -> Recording:
    """fn(path) in a thread of its own that zdash's exit does not wait for: `q` while a large
    recording loads quits at once (asyncio.to_thread's pool is joined at exit, load and all)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Recording] = loop.create_future()

    def settle(result: Recording | None, error: BaseException | None) -> None:
        if done.done():  # the viewer left: nobody wants it
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            result, error = fn(path), None
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting task
            result, error = None, e
        with contextlib.suppress(RuntimeError):  # the loop is closed: zdash has exited
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="zdash-load", daemon=True).start()
    return await done


class _Cursor:
    """The fold standing after tick `index`."""

    def __init__(self, index: int, folding: Fold) -> None:
        self.index, self.fold = index, folding


class ReplayFeed(Feed):
    can_control = True

    def __init__(
        self,
        path: str,
        cfg: CheckConfig,
        *,
        speed: float = 1.0,
        loop: bool = False,
        demo: bool = False,
        start: int = 0,
        playing: bool = True,
        label: str | None = None,
        opener: Callable[[str], Recording] = open_recording,
        clock: Clock = REAL_CLOCK,
        lead: float | None = None,
    ) -> None:
        self.path, self.cfg, self._opener, self._clock = path, cfg, opener, clock
        self.label = visible(label or os.path.basename(path))  # a file name can hold anything
        self.mode = "demo" if demo else "replay"
        self.speed = min(SPEEDS, key=lambda s: abs(s - speed))
        self.loop, self.playing, self._index = loop, playing, start
        # Seconds before the first marker to open at (None: at `start`); until the viewer
        # moves, a recording without an onset in its header opens there once its events are found.
        self._lead = lead
        self.header: SessionHeader | None = None
        self._rec: Recording | None = None
        self._times: list[float] = []
        self._cursor: _Cursor | None = None
        self._kept: OrderedDict[int, Mark] = OrderedDict()
        self._file_keyframes = False  # the recording has keyframes of this fold (set on load)
        self._cache: OrderedDict[int, fold.Frame] = OrderedDict()
        self._version = self._shown = 0
        self._due: float | None = None  # when the shown tick was due on the clock (playing)
        # When the next frame may be handed out while playing, on the clock: FRAME_S after the
        # last frame's own slot, so a frame handed out late does not put every later one late.
        self._next_slot: float | None = None
        self._wake: asyncio.Event | None = None
        self._loaded = asyncio.Event()  # the recording is open and its times known

    async def frames(self) -> AsyncIterator[Frame]:
        self._wake = asyncio.Event()
        self._rec = await _in_daemon_thread(self._opener, self.path)
        self.header = self._rec.header
        self._times = await asyncio.to_thread(self._rec.times)
        # A .zdash file's own keyframes (this fold's, with the checks' state) make copies in
        # memory redundant: kept anyway, a 64x replay of a 1 h file grew by 0.8 MB a minute
        # of recording (15 MB over 1,100 ticks), never flat.
        self._file_keyframes = await asyncio.to_thread(has_keyframes, self._rec, self.cfg)
        if not self._times:
            raise ValueError(f"{self.path} holds no complete tick")
        self._index = min(max(self._index, 0), len(self._times) - 1)
        if self._lead is not None and self.header.onset is not None:
            self._index = self._before(self.header.onset)
            self._lead = None
        self._loaded.set()
        try:
            while True:
                yield await self._frame()
                await self._advance()
        finally:
            self._rec.close()

    async def _frame(self) -> Frame:
        self._shown = self._version
        now, slot = self._clock.now(), self._next_slot
        self._next_slot = slot + FRAME_S if slot is not None and now - slot < FRAME_S else now + FRAME_S
        i = self._index
        if i not in self._cache:
            self._cache[i] = await asyncio.to_thread(self._fold_to, i)
            while len(self._cache) > _CACHE:
                self._cache.popitem(last=False)
        folded = self._cache[i]
        pos = Position(
            i,
            len(self._times),
            self._times[0],
            self._times[-1],
            self._times[i],
            self.playing,
            self.speed,
            self.loop,
        )
        if self._cursor is not None and folded.series is not self._cursor.fold.series:
            # folded before a jump: the charts draw the current fold's past, as they always did
            folded = fold.Frame(
                folded.snapshot, folded.findings, self._cursor.fold.series, folded.scan_rates, folded.outliers
            )
        return Frame.of(
            folded,
            self.mode,
            self.label,
            position=pos,
            description=self.header.description if self.header else None,
        )

    # -- the fold ----------------------------------------------------------------------------
    def _fold_to(self, i: int) -> fold.Frame:
        assert self._rec is not None
        cur = self._cursor
        if cur is None or not (cur.index < i <= cur.index + KEEP_EVERY):
            cur = self._cursor = self._restore(i)
        folded: fold.Frame | None = None
        while cur.index < i:
            n = cur.index + 1
            tick = self._rec.tick(n)
            if n == i:
                folded = cur.fold.step(tick)
            else:
                cur.fold.observe(tick)
            cur.index = n
            if n % KEEP_EVERY == 0 and n not in self._kept:
                self._keep(n + 1, cur)
        assert folded is not None
        return folded

    def _restore(self, i: int) -> _Cursor:
        """A cursor standing just before tick i: from the nearest keyframe at or before it, the
        file's or one kept in memory, else from the start."""
        assert self._rec is not None and self.header is not None
        mem = max((k for k in self._kept if k <= i), default=None)
        start, folding = restore_at(self._rec, i, self.cfg, history=True)
        if mem is not None and (start == 0 or mem > start):
            start, folding = mem, Fold.resume(self._kept[mem], history=True)
        return _Cursor(start - 1, folding)

    def _keep(self, next_index: int, cur: _Cursor) -> None:
        """Remember the fold's state before tick `next_index` (a jump back lands near it),
        unless the file has keyframes of its own."""
        if self._file_keyframes:
            return
        self._kept[next_index] = cur.fold.mark()
        while len(self._kept) > KEEP_MAX:
            self._kept.popitem(last=False)

    async def timelines(self) -> AsyncIterator[Timeline]:
        """The events, found by a scan of the whole recording in a child process
        (zdash.feed.scan_child: in a thread it held the interpreter lock the replay's fold and
        drawing need), killed when this generator is closed and when zdash dies. A scan that
        ends early (a tick that cannot be folded, a child that died) ends with a timeline whose
        `stopped` says why: the replay plays on, its markers incomplete."""
        await self._loaded.wait()
        argv = [sys.executable, "-m", "zdash.feed.scan_child", self.path, config_arg(self.cfg)]
        last = Timeline((), 0, len(self._times))
        try:
            child = await spawn(argv, die_with_parent=True)  # same python, environment and cwd
        except OSError as e:  # no python to run it (an embedded or removed interpreter)
            yield Timeline((), 0, last.count, f"the search for events could not start: {e}")
            return
        # Its stderr read as it comes (the last 64 KiB kept): left unread until the end, warnings
        # past what the pipe and spawn's reader hold (~2 MiB) would block the child, and the
        # markers with it.
        err = bytearray()

        async def drain() -> None:
            while chunk := await child.stderr.read(65536):
                err[:] = (err + chunk)[-65536:]

        draining = asyncio.create_task(drain())
        try:
            while line := await child.stdout.readline():
                timeline = last = decode(line)
                if self._lead is not None and timeline.events:  # no onset: the first event
                    index = self._before(timeline.events[0].time)
                    self._changed()
                    self._index = index
                yield timeline
                if timeline.complete or timeline.stopped:
                    return
            code = await child.wait()
            await draining
            why = bytes(err).decode(errors="replace").strip().splitlines()
            said = f": {first_line(why[-1])}" if why else ""  # its last word (a traceback's)
            yield Timeline(last.events, last.scanned, last.count, f"the search ended (exit {code}){said}")
        finally:
            draining.cancel()
            await kill(child)  # SIGKILL at once, then its end awaited (bounded)

    # -- time --------------------------------------------------------------------------------
    async def _advance(self) -> None:
        """Return when the index or the play state changed: by the clock or by a control.

        Playing keeps to a schedule: tick i+1 is due one (sped-up) recorded interval after
        tick i was due, not after tick i was drawn. A frame comes at most every FRAME_S: at 64x
        a frame shows the ticks due since the last one (each folded), not each tick. When
        folding and drawing fell behind (a 64x replay on a busy machine), the index moves on
        by the ticks already due, at most those due within CATCH_UP_SLOTS frame slots: the
        ticks in between are folded, never drawn, so the replay keeps its speed while it can
        and a frame never waits for the fold of dozens. A debt of more than CATCH_UP_S is
        forgiven (the machine was suspended, or cannot fold that fast): the replay then plays
        slower than asked, never by leaps."""
        assert self._wake is not None
        while self._version == self._shown:
            self._wake.clear()
            last = self._index >= len(self._times) - 1
            if self.playing and last and not self.loop:
                self.playing = False  # stop at the end; the frame shows it paused
                return
            if not self.playing:
                self._due = None
                await self._wake.wait()
                continue
            now = self._clock.now()
            if self._due is None or now - self._due > CATCH_UP_S:
                self._due = now
            due = self._due + (self._gap(self._index) if not last else 1.0 / self.speed)
            # the next frame no sooner than its slot: the ticks due by then come with it (each
            # folded, the newest drawn)
            wake = max(due, self._next_slot) if self._next_slot is not None else due
            if wake > now and not await self._sleep_unless_woken(wake - now):
                continue  # a control came first: the loop's condition sees it
            now = self._clock.now()
            self._due = due if now - due <= CATCH_UP_S else now
            if last:  # a loop starts over: the charts' history too, not only the data
                self._cursor = None
                self._cache.clear()
                self._index = 0
                return
            self._index += 1
            first = self._index
            # At most the ticks due within CATCH_UP_SLOTS frame slots of this one at once: a
            # frame that must fold more comes late, and the next one later still (a busy
            # machine drew 2-7 frames a second, each after the fold of up to 60 ticks); the
            # rest come with the next frames, or are forgiven with the debt. (Never KEEP_EVERY:
            # _fold_to would restore from a keyframe instead of folding on from where it stands.)
            until = min(now, self._due + CATCH_UP_SLOTS * FRAME_S)
            while (
                self._index < len(self._times) - 1
                and self._index - first < KEEP_EVERY - 1
                and self._due + self._gap(self._index) <= until
            ):
                self._due += self._gap(self._index)
                self._index += 1
            return

    def _gap(self, i: int) -> float:
        """Seconds on the clock from tick i to tick i+1 at this speed (a recorded gap of less
        than 50 ms plays as 50 ms, one longer than 10 s as 10 s)."""
        return min(max(self._times[i + 1] - self._times[i], 0.05), 10.0) / self.speed

    async def _sleep_unless_woken(self, seconds: float) -> bool:
        """Sleep on the clock; False when a control wakes the feed first (it wins a tie)."""
        assert self._wake is not None
        sleep = asyncio.ensure_future(self._clock.sleep(seconds))
        wake = asyncio.ensure_future(self._wake.wait())
        try:
            done, _ = await asyncio.wait((sleep, wake), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleep.cancel()
            wake.cancel()
        return wake not in done

    def _before(self, t: float) -> int:
        """The tick `lead` seconds before time t (the first tick when t is that close)."""
        return max(0, bisect.bisect_left(self._times, t - (self._lead or 0.0)))

    def _changed(self) -> None:
        self._due = None  # the schedule starts again from the viewer's move
        self._lead = None  # the viewer has moved: no automatic jump any more
        self._version += 1
        if self._wake is not None:
            self._wake.set()

    # -- controls (called from the UI) -------------------------------------------------------
    def toggle_pause(self) -> None:
        if not self.playing and self._times and self._index >= len(self._times) - 1 and not self.loop:
            self._index = 0  # play at the end starts over, as players do
        self.playing = not self.playing
        self._changed()

    def step(self, n: int) -> None:
        """Stepping pauses: the viewer wants to look at one tick."""
        self.playing = False
        self.seek_index(self._index + n)

    def seek_index(self, i: int) -> None:
        if self._times:
            self._index = min(max(i, 0), len(self._times) - 1)
        self._changed()

    def jump(self, i: int) -> None:
        self.playing = False
        self.seek_index(i)

    def seek_time(self, t: float) -> None:
        """The last snapshot at or before t (the first one when t is before the recording)."""
        self.seek_index(max(0, bisect.bisect_right(self._times, t) - 1))

    def change_speed(self, direction: int) -> None:
        i = SPEEDS.index(self.speed) + (1 if direction > 0 else -1)
        self.speed = SPEEDS[min(max(i, 0), len(SPEEDS) - 1)]
        self._changed()

    @property
    def times(self) -> list[float]:
        return self._times
