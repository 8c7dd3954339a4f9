"""Files zdash ships beside the package (themes/, the fixtures/ recordings; the demo is one of them). They live at the
repository root, next to the zdash/ package, which is also where an editable install
(`pip install -e .`) finds them. ZDASH_THEMES / ZDASH_DEMO point elsewhere when needed."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ResourceError(RuntimeError):
    """A bundled file is missing; the message says where it was looked for and what to do."""


def themes_dir() -> Path:
    path = Path(os.environ.get("ZDASH_THEMES") or ROOT / "themes")
    if not path.is_dir() or not any(path.glob("*.yaml")):
        raise ResourceError(
            f"zdash: no themes in {path}. zdash expects its repository layout (install it with "
            f"`pip install -e .` from a checkout), or set ZDASH_THEMES to a folder of theme files.")
    return path


def demo_recording() -> Path:
    from ..scenarios import DEMO, SUFFIX, fixtures_dir
    path = Path(os.environ.get("ZDASH_DEMO") or fixtures_dir() / f"{DEMO}{SUFFIX}")
    if not path.is_file():
        raise ResourceError(
            f"zdash: the demo recording is missing ({path}). It ships in the repository's "
            f"fixtures/ folder; install zdash with `pip install -e .` from a checkout.")
    return path
