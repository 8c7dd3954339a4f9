"""Load the zdash themes from themes/*.yaml into Textual Themes. Every colour on screen comes
from these (through $variables in themes/zdash.tcss: markup, and the component classes of
table and tree cells, see zdash.ui.roles)."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml.error import YAMLError
from textual.theme import Theme

from zdash.resources import ResourceError, require_dir
from zdash.yaml_doc import YamlRefused, load_yaml_file

_COLOURS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
MARK_GLYPHS = {  # theme variable -> default glyph (zdash.ui.widgets.replay_bar)
    "zd-mark-onset": "◆",  # the incident begins
    "zd-mark-raised": "▲",  # a finding raised (or worse than before)
    "zd-mark-cleared": "✓",  # a finding gone
    "zd-mark-state": "●",  # a pool or vdev changed state
}
DEFAULT_THEME = "zdash-dark"
WALL_THEME = "zdash-wall"


def themes_dir() -> Path:
    """The bundled themes (zdash.resources knows installed and checkout layouts; ZDASH_THEMES
    points elsewhere)."""
    return require_dir("themes", "*.yaml")


def load_theme(path: Path) -> Theme:
    try:
        doc = load_yaml_file(str(path))
    except (OSError, UnicodeDecodeError, YAMLError, YamlRefused) as e:
        raise ResourceError(f"zdash: cannot read theme {path}: {e}") from None
    if not isinstance(doc, dict) or "name" not in doc or doc.get("primary") is None:
        raise ResourceError(f"zdash: {path} is not a theme (it needs at least name and primary)")
    unknown = set(doc) - set(_COLOURS) - {"name", "dark", "variables", "description"}
    if unknown:
        raise ResourceError(f"zdash: {path}: unknown theme keys {', '.join(sorted(unknown))}")
    variables = {str(k): str(v) for k, v in (doc.get("variables") or {}).items()}
    # zdash's own variables, derived from the theme's colours when a theme leaves them out.
    variables.setdefault("zd-bar-used", str(doc["primary"]))
    variables.setdefault("zd-ok", str(doc.get("success") or "#4EBF71"))
    variables.setdefault("zd-warn", str(doc.get("warning") or "#FFA62B"))
    variables.setdefault("zd-crit", str(doc.get("error") or "#BA3C5B"))
    variables.setdefault("zd-bar-free", str(doc.get("panel") or doc.get("surface") or doc["primary"]))
    # The replay bar's event markers: a glyph per kind, so they differ without colour too.
    # Stored as CSS strings ("◆"): Textual tokenizes every variable as a CSS value, and a bare
    # glyph is not one. A theme may write them quoted or not.
    for name, glyph in MARK_GLYPHS.items():
        variables[name] = '"' + (variables.get(name, glyph).strip('"') or glyph) + '"'
    colour = {k: str(doc[k]) for k in _COLOURS if doc.get(k) is not None}
    return Theme(
        name=str(doc["name"]),
        primary=colour["primary"],
        secondary=colour.get("secondary"),
        warning=colour.get("warning"),
        error=colour.get("error"),
        success=colour.get("success"),
        accent=colour.get("accent"),
        foreground=colour.get("foreground"),
        background=colour.get("background"),
        surface=colour.get("surface"),
        panel=colour.get("panel"),
        boost=colour.get("boost"),
        dark=bool(doc.get("dark", True)),
        variables=variables,
    )


def load_themes() -> dict[str, Theme]:
    themes: dict[str, Theme] = {}
    for path in sorted(themes_dir().glob("*.yaml")):
        theme = load_theme(path)
        themes[theme.name] = theme
    return themes


def stylesheet() -> Path:
    path = themes_dir() / "zdash.tcss"
    if not path.is_file():
        raise ResourceError(f"zdash: the stylesheet {path} is missing")
    return path
