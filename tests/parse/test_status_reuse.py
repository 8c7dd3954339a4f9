"""Reusing the last parse's leaves (zdash.parse.reuse): the same pools, built with less work.

A pool being written to prints a new `zpool status` every time (alloc_space, scan progress),
while its leaves read as before. With a Reuse the parser hands back the unchanged leaves as the
same objects; what a user sees must not depend on it: the pools are equal either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hypothesis import given

from tests.parse.test_zpool_status_fuzz import FUZZ, TEXT_SEEDS, damaged, damaged_json
from zdash.builder import SnapshotBuilder
from zdash.model import Snapshot
from zdash.parse import ParseError
from zdash.parse.reuse import Reuse
from zdash.parse.zpool_status import parse_status
from zdash.raw import RawSample, Tick

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
ARGV = ["zpool", "status", "-j", "--json-int", "-p", "-s"]


def _parse(text: str, reuse: Reuse) -> tuple:
    return reuse.run(lambda r: parse_status(ARGV, text, r))


def _leaves(pools: tuple) -> dict:
    return {(p.name, v.key): v for p in pools for v in p.leaves()}


def test_leaves_that_read_alike_are_reused_and_changed_ones_are_new():
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text()
    doc = json.loads(text)
    reuse: Reuse = Reuse()
    first = _parse(text, reuse)
    # The next answer: the scan moved, and one leaf now has checksum errors.
    pool = next(iter(doc["pools"].values()))
    pool["scan_stats"]["issued"] += 4096
    leaf = pool["vdevs"][pool["name"]]["vdevs"]["mirror-1"]["vdevs"]
    changed_name = next(iter(leaf))
    leaf[changed_name]["checksum_errors"] = 3
    second = _parse(json.dumps(doc), reuse)

    assert second == parse_status(ARGV, json.dumps(doc))  # equal to a parse from scratch
    before, after = _leaves(first), _leaves(second)
    assert before.keys() == after.keys()
    for key, v in after.items():
        if v.name == changed_name:
            assert v is not before[key] and v.checksum_errors == 3
        else:
            assert v is before[key], f"{key} read alike but was built again"


def test_a_failed_parse_leaves_the_last_good_leaves_to_reuse():
    text = (CAPTURES / "degraded/zpool-status-j-json-int.offline.txt").read_text()
    reuse: Reuse = Reuse()
    first = _leaves(_parse(text, reuse))
    try:
        _parse(text[: len(text) // 2], reuse)
    except ParseError:
        pass
    again = _leaves(_parse(text, reuse))
    assert all(again[k] is first[k] for k in first)


def test_one_leaf_printed_twice_in_one_answer_is_two_nodes():
    doc = json.loads((CAPTURES / "degraded/zpool-status-j-json-int.offline.txt").read_text())
    pool = next(iter(doc["pools"].values()))
    tops = pool["vdevs"][pool["name"]]["vdevs"]
    top = tops[next(iter(tops))]
    kids = top["vdevs"]
    name, leaf = next(iter(kids.items()))
    # the same leaf object under a second top-level vdev (a damaged or hand-made document)
    tops["mirror-9"] = {**top, "name": "mirror-9", "vdevs": {name: dict(leaf)}}
    reuse: Reuse = Reuse()
    _parse(json.dumps(doc), reuse)
    pools = _parse(json.dumps(doc), reuse)
    twins = [v for v in pools[0].leaves() if v.name == name]
    assert len(twins) == 2 and twins[0] is not twins[1] and twins[0] == twins[1]


def test_a_vdev_tree_that_reads_as_before_is_not_decoded_again():
    """An answer whose pool moved only its scan: its "vdevs" text is the last answer's, and the
    decoded tree is the object decoded then (no decode, no deep comparison); one character of
    it changed, it is decoded anew. Either way the document is what json.loads makes of it, in
    every layout zpool or a hand could print it in."""
    from zdash.parse.zpool_status.json_reuse import decode

    doc = json.loads((CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text())
    pool = next(iter(doc["pools"].values()))

    def vdevs(decoded: dict) -> object:
        return next(iter(decoded["pools"].values()))["vdevs"]

    for layout in ({}, {"indent": 2}, {"separators": (",", ":")}, {"indent": "\t", "sort_keys": True}):
        reuse: Reuse = Reuse()
        texts = [json.dumps(doc, **layout)]
        pool["scan_stats"]["issued"] += 4096
        texts.append(json.dumps(doc, **layout))
        leaf = pool["vdevs"][pool["name"]]["vdevs"]["mirror-1"]["vdevs"]
        leaf[next(iter(leaf))]["read_errors"] += 1
        texts.append(json.dumps(doc, **layout))
        first, second, third = (reuse.run(lambda r, t=t: decode(t, r)) for t in texts)
        assert [first, second, third] == [json.loads(t) for t in texts]
        assert vdevs(second) is vdevs(first) and vdevs(third) is not vdevs(second) and third != second


def test_odd_documents_read_as_json_loads_reads_them():
    """After an answer whose trees were kept: the same answer with something after it, a comma
    too many, a pool twice, other spacing, not an object: each is what it is without reuse."""
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text().strip()
    doc = json.loads(text)
    name, pool = next(iter(doc["pools"].items()))
    twice = json.dumps(doc)[:-2] + ", " + json.dumps(name) + ": " + json.dumps(pool) + "}}"
    odd = [text + " x", text + "}", text[:-1] + ",}", "\r\n " + text + "\t\n", twice, "[" + text + "]", "{}"]
    for other in odd:
        reuse: Reuse = Reuse()
        _parse(text, reuse)
        expected = _or_error(lambda: parse_status(ARGV, other))  # noqa: B023
        assert _or_error(lambda: _parse(other, reuse)) == expected, other[-40:]  # noqa: B023


@FUZZ
@given(damaged_json(), damaged_json())
def test_reuse_never_changes_what_a_document_parses_to(first, second):
    """Any two answers in a row: the second parses to the same pools (or the same error) with
    the first's leaves on hand as without."""
    reuse: Reuse = Reuse()
    _or_error(lambda: _parse(first, reuse))
    expected = _or_error(lambda: parse_status(ARGV, second))
    assert _or_error(lambda: _parse(second, reuse)) == expected
    # and the second answer again, its vdev trees now taken whole from the last decode
    assert _or_error(lambda: _parse(second, reuse)) == expected


