"""The confirmation rule the confirm screen applies (the Pilot tests check the screen uses it)."""

import pytest

from tests.actions.helpers import FakeProbe, GiB, disk, scan, single_disk_pool, snap, two_way
from zdash.actions import Request, build_plan, confirmation_ok, prompt
from zdash.actions.confirm import accepted_answers

NEW = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"


def plan(action, p=None, device=None, new=None, accept_risk=False):
    p = p or two_way()
    return build_plan(
        snap(p),
        Request(action, p.name, device, new, accept_risk),
        FakeProbe({NEW: disk(NEW, GiB, kernel="sdz")}),
    )


# Offline/detach of one side of a 2-way mirror takes away its last redundancy: those plans run
# only with the risk accepted (test_catalog checks that refusal); here they are accepted.
DISRUPTIVE = {
    "detach": lambda: plan("detach", device="/dev/sdb", accept_risk=True),
    "offline": lambda: plan("offline", device="/dev/sdb", accept_risk=True),
    "replace": lambda: plan("replace", device="/dev/sdb", new=NEW),
    "attach": lambda: plan("attach", single_disk_pool(), "/dev/sdb", NEW),
}


@pytest.mark.parametrize("name", sorted(DISRUPTIVE))
def test_enter_alone_never_confirms_a_disruptive_plan(name):
    p = DISRUPTIVE[name]()
    assert p.ok and p.disruptive and p.confirm_token
    for typed in (None, "", " "):
        for key in ("enter", "y", "Y", "space"):
            assert not confirmation_ok(p, typed, key)


@pytest.mark.parametrize("name", sorted(DISRUPTIVE))
def test_typing_the_device_name_confirms(name):
    p = DISRUPTIVE[name]()
    token = p.confirm_token
    short = token.rsplit("/", 1)[-1]
    assert confirmation_ok(p, token, "enter")
    assert confirmation_ok(p, short, "enter")
    assert confirmation_ok(p, f"  {short} ", "enter")
    assert not confirmation_ok(p, short, "y")  # typed, but not submitted
    assert not confirmation_ok(p, short[:-1], "enter")  # sdb does not confirm sdb1
    assert not confirmation_ok(p, short + "1", "enter")
    assert not confirmation_ok(p, short.upper(), "enter")
    assert short in prompt(p)


def test_which_device_is_typed():
    assert DISRUPTIVE["detach"]().confirm_token == "/dev/sdb"  # the one that goes
    assert DISRUPTIVE["replace"]().confirm_token == "/dev/sdb"  # the one being replaced
    assert DISRUPTIVE["attach"]().confirm_token == NEW  # the disk that is overwritten
    assert accepted_answers(DISRUPTIVE["attach"]()) == {NEW, "wwn-0x5000c500a1b2c3d4"}


@pytest.mark.parametrize(
    "p",
    [
        plan("scrub"),
        plan("clear", two_way(states=("ONLINE", "DEGRADED"))),
        plan("online", two_way(states=("ONLINE", "OFFLINE")), "/dev/sdb"),
        plan("scrub-pause", two_way(scans=(scan("scrub", "scanning"),))),
        plan("scrub-stop", two_way(scans=(scan("scrub", "scanning"),))),
    ],
    ids=["scrub", "clear", "online", "pause", "stop"],
)
def test_routine_plans_need_the_explicit_key(p):
    assert p.ok and p.confirm_token is None
    assert confirmation_ok(p, None, "y") and confirmation_ok(p, None, "Y")
    assert not confirmation_ok(p, None, "enter") and not confirmation_ok(p, "", "enter")
    assert not confirmation_ok(p, None, "n") and not confirmation_ok(p, None, "")
    assert "Press y" in prompt(p)


def test_a_failed_preflight_cannot_be_confirmed_at_all():
    p = plan("detach", two_way(states=("OFFLINE", "ONLINE")), "/dev/sdb")
    assert not p.ok
    assert not confirmation_ok(p, "/dev/sdb", "enter") and not confirmation_ok(p, "sdb", "y")
    assert "cannot run" in prompt(p)
    running = plan("scrub", two_way(scans=(scan("scrub", "scanning"),)))
    assert not confirmation_ok(running, None, "y")
