"""A recording made while zpool itself fails: `zdash check --replay … --at S` never says OK
on it. It exits 2 when zpool reports the pool's own failure (an I/O error), 3 when zdash simply
cannot see (denied), and its first line says why. Recorded through the real recorder on a
stand-in zpool (tests/fakes/bin/zpool) that replays real captured output until told otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os

import pytest

from zdash.cli import main
from zdash.commands.record import record
from zdash.fold.recording import load_replay

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fakes", "bin"))


async def _record_then_fail(path: str, control: str, failure: str) -> None:
    """Record healthy for a while, then make status fail and iostat hang, and record on."""

    async def flip() -> None:
        await asyncio.sleep(2.0)
        with open(control, "w") as f:
            f.write(failure)

    flipper = asyncio.ensure_future(flip())
    await record(path, 0.2, 4.5, ("healthy",), quiet=True, structure_every=0.2, quiet_every=0.2)
    await flipper


def _check_at(path: str, at: float) -> tuple[int, dict, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--json", "--replay", path, "--at", str(at)])
    doc = json.loads(out.getvalue())
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        main(["check", "--replay", path, "--at", str(at)])
    return code, doc, text.getvalue().splitlines()[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    "failure, code, says",
    [
        (
            "status ioerror\niostat hang\n",
            2,
            "zpool cannot read the pool: zpool status: cannot open 'tank': I/O error",
        ),
        ("status denied\niostat hang\n", 3, "cannot see healthy: zpool status: Permission denied"),
    ],
)
def test_a_recording_of_a_pool_zdash_cannot_see_never_reads_ok(tmp_path, monkeypatch, failure, code, says):
    control = tmp_path / "control"
    control.write_text("")
    monkeypatch.setenv("PATH", f"{FAKES}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_ZPOOL_SCENARIO", "healthy")
    monkeypatch.setenv("FAKE_ZPOOL_CONTROL", str(control))
    path = str(tmp_path / "blind.yaml")
    asyncio.run(_record_then_fail(path, str(control), failure))
    _, snaps = load_replay(path)
    span = snaps[-1].time - snaps[0].time
    before, _, _ = _check_at(path, 1.0)
    assert before == 0  # healthy while zpool answered
    got, doc, first = _check_at(path, span)
    assert got == code and doc["exit_code"] == code, doc["findings"][:2]
    assert first.startswith(f"ZDASH {doc['status']} - ") and says in first
