"""Fixtures shared by every test package: a fixed time zone (times are rendered in the viewer's
zone), no animations, and the session files the feed and UI tests replay."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import settings

# Fuzzing depth: quick by default (a developer's run), full in CI (.ci/run sets
# HYPOTHESIS_PROFILE=ci). Tests state their other settings, never their example count.
# No deadline: an example that takes over 200 ms on a loaded machine (the lab VM beside four
# workers) failed as "flaky", a timing assertion that says nothing about behaviour.
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("ci", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

os.environ["TZ"] = "UTC"
time.tzset()
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from tests.sessions import fixture, write_session  # noqa: E402


@pytest.fixture(scope="session")
def sessions(tmp_path_factory) -> dict[str, str]:
    """Capture-based sessions: deterministic, for snapshot tests and as a fallback."""
    d = tmp_path_factory.mktemp("sessions")
    return {
        name: write_session(str(d / f"{name}.yaml.gz"), name)
        for name in ("healthy", "deranged", "degraded", "clones", "scrub")
    }


@pytest.fixture(scope="session")
def recordings(sessions) -> dict[str, str]:
    """The lab recordings of each incident when they are committed, else the capture sessions."""
    pick = {
        "healthy": ("healthy",),
        "deranged": ("deranged-mirror", "deranged-raidz"),
        "degraded": ("degraded-resilver",),
        "clones": ("clones",),
    }
    out = dict(sessions)
    for key, names in pick.items():
        found = next((fixture(n) for n in names if fixture(n)), None)
        if found:
            out[key] = found
    return out


@pytest.fixture
def lab(tmp_path_factory):
    """A pool builder on sparse files, loop devices and dm-delay (tests/zfs/lab.py); its pools
    and devices are torn down after the test. Only the `zfs` tests use it."""
    from tests.zfs.lab import Lab

    builder = Lab(str(tmp_path_factory.mktemp("lab", numbered=True)))
    try:
        yield builder
    finally:
        builder.cleanup()
