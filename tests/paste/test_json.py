"""JSON pastes (`zpool status -j`, `zpool list -vj`, `zpool get -j`, `zfs list -j`, OpenZFS
2.3+): read as zpool printed them (one line), as jq pretty-prints them, and as a terminal wraps
the one line; judged as the same report in text is. A document cut short is reported, never
completed (a mirror with its second side cut off is not a mirror that lost a side)."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.paste.helpers import CAPTURES, snapshot
from zdash.checks.finding import Finding
from zdash.config import CheckConfig
from zdash.fold import run_checks
from zdash.model import Snapshot
from zdash.paste import json_docs
from zdash.paste.split import MAX_JSON_TRIES


def _capture(scenario: str, name: str) -> str:
    return (CAPTURES / scenario / name).read_text()


def _checks(snap: Snapshot) -> list[Finding]:
    """What `zdash check --text` reports on it (one look: no history behind it)."""
    cfg = CheckConfig(deranged_sustain_samples=1, one_look=True)
    return run_checks([snap], cfg)


def _findings(snap: Snapshot) -> list[tuple[str, str, str]]:
    return sorted((f.severity.name, f.check, f.title) for f in _checks(snap))


def _pretty(text: str) -> str:
    """The document as `| jq .` shows it (2-space indent, one key per line)."""
    return json.dumps(json.loads(text), indent=2) + "\n"


def _wrapped(text: str, width: int = 80) -> str:
    """zpool's one line as a terminal of `width` columns copies it: broken every `width` chars."""
    line = text.strip()
    return "\n".join(line[k : k + width] for k in range(0, len(line), width)) + "\n"


# (scenario, phase, JSON status capture): zpool status -j holds what text `zpool status` and
# `zpool list -v` say together (alloc_space/total_space are list's ALLOC and SIZE)
TWINS = [
    ("healthy", "", "zpool-status-j.txt"),
    ("degraded", ".offline", "zpool-status-j.offline.txt"),
    ("degraded", ".single-disk", "zpool-status-j-json-int.single-disk.txt"),
    ("errors", ".after-scrub", "zpool-status-j.after-scrub.txt"),
    ("capacity", ".cap93", "zpool-status-j.cap93.txt"),  # strings: "2.09G" of "2.25G", as text
    ("raidz-wide", ".mixed", "zpool-status-j-json-int.mixed.txt"),
]


@pytest.mark.parametrize(("scenario", "phase", "json_name"), TWINS)
def test_status_json_is_judged_as_its_text_twin(scenario, phase, json_name):
    from_json, imported = snapshot(_capture(scenario, json_name))
    text = _capture(scenario, f"zpool-status{phase}.txt") + _capture(scenario, f"zpool-list-v{phase}.txt")
    from_text, _ = snapshot(text)
    assert imported.ok and not imported.unread
    assert [p.name for p in from_json.pools] == [p.name for p in from_text.pools]
    if phase == ".cap93":
        # The text twin's `zpool list` has CAP 93 %, which bounds its rounded 2.09G / 2.25G
        # (92.88 %, shown as 92.8) to 93.0 (exact bytes: 93.03 %); status -j has no CAP, only the rounded pair.
        # Same verdicts, the figure two tenths apart.
        assert [f[:2] for f in _findings(from_json)] == [f[:2] for f in _findings(from_text)]
        assert "cap93 is 92.8 % full" in _findings(from_json)[0][2]
        assert "cap93 is 93.0 % full" in _findings(from_text)[0][2]
        return
    assert _findings(from_json) == _findings(from_text)


@pytest.mark.parametrize(
    "layout", [_pretty, _wrapped, lambda t: f"$ zpool status -j | jq\n```json\n{_pretty(t)}```\n"]
)
def test_status_json_reads_the_same_in_every_layout_it_is_pasted_in(layout):
    raw = _capture("errors", "zpool-status-j.after-scrub.txt")
    expected = _findings(snapshot(raw)[0])
    snap, imported = snapshot(layout(raw))
    assert _findings(snap) == expected
    assert all("Markdown" in u.why or "`zpool" in u.why for u in imported.unread)  # only the fence


def test_a_degraded_pool_pasted_as_json_is_critical_and_named():
    snap, _ = snapshot(_capture("degraded", "zpool-status-j.offline.txt"))
    critical = [f for f in _checks(snap) if f.severity.name == "CRITICAL"]
    assert critical and "redundancy" in critical[0].title


def test_capacity_comes_from_status_json_alone_and_list_json_wins_over_it():
    status = _capture(
        "capacity", "zpool-status-j.cap93.txt"
    )  # "2.09G" of "2.25G": 92.88 %, shown rounded down: 92.8
    listed = _capture("capacity", "zpool-list-v-j.cap93.txt")  # --json-int: exact, 93.0 %
    alone, imported = snapshot(status)
    together, _ = snapshot(status + listed)
    assert [f.title for f in _checks(alone) if f.check == "capacity"] == ["cap93 is 92.8 % full"]
    assert [f.title for f in _checks(together) if f.check == "capacity"] == ["cap93 is 93.0 % full"]
    assert any("alloc_space/total_space" in n for n in imported.notes)


def test_get_json_gives_the_pool_row():
    snap, imported = snapshot(_capture("capacity", "zpool-get-all-j.cap85.txt"))
    assert imported.ok
    assert [p.name for p in snap.pools] == ["cap85"]
    assert any(f.check == "capacity" and f.severity.name == "WARNING" for f in _checks(snap))


