"""The config file, ~/.config/zdash/config.yaml: one schema, read in one place.

    checks:                          # the diagnosis engine's thresholds (CheckConfig)
      capacity_pool_warn_pct: 85
      disabled: [topology]
    hosts: [nas1, admin@nas2:2222]   # other hosts the dashboard reads over ssh
    flight_recorder:                 # the flight recorder (FlightSettings)
      minutes: 10
    ui:                              # the dashboard's own (UiSettings)
      theme: zdash-light

`Config` is the whole file: frozen dataclasses, one per section, whose fields' types are the
schema. `read_config` reads the file once and checks every key against them, at every depth:
an unknown key is named with the nearest known one ("did you mean"), a value of the wrong type
says the type it must be. A bad file never crashes zdash with a traceback: `read_config`
raises `ConfigError`, whose message names the file, the key and what is wrong, for the command
to print. Each command reads the file once and hands its sections on.

Dataclasses rather than msgspec or pydantic (CPU to import in a fresh process, 2026-11-29 at
load 30: pydantic's BaseModel ~170 ms, msgspec ~55 ms, zdash.config as a whole ~38 ms): every
message an admin reads (the did-you-mean, "must be a whole number", each section's ranges)
would still be zdash's own, msgspec names the key only inside its message text and neither
suggests a name. The reader below is a walk over the fields' types: no dependency, and no
module imported that zdash.config did not import before.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zdash.ranges import Range


class ConfigError(ValueError):
    """The config file is unreadable or holds an unknown key or a bad value (message is user-facing)."""


# The ids `disabled:` may name (zdash.checks.registry.CHECKS; a test keeps the two in step).
CHECK_IDS = (
    "visibility",
    "health",
    "deranged_disk",
    "smart",
    "media_mix",
    "capacity",
    "scan",
    "imbalance",
    "ashift",
    "topology",
    "clones",
    "dedup",
)
MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class CheckConfig:
    # capacity: % of the pool (zpool list CAP) and of each top-level data vdev.
    capacity_pool_warn_pct: float = 80.0
    capacity_pool_crit_pct: float = 90.0
    capacity_vdev_warn_pct: float = 80.0
    capacity_vdev_crit_pct: float = 90.0
    # `zdash check -w/-c RANGE` (Monitoring Plugins ranges): when given, the pool's capacity as
    # shown (rounded down) is judged against them instead of the _pct threshold they replace.
    # Set by those options, never by the file (its thresholds are the _pct keys).
    capacity_pool_warn_range: Range | None = field(default=None, metadata={"set_by": "zdash check's -w/-c"})
    capacity_pool_crit_range: Range | None = field(default=None, metadata={"set_by": "zdash check's -w/-c"})
    # time-to-full: needs this much history before extrapolating, and warns below this horizon.
    fill_trend_window_s: float = 600.0  # the trend is fitted over this much recent time
    # At least 5 minutes of trend before "full in …": a minute of a rewrite workload (copy-on-
    # write allocates before the txg frees) extrapolated to hours said "full in 8 h" of a pool
    # that was not growing (the lab's bursty fio load on small pools).
    fill_trend_min_span_s: float = 300.0
    fill_trend_min_samples: int = 5
    fill_warn_hours: float = 24.0

    # scan
    scrub_max_age_days: float = 35.0
    scan_rate_window_s: float = 60.0  # rolling window for zdash's own scan rate / ETA
    scan_rate_min_span_s: float = 10.0  # below this the rate is "still measuring"

    # imbalance: spread in percentage points of fill between the fullest and emptiest data vdev.
    imbalance_info_spread_pct: float = 10.0
    imbalance_warn_spread_pct: float = 25.0
    imbalance_size_tolerance_pct: float = 10.0  # vdev sizes within this are "equal"
    # Below the spread, equal vdevs are still compared by their share of the data, once the pool
    # holds this much: under it, pool metadata and a few small files decide the shares (noise).
    imbalance_share_min_gib: float = 1.0

    # dedup: below this DEDUP ratio the note says the table's RAM buys little (at 1.2x each TiB of
    # deduplicated data saves under a sixth of its space; the table costs the same per block).
    dedup_low_ratio: float = 1.2

    # topology
    raidz_max_width: int = 8

    # ashift
    ashift_recommended_min: int = 12

    # deranged_disk: a leaf is "slow" in a sample when a metric is >= ratio x its peers' median
    # AND above the floor (so 0.3 ms vs 0.1 ms, or 20 % vs 5 % busy, never alarms).
    deranged_util_ratio: float = 3.0
    deranged_util_floor_pct: float = 50.0
    deranged_latency_ratio: float = 4.0
    deranged_latency_floor_ms: float = 10.0
    deranged_throughput_tolerance: float = 2.0  # its mean bytes/s over the window <= 2 x peers'
    # Counted in *busy* samples (the leaf did I/O); idle samples are no evidence either way.
    deranged_sustain_samples: int = 5  # slow busy samples among the last `lookback` to raise
    deranged_lookback_samples: int = 10  # busy samples remembered per leaf
    deranged_clear_samples: int = 10  # normal busy samples in a row that clear a raised finding

    # clones: a clone is "fully diverged" when usedbydataset >= ratio x referenced.
    clone_diverged_ratio: float = 0.95
    clone_min_refer_bytes: int = 1 << 20

    # check ids to skip entirely
    disabled: tuple[str, ...] = field(default=(), metadata={"items": "check ids"})

    # Set by `zdash check --text`: the history is one look at a paste, so a counter that cannot
    # be seen growing (SLOW) is judged as it stands, since the counters were last cleared.
    one_look: bool = field(default=False, metadata={"set_by": "zdash check --text"})

    def digest(self) -> int:
        """Every setting, as a 48-bit number: two configs judge alike when it is equal. It tags a
        recording's keyframes (zdash.fold.fold.fold_key): the checks' memory they hold was
        built with these thresholds, and a reader with other ones folds from the start."""
        settings = repr([(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)])
        return int.from_bytes(hashlib.sha256(settings.encode()).digest()[:6], "big")

    def __post_init__(self) -> None:
        problems = []
        for warn, crit in (
            ("capacity_pool_warn_pct", "capacity_pool_crit_pct"),
            ("capacity_vdev_warn_pct", "capacity_vdev_crit_pct"),
            ("imbalance_info_spread_pct", "imbalance_warn_spread_pct"),
        ):
            if getattr(self, warn) > getattr(self, crit):
                problems.append(
                    f"{warn} ({getattr(self, warn)}) must not exceed {crit} ({getattr(self, crit)})"
                )
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if not math.isfinite(value):  # .nan would switch a check off silently
                    problems.append(f"{f.name} must be a finite number (got {value})")
                elif value < 0:
                    problems.append(f"{f.name} must not be negative (got {value})")
        unknown = [c for c in self.disabled if c not in CHECK_IDS]
        if unknown:
            close = [difflib.get_close_matches(c, CHECK_IDS, n=1) for c in unknown]
            hints = "".join(f" (did you mean '{m[0]}'?)" if m else "" for m in close[:1])
            problems.append(
                f"disabled: unknown check id {', '.join(map(repr, unknown))}{hints}; "
                f"the checks are {', '.join(CHECK_IDS)}"
            )
        if self.deranged_lookback_samples < self.deranged_sustain_samples:
            problems.append("deranged_lookback_samples must be >= deranged_sustain_samples")
        if problems:
            raise ConfigError("; ".join(problems))


DEFAULT_PATH = Path("~/.config/zdash/config.yaml")


def default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    return Path(base) / "zdash" / "config.yaml" if base else DEFAULT_PATH.expanduser()


# Flight recorder settings that may be 0 (no wait after a clear, no free-space floor, no settling).
_MAY_BE_ZERO = ("after_clear_s", "min_free_mb", "settle_s")


@dataclass(frozen=True, slots=True)
class FlightSettings:
    """The flight recorder (zdash.feed.flight), the config file's `flight_recorder:` section:

    flight_recorder:
      enabled: true        # false, or --no-flight-recorder, turns it off
      minutes: 10          # the raw samples kept in memory: what an incident starts with
      ring_mb: 64          # ... and at most this much memory for them (compressed)
      after_clear_s: 60    # an incident's recording goes on this long after it clears
      max_minutes: 60      # and at most this long after its onset
      keep: 50             # incident files kept (the oldest removed first)
      max_mb: 512          # and at most this much disk for them all
      min_free_mb: 256     # no recording when the disk has less free than this
      settle_s: 60         # findings raised this soon after zdash starts were there before
      dir: /var/lib/zdash/incidents   # default $XDG_STATE_HOME/zdash/incidents
    """

    enabled: bool = True
    minutes: float = 10.0
    ring_mb: float = 64.0
    after_clear_s: float = 60.0
    max_minutes: float = 60.0
    keep: int = 50
    max_mb: float = 512.0
    min_free_mb: float = 256.0
    settle_s: float = 60.0
    dir: str | None = field(default=None, metadata={"means": "a directory path", "path": True})

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            may_be_zero = f.name in _MAY_BE_ZERO
            if not math.isfinite(value) or value < 0 or (value == 0 and not may_be_zero):
                least = "0 or more" if may_be_zero else "above 0"
                raise ConfigError(f"'flight_recorder.{f.name}' must be a number {least} (got {value!r})")


@dataclass(frozen=True, slots=True)
class UiSettings:
    """The dashboard's own, the config file's `ui:` section:

    ui:
      theme: zdash-light        # --theme wins over this
      wall_cycle_s: 15          # seconds per page of tiles on a wall with more pools than fit
      wall_chart: false         # the wall's history chart (else `g` shows it)
    """

    theme: str | None = field(default=None, metadata={"means": "a theme's name"})
    wall_cycle_s: float = 15.0
    wall_chart: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.wall_cycle_s) and self.wall_cycle_s > 0):
            raise ConfigError(
                f"'ui.wall_cycle_s' must be a positive number of seconds (got {self.wall_cycle_s!r})"
            )


@dataclass(frozen=True, slots=True)
class Config:
    """The whole config file: one field per top-level section."""

    checks: CheckConfig = field(default_factory=CheckConfig)
    # Other hosts the dashboard reads over ssh, as written: each `[user@]host[:port]` or an ssh
    # config alias (zdash.sources.remote parses them; --host replaces the list).
    hosts: tuple[str, ...] = field(default=(), metadata={"items": "[user@]host[:port] entries"})
    flight_recorder: FlightSettings = field(default_factory=FlightSettings)
    ui: UiSettings = field(default_factory=UiSettings)


def read_config(path: str | Path | None = None) -> Config:
    """The config file, checked whole against the schema. No file at the default place (or an
    empty one, or a section left out) means the defaults; a file named explicitly (--config)
    must exist. ConfigError names the file and the first thing wrong in it."""
    file = Path(path).expanduser() if path is not None else default_path()
    if not file.exists():
        if path is not None:
            raise ConfigError(f"{file}: no such config file")
        return Config()
    doc = _read(file)
    if doc is None:
        return Config()
    if not isinstance(doc, dict):
        raise ConfigError(f"{file}: expected a mapping at the top level")
    try:
        return _section(Config, doc, "")
    except ConfigError as exc:
        raise ConfigError(f"{file}: {exc}") from None


def _read(file: Path) -> object:
    """The file's document; ConfigError naming the file and what is wrong (unreadable, not
    YAML, larger than a config, nested too deeply, aliases)."""
    from ruamel.yaml import YAMLError  # only needed when a file exists

    from zdash.yaml_doc import TooLarge, YamlRefused, load_yaml_file

    try:
        return load_yaml_file(str(file), MAX_CONFIG_BYTES)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read: {exc}") from None
    except TooLarge as exc:
        raise ConfigError(f"{file}: {exc}: not a zdash config file") from None
    except YamlRefused as exc:
        raise ConfigError(f"{file}: {exc}") from None
    except YAMLError as exc:
        raise ConfigError(f"{file}: not valid YAML: {' '.join(str(exc).split())}") from None


if typing.TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Section = typing.TypeVar("_Section", bound="DataclassInstance")


def _section(cls: type[_Section], values: object, where: str) -> _Section:
    """The section's dataclass from its mapping (`where`: its dotted name, "" for the file):
    every key one of its fields (else the nearest name), every value of its field's type; the
    dataclass's own __post_init__ then checks ranges and how values relate."""
    if not isinstance(values, dict):
        keys = ", ".join(_keys(cls)[:4])
        raise ConfigError(f"'{where}' must be a mapping of its keys to values ({keys}, ...)")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    types = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{where}.{key}" if where else str(key)
        f = fields.get(key) if isinstance(key, str) else None
        if f is None or "set_by" in f.metadata:
            known = _keys(cls)
            close = difflib.get_close_matches(str(key), known, n=1)
            if f is not None:
                hint = f" ({f.metadata['set_by']} set it)"
            elif close:
                hint = f" (did you mean '{where + '.' if where else ''}{close[0]}'?)"
            else:
                hint = "" if where else f"; the file's sections are {', '.join(known)}"
            raise ConfigError(f"unknown key '{name}'{hint}")
        kwargs[f.name] = _value(types[f.name], value, name, f)
    return cls(**kwargs)


