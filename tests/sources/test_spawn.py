"""zdash.sources.spawn: children started so that no cancel can leave a task waiting for ever.

The shape of a loop's shutdown (asyncio.run's end, pytest-asyncio's teardown): every task is
cancelled at once, wherever it is. With asyncio.create_subprocess_exec, tasks caught while the
child's pipes connect never end (30 of 40 rounds of this test when it used it, measured on this
machine): zdash hung at exit."""

import asyncio
import os
import signal
import sys

import pytest

from zdash.aio import within
from zdash.sources.runner import MAX_TIMEOUT_S, Runner, kill
from zdash.sources.spawn import spawn


async def _run_true() -> None:
    child = await spawn(["true"])
    await child.communicate()


@pytest.mark.parametrize("iterations_before_cancel", range(4))
async def test_cancelling_everything_while_children_start_leaves_nothing_waiting(iterations_before_cancel):
    for _ in range(10):
        started = [asyncio.create_task(_run_true()) for _ in range(4)]
        for _ in range(iterations_before_cancel):
            await asyncio.sleep(0)
        me = asyncio.current_task()
        everything = [t for t in asyncio.all_tasks() if t is not me]
        for t in everything:
            t.cancel()
        assert set(started) <= set(everything)
        _done, pending = await asyncio.wait(everything, timeout=5)
        assert not pending, f"{len(pending)} task(s) never ended after the cancel"


async def test_output_exit_code_and_errors_come_through():
    child = await spawn(["sh", "-c", "echo out; echo err >&2; exit 3"])
    out, err = await child.communicate()
    assert (out, err, child.returncode) == (b"out\n", b"err\n", 3)
    with pytest.raises(FileNotFoundError):
        await spawn(["/nonexistent/zpool"])


async def test_a_killed_child_is_reaped_and_says_so():
    child = await spawn(["sleep", "60"])
    await kill(child)
    assert child.returncode == -9
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(child.pid, os.WNOHANG)


async def test_a_child_that_exits_as_it_is_killed_keeps_its_own_exit_code():
    """The race behind a false "unreachable": killing a child that has just exited must not
    turn its exit code into 255 (ssh's own failure code)."""
    child = await spawn(["sh", "-c", "exit 0"])
    await child.stdout.read()
    await asyncio.sleep(0.05)  # it has exited (a zombie) before the kill
    await kill(child)
    assert child.returncode == 0


async def test_the_runner_times_out_a_hung_command_and_leaves_no_child():
    sample = await Runner(timeout=0.3).run("status", ("sleep", "60"), timeout=0.3)
    assert sample.error == "sleep 60 timed out after 0.3 s"


async def test_a_command_that_timed_out_gets_longer_next_time_and_one_that_answers_sets_the_budget():
    """A 1,000-disk pool's `zpool status` took 32 s in the lab VM: a fixed 10 s budget killed
    every run and the pool was never seen. The budget doubles after a timeout (capped), and an
    answer sets it to three times what that answer took, never below the base."""
    runner = Runner(timeout=1.0)
    first = await runner.run("status", ("sleep", "60"))
    assert first.error == "sleep 60 timed out after 1 s; next time it gets 2 s"
    assert runner.timeout_for("status") == 2.0 and runner.timeout_for("list") == 1.0
    second = await runner.run("status", ("sleep", "1.2"))  # would have timed out at 1 s
    assert second.ok and second.error is None
    assert runner.timeout_for("status") == min(max(3 * second.duration, 1.0), MAX_TIMEOUT_S)
    quick = await runner.run("status", ("true",))
    assert quick.ok and runner.timeout_for("status") == max(3 * quick.duration, 1.0)
    for _ in range(12):  # never past the cap
        runner._learn("status", 0.0, timed_out=True)
    assert runner.timeout_for("status") == MAX_TIMEOUT_S


async def test_kill_all_ends_every_child_not_yet_reaped_and_no_other(monkeypatch):
    """What zdash does before os._exit (the exit watchdog after a hang-up): a one-shot child that
    hangs, which has no death signal, is killed; one already reaped is never signalled (its pid
    may be another process's by now)."""
    from zdash.sources import spawn as spawn_module

    signalled: list[int] = []
    real_killpg = os.killpg
    monkeypatch.setattr(os, "killpg", lambda pid, sig: (signalled.append(pid), real_killpg(pid, sig)))
    done = await spawn(["true"])
    await done.communicate()
    hung = await spawn([sys.executable, "-c", "import time; time.sleep(60)"])
    spawn_module.kill_all()
    assert await within(hung.wait(), 10) == -signal.SIGKILL
    assert hung.pid in signalled and done.pid not in signalled  # (the worker's other tests' may be too)
    signalled.clear()
    spawn_module.kill_all()  # reaped now: not signalled again
    assert hung.pid not in signalled
