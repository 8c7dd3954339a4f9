"""`zpool status -j` (2.3.2 captures), its traps, and agreement with the text of the same moment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zdash.model import UNSEEN, Pool, Vdev
from zdash.parse import ParseError
from zdash.parse.zpool_status import parse_status, wants_json
from zdash.parse.zpool_status.json_tree import parse_status_json
from zdash.parse.zpool_status.text import parse_status_text

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
MIB = 1024**2


def _load(rel: str) -> dict:
    return json.loads((CAPTURES / rel).read_text())


def _one(rel: str | dict) -> Pool:
    text = json.dumps(rel) if isinstance(rel, dict) else (CAPTURES / rel).read_text()
    (pool,) = parse_status_json(text)
    return pool


# Text and JSON captured at the same moment (meta.txt): plain text with plain -j (both print
# short names and nicenum counters), and -s -P -p text with --json-int -p (exact counters,
# and -P names that are the JSON paths). The scrub folder's paused / scrubbing-2 JSON files
# were taken with --json-int despite their names.
def _pairs() -> list[tuple[Path, Path, bool]]:
    pairs = []
    for text in sorted(CAPTURES.glob("*/zpool-status.*txt")) + sorted(
        CAPTURES.glob("*/zpool-status-s-P-p*.txt")
    ):
        full_paths = "-s-P-p" in text.name
        suffix = text.name.removeprefix("zpool-status-s-P-p" if full_paths else "zpool-status")
        for name in (
            (f"zpool-status-j-json-int{suffix}", "zpool-status-s-j.txt")
            if full_paths
            else (f"zpool-status-j{suffix}",)
        ):
            if (text.parent / name).exists():
                pairs.append((text, text.parent / name, full_paths))
                break
    return pairs


PAIRS = _pairs()


def _shape(v: Vdev, full_paths: bool) -> tuple:
    label = v.label if full_paths and not v.children else v.name
    return (
        label,
        v.kind,
        v.state,
        v.vclass,
        v.aux,
        v.read_errors,
        v.write_errors,
        v.checksum_errors,
        tuple(_shape(c, full_paths) for c in v.children),
    )


def test_every_text_capture_with_json_has_a_pair():
    paired = {text for text, _, _ in PAIRS}
    text_files = {p for p in CAPTURES.glob("*/zpool-status*.txt") if not p.read_text().startswith("{")}
    # meta.txt: these moments were captured in text only (after `zpool clear`, -s without -p, -c)
    assert {f"{p.parent.name}/{p.name}" for p in text_files - paired} == {
        "errors/zpool-status.cleared.txt",
        "deranged-disk/zpool-status-s-P.txt",
        "healthy/zpool-status-c-upath-size.txt",
        "healthy/zpool-status-c-noenv.txt",
        "deranged-disk/zpool-status-c-upath-size.txt",
        # events/meta.txt: `zpool status -P -v` beside each ereport capture, text only
        "events/zpool-status.delay.txt",
        "events/zpool-status.checksum.txt",
        "events/zpool-status.checksum-data.txt",
        "events/zpool-status.io.txt",
        # imbalance-*/meta.txt: captured for pastes (transcript and human outputs), text only
        "imbalance-deletes/zpool-status.txt",
        "imbalance-share/zpool-status.txt",
        # big-1000/meta.txt: the 1,000-disk pool, text only (each capture took 20-35 s there)
        "big-1000/zpool-status.txt",
        # draid-rebuild/meta.txt: one moment of a rebuild, text only
        "draid-rebuild/zpool-status.rebuilding.txt",
        # devices/meta.txt: the pool whose leaves' device facts were captured, text only
        "devices/zpool-status-P.txt",
    }


@pytest.mark.parametrize(("text", "js", "full_paths"), PAIRS, ids=lambda x: getattr(x, "name", ""))
def test_json_and_text_of_the_same_moment_give_the_same_tree(text, js, full_paths):
    (t,) = parse_status_text(text.read_text())
    (j,) = parse_status_json(js.read_text())
    assert _shape(j.root, full_paths) == _shape(t.root, full_paths)
    assert (j.name, j.state, j.status, j.action, j.msgid) == (t.name, t.state, t.status, t.action, t.msgid)
    assert [(s.function, s.state, s.start_time) for s in j.scans] == [
        (s.function, s.state, s.start_time) for s in t.scans
    ]
    if not t.error_files:  # with a file list the text has no count (only a lower bound)
        assert j.error_count == t.error_count


def test_version_gate():
    doc = _load("healthy/zpool-status-j-json-int.txt")
    doc["output_version"]["vers_major"] = 1
    with pytest.raises(ParseError, match="output_version"):
        parse_status_json(json.dumps(doc))
    del doc["output_version"]
    with pytest.raises(ParseError):
        parse_status_json(json.dumps(doc))


def test_pool_guid_key_and_guids_as_strings():
    pool = _one("healthy/zpool-status-j-json-int.txt")
    assert pool.guid == "2462774739500235037"  # real 2.3.2 key is "pool_guid"
    assert pool.root.guid == pool.guid and all(isinstance(v.guid, str) for v in pool.root.walk())
    assert _one("healthy/zpool-status-j.txt").guid == pool.guid  # plain -j: the same, as a string


def test_raidz_parity_comes_from_the_name():
    assert [v.kind for v in _one("raidz-wide/zpool-status-j-json-int.wide.txt").top_level] == ["raidz2"]
    mixed = _one("raidz-wide/zpool-status-j.mixed.txt")
    assert [(v.kind, v.is_leaf) for v in mixed.top_level] == [
        ("raidz1", False),
        ("mirror", False),
        ("file", True),
    ]


def test_slow_ios_on_leaves_only():
    pool = _one("deranged-disk/zpool-status-s-j.txt")
    assert {v.name: v.slow_ios for v in pool.leaves()} == {
        "loop0": 0,
        "loop1": 0,
        "loop2": 2,
        "slowdisk": 337,
    }
    assert pool.find("slowdisk").path == "/dev/mapper/slowdisk"
    assert all(v.slow_ios is None for v in pool.root.walk() if v.children)


def test_offline_and_replacing():
    offline = _one("degraded/zpool-status-j-json-int.offline.txt")
    assert offline.find("/tmp/zl/degraded/d2").state == "OFFLINE" and offline.state == "DEGRADED"
    resilvering = _one("degraded/zpool-status-j-json-int.resilvering.txt")
    assert [(c.name, c.aux) for c in resilvering.find("replacing-1").children] == [
        ("/tmp/zl/degraded/d2", None),
        ("/tmp/zl/degraded/new2", "(resilvering)"),
    ]  # as the text shows
    (scan,) = resilvering.scans
    assert (scan.function, scan.state, scan.start_time, scan.end_time) == (
        "resilver",
        "scanning",
        1795318805,
        None,
    )
    # zpool's formula: issued / (to_examine - skipped) = 173316096 / (314939904 - 141593088)
    assert scan.pct_done == pytest.approx(99.98, abs=0.005)
    assert scan.processed == 173331456


def test_paused_scrub_is_paused_not_scanning():
    (scan,) = _one("scrub/zpool-status-j.scrub-paused.txt").scans
    assert (scan.state, scan.pause_time, scan.start_time) == ("paused", 1795318866, 1795318855)
    assert scan.pct_done == pytest.approx(74.49, abs=0.005)  # the text capture prints 74.49%
    (running,) = _one("scrub/zpool-status-j-json-int.scrubbing.txt").scans
    assert (running.state, running.pause_time) == ("scanning", None)


def test_finished_scan_has_no_percentage():
    (scan,) = _one("scrub/zpool-status-j-json-int.scrubbed.txt").scans
    assert (scan.state, scan.end_time, scan.pct_done, scan.errors) == ("finished", 1795318872, None, 0)


def test_plain_j_strings_dates_and_nicenum():
    exact, plain = (
        _one("errors/zpool-status-j-json-int.permanent.txt"),
        _one("errors/zpool-status-j.permanent.txt"),
    )
    assert (exact.error_count, plain.error_count) == (1280, 1280)  # 1280 and "1.25K"
    assert exact.find("/tmp/zl/errors/p1").checksum_errors == 2562
    assert plain.find("/tmp/zl/errors/p1").checksum_errors == 2560  # "2.50K"
    assert (exact.msgid, exact.error_files) == ("ZFS-8000-8A", ())  # no -v: no errlist
    # "Sun Nov 22 03:47:53 UTC 2026" and "160M" in plain -j
    assert (plain.scans[0].start_time, plain.scans[0].end_time) == (
        exact.scans[0].start_time,
        exact.scans[0].end_time,
    )
    assert plain.scans[0].to_examine == 160 * MIB and plain.scans[0].errors == 1280


def _healthy_with(**groups) -> dict:
    doc = _load("healthy/zpool-status-j-json-int.txt")
    pool = doc["pools"]["healthy"]
    pool.update(groups)
    return doc


def _leaf(name: str, state: str = "ONLINE", **extra) -> dict:
    return {
        "name": name,
        "vdev_type": "disk",
        "guid": 42,
        "path": f"/dev/{name}1",
        "class": "normal",
        "state": state,
        "read_errors": 0,
        "write_errors": 0,
        "checksum_errors": 0,
        "slow_ios": 0,
        **extra,
    }


def test_class_groups_beside_vdevs_become_top_level_with_their_class():
    mirror = {
        "name": "mirror-2",
        "vdev_type": "mirror",
        "guid": 7,
        "state": "ONLINE",
        "read_errors": 0,
        "write_errors": 0,
        "checksum_errors": 0,
        "vdevs": {"sdc": _leaf("sdc"), "sdd": _leaf("sdd")},
    }
    doc = _healthy_with(
        special={"mirror-2": mirror},
        logs={"sde": _leaf("sde")},
        l2cache={"sdf": _leaf("sdf")},
        spares={"sdg": _leaf("sdg", "AVAIL"), "sdh": _leaf("sdh", "INUSE", aux="SPARED")},
    )
    pool = _one(doc)
    assert [(v.name, v.vclass) for v in pool.top_level] == [
        ("mirror-0", "normal"),
        ("mirror-1", "normal"),
        ("mirror-2", "special"),
        ("sde", "log"),
        ("sdf", "cache"),
        ("sdg", "spare"),
        ("sdh", "spare"),
    ]
    assert [v.vclass for v in pool.find("mirror-2").children] == ["special", "special"]
    assert [v.name for v in pool.data_vdevs()] == ["mirror-0", "mirror-1", "mirror-2"]
    assert (pool.find("sdg").state, pool.find("sdh").state, pool.find("sdh").aux) == (
        "AVAIL",
        "INUSE",
        "currently in use",
    )


@pytest.mark.parametrize(
    ("raw", "aux", "state", "words"),
    [
        ("CANT_OPEN", "OPEN_FAILED", "UNAVAIL", "cannot open"),
        ("CANT_OPEN", "CORRUPT_DATA", "FAULTED", "corrupted data"),
        ("CANT_OPEN", "BAD_LOG", "FAULTED", "bad intent log"),
        ("CANT_OPEN", "SPLIT_POOL", "SPLIT", "split into new pool"),
        ("CLOSED", None, "OFFLINE", None),
        ("FAULTED", "EXTERNAL", "FAULTED", "external device fault"),
        ("HEALTHY", None, "ONLINE", None),  # the stale man-page example (§4.3)
        ("FAULTED", "SOME_FUTURE_AUX", "FAULTED", "some future aux"),
    ],
)
def test_raw_enum_states_map_to_text_names(raw, aux, state, words):
    doc = _load("clones/zpool-status-j-json-int.txt")
    leaf = doc["pools"]["clones"]["vdevs"]["clones"]["vdevs"]["mirror-0"]["vdevs"]["/tmp/zl/clones/d2"]
    leaf["state"] = raw
    if aux:
        leaf["aux"] = aux
    v = _one(doc).find("/tmp/zl/clones/d2")
    assert (v.state, v.aux) == (state, words)


def test_too_many_slow_ios_wording():
    doc = _load("clones/zpool-status-j-json-int.txt")
    leaf = doc["pools"]["clones"]["vdevs"]["clones"]["vdevs"]["mirror-0"]["vdevs"]["/tmp/zl/clones/d1"]
    leaf.update(state="FAULTED", aux="ERR_EXCEEDED", slow_ios=900)
    assert _one(doc).find("/tmp/zl/clones/d1").aux == "too many slow I/Os"


def test_missing_device_and_ashift_mismatch():
    doc = _load("clones/zpool-status-j-json-int.txt")
    mirror = doc["pools"]["clones"]["vdevs"]["clones"]["vdevs"]["mirror-0"]["vdevs"]
    gone = mirror.pop("/tmp/zl/clones/d1")
    mirror["9593279170455378102"] = dict(
        gone,
        name="9593279170455378102",
        state="CANT_OPEN",
        aux="OPEN_FAILED",
        not_present=1,
        was="/tmp/zl/clones/d1",
        guid=9593279170455378102,
    )
    mirror["/tmp/zl/clones/d2"].update(configured_ashift=9, physical_ashift=12)
    pool = _one(doc)
    missing, slow_sector = pool.find("9593279170455378102"), pool.find("/tmp/zl/clones/d2")
    assert (missing.kind, missing.guid, missing.was, missing.path, missing.state) == (
        "missing",
        "9593279170455378102",
        "/tmp/zl/clones/d1",
        None,
        "UNAVAIL",
    )
    assert (slow_sector.physical_ashift, pool.find("mirror-0").physical_ashift) == (12, None)


def test_errlist_and_rebuild_stats():
    doc = _healthy_with(error_count=2, errlist=["/healthy/data/file1", "healthy/data:<0x0>"])
    stats = {
        "function": "NONE",
        "state": "NONE",
        "rebuild_stats": {
            "mirror-0": {
                "state": "ACTIVE",
                "start_time": 1795318805,
                "end_time": 0,
                "scanned": 300 * MIB,
                "issued": 200 * MIB,
                "rebuilt": 150 * MIB,
                "to_scan": 600 * MIB,
                "errors": 0,
            },
            "mirror-1": {"state": "NONE"},
        },
    }
    doc["pools"]["healthy"]["scan_stats"] = stats
    pool = _one(doc)
    assert (pool.error_count, pool.error_files) == (2, ("/healthy/data/file1", "healthy/data:<0x0>"))
    (rebuild,) = pool.scans
    assert (rebuild.function, rebuild.vdev, rebuild.state, rebuild.end_time) == (
        "rebuild",
        "mirror-0",
        "scanning",
        None,
    )
    assert rebuild.pct_done == pytest.approx(50.0, abs=1e-6) and rebuild.processed == 150 * MIB


def test_error_scrub_keys():
    doc = _load("scrub/zpool-status-j-json-int.scrubbed.txt")
    doc["pools"]["scrub"]["scan_stats"].update(
        err_scrub_func="ERRORSCRUB",
        err_scrub_state="ERRORSCRUBBING",
        err_scrub_start_time=1795319000,
        err_scrub_end_time=0,
        err_scrub_examined=1,
        err_scrub_to_examine=3,
        err_scrub_pause=0,
    )
    pool = _one(doc)
    scrub, errorscrub = pool.scans
    assert (errorscrub.function, errorscrub.state, errorscrub.pct_done) == ("errorscrub", "scanning", 25.0)
    assert (scrub.state, pool.scan) == ("finished", errorscrub)  # the running one wins


@pytest.mark.parametrize(
    "bad",
    [
        "[]",
        "{",
        '"x"',
        '{"output_version": {"vers_major": 0}, "pools": []}',
        '{"output_version": {"vers_major": 0}, "pools": {"p": {"name": "p", "vdevs": {}}}}',
        '{"output_version": {"vers_major": 0}, "pools": {"p": {"vdevs": {"p": {"read_errors": {"a": 1}}}}}}',
        '{"output_version": {"vers_major": 0}, "pools": {"p": {"vdevs": {"p": {"read_errors": true}}}}}',
        "[" * 100_000,
    ],
)
def test_malformed_json_is_a_parse_error(bad):
    with pytest.raises(ParseError):
        parse_status_json(bad)


def test_no_pools():
    assert parse_status_json("") == ()
    assert (
        parse_status_json(
            '{"output_version":{"command":"zpool status","vers_major":0,"vers_minor":1},"pools":{}}'
        )
        == ()
    )
    assert parse_status(["zpool", "status", "-j"], "no pools available\n") == ()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["zpool", "status", "-j", "--json-int", "-p", "tank"], True),
        (["zpool", "status", "--json", "tank"], True),
        (["zpool", "status", "-jp"], True),
        (["zpool", "status", "-sj"], True),
        (["zpool", "status", "-p", "-P", "-s"], False),
        (["zpool", "status", "-Tj"], False),  # -T takes an argument: 'j' is not a flag here
        (["zpool", "status", "-c", "upath,size"], False),
    ],
)
def test_dispatcher_picks_json_only_when_asked(argv, expected):
    assert wants_json(argv) is expected


# Published 2.3/2.4 outputs (tests/corpus, from a real server's fixtures): --json-flat-vdevs, -L
# (leaves without state), an unreadable error log as non-root.
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _corpus(number: str) -> str:
    text = next(CORPUS.glob(f"{number}-*.txt")).read_text()
    return text[text.index("{") :]


def _tree_shape(v: Vdev) -> tuple:
    return (v.name, v.kind, v.state, v.vclass, tuple(_tree_shape(c) for c in v.children))


def test_flat_vdevs_give_the_tree_the_nested_document_gives():
    """--json-flat-vdevs lists every vdev at the top (each with its parent) and, under each
    interior vdev, all its descendants: read by parent, the tree of the same pools nested."""
    flat, nested = parse_status_json(_corpus("157")), parse_status_json(_corpus("158"))
    assert [p.name for p in flat] == [p.name for p in nested] == ["tank", "zeta"]
    assert [_tree_shape(p.root) for p in flat] == [_tree_shape(p.root) for p in nested]
    tank = flat[0]
    assert [t.name for t in tank.root.children] == [*(f"raidz1-{i}" for i in range(4)), "mirror-4"]
    assert sum(1 for _ in tank.leaves()) == 15  # each disk once, not once per listing


def test_flat_vdevs_keep_spares_logs_and_cache_in_their_classes():
    (pool,) = parse_status_json(_corpus("159"))
    assert _tree_shape(pool.root)[4] == (
        (
            "mirror-0",
            "mirror",
            "DEGRADED",
            "normal",
            (
                (
                    "spare-0",
                    "spare",
                    "DEGRADED",
                    "normal",
                    (
                        ("/var/tmp/tspare-a.img", "file", "OFFLINE", "normal", ()),
                        ("/var/tmp/tspare-spare.img", "file", "ONLINE", "normal", ()),
                    ),
                ),
                ("/var/tmp/tspare-b.img", "file", "ONLINE", "normal", ()),
            ),
        ),
        ("/var/tmp/tspare-log.img", "file", "ONLINE", "log", ()),
        ("/var/tmp/tspare-cache.img", "file", "ONLINE", "cache", ()),
        ("/var/tmp/tspare-spare.img", "file", "INUSE", "spare", ()),
    )


def test_a_leaf_printed_without_its_state_is_unknown_to_zdash_not_unknown_to_zfs():
    """-L in 2.4 leaves a leaf's state out: zdash cannot tell (UNSEEN), which no check reads as
    a fault; UNKNOWN is a state zpool itself prints."""
    tank, _ = parse_status_json(_corpus("158"))
    assert {leaf.state for leaf in tank.leaves()} == {UNSEEN}
    doc = _load("healthy/zpool-status-j.txt")
    leaf = next(
        iter(next(iter(doc["pools"]["healthy"]["vdevs"]["healthy"]["vdevs"].values()))["vdevs"].values())
    )
    leaf["state"] = "UNKNOWN"
    assert "UNKNOWN" in {v.state for v in _one(doc).leaves()}


def test_an_error_log_a_non_root_user_cannot_read_keeps_the_pool_and_its_count():
    (pool,) = parse_status_json(_corpus("162"))  # "errlist": "Permission denied"
    assert pool.name == "tfault" and pool.error_count and pool.error_files == ()


SHAPES = CAPTURES / "json-shapes"  # one moment of one pool, every shape (capture.sh there)


@pytest.mark.parametrize(
    "name",
    [
        "zpool-status-j-json-int.txt",
        "zpool-status-j-flat-json-int.txt",
        "zpool-status-j-flat.txt",
        "zpool-status-jP-flat.txt",
        "zpool-status-jL.txt",
    ],
)
def test_every_json_shape_of_one_moment_gives_the_text_tree(name):
    """OpenZFS 2.3.2 in the lab: a spare-0 standing in, special, log, cache and the spares list;
    nested or --json-flat-vdevs, strings or --json-int, -P paths or -L: the tree the text shows
    (names compared by their last part: -P prints /dev/loop0 for loop0)."""

    def tree(v: Vdev) -> tuple:
        return (v.name.rsplit("/", 1)[-1], v.kind, v.state, v.vclass, v.aux, tuple(map(tree, v.children)))

    (text,) = parse_status_text((SHAPES / "zpool-status.txt").read_text())
    (pool,) = parse_status_json((SHAPES / name).read_text())
    assert tree(pool.root) == tree(text.root)
    assert (pool.state, pool.scans[0].function, pool.scans[0].state) == ("DEGRADED", "resilver", "finished")
