"""Files zdash ships besides its code: the scenario recordings (fixtures/) and the themes
(themes/: theme YAML and the stylesheet).

The repository's top-level fixtures/ and themes/ folders are the only source of truth. The
wheel build maps them into the package as zdash/_bundled/{fixtures,themes} (pyproject.toml,
[tool.hatch.build.targets.wheel.force-include]), so an installed zdash finds them through
importlib.resources; a checkout or an editable install finds the top-level folders themselves.
ZDASH_FIXTURES / ZDASH_THEMES point elsewhere (tests, packagers). No Textual here.

Also where zdash keeps what it writes about itself (the audit log, crash reports, ssh's config):
private_state_dir().
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

# The checkout root when zdash runs from a source tree (editable install, tests).
_CHECKOUT = Path(__file__).resolve().parents[1]
_ENV = {"fixtures": "ZDASH_FIXTURES", "themes": "ZDASH_THEMES"}


def state_dirs() -> list[str]:
    """Where zdash's state may live, in order: $XDG_STATE_HOME/zdash, ~/.local/state/zdash, and
    the same under this user's home from the password database (root under `sudo -E` keeps the
    invoking user's HOME, which that user can fill with links)."""
    from zdash.safe_files import own_home

    bases = [os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")]
    bases.append(os.path.join(own_home(), ".local", "state"))
    return [os.path.join(b, "zdash") for b in dict.fromkeys(bases)]


def state_dir() -> str:
    """Where zdash's state is: the first of state_dirs that is or can be made private (not
    created here), for showing the audit log's path before anything is written."""
    from zdash.safe_files import creation_problem

    dirs = state_dirs()
    return next((d for d in dirs if creation_problem(d) is None), dirs[0])


def private_state_dir() -> str:
    """zdash's state directory, created 0700 when missing: the first of state_dirs that is (or
    can be made) a directory only this user can change. UnsafePath (an OSError, one line) when
    none can."""
    from zdash.safe_files import UnsafePath, private_dir

    problems = []
    for path in state_dirs():
        try:
            return private_dir(path)
        except UnsafePath as e:
            problems.append(str(e))
        except OSError as e:
            problems.append(f"{path}: {e.strerror or e}")
    raise UnsafePath("no private state directory for zdash: " + "; ".join(problems))


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
