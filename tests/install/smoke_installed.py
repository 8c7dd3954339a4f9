"""Smoke test of an *installed* zdash, run by .ci/run with the fresh venv's python from a
directory outside the checkout (so only the wheel's files can be found). Not collected by
pytest: it checks what a user who ran `pipx install zdash` gets.

  1. the demo starts and draws a pool (its vdev tree and a finding),
  2. a theme switch works (zdash-light applied and redrawn),
  3. every bundled scenario is found and readable.
Prints one line per step; exits 1 on the first failure.
"""

from __future__ import annotations

import asyncio
import os
import sys


def fail(msg: str) -> None:
    print(f"FAIL: {msg}")
    sys.exit(1)


async def demo_and_theme() -> None:
    import zdash
    from zdash.cli import _parse
    from zdash.commands.dashboard import build_feed
    from zdash.config import Config
    from zdash.ui.app import ZdashApp

    where = os.path.dirname(zdash.__file__)
    if os.path.abspath(where).startswith(os.environ.get("ZDASH_CHECKOUT", "\0")):
        fail(f"zdash was imported from the checkout ({where}), not from the installed wheel")
    print(f"ok: zdash {zdash.__version__} imported from {where}")
    args = _parse(["--demo"])
    app = ZdashApp(build_feed(args, Config()), theme=None)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(300):  # the first frame: bounded, not timed
            if app.frame is not None and app.frame.snapshot.pools:
                break
            await pilot.pause(0.05)
        else:
            fail("the demo drew no frame")
        await pilot.pause(0.2)
        pools = [p.name for p in app.frame.snapshot.pools]
        screen = app.export_screenshot()
        for word in pools + ["mirror-1"]:
            if word not in screen:
                fail(f"the demo screen does not show {word!r}")
        print(f"ok: the demo draws pool {', '.join(pools)} with its vdev tree")
        before = app.screen.styles.background
        app.theme = "zdash-light"
        await pilot.pause(0.2)
        if app.theme != "zdash-light" or app.current_theme.dark:
            fail("switching to zdash-light did not apply")
        if app.screen.styles.background == before:
            fail("the screen kept its colours after the theme switch")
        print("ok: theme switched to zdash-light and redrawn")


def scenarios() -> None:
    from zdash import scenarios as sc
    from zdash.sources.recording import open_recording

    found = sc.names()
    if len(found) < 10:
        fail(f"only {len(found)} bundled scenarios found in {sc.fixtures_dir()}")
    for name in found:  # either format: the short ones YAML, the long ones .zdash (SQLite)
        rec = open_recording(sc.path_of(name))
        try:
            if not rec.times():
                fail(f"scenario {name} holds no tick")
        finally:
            rec.close()
    print(f"ok: {len(found)} bundled scenarios, each readable")


if __name__ == "__main__":
    scenarios()
    asyncio.run(demo_and_theme())
    print("installed zdash: all smoke checks passed")