def _or_error(parse: Callable[[], object]) -> object:
    """What a parse gives, or its ParseError's message."""
    try:
        return parse()
    except ParseError as e:
        return str(e)


def _status_tick(t: float, text: str) -> Tick:
    return Tick(t, (RawSample("status", tuple(ARGV), 0, text, "", t, 0.01),))


def _two_answers(text: str, doc: dict) -> tuple[Snapshot, Snapshot, Snapshot]:
    """One builder fed text then doc (the snapshots of both answers), and a fresh builder's
    snapshot of doc after the same first answer: what the reuse must equal."""
    b = SnapshotBuilder()
    one = b.feed(_status_tick(1.0, text))
    two = b.feed(_status_tick(2.0, json.dumps(doc)))
    fresh = SnapshotBuilder()
    fresh.feed(_status_tick(1.0, text))
    return one, two, fresh.feed(_status_tick(2.0, json.dumps(doc)))


def test_a_busy_pools_new_status_keeps_the_structure_of_its_unchanged_leaves():
    """The builder end to end: an answer that differs only in allocation and scan progress
    gives a snapshot equal to a fresh fold's, its leaves the same objects as before."""
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text()
    doc = json.loads(text)
    pool = next(iter(doc["pools"].values()))
    pool["scan_stats"]["issued"] += 4096
    pool["vdevs"][pool["name"]]["alloc_space"] += 8192
    one, two, fresh_two = _two_answers(text, doc)
    assert two.pools == fresh_two.pools
    assert two.structure_id != one.structure_id  # checks of structure still look again
    for a, b2 in zip(one.pools[0].leaves(), two.pools[0].leaves()):
        assert a is b2


def test_a_new_zpool_list_is_seen_on_leaves_the_status_reuse_kept():
    """Leaves kept from the last status still take a new `zpool list` (a leaf's size after an
    autoexpand): the structure's own reuse ends when what it was made with changes."""
    status = (CAPTURES / "healthy/zpool-status-j-json-int.txt").read_text()
    listed = (CAPTURES / "healthy/zpool-list-v-H-p.txt").read_text()
    argv = ("zpool", "list", "-v", "-H", "-p", "-P")
    leaf_line = next(line for line in listed.splitlines() if line.startswith("\t/"))
    path, size = leaf_line.split("\t")[1:3]
    grown = listed.replace(leaf_line, leaf_line.replace(f"{path}\t{size}", f"{path}\t{int(size) * 2}", 1))

    def tick(t: float, status_text: str, list_text: str) -> Tick:
        return Tick(
            t,
            (
                RawSample("status", tuple(ARGV), 0, status_text, "", t, 0.01),
                RawSample("list", argv, 0, list_text, "", t, 0.01),
            ),
        )

    b = SnapshotBuilder()
    one = b.feed(tick(1.0, status, listed))
    two = b.feed(tick(2.0, status + " ", grown))  # a new status text too: its leaves are reused
    sizes = {v.path: v.size for p in two.pools for v in p.leaves()}
    assert sizes[path] == int(size) * 2
    assert {v.path: v.size for p in one.pools for v in p.leaves()}[path] == int(size)