def _keys(cls: type[DataclassInstance]) -> list[str]:
    """The keys a file may set in the section."""
    return [f.name for f in dataclasses.fields(cls) if "set_by" not in f.metadata]


def _value(kind: object, value: object, name: str, f: dataclasses.Field[Any]) -> object:
    """`value` as the field's type, or ConfigError saying what the key takes. int where a float
    is expected is fine, and a whole float where an int is; a list may be one string."""
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return kind() if value is None else _section(kind, value, name)
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"'{name}' must be true or false (got {value!r})")
        return value
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"'{name}' must be a number (got {value!r})")
        if kind is float:
            return float(value)
        if isinstance(value, float) and not value.is_integer():
            raise ConfigError(f"'{name}' must be a whole number (got {value!r})")
        return int(value)
    if kind == tuple[str, ...]:
        if value is None:
            return ()
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise ConfigError(f"'{name}' must be a list of {f.metadata['items']}")
        return tuple(items)
    if kind in (str, str | None):
        if value is None and kind is not str:
            return None  # left empty: the default
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"'{name}' must be {f.metadata['means']} (got {value!r})")
        return os.path.expanduser(value) if f.metadata.get("path") else value
    raise TypeError(f"the config reader has no rule for {name}'s type {kind!r}")  # a new field's type