def test_zfs_list_json_gives_the_datasets():
    snap, imported = snapshot(_capture("clones", "zfs-list-j.txt"))
    names = {d.name for d in snap.datasets}
    assert {"clones/base", "clones/base@s1"} <= names
    assert not imported.unread


def test_a_document_filtered_by_jq_to_one_pool_is_read():
    doc = json.loads(_capture("degraded", "zpool-status-j.offline.txt"))
    (pool,) = doc["pools"].values()
    snap, _ = snapshot("$ zpool status -j | jq .pools.degraded\n" + json.dumps(pool, indent=2))
    assert [p.name for p in snap.pools] == [pool["name"]]
    assert any(f.severity.name == "CRITICAL" for f in _checks(snap))


def test_a_status_cut_inside_its_vdevs_keeps_the_pool_and_no_vdev():
    """Cut half way (inside mirror-0, after d1 and during d2): the pool and its own state are
    read, no vdev is (a mirror with one side read would look like a redundancy lost), and the
    verdict is ZFS's own DEGRADED, not zdash's "no redundancy left"."""
    pretty = _pretty(_capture("degraded", "zpool-status-j.offline.txt")).splitlines()
    cut = "\n".join(pretty[: len(pretty) // 2]) + "\n"
    snap, imported = snapshot(cut)
    (pool,) = snap.pools
    assert (pool.name, pool.state, pool.root.children) == ("degraded", "DEGRADED", ())
    assert any("cut short before its vdevs end" in n for n in imported.notes)
    assert not imported.unread
    worst = max(_checks(snap), key=lambda f: f.severity)
    assert (worst.severity.name, worst.title) == ("WARNING", "degraded: DEGRADED")


def test_a_text_report_wins_over_a_cut_json_one_of_the_same_pool():
    text = _capture("degraded", "zpool-status.offline.txt")
    pretty = _pretty(_capture("degraded", "zpool-status-j.offline.txt")).splitlines()
    snap, imported = snapshot(text + "\n".join(pretty[: len(pretty) // 2]) + "\n")
    (pool,) = snap.pools
    assert pool.root.children  # the text's tree
    assert any("pasted again without its vdevs" in n for n in imported.notes)


def test_json_of_other_programs_is_reported_not_read():
    _, imported = snapshot('{"name": "x", "items": [1, 2]}\n')
    assert not imported.ok
    assert [u.why for u in imported.unread] == ["JSON that is not zpool or zfs output zdash knows"]


def test_a_json_status_beside_a_text_status_keeps_its_tree_and_says_what_it_lost():
    text = _capture("healthy", "zpool-status.txt")
    other = _capture("degraded", "zpool-status-j.offline.txt")
    snap, imported = snapshot(text + other)
    assert {p.name for p in snap.pools} == {"healthy", "degraded"}
    assert any("beside text zpool status" in n for n in imported.notes)
    degraded = next(p for p in snap.pools if p.name == "degraded")
    assert degraded.state == "DEGRADED"


def test_an_unknown_major_version_is_refused_with_its_number():
    doc = json.loads(_capture("healthy", "zpool-status-j.txt"))
    doc["output_version"]["vers_major"] = 1
    _, imported = snapshot(textwrap.dedent(json.dumps(doc)) + "\n")
    assert not imported.ok
    assert "output_version 1" in imported.unread[0].why


def test_zpools_one_line_wrapped_by_a_terminal_and_cut_still_gives_the_pool():
    one_line = _capture("degraded", "zpool-status-j.offline.txt").strip()
    screen = _wrapped(one_line[: len(one_line) // 2])  # the screenful the poster copied
    snap, imported = snapshot(screen)
    assert [(p.name, p.state) for p in snap.pools] == [("degraded", "DEGRADED")]
    assert not imported.unread


@pytest.mark.parametrize(
    "name", ["zpool-status-j-flat.txt", "zpool-status-jP-flat.txt", "zpool-status-jL.txt"]
)
def test_a_flat_or_full_path_json_paste_is_judged_as_the_text_of_its_moment(name):
    """2.3.2 in the lab: the spare standing in for an offlined side is the one warning either way."""
    from_json, imported = snapshot(_capture("json-shapes", name))
    from_text, _ = snapshot(_capture("json-shapes", "zpool-status.txt"))
    assert not imported.unread
    titles = [t.replace("/dev/", "") for _, _, t in _findings(from_json)]
    assert titles == [t for _, _, t in _findings(from_text)]
    assert any("hot spare loop8 stands in for loop0" in t for t in titles)


def test_a_paste_of_broken_json_lines_is_not_decoded_once_per_line(monkeypatch):
    """20,000 lines, each a zpool-looking object that never closes, a blank line after each:
    decoding each as the start of a document (over the blank lines, as for a double-spaced
    page) joins the rest of the paste once per line, quadratic (hours at the 16 MiB a paste may
    hold). After MAX_JSON_TRIES such documents the rest is read as text; every line is still
    accounted for, with a reason."""
    calls = []
    decode = json_docs._DECODER.raw_decode
    monkeypatch.setattr(json_docs._DECODER, "raw_decode", lambda *a: calls.append(1) or decode(*a))
    text = '{"pools": {"tank": [\n\n' * 20_000
    snap, imported = snapshot(text)
    assert not snap.pools
    assert {u.line for u in imported.unread} | imported.used == set(range(1, 40_001, 2))
    assert len(calls) <= 3 * MAX_JSON_TRIES < 2_000  # not 3 per line
