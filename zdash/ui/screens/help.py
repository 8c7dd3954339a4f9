"""`?`: the keys that apply right now (read from the bindings, so it cannot go out of date)
and what the columns mean; `i`: what a recording's author says to look for."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from zdash.feed.frame import Frame
from zdash.ui.markup import tag

LEGEND = """\
Vdev table: the pool, its top-level vdevs and their disks.
  ERR r/w/ck   read / write / checksum errors (zpool status)
  OPS/s MB/s   reads + writes per second, in MiB/s (zpool iostat)
  RD/WR ms     disk wait: time the disk took per I/O (zpool iostat -l)
  FILL         top-level vdevs: space used; │ marks the pool's mean fill,
               the figure after the % is the gap to that mean
  %UTIL        disks: share of time the device was busy (/proc/diskstats)
  ! name       an outlier: far busier or slower than its peers, or named by a finding
Capacity gauge: ┃ marks 80 % (writes slow down) and 90 % (critical).
Chart: the pool or the selected row; read and write, last 10 minutes."""


class _TextScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,i", "dismiss", "Close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self._title, self._body = title, body

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(self._title, classes="dialog-title")
            yield Static(self._body)
            yield Static("esc close", classes="hint")


def keys_markup(screen: Screen[None]) -> str:
    """The screen's own bindings whose action is enabled now, in the order they are declared
    (the tables' cursor keys and Textual's focus keys are summed up in one line instead)."""
    enabled = {
        (a.binding.action, a.binding.key)
        for a in screen.active_bindings.values()
        if a.enabled and a.node is screen
    }
    lines, seen = [], set()
    for b in type(screen).BINDINGS:
        if not isinstance(b, Binding) or not b.description or b.action in seen:
            continue
        keys = [k for k in b.key.split(",") if (b.action, k) in enabled]
        if not keys:
            continue
        seen.add(b.action)
        display = " ".join(screen.app.get_key_display(Binding(k, b.action)) for k in keys)
        lines.append(f"  {tag(display.ljust(12), 'bold $text-accent')} {tag(b.tooltip or b.description)}")
    return "\n".join(lines)


class HelpScreen(_TextScreen):
    def __init__(self, screen: Screen[None]) -> None:
        extra = (
            ("↑↓ pgup pgdn", "move in a table"),
            ("tab", "next table (vdevs, findings)"),
            ("enter", "open the finding under the cursor"),
            ("ctrl+p", "command palette (themes)"),
        )
        body = (
            keys_markup(screen)
            + "\n"
            + "\n".join(f"  {tag(k.ljust(12), 'bold $text-accent')} {tag(d)}" for k, d in extra)
            + f"\n\n{tag(LEGEND)}"
        )
        super().__init__("Keys", body)


class AboutScreen(_TextScreen):
    def __init__(self, frame: Frame) -> None:
        super().__init__(f"About {frame.source}", tag(frame.description or ""))
