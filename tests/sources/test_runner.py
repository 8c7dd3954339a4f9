"""The command runner: hung, missing and failing commands become one-line messages."""

import asyncio
import os
import sys

import pytest

from zdash.sources.runner import Busy, Runner


async def test_timeout_kills_the_child(tmp_path):
    pidfile = tmp_path / "pid"
    code = f"import os,time; open({str(pidfile)!r},'w').write(str(os.getpid())); time.sleep(60)"
    s = await Runner(timeout=1).run("status", [sys.executable, "-c", code])
    assert s.error and "timed out after 1 s" in s.error and not s.ok
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_missing_binary_is_a_clear_message():
    s = await Runner().run("status", ["zpool-does-not-exist", "status"])
    assert s.error == "zpool-does-not-exist not found on PATH (is ZFS installed?)"


async def test_failure_keeps_stderr_first_line():
    s = await Runner().run(
        "status",
        [
            sys.executable,
            "-c",
            "import sys; sys.stderr.write('cannot open tank: no such pool\\nmore\\n'); sys.exit(1)",
        ],
    )
    assert s.rc == 1 and s.error.endswith("cannot open tank: no such pool")


async def test_never_two_runs_of_one_key():
    r = Runner(timeout=5)
    slow = asyncio.create_task(r.run("status", [sys.executable, "-c", "import time; time.sleep(1)"]))
    await asyncio.sleep(0.1)
    with pytest.raises(Busy):
        await r.run("status", ["true"])
    assert (await r.run("list", ["true"])).ok  # another key is free to run
    assert (await slow).ok


async def test_environment_is_fixed(monkeypatch):
    monkeypatch.setenv("ZPOOL_VDEV_NAME_PATH", "1")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    s = await Runner().run("env", ["env"])
    env = dict(line.split("=", 1) for line in s.stdout.splitlines() if "=" in line)
    assert "ZPOOL_VDEV_NAME_PATH" not in env
    assert (env["LC_ALL"], env["TZ"]) == ("C", "UTC")