TEXT_ARGV = ["zpool", "status", "-p", "-P", "-s"]


def test_a_scrubs_new_text_status_keeps_the_tree_and_a_changed_table_does_not():
    """Text status (OpenZFS before 2.3): between two answers of a scrub only the scan lines
    move, and the tree is the same object; a counter that moves in the table gives a new tree.
    Either way the pools equal a parse from scratch."""
    before = (CAPTURES / "scrub/zpool-status.scrubbing.txt").read_text()
    after = (CAPTURES / "scrub/zpool-status.scrubbing-2.txt").read_text()
    reuse: Reuse = Reuse()
    one = parse_status(TEXT_ARGV, before, reuse)
    reuse.next_pass()
    two = parse_status(TEXT_ARGV, after, reuse)
    reuse.next_pass()
    assert two == parse_status(TEXT_ARGV, after)
    assert one[0].scans != two[0].scans  # the scan moved...
    assert two[0].root is one[0].root  # ...the table did not
    row = next(line for line in after.splitlines() if line.startswith("\t    "))
    counted = after.replace(row, row[: row.rindex(" 0")] + " 7" + row[row.rindex(" 0") + 2 :], 1)
    three = parse_status(TEXT_ARGV, counted, reuse)
    assert three == parse_status(TEXT_ARGV, counted) and three[0].root is not one[0].root


@FUZZ
@given(damaged(TEXT_SEEDS), damaged(TEXT_SEEDS))
def test_reuse_never_changes_what_a_text_report_parses_to(first, second):
    reuse: Reuse = Reuse()
    try:
        parse_status(TEXT_ARGV, first, reuse)
        reuse.next_pass()
    except ParseError:
        reuse.abandon()
    try:
        expected: object = parse_status(TEXT_ARGV, second)
    except ParseError as e:
        expected = str(e)
    try:
        got: object = parse_status(TEXT_ARGV, second, reuse)
    except ParseError as e:
        got = str(e)
    assert got == expected


def test_a_json_status_whose_tree_reads_the_same_is_the_same_tree():
    """`zpool status -j` of a scrub's progress moving and nothing in the tree: the same root,
    every node reused with no walk of the leaves. The answer after it, with one leaf changed,
    still reuses every other leaf (those the kept tree was built with stay reusable)."""
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text()
    doc = json.loads(text)
    pool = next(iter(doc["pools"].values()))
    reuse: Reuse = Reuse()
    one = _parse(text, reuse)
    pool["scan_stats"]["issued"] += 4096
    two = _parse(json.dumps(doc), reuse)
    assert two == parse_status(ARGV, json.dumps(doc))
    assert two[0].scans != one[0].scans and two[0].root is one[0].root
    kids = pool["vdevs"][pool["name"]]["vdevs"]["mirror-1"]["vdevs"]
    changed_name = next(iter(kids))
    kids[changed_name]["checksum_errors"] = 3
    three = _parse(json.dumps(doc), reuse)
    assert three == parse_status(ARGV, json.dumps(doc)) and three[0].root is not one[0].root
    before, after = _leaves(one), _leaves(three)
    for key, v in after.items():
        assert (v is before[key]) == (v.name != changed_name), key


def test_a_status_that_moved_only_its_scan_keeps_the_snapshots_tree():
    """The builder end to end: the same tree in the snapshot (what the checks find as the very
    leaves of the last answer), a new structure number (the scan is the pool's), and pools equal
    to a fresh fold's."""
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text()
    doc = json.loads(text)
    next(iter(doc["pools"].values()))["scan_stats"]["issued"] += 4096
    one, two, fresh_two = _two_answers(text, doc)
    assert two.pools == fresh_two.pools
    assert two.structure_id != one.structure_id
    assert two.pools[0].root is one.pools[0].root


def test_a_restored_builder_reuses_the_tree_of_the_status_it_was_restored_with():
    """A keyframe's builder (a replay's seek, each round of the bench) parses its status and
    list as feed does: the next status that moved only its scan is the restored tree again,
    not decoded anew, and its snapshot equals an unbroken fold's."""
    text = (CAPTURES / "degraded/zpool-status-j-json-int.resilvering.txt").read_text()
    doc = json.loads(text)
    next(iter(doc["pools"].values()))["scan_stats"]["issued"] += 4096
    b = SnapshotBuilder()
    b.feed(_status_tick(1.0, text))
    restored = SnapshotBuilder.restore(b.checkpoint())
    parsed = restored._slots["status"].value[0].root
    two = restored.feed(_status_tick(2.0, json.dumps(doc)))
    assert restored._slots["status"].value[0].root is parsed  # the tree the restore decoded
    assert two.pools == b.feed(_status_tick(2.0, json.dumps(doc))).pools
