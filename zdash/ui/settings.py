"""The dashboard's own section of ~/.config/zdash/config.yaml:

    ui:
      theme: zdash-light        # --theme wins over this
      wall_cycle_s: 15          # seconds per page of tiles on a wall with more pools than fit
      wall_chart: false         # the wall's history chart (else `g` shows it)

(The `checks:` section belongs to zdash.config.)"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from zdash.config import ConfigError, default_path


@dataclass(frozen=True, slots=True)
class UiSettings:
    theme: str | None = None
    wall_cycle_s: float = 15.0
    wall_chart: bool = False


def load_ui_settings(path: str | Path | None = None) -> UiSettings:
    file = Path(path).expanduser() if path is not None else default_path()
    if not file.exists():
        return UiSettings()
    from ruamel.yaml import YAMLError

    from zdash.config import MAX_CONFIG_BYTES
    from zdash.yaml_doc import YamlRefused, load_yaml_file

    try:
        doc = load_yaml_file(str(file), MAX_CONFIG_BYTES)
    except (OSError, UnicodeDecodeError, YAMLError, YamlRefused) as e:
        raise ConfigError(f"{file}: cannot read: {' '.join(str(e).split())}") from None
    ui = (doc or {}).get("ui") if isinstance(doc, dict) else None
    if ui is None:
        return UiSettings()
    if not isinstance(ui, dict) or set(ui) - {"theme", "wall_cycle_s", "wall_chart"}:
        raise ConfigError(f"{file}: 'ui' takes only theme, wall_cycle_s and wall_chart")
    cycle = ui.get("wall_cycle_s", 15.0)
    if isinstance(cycle, bool) or not isinstance(cycle, (int, float)) or cycle <= 0:
        raise ConfigError(f"{file}: 'ui.wall_cycle_s' must be a positive number of seconds")
    chart = ui.get("wall_chart", False)
    if not isinstance(chart, bool):
        raise ConfigError(f"{file}: 'ui.wall_chart' must be true or false")
    theme = ui.get("theme")
    return UiSettings(str(theme) if theme is not None else None, float(cycle), chart)
