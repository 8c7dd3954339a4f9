"""Contract fuzzing: on damaged real output the status parsers return pools or raise ParseError.

Seeds are the 2.3.2 captures and the older-era examples of test_zpool_status_text; the
mutations are the ways output really gets damaged (a killed command truncates it, a paste
loses or repeats lines, a terminal mangles characters) plus structural edits of the JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.parse import test_zpool_status_text as era
from zdash.model import Pool, Scan
from zdash.parse import ParseError
from zdash.parse.units import parse_count, parse_ctime, parse_dhms, parse_duration_ns
from zdash.parse.zpool_status.json_tree import parse_status_json
from zdash.parse.zpool_status.text import parse_status_text
from zdash.parse.zpool_status.text_scan import parse_scan_block

CAPTURES = Path(__file__).resolve().parents[1] / "captures"
_ALL = [p.read_text() for p in sorted(CAPTURES.glob("*/zpool-status*.txt"))]
TEXT_SEEDS = [t for t in _ALL if not t.startswith("{")] + [
    era.ISSUE_840,
    era.ISSUE_7537,
    era.ISSUE_16979,
    era.ISSUE_18319,
    era.LIBZETTA_64,
    era.ISSUE_3267,
    era.ISSUE_3877,
    era.ISSUE_2973,
]
# ... and published 2.3/2.4 documents the lab does not make: --json-flat-vdevs, -L (tests/corpus)
_PUBLISHED = [
    (Path(__file__).resolve().parents[1] / "corpus").glob(f"{n}-*.txt") for n in ("157", "159", "162")
]
JSON_SEEDS = [t for t in _ALL if t.startswith("{")] + [
    text[text.index("{") :] for found in _PUBLISHED for text in (next(found).read_text(),)
]
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Fragments that steer mutations towards the parsers' decision points.
TOKENS = [
    "0",
    "1.68K",
    "-",
    "  ",
    "\t",
    "\n",
    "ONLINE",
    "AVAIL",
    "was /dev/sda1",
    "(resilvering)",
    "9" * 30,
    "  pool: x",
    " state: ",
    "  scan: ",
    "config:",
    "errors: ",
    "NAME STATE READ WRITE CKSUM SLOW",
    "\tlogs",
    "\tspares",
    "mirror-0",
    "raidz3-1",
    "draid2:4d:1s:8c-0",
    "spare-0",
    "replacing-1",
    " days ",
    "% done",
    " / ",
    "scanned at 1G/s",
    "issued",
    "block size: 512B configured, 0B native",
    "Sun Nov 22 03:40:05 2026",
    "Feb 31",
    "\u2028",
    "\x85",
    "٣",
    "é",
    "\ufeff",
    "\x00",
]


def _assert_contract(parse, text: str) -> None:
    try:
        pools = parse(text)
    except ParseError as e:
        assert str(e) and "\n" not in str(e)
        return
    assert isinstance(pools, tuple) and all(isinstance(p, Pool) for p in pools)
    for pool in pools:  # the tree a consumer will walk must be walkable
        assert pool.root.kind == "root" and all(v.name for v in pool.root.walk())


def _index(draw, size: int) -> int:
    offset = draw(st.integers(0, size - 1))
    return offset if draw(st.booleans()) else size - 1 - offset


@st.composite
def damaged(draw, seeds: list[str]) -> str:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        lines = text.splitlines(keepends=True) or [""]
        # Hypothesis favours small integers; drawing from either end spreads damage over the text.
        i, j = (_index(draw, len(lines)) for _ in range(2))
        op = draw(st.sampled_from(["truncate", "delete", "duplicate", "swap", "replace", "insert", "indent"]))
        if op == "truncate":
            text = text[: _index(draw, len(text) + 1)]
            continue
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[j])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "\t", "\t  ", " " * 40])) + lines[i].lstrip()
        else:
            start = draw(st.integers(0, len(lines[i])))
            end = start if op == "insert" else draw(st.integers(start, len(lines[i])))
            new = draw(st.sampled_from(TOKENS) | st.text(max_size=12))
            lines[i] = lines[i][:start] + new + lines[i][end:]
        text = "".join(lines)
    return text


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**90)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.sampled_from(
        [
            "-",
            "1.50K",
            "0B",
            "CANT_OPEN",
            "CLOSED",
            "SPARED",
            "ERR_EXCEEDED",
            "SCANNING",
            "FINISHED",
            "ERRORSCRUB",
            "raidz",
            "Sun Nov 22 03:40:05 UTC 2026",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "vdevs",
                    "name",
                    "state",
                    "aux",
                    "not_present",
                    "scan_stats",
                    "rebuild_stats",
                    "err_scrub_func",
                    "physical_ashift",
                    "configured_ashift",
                    "logs",
                    "spares",
                ]
            )
            | st.text(max_size=5),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)


@st.composite
def damaged_json(draw) -> str:
    doc = json.loads(draw(st.sampled_from(JSON_SEEDS)))
    for _ in range(draw(st.integers(1, 5))):
        # Mostly damage the pools: a broken envelope is one quick ParseError, already covered.
        pools = doc.get("pools")
        top = draw(st.integers(0, 9)) == 9 or not isinstance(pools, (dict, list))
        parent, key, node = None, None, doc if top else pools
        while isinstance(node, (dict, list)) and node:  # walk down to a random member
            parent, keys = node, list(node) if isinstance(node, dict) else list(range(len(node)))
            inner = [k for k in keys if isinstance(node[k], (dict, list)) and node[k]]
            key = draw(st.sampled_from(inner if inner and draw(st.integers(0, 7)) != 7 else keys))
            node = node[key]
            if not isinstance(node, (dict, list)) or draw(st.integers(0, 7)) == 7:  # mostly go deeper
                break
        if parent is None:
            continue
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[key]
        else:
            parent[key] = draw(JSON_VALUES)
    text = json.dumps(doc)
    return draw(damaged([text])) if draw(st.integers(0, 4)) == 0 else text


@FUZZ
@given(damaged(TEXT_SEEDS))
def test_text_parser_keeps_its_contract_on_damaged_output(text):
    _assert_contract(parse_status_text, text)


@FUZZ
@given(damaged_json())
def test_json_parser_keeps_its_contract_on_damaged_documents(text):
    _assert_contract(parse_status_json, text)


@FUZZ
@given(damaged(JSON_SEEDS))
def test_json_parser_keeps_its_contract_on_damaged_text(text):
    _assert_contract(parse_status_json, text)


@settings(deadline=None)
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=20), max_size=4))
def test_scan_and_unit_readers_keep_the_contract(pieces):
    line = "".join(pieces)
    for reader in (parse_count, parse_duration_ns, parse_dhms, parse_ctime):
        try:
            reader(line)
        except ParseError:
            pass
    # A scan block never fails the pool: an unreadable line costs only its own facts.
    for block in ([line], ["scrub in progress since " + line, line], ["resilvered " + line, "\t" + line]):
        scan = parse_scan_block(block)
        assert scan is None or isinstance(scan, Scan)
