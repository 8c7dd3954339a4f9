"""Files zdash ships besides its code: the scenario recordings (fixtures/) and the themes
(themes/: theme YAML and the stylesheet).

The repository's top-level fixtures/ and themes/ folders are the only source of truth. The
wheel build maps them into the package as zdash/_bundled/{fixtures,themes} (pyproject.toml,
[tool.hatch.build.targets.wheel.force-include]), so an installed zdash finds them through
importlib.resources; a checkout or an editable install finds the top-level folders themselves.
ZDASH_FIXTURES / ZDASH_THEMES point elsewhere (tests, packagers). No Textual here.

Also where zdash keeps what it writes about itself (the audit log, crash reports): state_dir().
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

# The checkout root when zdash runs from a source tree (editable install, tests).
_CHECKOUT = Path(__file__).resolve().parents[1]
_ENV = {"fixtures": "ZDASH_FIXTURES", "themes": "ZDASH_THEMES"}


def state_dir() -> str:
    """$XDG_STATE_HOME/zdash, else ~/.local/state/zdash (not created here)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "zdash")


class ResourceError(RuntimeError):
    """A bundled file is missing; the message says where it was looked for and what to do."""


def bundled_dir(name: str) -> Path:
    """The folder holding a kind of bundled file ("fixtures" or "themes").

    Order: the environment override, the copy inside the installed package, the checkout's
    top-level folder. The first that exists wins; the installed copy's path is returned even
    when missing so the error message names where an install should have put it."""
    override = os.environ.get(_ENV[name])
    if override:
        return Path(override)
    # One name per joinpath(): before 3.11 a Traversable (a zip import's) takes only one.
    installed = Path(str(resources.files("zdash").joinpath("_bundled").joinpath(name)))
    if installed.is_dir():
        return installed
    source = _CHECKOUT / name
    return source if source.is_dir() else installed


def require_dir(name: str, pattern: str) -> Path:
    """bundled_dir(name), or ResourceError when it holds no file matching `pattern`."""
    path = bundled_dir(name)
    if not path.is_dir() or not any(path.glob(pattern)):
        raise ResourceError(
            f"zdash: no {name} in {path} (looked for {pattern}). This zdash install is incomplete: "
            f"reinstall it (`pipx install zdash` or `pip install .` from a checkout), or set "
            f"{_ENV[name]} to a folder that holds them."
        )
    return path
