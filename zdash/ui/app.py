"""The Textual app: owns the feed worker and the current frame; screens draw from `frame`.

One long-lived worker consumes the feed and posts FrameReady messages (replaceable: a slow
terminal draws only the newest). A live feed that fails is restarted with backoff, and while
no frame arrives the status bar counts the silence (live only). Every wait is on `clock`, so
tests move time themselves.

The app is also the one door to guided actions (plan_action, run_plan): screens go through it
and never call the executor themselves, so the mode that decides whether anything runs comes
from one place (the feed and --wall), not from whichever screen happens to ask."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.driver import Driver
from textual.reactive import reactive
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES

from zdash.actions import (
    ActionPlan,
    AuditLog,
    HostProbe,
    Mode,
    Outcome,
    ReplayProbe,
    Request,
    build_plan,
    execute,
    fresh_snapshot,
    plan_now,
)
from zdash.actions.remote_probe import RemoteProbe
from zdash.config import CheckConfig, UiSettings
from zdash.feed.clock import REAL_CLOCK, Clock
from zdash.feed.frame import Feed, Frame
from zdash.feed.timeline import Timeline
from zdash.gcpolicy import settle
from zdash.model import Snapshot
from zdash.resources import ResourceError
from zdash.sources import spawn
from zdash.sources.runner import Runner
from zdash.ui.messages import FeedFailed, FrameReady, TimelineReady
from zdash.ui.themes import DEFAULT_THEME, WALL_THEME, load_themes, stylesheet

SILENCE_CHECK_S = 1.0
SIGNAL_EXIT_S = 8.0  # the most a SIGTERM/SIGHUP quit may take (LiveSource.close: 5 s per task)


def leave_now() -> None:
    """The signal quit's watchdog: zdash's children killed, then out (os._exit runs no cleanup)."""
    spawn.kill_all()
    os._exit(0)


@dataclass(frozen=True, slots=True)
class ActionDeps:
    """What guided actions talk to; None: the host itself (the executor's defaults). Tests give
    fakes here, and a future config option could too."""

    fresh_state: Callable[[Request], Awaitable[Snapshot]] | None = None  # the pool, this second
    probe: HostProbe | None = None
    runner: Runner | None = None


class ZdashApp(App[None]):
    """The dashboard: keys, guided actions, the command palette (themes)."""

    TITLE = "zdash"
    wall: ClassVar[bool] = False
    default_theme: ClassVar[str] = DEFAULT_THEME
    # repaint=False: a new frame must not repaint the whole screen; widgets that watch these
    # redraw themselves, and only where their content changed.
    frame: reactive[Frame | None] = reactive(None, init=False, repaint=False)
    silence: reactive[float | None] = reactive(None, init=False, repaint=False)
    feed_error: reactive[str | None] = reactive(None, init=False, repaint=False)
    timeline: reactive[Timeline | None] = reactive(None, init=False, repaint=False)  # replay events

    def __init__(
        self,
        feed: Feed,
        *,
        cfg: CheckConfig | None = None,
        theme: str | None = None,
        settings: UiSettings | None = None,
        clock: Clock = REAL_CLOCK,
        record_dir: str = ".",
        audit: AuditLog | None = None,
        actions: ActionDeps | None = None,
        read_only: bool = False,
    ) -> None:
        super().__init__(css_path=[stylesheet()])
        # --read-only (zdash serve): no plan opens, nothing runs, nothing is recorded, live or not.
        self.read_only = read_only
        self.feed, self.cfg = feed, cfg or CheckConfig()
        self.settings = settings or UiSettings()
        self.clock, self.record_dir = clock, record_dir
        self.audit = audit or AuditLog()
        self.actions = actions or ActionDeps()
        ours = load_themes()
        for t in ours.values():
            self.register_theme(t)
        name = theme or self.settings.theme or self.default_theme
        if name not in ours:
            raise ResourceError(f"zdash: unknown theme {name!r}; choose one of {', '.join(sorted(ours))}")
        self.theme = name
        for builtin in BUILTIN_THEMES:  # the palette offers only themes made for zdash
            if builtin not in ours:
                self.unregister_theme(builtin)
        self.loading_text = "loading the recording…" if feed.can_control else "collecting the first sample…"
        self._last_frame_at = clock.now()

    # Set by `zdash` itself (zdash.commands.dashboard): a bug in the UI then leaves a crash report
    # and `crash_message`, the one line zdash prints once the terminal is back, instead of
    # Textual's traceback. Tests keep Textual's way (Pilot re-raises the exception).
    report_crashes = False
    crash_message: str | None = None
    # Set by `zdash` itself too: once the first frame is drawn the process's start-up objects
    # are left out of the garbage collector's passes (zdash.gcpolicy.settle). Not in tests,
    # where one process runs app after app and each app's objects must be collected.
    settle_after_start = False

    def _handle_exception(self, error: Exception) -> None:  # Textual's hook for an unhandled one
        if not self.report_crashes:
            super()._handle_exception(error)
            return
        from zdash.crash import crash_line, save_report

        if self.crash_message is None:
            self.crash_message = crash_line(error, save_report(sys.argv, error))
        self.exit(return_code=1)

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, but on a Linux terminal the driver whose input thread sleeps while
        no key comes (zdash.ui.driver); a browser's or a test's driver as Textual chose it."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            from zdash.ui.driver import QuietDriver

            return QuietDriver
        return driver

    def get_default_screen(self) -> Screen[None]:
        from zdash.ui.screens.dashboard import DashboardScreen

        return DashboardScreen()

    def action_help_quit(self) -> None:
        """Ctrl-C quits, as in top or htop (Textual only says how to quit; an admin's hand goes
        to Ctrl-C first). In a text field Ctrl-C still copies: the field takes it first."""
        self.exit()

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's "Save screenshot": in a browser (zdash serve) Textual hands it to the
        browser; on a terminal it is saved where `r` records (the working directory), as a new
        file (zdash.safe_files.create_new: never through a link). Textual's own saves into
        ~/Downloads, which under `sudo -E` is the invoking user's, links and all."""
        if self.is_web:
            return super().deliver_screenshot(filename, path, time_format)
        from zdash.safe_files import create_new

        name = filename or f"zdash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.svg"
        target = os.path.join(path or self.record_dir, name)
        try:
            fd = create_new(target, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.export_screenshot())
        except OSError as e:
            self.notify(f"screenshot not saved: {e.strerror or e}", severity="error", markup=False)
            return None
        self.notify(f"screenshot saved to {target}", title="Screenshot", markup=False)
        return None

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own (theme, keys, screenshot, quit), then the dashboard's: the screen that
        owns the actions lists them, so the palette offers only what works now."""
        yield from super().get_system_commands(screen)
        from zdash.ui.screens.dashboard import DashboardScreen

        if isinstance(screen, DashboardScreen):
            yield from screen.palette_commands()

    def on_mount(self) -> None:
        # SIGTERM (kill, systemd) and SIGHUP (the terminal or ssh session closed) quit the way
        # `q` does: the terminal restored (alternate screen left, mouse off, cursor shown) and
        # the feed closed, which stops every zpool child.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self._stop_by_signal)
        self.run_worker(self._pump(), exclusive=True, group="feed", name="feed")
        if self.feed.can_control and not self.wall:  # the wall loops unattended: no markers
            self.run_worker(self._pump_timeline(), group="timeline", name="timeline")
        if not self.feed.can_control:
            self.run_worker(self._count_silence(), group="silence", name="silence")

    def _stop_by_signal(self) -> None:
        """Quit as `q` does. After a hang-up Textual's output thread can block for ever on the
        terminal that is gone (its last writes never drain), after the feed and its zpool
        children have been stopped: past SIGNAL_EXIT_S zdash leaves regardless (its children
        killed first: under load the feed may not have stopped them yet)."""
        watchdog = threading.Timer(SIGNAL_EXIT_S, leave_now)
        watchdog.daemon = True
        watchdog.start()
        self.exit()

    async def _pump(self) -> None:
        delay = 1.0
        while True:
            try:
                async for frame in self.feed.frames():
                    self._last_frame_at = self.clock.now()
                    self.post_message(FrameReady(frame))
                    delay = 1.0
                return
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - shown to the viewer, never a traceback
                final = self.feed.can_control  # a bad recording will not get better
                self.post_message(FeedFailed(f"{type(e).__name__}: {e}", final))
                if final:
                    return
                await self.clock.sleep(delay)
                delay = min(delay * 2, 60.0)

    async def _pump_timeline(self) -> None:
        try:
            async for timeline in self.feed.timelines():
                self.post_message(TimelineReady(timeline))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - markers are a help: without them the replay still plays
            return

    def on_timeline_ready(self, message: TimelineReady) -> None:
        stopped = message.timeline.stopped
        if stopped and not (self.timeline is not None and self.timeline.stopped):
            # Once: the replay plays on; the bar's markers end where the search did.
            where = f"{message.timeline.scanned} of {message.timeline.count} ticks"
            self.notify(
                f"markers incomplete (events looked for in {where}): {stopped}",
                severity="warning",
                timeout=8,
                markup=False,  # the reason quotes the file
            )
        self.timeline = message.timeline

    async def _count_silence(self) -> None:
        # (Not _watch_silence: Textual would call that on every change of `silence`.)
        while True:
            await self.clock.sleep(SILENCE_CHECK_S)
            quiet = self.clock.now() - self._last_frame_at
            self.silence = quiet if quiet > max(3 * self.feed.interval, 5.0) else None

    def on_frame_ready(self, message: FrameReady) -> None:
        if self.settle_after_start and self.frame is None:
            self.call_after_refresh(settle)  # the first frame laid out and drawn: start-up is over
        self.frame = message.frame
        self.silence = None
        self.feed_error = None
        if not self.wall and (notice := self.feed.take_notice()):
            self.notify(notice, severity="error", markup=False)

    @property
    def frame_age(self) -> float:
        """Seconds (on the app's clock) since the current frame arrived."""
        return self.clock.now() - self._last_frame_at

    def on_feed_failed(self, message: FeedFailed) -> None:
        self.feed_error = message.error

    @property
    def can_record(self) -> bool:
        """Recording writes a file on the host: a read-only dashboard never does."""
        return self.feed.can_record and not self.read_only

    def toggle_recording(self) -> None:
        if not self.can_record:
            return
        path = self.feed.recording
        if path:
            self.feed.toggle_recording("")
            self.notify(f"recording stopped; {path} holds every tick so far", markup=False)
            return
        host = (self.frame.snapshot.host if self.frame else None) or "host"
        name = f"zdash-{host}-{time.strftime('%Y%m%d-%H%M%S')}.zdash"
        path = os.path.join(self.record_dir, name)
        self.feed.toggle_recording(path)
        self.notify(f"recording to {path} (replay it with: zdash replay {path})", markup=False)

    # -- guided actions: the two doors --------------------------------------------------------
    @property
    def action_mode(self) -> Mode:
        """Whether guided actions may run: "live" only on live hosts outside --wall and
        --read-only (a fleet's plans run on the pool's own host, over ssh). A demo is a
        recording: it counts as a replay, also in the audit log's mode field. Read-only, like
        the wall, opens no plan at all (a browser may be anyone's)."""
        if self.wall:
            return "wall"
        if self.read_only:
            return "read-only"
        return "live" if self.feed.mode == "live" else "replay"

    def _deps_for(self, request: Request) -> ActionDeps:
        """What a request's plan talks to: this host (self.actions), or the pool's host over the
        fleet's own ssh connection: its fresh state, its disks, its command."""
        if request.host is None:
            if self.feed.hosts:
                raise RuntimeError("a pool of a fleet: the plan must name its host")
            return self.actions
        feed_runner = self.feed.runner_for(request.host)
        if feed_runner is None:
            raise RuntimeError(f"{request.host} is not one of this dashboard's hosts")
        runner = feed_runner.alongside()  # the feed's keys in flight are not the plan's

        async def fresh_state(r: Request) -> Snapshot:
            return await fresh_snapshot(r.pool, datasets=r.action == "promote", runner=runner)

        return ActionDeps(fresh_state, RemoteProbe(runner), runner)

    async def plan_action(self, request: Request) -> ActionPlan:
        """Live: against the host as it is now (one fresh status/list round, the state the
        executor will check again). Otherwise against the recorded frame with ReplayProbe,
        which never touches this machine's disks: the recording's host is not this one."""
        if self.action_mode != "live":
            if self.frame is None:
                raise RuntimeError("no data yet")
            return await asyncio.to_thread(build_plan, self.frame.snapshot, request, ReplayProbe())
        deps = self._deps_for(request)
        if deps.fresh_state is None:
            return await plan_now(request, deps.probe)
        snap = await deps.fresh_state(request)
        return await asyncio.to_thread(build_plan, snap, request, deps.probe)

    async def run_plan(self, plan: ActionPlan) -> Outcome:
        """Not named run_action: that is Textual's App method every key binding goes through.
        execute() refuses every mode but "live" (and still writes its audit line); the plan
        screen does not even offer a confirmation outside live mode."""
        deps = self._deps_for(plan.request)
        if deps.fresh_state is None:
            return await execute(
                plan, self.action_mode, audit=self.audit, probe=deps.probe, runner=deps.runner
            )
        fresh = deps.fresh_state

        async def fresh_state(p: ActionPlan) -> Snapshot:  # the executor asks with the plan
            return await fresh(p.request)

        return await execute(
            plan,
            self.action_mode,
            audit=self.audit,
            probe=deps.probe,
            runner=deps.runner,
            fresh_state=fresh_state,
        )


class WallApp(ZdashApp):
    """--wall: read-only, for a monitor nobody touches for weeks. The wall screen binds no key
    (ctrl+q still quits), there is no command palette, and no action ever runs."""

    wall = True
    default_theme = WALL_THEME
    ENABLE_COMMAND_PALETTE = False

    def get_default_screen(self) -> Screen[None]:
        from zdash.ui.screens.wall import WallScreen

        return WallScreen(self.settings.wall_cycle_s, self.settings.wall_chart)
