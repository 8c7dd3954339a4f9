"""From a guided suggestion to its plan screen. Attach and replace first ask which disk is the
new one, on its own screen, so the plan is built once with the disk named and its checks (size,
sector size, in use, stable path) are about that disk. Attach cannot go without one, nor a
replace whose suggestion says so (a slow disk is replaced while it stays in); any other replace
may be left empty (in place, after the new disk was put in the old one's slot)."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from zdash.actions import NotGuided, needs_new_device, request_from_suggestion
from zdash.checks.finding import SuggestedAction
from zdash.ui.app import ZdashApp
from zdash.ui.markup import tag

STABLE = "A stable path (/dev/disk/by-id/…) survives reboots and re-cabling; /dev/sdX does not."
HELP = {
    ("attach", "required"): "Give the disk to attach: it is overwritten. " + STABLE,
    ("replace", "required"): "Give the new disk's path: it is overwritten, and the old disk stays "
    "in service until the new one is resilvered. " + STABLE,
    ("replace", "optional"): "Give the new disk's path (/dev/disk/by-id/…), or leave it empty to "
    "replace in place: the new disk is already where the old one was, under the same path.",
}


class NewDeviceScreen(ModalScreen[str | None]):
    """Dismisses with the path typed ("" for in place), or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, label: str, action: str, need: str) -> None:
        super().__init__()
        self.label, self.action, self.need = label, action, need

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(tag(self.label), classes="dialog-title")
            yield Static(tag(HELP[(self.action, self.need)]))
            yield Input(placeholder="/dev/disk/by-id/…", id="device-input")
            yield Static(id="device-error")
            yield Static("enter show the plan (nothing runs yet) · esc cancel", classes="hint")

    def on_mount(self) -> None:
        box = self.query_one(Input)
        box.cursor_blink = False
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value and self.need == "required":
            self.query_one("#device-error", Static).update(tag(f"{self.action} needs the new disk's path"))
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def open_guided(app: ZdashApp, chosen: SuggestedAction, host: str | None = None) -> None:
    """The caller has checked the mode: never called on a wall. `host`: the pool's host in a
    fleet (the suggestion's argv names the pool as that host knows it)."""
    need = needs_new_device(chosen)

    def plan(new_device: str | None) -> None:
        from zdash.ui.screens.plan import PlanScreen

        try:
            request = replace(request_from_suggestion(chosen, new_device or None), host=host)
        except NotGuided as e:
            app.notify(str(e), severity="error", markup=False)
            return
        app.push_screen(PlanScreen(request))

    def device_chosen(new_device: str | None) -> None:
        if new_device is not None:  # None: cancelled, no plan
            plan(new_device)

    if need is None:
        plan(None)
    else:
        app.push_screen(NewDeviceScreen(chosen.label, chosen.action or "", need), device_chosen)
