"""The dashboard's key actions that only talk to the feed or open another screen. Whether
each applies comes from what the feed can do (check_action), so the footer and `?` list only
the keys that work: replay controls on a recording, recording on the live host."""

from __future__ import annotations

REPLAY_ACTIONS = {"pause", "step", "speed", "seek", "seek_edge"}


class DashboardActions:
    """Mixed into DashboardScreen (a Screen: `self.app` is the ZdashApp)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        feed = self.app.feed
        if action in REPLAY_ACTIONS:
            return feed.can_control
        if action == "record":
            return feed.can_record
        if action == "pool":
            frame = self.app.frame
            return frame is not None and len(frame.snapshot.pools) > 1
        if action == "about":
            return bool(self.app.frame and self.app.frame.description)
        return True

    def action_focus_panel(self, panel: str) -> None:
        self.query_one(f"#{panel}").focus()

    def action_pause(self) -> None:
        self.app.feed.toggle_pause()

    def action_step(self, n: int) -> None:
        self.app.feed.step(n)

    def action_speed(self, direction: int) -> None:
        self.app.feed.change_speed(direction)

    def action_seek_edge(self, end: int) -> None:
        self.app.feed.seek_index(10**9 if end else 0)

    def action_seek(self) -> None:
        from zdash.ui.screens.seek import SeekScreen

        self.app.push_screen(SeekScreen())

    def action_record(self) -> None:
        self.app.toggle_recording()

    def action_datasets(self) -> None:
        from zdash.ui.screens.datasets import DatasetsScreen

        self.app.push_screen(DatasetsScreen())

    def action_help(self) -> None:
        from zdash.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    def action_about(self) -> None:
        from zdash.ui.screens.help import AboutScreen

        if self.app.frame and self.app.frame.description:
            self.app.push_screen(AboutScreen(self.app.frame))
