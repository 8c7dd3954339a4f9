"""Write the README screenshots (docs/screenshots/*.svg) from the recordings: the lab
fixtures when they exist, else sessions written from the real captures.

    .venv/bin/python -m tests.ui.screenshots
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time

os.environ["TZ"] = "UTC"
time.tzset()

from tests.sessions import ROOT, fixture, write_session  # noqa: E402
from tests.ui.conftest import replay_app  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
# name: (recording, fixture names to prefer, size, keys, app options)
SHOTS = {
    "healthy": ("healthy", ("healthy",), (120, 40), (), {}),
    "degraded-resilvering": ("degraded", ("degraded-resilver",), (120, 40), (), {}),
    "deranged-disk": ("deranged", ("deranged-mirror",), (120, 40), (), {}),
    "finding-detail": ("deranged", ("deranged-mirror",), (120, 40), ("f", "enter"), {}),
    "clones": ("clones", ("clones",), (120, 40), ("d",), {}),
    "wall": ("deranged", ("deranged-mirror",), (120, 40), (), {"wall": True}),
    "80x24": ("deranged", ("deranged-mirror",), (80, 24), (), {}),
    "light": ("degraded", ("degraded-resilver",), (120, 40), (), {"theme": "zdash-light"}),
    "help": ("healthy", ("healthy",), (80, 24), ("question_mark",), {}),
    "plan": ("deranged", ("deranged-mirror",), (120, 40), ("f", "enter", "1"), {}),
    # the description panel shown again (i), the replay bar's markers, the sick disk's chart
    # against its peer (end: the last row of the vdev table is the sick disk)
    "replay-teaching": ("deranged", ("deranged-mirror",), (120, 40), ("i", "end"), {}),
    "wall-two-pools": ("healthy", ("two-pools",), (120, 40), (), {"wall": True}),
}
# Where a lab recording is most telling, when not at its end: the degraded one ends healthy, so
# it is shown mid-resilver (the first tick with a resilver running).
STARTS = {"degraded-resilvering": ("resilver", "scanning"), "light": ("resilver", "scanning")}


async def shoot(name: str, path: str, size, keys, options, start: int) -> str:
    app = replay_app(path, start=start, **options)
    async with app.run_test(size=size) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        if app.screen.query("#about") and app.screen.query_one("#about").display:
            await pilot.press("i")  # the description panel: these screens show the data
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.2)
        return app.save_screenshot(f"{name}.svg", OUT)


def _start(name: str, path: str) -> int:
    if name not in STARTS:
        return 10**6
    from zdash.fold.recording import load_replay

    snaps = load_replay(path)[1]
    want = STARTS[name]
    return next(
        (
            i + 2
            for i, snap in enumerate(snaps)
            if any((sc.function, sc.state) == want for p in snap.pools for sc in p.scans)
        ),
        10**6,
    )


def main(names: list[str]) -> int:
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="zdash-shots-")
    for name in names or list(SHOTS):
        scenario, fixtures, size, keys, options = SHOTS[name]
        found = next((fixture(f) for f in fixtures if fixture(f)), None)
        path = found or write_session(os.path.join(tmp, f"{scenario}.yaml.gz"), scenario)
        # A lab recording is shown at its most telling moment: the last tick (the incident has
        # developed); START_<NAME> overrides it.
        start = int(os.environ.get(f"START_{name.upper().replace('-', '_')}", _start(name, path)))
        print(asyncio.run(shoot(name, path, size, keys, options, start)), "from", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
