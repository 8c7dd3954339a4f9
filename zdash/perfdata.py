"""Performance data for monitoring plugins (Nagios, Icinga, Naemon, Checkmk's classic checks):
the numbers a graph or a threshold wants, per pool and per data vdev, from one Snapshot.

Format, per the Nagios plugin guidelines (nagios-plugins.org/doc/guidelines.html#AEN200):
  'label'=value[UOM];[warn];[crit];[min];[max]
UOM is one of '', s/ms/us, %, B/KB/MB/TB, c (a continuous counter). Labels are quoted when
they hold anything but letters, digits and _ . : / -; trailing empty fields are dropped. A label
never holds '=' (the guidelines forbid it: '_' instead) or '|' (Nagios splits the output there:
'¦' instead), and a quote in it is doubled; plugin_text keeps '|' out of the text as well.
Labels are prefixed with the pool, so several pools (and vdev names repeated across pools,
mirror-0 in each) never collide. No Textual, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from zdash.config import CheckConfig
from zdash.fmt import fill_figure
from zdash.model import Snapshot
from zdash.ranges import Range
from zdash.visible import visible

_PLAIN_LABEL = re.compile(r"^[A-Za-z0-9_.:/-]+$")
PIPE_SHOWN = "¦"  # what a '|' of a name reads as in plugin output


def plugin_text(text: str) -> str:
    """Text for a plugin's output line: one line (controls shown escaped, zdash.visible) with no
    '|', which would end the text and start performance data (a device named `d | x=1` injected
    a metric)."""
    return visible(text).replace("|", PIPE_SHOWN)


@dataclass(frozen=True, slots=True)
class PerfDatum:
    label: str
    value: float
    uom: str = ""
    warn: float | str | None = None  # a number, or a Monitoring Plugins range as given (-w/-c)
    crit: float | str | None = None
    min: float | None = None
    max: float | None = None

    def text(self) -> str:
        label = plugin_text(self.label).replace("=", "_")
        label = label if _PLAIN_LABEL.match(label) else "'" + label.replace("'", "''") + "'"
        fields = [f"{_num(self.value)}{self.uom}"] + [
            "" if v is None else v if isinstance(v, str) else _num(v)
            for v in (self.warn, self.crit, self.min, self.max)
        ]
        while len(fields) > 1 and fields[-1] == "":
            fields.pop()
        return f"{label}={';'.join(fields)}"

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "value": self.value,
            "uom": self.uom,
            "warn": self.warn,
            "crit": self.crit,
            "min": self.min,
            "max": self.max,
        }


def _num(v: float) -> str:
    """Plain decimal, never exponent notation (plugins' parsers do not all read 1e+06)."""
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _threshold(given: Range | None, pct: float) -> float | str:
    """A range as the admin wrote it (its text is already the guidelines' syntax), else the
    config's percentage."""
    return pct if given is None else given.text


def _worst(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def perfdata(snap: Snapshot, cfg: CheckConfig) -> list[PerfDatum]:
    out: list[PerfDatum] = []
    for pool in snap.pools:
        p = pool.name
        if (cap := pool.fill_pct) is not None:
            out.append(
                PerfDatum(
                    f"{p}_cap",
                    fill_figure(cap),
                    "%",
                    # the ranges of -w/-c where given: perfdata's thresholds are the check's
                    _threshold(cfg.capacity_pool_warn_range, cfg.capacity_pool_warn_pct),
                    _threshold(cfg.capacity_pool_crit_range, cfg.capacity_pool_crit_pct),
                    0,
                    100,
                )
            )
        if pool.frag_pct is not None:
            out.append(PerfDatum(f"{p}_frag", pool.frag_pct, "%", min=0, max=100))
        # A single-disk vdev is named by its path: its last part is label enough.
        out.extend(
            PerfDatum(
                f"{p}_{v.name.rsplit('/', 1)[-1]}_fill",
                fill_figure(fill),
                "%",
                cfg.capacity_vdev_warn_pct,
                cfg.capacity_vdev_crit_pct,
                0,
                100,
            )
            for v in pool.data_vdevs()
            if (fill := v.fill_pct) is not None
        )
        io = pool.io_of(pool.root)
        if io is not None:
            out.append(PerfDatum(f"{p}_read_bytes_per_s", round(io.read_bytes), min=0))
            out.append(PerfDatum(f"{p}_write_bytes_per_s", round(io.write_bytes), min=0))
        leaves = list(pool.leaves())
        if leaves:  # a pool seen without its devices (a status cut before its config): no count
            errors = sum(v.read_errors + v.write_errors + v.checksum_errors for v in leaves)
            out.append(PerfDatum(f"{p}_device_errors", errors, "c", min=0))
        ios = [io for io in map(pool.io_of, leaves) if io is not None]
        wait = _worst([w for io in ios for w in (io.disk_wait_read, io.disk_wait_write)])
        if wait is not None:
            out.append(PerfDatum(f"{p}_worst_disk_wait", round(wait / 1e6, 2), "ms", min=0))
        util = _worst([disk.util_pct for disk in map(pool.disk_of, leaves) if disk is not None])
        if util is not None:
            out.append(PerfDatum(f"{p}_worst_util", round(util, 1), "%", min=0, max=100))
    return out


def perfdata_text(data: Sequence[PerfDatum]) -> str:
    return " ".join(d.text() for d in data)
