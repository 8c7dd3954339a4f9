"""Where the dashboard finds its bundled files: the themes and the demo recording (one of the
scenarios). Both come from zdash.resources, which knows installed and checkout layouts.
ZDASH_DEMO points the demo elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

from zdash.resources import ResourceError, require_dir

__all__ = ["ResourceError", "demo_recording", "themes_dir"]


def themes_dir() -> Path:
    return require_dir("themes", "*.yaml")


def demo_recording() -> Path:
    from zdash.scenarios import DEMO, SUFFIX, fixtures_dir

    path = Path(os.environ.get("ZDASH_DEMO") or fixtures_dir() / f"{DEMO}{SUFFIX}")
    if not path.is_file():
        raise ResourceError(
            f"zdash: the demo recording is missing ({path}). This zdash install is incomplete: "
            f"reinstall it, or set ZDASH_DEMO to a session file."
        )
    return path
