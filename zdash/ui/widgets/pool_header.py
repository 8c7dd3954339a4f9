"""Per pool, four lines: the verdict first (the worst finding's word, glyph and title on a
field of its severity's colour, or OK when nothing is above INFO: what a 3 a.m. reader decides
on), then health and size, the capacity gauge with its 80 % and 90 % marks and the writable
headroom beside raw free, and the scrub/resilver line with progress and zdash's own ETA (the
scan check's figures). Sizes in IEC units, labelled; rates in MiB/s."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from textual import getters
from textual.content import Content
from textual.reactive import var

from zdash import fmt
from zdash.checks.capacity import headroom
from zdash.checks.finding import Finding, Severity
from zdash.checks.scan import eta
from zdash.checks.visibility import hint
from zdash.config import CheckConfig
from zdash.feed.frame import Frame
from zdash.fold.frame import ScanRates
from zdash.model import Pool, Scan, Snapshot
from zdash.ui.app import ZdashApp
from zdash.ui.line_cache import LineCachedWidget
from zdash.ui.markup import cell_content, join, merge_runs, tag
from zdash.ui.roles import ROLE_VAR, SEVERITY_ICON, Cell, Role, severity_role, state_role, state_word
from zdash.ui.vdev_rows import fill_role, shown_pool

MARKS: tuple[tuple[int, Role], ...] = ((80, "warn"), (90, "crit"))


# The verdict's field: the theme's severity colour behind the theme's background ink, so
# CRIT (red) and WARN (amber) differ by far more than a tint, and by their word and glyph too.
BADGE: dict[Role, str] = {
    "crit": "bold $background on $error",
    "warn": "bold $background on $warning",
    "info": "bold $background on $success",
}


def pool_findings(pool: Pool, findings: Sequence[Finding]) -> list[Finding]:
    """This pool's findings above INFO, worst first (the engine's order), host-level ones
    (pool None: zdash cannot see) included: they are about every pool."""
    return [f for f in findings if f.pool in (pool.name, None) and f.severity > Severity.INFO]


def verdict_line(pool: Pool, findings: Sequence[Finding], width: int) -> Content:
    mine = pool_findings(pool, findings)
    if not mine:
        return join(tag(" ● OK ", BADGE["info"]), " ", tag("nothing above INFO", "$foreground-muted"))
    worst = mine[0]
    badge = f" {SEVERITY_ICON[worst.severity]} "
    more = f"  (+{len(mine) - 1} more, f)" if len(mine) > 1 else ""
    room = max(10, width - len(badge) - len(more) - 2)
    title = worst.title if len(worst.title) <= room else worst.title[: room - 1] + "…"
    role = severity_role(worst.severity)
    return join(tag(badge, BADGE[role]), " ", tag(title, "bold"), tag(more, "$foreground-muted"))


def health_line(pool: Pool) -> Content:
    shown = "health not shown" if state_word(pool.state) == "-" else pool.state
    state = tag(f"● {shown}", "bold " + ROLE_VAR[state_role(pool.state)])
    io = pool.io_of(pool.root)
    parts: list[Content | str] = [
        tag(pool.name, "bold"), state, fmt.fmt_bytes(pool.size), f"frag {fmt.pct(pool.frag_pct)}"
    ]  # fmt: skip
    if pool.dedup_ratio and pool.dedup_ratio != 1.0:
        parts.append(f"dedup {pool.dedup_ratio:.2f}×")
    if io is not None:
        parts.append(
            tag(
                f"↓{fmt.mbps(io.read_bytes)} ↑{fmt.mbps(io.write_bytes)} MiB/s  "
                f"{fmt.ops(io.read_ops + io.write_ops)} op/s",
                "$foreground-muted",
            )
        )
    return Content("  ").join(parts)


def gauge_line(pool: Pool, width: int, snap: Snapshot | None = None) -> Content:
    pct = pool.fill_pct
    if pct is None:
        return tag("CAP  no space figures yet", "$foreground-muted")
    # Raw free is not what can be written: ZFS holds back slop space, and the root dataset's
    # avail (reservations, raidz parity) is the truth. The capacity check's own figure.
    room = headroom(snap, pool)[0] if snap is not None else None
    return _gauge(pct, pool.alloc, pool.free, room, width)


@lru_cache(maxsize=16)
def _gauge(pct: float, alloc: int | None, free: int | None, room: float | None, width: int) -> Content:
    """The gauge line of these figures: made once while they read the same (most ticks)."""
    role = fill_role(pct)
    filled, empty = fmt.bar_cells(pct / 100, width)
    chars: list[tuple[str, Role]] = [(c, role) for c in filled] + [(c, "bar-free") for c in empty]
    for mark, mark_role in MARKS:  # the 80 % and 90 % lines, drawn over the bar
        chars[min(width * mark // 100, width - 1)] = ("┃", mark_role)
    figure = tag(f"{fmt.fill(pct):>4}", "bold " + ROLE_VAR[role] if pct >= 80 else "bold")
    used = tag(f"{fmt.fmt_bytes(alloc)} used, {fmt.fmt_bytes(free)} free", "$foreground-muted")
    writable = "" if room is None else join("  ", tag(f"{fmt.fmt_bytes(max(room, 0))} writable", "bold"))
    return join("CAP ", cell_content(merge_runs(chars)), " ", figure, "  ", used, writable)


def scan_line(pool: Pool, rates: ScanRates, width: int) -> Content:
    scan = pool.scan
    if scan is None and not pool.scans_known:
        return tag("scrub history not known (not in what zdash read)", "$foreground-muted")
    if scan is None:
        return tag("no scrub on record", "$zd-warn")
    if scan.state in ("scanning", "paused"):
        return _running(pool, scan, rates, width)
    when = fmt.stamp(scan.end_time) if scan.end_time else "?"
    errors = scan.errors or 0
    done = f"{scan.function} {scan.state} {when}"
    tail = f"{errors} errors" + (f", repaired {fmt.size(scan.processed)}" if scan.processed else "")
    return join(
        tag(done, "$foreground-muted"), "  ", tag(tail, "$zd-crit" if errors else "$foreground-muted")
    )


def _running(pool: Pool, scan: Scan, rates: ScanRates, width: int) -> Content:
    rate, _span = rates.get((pool.name, scan.function, scan.start_time), (None, 0.0))  # the scan check's
    done, left = eta(scan, rate)
    pct = done if done is not None else 0.0
    role: Role = "warn" if scan.function != "scrub" else "info"
    gauge = cell_content(_bar(pct / 100, max(10, min(30, width - 60)), role))
    head = tag(f"{scan.function}{' (paused)' if scan.state == 'paused' else ''}", "bold " + ROLE_VAR[role])
    out = join(head, " ", gauge, f" {pct:5.1f}%")
    if scan.state == "scanning":
        out += f"  {fmt.mbps(rate)} MiB/s" if rate is not None else "  measuring rate…"
        if left is not None:
            out += join("  ETA ", tag(fmt.duration(left), "bold"))
        if scan.zpool_eta_s is not None:
            out += tag(f" (zpool says {fmt.duration(scan.zpool_eta_s)})", "$foreground-muted")
    return out


def _bar(frac: float, width: int, role: Role) -> Cell:
    filled, empty = fmt.bar_cells(frac, width)
    return ((filled, role), (empty, "bar-free"))


def could_not_ask(frame: Frame) -> str | None:
    """No pool to show because zpool could not be asked: which command failed, its error, for
    how long, and what to do (never "no pools imported" when zdash simply could not ask)."""
    failing = {s.key: s for s in frame.snapshot.sources if s.key in ("status", "list") and not s.ok}
    failed = failing.get("status") or failing.get("list")
    if failed is None:
        return None
    message = failed.message or f"zpool {failed.key}: no fresh data"
    since = (
        f"failing for {fmt.duration(failed.age_s)}"
        if failed.age_s is not None
        else "no answer since zdash started"
    )
    return f"cannot read the pools: {message} ({since}).{hint(message)}"


def header_lines(
    frame: Frame, pool_name: str | None, cfg: CheckConfig, width: int, empty: str | None, verdict: bool = True
) -> list[Content]:
    pool = shown_pool(frame.snapshot, pool_name)
    if pool is None:
        if (failed := could_not_ask(frame)) is not None:
            return [tag(failed, "$text-error")]
        if empty is None:
            empty = (
                "no pools imported on this host"
                if frame.snapshot.sources
                else "waiting for the first sample…"
            )
        return [tag(empty, "$foreground-muted")]
    width = max(width, 40)
    return [
        *((verdict_line(pool, frame.findings, width),) if verdict else ()),
        health_line(pool),
        gauge_line(pool, max(10, min(50, width - 60)), frame.snapshot),
        scan_line(pool, frame.scan_rates, width),
    ]


class PoolHeader(LineCachedWidget):
    """Bound to its screen's frame and pool (data_bind); its lines at the widget's width, each
    redrawn only when it reads otherwise (zdash.ui.line_cache: a new frame mostly moves the
    throughput alone). `empty`: what to say when there is no pool to show."""

    app = getters.app(ZdashApp)
    frame: var[Frame | None] = var(None)
    pool_name: var[str | None] = var(None)

    def __init__(self, empty: str | None = None, *, verdict: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.empty = empty
        self.verdict = verdict  # False where a tile beside it already leads with the verdict

    def watch_frame(self) -> None:
        self.redraw()

    def watch_pool_name(self) -> None:
        self.redraw()

    def lines(self) -> list[Content]:
        if self.frame is None:
            return []
        return header_lines(
            self.frame, self.pool_name, self.app.cfg, self.size.width, self.empty, self.verdict
        )
