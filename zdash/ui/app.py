"""The Textual app: owns the feed worker and the current frame; screens draw from `frame`.

One long-lived worker consumes the feed and posts FrameReady messages (replaceable: a slow
terminal draws only the newest). A live feed that fails is restarted with backoff, and while
no frame arrives the status bar counts the silence (wall clock, live only)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from textual.app import App
from textual.reactive import reactive
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES

from zdash.actions import AuditLog
from zdash.config import CheckConfig
from zdash.feed.frame import Feed, Frame
from zdash.resources import ResourceError
from zdash.ui.app_actions import ActionHost
from zdash.ui.messages import FeedFailed, FrameReady
from zdash.ui.settings import UiSettings
from zdash.ui.themes import DEFAULT_THEME, WALL_THEME, load_themes, stylesheet


class ZdashApp(ActionHost, App[None]):
    TITLE = "zdash"
    # repaint=False: a new frame must not repaint the whole screen; widgets that watch these
    # redraw themselves, and only where their content changed.
    frame: reactive[Frame | None] = reactive(None, init=False, repaint=False)
    silence: reactive[float | None] = reactive(None, init=False, repaint=False)
    feed_error: reactive[str | None] = reactive(None, init=False, repaint=False)

    def __init__(
        self,
        feed: Feed,
        *,
        cfg: CheckConfig | None = None,
        wall: bool = False,
        theme: str | None = None,
        settings: UiSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        record_dir: str = ".",
        audit: AuditLog | None = None,
        action_kwargs: dict | None = None,
    ) -> None:
        if wall:
            self.ENABLE_COMMAND_PALETTE = False  # read-only: not even a theme switch
        super().__init__(css_path=[stylesheet()])
        self.feed, self.cfg, self.wall = feed, cfg or CheckConfig(), wall
        self.settings = settings or UiSettings()
        self.clock, self.record_dir = clock, record_dir
        self.init_actions(audit, action_kwargs)
        ours = load_themes()
        for t in ours.values():
            self.register_theme(t)
        name = theme or self.settings.theme or (WALL_THEME if wall else DEFAULT_THEME)
        if name not in ours:
            raise ResourceError(f"zdash: unknown theme {name!r}; choose one of {', '.join(sorted(ours))}")
        self.theme = name
        for builtin in BUILTIN_THEMES:  # the palette offers only themes made for zdash
            if builtin not in ours:
                self.unregister_theme(builtin)
        self.loading_text = "loading the recording…" if feed.can_control else "collecting the first sample…"
        self._last_frame_at = clock()

    def get_default_screen(self) -> Screen:
        if self.wall:
            from zdash.ui.screens.wall import WallScreen

            return WallScreen(self.settings.wall_cycle_s)
        from zdash.ui.screens.dashboard import DashboardScreen

        return DashboardScreen()

    def on_mount(self) -> None:
        self.run_worker(self._pump, exclusive=True, group="feed", name="feed")
        if not self.feed.can_control:
            self.set_interval(1.0, self._check_silence)

    async def _pump(self) -> None:
        delay = 1.0
        while True:
            try:
                async for frame in self.feed.frames():
                    self._last_frame_at = self.clock()
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
                await asyncio.sleep(delay)
                delay = min(delay * 2, 60.0)

    def on_frame_ready(self, message: FrameReady) -> None:
        first = self.frame is None
        self.frame = message.frame
        if first and message.frame.description and not self.wall:
            # A training recording says what to look for before anything else: once, at the
            # start (the wall loops unattended; `i` shows it again).
            self.notify(
                " ".join(message.frame.description.split()),
                title="About this recording (i)",
                timeout=20,
                markup=False,
            )
        self.silence = None
        self.feed_error = None
        notice = getattr(self.feed, "notice", None)
        if notice and not self.wall:
            self.feed.notice = None  # type: ignore[attr-defined]
            self.notify(notice, severity="error")

    def on_feed_failed(self, message: FeedFailed) -> None:
        self.feed_error = message.error

    def _check_silence(self) -> None:
        interval = getattr(self.feed, "interval", 1.0)
        quiet = self.clock() - self._last_frame_at
        self.silence = quiet if quiet > max(3 * interval, 5.0) else None

    def toggle_recording(self) -> None:
        if not self.feed.can_record:
            return
        if getattr(self.feed, "recording", None):
            path = self.feed.recording  # type: ignore[attr-defined]
            self.feed.toggle_recording("")
            self.notify(f"recording stopped; {path} holds every tick so far")
            return
        host = (self.frame.snapshot.host if self.frame else None) or "host"
        name = f"zdash-{host}-{time.strftime('%Y%m%d-%H%M%S')}.yaml.gz"
        path = os.path.join(self.record_dir, name)
        self.feed.toggle_recording(path)
        self.notify(f"recording to {path} (replay it with: zdash replay {path})")
