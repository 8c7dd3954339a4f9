"""`?`: the keys that apply right now (read from the bindings, so it cannot go out of date)
and what the columns mean. (What a recording's author says to look for is the dashboard's
description panel: zdash.ui.widgets.about_panel.)"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from zdash.ui.markup import NEWLINE, join, tag

LEGEND = """\
Vdev table: the pool, its top-level vdevs and their disks. A narrow
terminal drops QUEUE, ASHIFT, OPS/s, then TOTAL (at 80 columns DISK
r/w is headed DSKr DSKw and the bars give way to the figures).
  ERR r/w/ck   read / write / checksum errors (zpool status)
  SLOW         disks: I/Os slower than zio_slow_io_ms (30 s by
               default; zpool status -s)
  OPS/s MiB/s  reads + writes per second; MiB per second (iostat)
  TOTAL r/w    ms an I/O took, ZFS's own queues included (iostat -l)
  DISK r/w     ms of that in the disk: TOTAL far above DISK is
               queueing in ZFS; both high is the disk
  %UTIL        disks: share of time the device was busy (diskstats)
  QUEUE        disks: requests in flight on average (aqu-sz)
  ASHIFT       top-level vdevs: the configured ashift; in the
               warning colour when a disk in it has larger sectors
  FILL         top-level vdevs: space used; │ marks the pool's mean
               fill, the figure after the % is the gap to that mean
  ! name       an outlier: far busier or slower than its peers, or
               named by a finding
Header: the worst finding first (CRIT / WARN / ? STALE), OK when nothing is above INFO.
  frag         free-space fragmentation (zpool list FRAG): how broken up the FREE space
               is, not the data; high frag with a full pool makes writes slow
  writable     what can still be written: free minus ZFS's slop reserve (1/32 of the
               pool), or the root dataset's avail; raw free overstates it
Capacity gauge: ┃ marks 80 % (writes slow down) and 90 % (critical).
Chart: the pool or the selected row, the last minute (up to 10 min):
  read and write; a disk in a vdev with other disks against its
  peers (MiB/s, %UTIL, disk wait: the worse of read and write; p
  switches; the peers are the dots), where a sick disk moves the same
  MiB/s at a far higher %UTIL and wait. A break in a line is a time
  with nothing measured."""


class _TextScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, title: str, body: Content) -> None:
        super().__init__()
        self._title, self._body = title, body

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(self._title, classes="dialog-title")
            yield Static(self._body)
            yield Static("esc close", classes="hint")


def keys_content(screen: Screen[None]) -> Content:
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
        lines.append(
            join("  ", tag(display.ljust(14), "bold $text-accent"), " ", tag(b.tooltip or b.description))
        )
    return NEWLINE.join(lines)


DASHBOARD_KEYS = (
    ("↑↓ pgup pgdn", "move in a table"),
    ("home end", "first / last row of the focused table"),
    ("tab", "next table (vdevs, findings)"),
    ("enter", "open the finding under the cursor"),
    ("ctrl+p", "command palette: worst finding, pools, seek, record, wall view, theme"),
)
DATASETS_KEYS = (
    ("↑↓", "move in the clone tree"),
    ("enter space", "expand / collapse a dataset"),
)
DATASETS_LEGEND = """The clone tree: each filesystem or volume under the snapshot it was cloned from (its origin).
The detail names what `zfs destroy -R` of the dataset under the cursor would take with it
(its snapshots, and every clone of them, recursively), and when `zfs promote` of a clone
would let the origin go instead."""
PLAN_KEYS = (
    ("name + enter", "type the device name shown, then Enter: runs a disruptive plan"),
    ("↑↓ pgup pgdn", "scroll the plan's checks"),
)
PLAN_LEGEND = """A plan shows the exact command (argv, never a shell), what it does, how long it takes and its
pre-flight checks against the pool as it is now. PASS / WARN / FAIL per check; a FAIL blocks.
A failed check that only names a risk (taking away a vdev's last redundancy) runs once you
accept it with A; the pool is checked once more right before the command runs. Replay, demo
and wall never run anything. Every run is written to the audit log."""
WALL_TEXT = """Wall mode is read-only: no key acts on a pool (ctrl+q quits; g shows the chart).
Tiles: one per pool, sickest first, each led by its verdict in big letters (OK / WARN / CRIT /
STALE), then the subject and why of its worst finding, then the capacity. When the pools do not
all fit, the healthy ones take turns. Below: findings no tile shows, then the sickest pool's
vdevs with its worst row kept in view. The top line has a clock and when the data is from; when
no data comes, a big STALE and every tile says so."""


def _key_lines(extra: tuple[tuple[str, str], ...]) -> Content:
    return NEWLINE.join(join("  ", tag(k.ljust(14), "bold $text-accent"), " ", tag(d)) for k, d in extra)


class HelpScreen(_TextScreen):
    """The keys of `screen` (its enabled bindings), then `extra` keys its widgets handle and
    `legend`: what that screen shows. Each screen passes its own, never the dashboard's."""

    def __init__(
        self,
        screen: Screen[None],
        extra: tuple[tuple[str, str], ...] = DASHBOARD_KEYS,
        legend: str = LEGEND,
    ) -> None:
        keys = NEWLINE.join(x for x in (keys_content(screen), _key_lines(extra)) if x)
        super().__init__("Keys", Content("\n\n").join(x for x in (keys, tag(legend)) if x))
