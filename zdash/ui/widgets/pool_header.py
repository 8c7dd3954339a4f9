"""Per pool: health and space on one line, the capacity gauge with its 80 % and 90 % marks,
and the scrub/resilver line with progress and zdash's own ETA (the scan check's figures)."""

from __future__ import annotations

from textual import getters
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from zdash import fmt
from zdash.checks.scan import eta
from zdash.checks.visibility import hint
from zdash.config import CheckConfig
from zdash.feed.frame import Frame, ScanRates
from zdash.model import Pool, Scan
from zdash.ui.app import ZdashApp
from zdash.ui.markup import cell_markup, merge_runs, tag
from zdash.ui.roles import ROLE_VAR, Cell, Role, state_role
from zdash.ui.vdev_rows import fill_role, shown_pool

MARKS: tuple[tuple[int, Role], ...] = ((80, "warn"), (90, "crit"))


def health_line(pool: Pool) -> str:
    state = tag(f"● {pool.state}", "bold " + ROLE_VAR[state_role(pool.state)])
    io = pool.root.io
    parts = [tag(pool.name, "bold"), state, f"{fmt.size(pool.size)}", f"frag {fmt.pct(pool.frag_pct)}"]
    if pool.dedup_ratio and pool.dedup_ratio != 1.0:
        parts.append(f"dedup {pool.dedup_ratio:.2f}×")
    if io is not None:
        parts.append(
            tag(
                f"↓{fmt.mbps(io.read_bytes)} ↑{fmt.mbps(io.write_bytes)} MB/s  "
                f"{fmt.ops(io.read_ops + io.write_ops)} op/s",
                "$foreground-muted",
            )
        )
    return "  ".join(parts)


def gauge_line(pool: Pool, width: int) -> str:
    pct = pool.fill_pct
    if pct is None:
        return tag("CAP  no space figures yet", "$foreground-muted")
    role = fill_role(pct)
    filled, empty = fmt.bar_cells(pct / 100, width)
    chars: list[tuple[str, Role]] = [(c, role) for c in filled] + [(c, "bar-free") for c in empty]
    for mark, mark_role in MARKS:  # the 80 % and 90 % lines, drawn over the bar
        chars[min(width * mark // 100, width - 1)] = ("┃", mark_role)
    figure = tag(f"{pct:3.0f}%", "bold " + ROLE_VAR[role] if pct >= 80 else "bold")
    used = tag(f"{fmt.size(pool.alloc)} used, {fmt.size(pool.free)} free", "$foreground-muted")
    return f"CAP {cell_markup(merge_runs(chars))} {figure}  {used}"


def scan_line(pool: Pool, rates: ScanRates, width: int) -> str:
    scan = pool.scan
    if scan is None:
        return tag("no scrub on record", "$text-warning")
    if scan.state in ("scanning", "paused"):
        return _running(pool, scan, rates, width)
    when = fmt.stamp(scan.end_time) if scan.end_time else "?"
    errors = scan.errors or 0
    done = f"{scan.function} {scan.state} {when}"
    tail = f"{errors} errors" + (f", repaired {fmt.size(scan.processed)}" if scan.processed else "")
    return f"{tag(done, '$foreground-muted')}  {tag(tail, '$text-error' if errors else '$foreground-muted')}"


def _running(pool: Pool, scan: Scan, rates: ScanRates, width: int) -> str:
    rate, _span = rates.get((pool.name, scan.function, scan.start_time), (None, 0.0))  # the scan check's
    done, left = eta(scan, rate)
    pct = done if done is not None else 0.0
    role: Role = "warn" if scan.function != "scrub" else "info"
    gauge = cell_markup(_bar(pct / 100, max(10, min(30, width - 60)), role))
    head = tag(f"{scan.function}{' (paused)' if scan.state == 'paused' else ''}", "bold " + ROLE_VAR[role])
    out = f"{head} {gauge} {pct:5.1f}%"
    if scan.state == "scanning":
        out += f"  {fmt.mbps(rate)} MB/s" if rate is not None else "  measuring rate…"
        if left is not None:
            out += f"  ETA {tag(fmt.duration(left), 'bold')}"
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


def header_markup(
    frame: Frame, pool_name: str | None, cfg: CheckConfig, width: int, empty: str | None
) -> str:
    pool = shown_pool(frame.snapshot, pool_name)
    if pool is None:
        if (failed := could_not_ask(frame)) is not None:
            return tag(failed, "$text-error")
        if empty is None:
            empty = (
                "no pools imported on this host"
                if frame.snapshot.sources
                else "waiting for the first sample…"
            )
        return tag(empty, "$foreground-muted")
    width = max(width, 40)
    return "\n".join(
        (
            health_line(pool),
            gauge_line(pool, max(10, min(50, width - 42))),
            scan_line(pool, frame.scan_rates, width),
        )
    )


class PoolHeader(Widget):
    """Bound to its screen's frame and pool (data_bind); one piece of content, drawn by
    render() at the widget's width. `empty`: what to say when there is no pool to show."""

    app = getters.app(ZdashApp)
    frame: reactive[Frame | None] = reactive(None)
    pool_name: reactive[str | None] = reactive(None)

    def __init__(self, empty: str | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.empty = empty

    def render(self) -> Content:
        if self.frame is None:
            return Content()
        return Content.from_markup(
            header_markup(self.frame, self.pool_name, self.app.cfg, self.size.width, self.empty)
        )
