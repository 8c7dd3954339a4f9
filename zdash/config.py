"""Thresholds for the diagnosis engine, with defaults an admin can override.

~/.config/zdash/config.yaml holds them as flat keys under `checks:`, named like the fields below:

    checks:
      capacity_pool_warn_pct: 85
      scrub_max_age_days: 60
      disabled: [topology]

Other top-level sections of the file belong to other parts of zdash and are ignored here.
A bad file never crashes zdash with a traceback: `load_config` raises `ConfigError`, whose
message names the file, the key and what is wrong, for the CLI to print.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
import os
from dataclasses import dataclass
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
    capacity_pool_warn_range: Range | None = None
    capacity_pool_crit_range: Range | None = None
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
    disabled: tuple[str, ...] = ()

    # Set by `zdash check --text`: the history is one look at a paste, so a counter that cannot
    # be seen growing (SLOW) is judged as it stands, since the counters were last cleared.
    one_look: bool = False

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


# Set by `zdash check`'s options, not by a file (a file's thresholds are the _pct keys).
COMMAND_LINE_ONLY = ("capacity_pool_warn_range", "capacity_pool_crit_range")
DEFAULT_PATH = Path("~/.config/zdash/config.yaml")


def default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    return Path(base) / "zdash" / "config.yaml" if base else DEFAULT_PATH.expanduser()


def load_config(path: str | Path | None = None) -> CheckConfig:
    """Read the `checks:` section. No file at the default place (or no section) means all
    defaults; a file named explicitly (--config) must exist."""
    file = Path(path).expanduser() if path is not None else default_path()
    if not file.exists():
        if path is not None:
            raise ConfigError(f"{file}: no such config file")
        return CheckConfig()
    doc = _read(file)
    if doc is None:
        return CheckConfig()
    if not isinstance(doc, dict):
        raise ConfigError(f"{file}: expected a mapping at the top level")
    section = doc.get("checks")
    if section is None:
        return CheckConfig()
    if not isinstance(section, dict):
        raise ConfigError(f"{file}: 'checks' must be a mapping of threshold names to values")
    try:
        return config_from_mapping(section)
    except ConfigError as exc:
        raise ConfigError(f"{file}: {exc}") from None


def load_hosts(path: str | Path | None = None) -> tuple[str, ...]:
    """The `hosts:` list (other hosts the dashboard reads over ssh), as written: each entry
    `[user@]host[:port]` or an ssh config alias (zdash.sources.remote parses them). Empty when
    there is no file or no list."""
    file = Path(path).expanduser() if path is not None else default_path()
    if not file.exists():
        return ()
    try:
        doc = _read(file)
    except ConfigError:
        return ()  # load_config, which runs first, has said what is wrong with the file
    hosts = doc.get("hosts") if isinstance(doc, dict) else None
    if hosts is None:
        return ()
    if isinstance(hosts, str):
        hosts = [hosts]
    if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
        raise ConfigError(f"{file}: 'hosts' must be a list of [user@]host[:port] entries")
    return tuple(hosts)


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
    dir: str | None = None


def load_flight_settings(path: str | Path | None = None) -> FlightSettings:
    """The `flight_recorder:` section (all defaults without a file or a section)."""
    file = Path(path).expanduser() if path is not None else default_path()
    if not file.exists():
        return FlightSettings()
    try:
        doc = _read(file)
    except ConfigError:
        return FlightSettings()  # load_config, which runs first, has said what is wrong with the file
    section = doc.get("flight_recorder") if isinstance(doc, dict) else None
    if section is None:
        return FlightSettings()
    if not isinstance(section, dict):
        raise ConfigError(
            f"{file}: 'flight_recorder' must be a mapping (enabled, minutes, keep, max_mb, ...)"
        )
    defaults = FlightSettings()
    kwargs: dict[str, Any] = {}
    for key, value in section.items():
        try:
            _known(key, FlightSettings, "flight_recorder.")
        except ConfigError as e:
            raise ConfigError(f"{file}: {e}") from None
        default = getattr(defaults, key)
        if key == "enabled":
            if not isinstance(value, bool):
                raise ConfigError(f"{file}: 'flight_recorder.enabled' must be true or false")
        elif key == "dir":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{file}: 'flight_recorder.dir' must be a directory path")
            value = os.path.expanduser(value)
        else:
            try:
                value = _coerce(key, value, default, section="flight_recorder.")
            except ConfigError as e:
                raise ConfigError(f"{file}: {e}") from None
            may_be_zero = key in ("after_clear_s", "min_free_mb", "settle_s")
            if not math.isfinite(value) or value < 0 or (value == 0 and not may_be_zero):
                least = "0 or more" if may_be_zero else "above 0"
                raise ConfigError(f"{file}: 'flight_recorder.{key}' must be a number {least} (got {value!r})")
        kwargs[key] = value
    return FlightSettings(**kwargs)


def _known(key: object, settings: type, section: str) -> None:
    """ConfigError for a key the section's dataclass has no field for, with the nearest name."""
    fields = [f.name for f in dataclasses.fields(settings)]
    if key not in fields:
        close = difflib.get_close_matches(str(key), fields, n=1)
        hint = f" (did you mean '{section}{close[0]}'?)" if close else ""
        raise ConfigError(f"unknown key '{section}{key}'{hint}")


def config_from_mapping(values: dict[str, Any]) -> CheckConfig:
    defaults = CheckConfig()
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        if key in COMMAND_LINE_ONLY:
            raise ConfigError(f"unknown key 'checks.{key}' (zdash check's -w/-c set it)")
        _known(key, CheckConfig, "checks.")
        kwargs[key] = _coerce(key, value, getattr(defaults, key))
    return CheckConfig(**kwargs)


def _coerce(key: str, value: Any, default: Any, section: str = "checks.") -> Any:
    """Accept what YAML gives for the field's type; int where a float is expected is fine."""
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"'{section}{key}' must be a list of check ids")
        return tuple(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"'{section}{key}' must be a number (got {value!r})")
    if isinstance(default, int):
        if isinstance(value, float) and not value.is_integer():
            raise ConfigError(f"'{section}{key}' must be a whole number (got {value!r})")
        return int(value)
    return float(value)
