"""zdash.visible, the one sanitiser: outside text (names, error text, descriptions, pastes)
enters the model with every control shown as a visible escape, so nothing zdash prints or draws
can drive a terminal; the snapshot builder applies it to every raw sample, live or recorded."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zdash.fold import look
from zdash.raw import RawSample, Tick
from zdash.visible import visible, visible_text

FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
# What a terminal obeys: C0 (ESC, BEL, CR…), DEL, C1 (0x9b is CSI), bidi controls, separators.
OBEYED = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)), "\u061c", "\u200e", "\u200f"}
OBEYED |= {*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)), "\u2028", "\u2029"}
HOSTILE = st.text(st.sampled_from(sorted(OBEYED) + list("ab[]/\\|'=x0 ")), max_size=60)


@FUZZ
@given(HOSTILE | st.text(max_size=60))
def test_a_name_holds_no_control_and_a_second_pass_changes_nothing(name):
    shown = visible(name)
    assert not OBEYED & set(shown)
    assert visible(shown) == shown


@FUZZ
@given(HOSTILE | st.text(max_size=200))
def test_an_output_keeps_its_lines_and_tabs_and_nothing_else(text):
    shown = visible_text(text)
    assert not (OBEYED - {"\n", "\t"}) & set(shown)
    assert shown.count("\n") == text.count("\n") and shown.count("\t") == text.count("\t")
    assert visible_text(shown) == shown


@FUZZ
@given(HOSTILE)
def test_json_escapes_of_controls_decode_to_visible_text(name):
    doc = visible_text(json.dumps({"name": name}))
    decoded = json.loads(doc)["name"]
    assert not OBEYED & set(decoded) and decoded == visible(name)


def test_what_an_escape_looks_like():
    assert visible("sdb\x1b]0;PWNED\x07") == "sdb\\x1b]0;PWNED\\x07"
    assert visible("a\x9b2J\u202egnp.exe\nZDASH OK") == "a\\x9b2J\\u202egnp.exe\\x0aZDASH OK"
    assert visible("by-label/My\\x20Disk") == "by-label/My\\x20Disk"  # udev's own escape: a real name


def test_every_sample_enters_the_model_visible():
    """A device named with OSC 52 in zpool's JSON (as the fake zpool of tests/hostile prints
    it), zpool's own error text with OSC 0: the snapshot holds only visible text."""
    status = json.dumps(
        {
            "output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
            "pools": {
                "tank": {
                    "name": "tank",
                    "state": "ONLINE",
                    "vdevs": {
                        "tank": {
                            "name": "tank",
                            "vdev_type": "root",
                            "state": "ONLINE",
                            "vdevs": {
                                "/dev/sdb\x1b]52;c;eA==\x07": {
                                    "name": "/dev/sdb\x1b]52;c;eA==\x07",
                                    "vdev_type": "disk",
                                    "path": "/dev/sdb\x1b]52;c;eA==\x07",
                                    "state": "ONLINE",
                                }
                            },
                        }
                    },
                }
            },
        }
    )
    said = "cannot open 'x': \x1b]0;T\x07busy"
    failed = RawSample("list", ("zpool", "list"), 1, "", said + "\n", 1.0, 0.1, f"zpool list: {said}")
    ok = RawSample("status", ("zpool", "status", "-j"), 0, status, "", 1.0, 0.1)
    snap = look(Tick(1.0, (ok, failed)), "nas\x1b[2J")
    names = [v.name for v in snap.pools[0].leaves()]
    assert names == ["/dev/sdb\\x1b]52;c;eA==\\x07"]
    problems = " ".join(s.message or "" for s in snap.sources)
    assert "\x1b" not in problems and "\\x1b]0;T\\x07busy" in problems
    assert snap.host == "nas\\x1b[2J"
