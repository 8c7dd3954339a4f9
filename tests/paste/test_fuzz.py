"""Hypothesis: mutated pastes never raise, and every non-blank line is used or reported."""

from __future__ import annotations

import contextlib
import json
from itertools import pairwise
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate import apply_edits, edits
from tests.paste import pastes
from tests.paste.helpers import CAPTURES, human_paste, nonblank
from zdash.fold import look
from zdash.parse import ParseError
from zdash.paste.ashift import read_zdb, starts_zdb, take_zdb
from zdash.paste.depth import by_names, mangled
from zdash.paste.front import paste_tick
from zdash.paste.samples import import_paste
from zdash.paste.unwrap import unflatten, unwrap
from zdash.paste.zpool_list import headerless_columns

FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SEEDS = [
    human_paste("healthy", None),
    human_paste("degraded", "resilvering"),
    human_paste("raidz-wide", "mixed"),
    human_paste("errors", "permanent"),
    (CAPTURES / "deranged-disk/zpool-iostat-v-l-1-3.txt").read_text(),
    (CAPTURES / "clones/zfs-list-all-origin-clones.txt").read_text(),
    (CAPTURES / "deranged-disk/zpool-status-c-upath-size.txt").read_text(),
] + [getattr(pastes, n) for n in dir(pastes) if n.isupper()]
# JSON (2.3+): zpool's one line, jq's layout with a prompt and a fence, zfs list -j.
_JSON_STATUS = (CAPTURES / "degraded/zpool-status-j.offline.txt").read_text()
SEEDS += [
    _JSON_STATUS,
    "$ zpool status -j | jq\n```\n" + json.dumps(json.loads(_JSON_STATUS), indent=2) + "\n```\n",
    (CAPTURES / "capacity/zpool-list-v-j.cap93.txt").read_text(),
    (CAPTURES / "clones/zfs-list-j.txt").read_text(),
]
# Published pastes with the manglings the newer readers undo (tests/corpus): quoting, log and
# diff prefixes, glued prompts, collapsed and flattened reports, import listings, config
# fragments, header-less `zpool list`, transcripts with `zfs clone`.
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SEEDS += [
    next(CORPUS.glob(f"{n}-*.txt")).read_text()
    for n in ("018", "021", "036", "040", "042", "044", "050", "058", "075", "084", "085", "094", "096")
]
# zdb dumps and labels, a grep of them, all-vdevs tables, a Markdown-split iostat header and a
# config cut inside a vdev (issue 26's readers).
SEEDS += [(CAPTURES / "ashift-mismatch" / n).read_text() for n in ("zdb-C.txt", "zdb-l-d1.txt")]
SEEDS += [next(CORPUS.glob(f"{n}-*.txt")).read_text() for n in ("263", "264", "266", "268", "282", "292")]
# Rows without their table (issue 26's second pass): bare device rows, iostat of named vdevs,
# a report script's pipe table, JSON members cut from a document, -H rows with -l/-q/-v.
SEEDS += [next(CORPUS.glob(f"{n}-*.txt")).read_text() for n in ("156", "201", "211", "214")]
SEEDS += [
    "# zpool iostat -vlHp 1 2\n" + (CAPTURES / "healthy/zpool-iostat-v-l-H-p-1-2.txt").read_text(),
    "# zpool iostat -vqHp 1 2\n" + (CAPTURES / "deranged-disk/zpool-iostat-v-q-H-p-1-2.txt").read_text(),
]

_SNIPPETS = st.sampled_from(
    [
        "\t",
        "\n",
        "  ",
        "    ",
        "\r\n",
        "\r",
        "-",
        "--------  -----",
        "%",
        "K",
        "1.5G",
        "-\t-",
        "0",
        "  pool: x\n",
        " state: ONLINE\n",
        "config:\n",
        "\tNAME  STATE  READ WRITE CKSUM\n",
        "errors: Permanent errors have been detected in the following files:\n\n\t/x\n",
        "NAME  SIZE  ALLOC  FREE  CAP  HEALTH\n",
        "NAME  USED  AVAIL  REFER  MOUNTPOINT\n",
        "  capacity operations bandwidth\npool alloc free read write read write\n",
        "logs  -  -  -  -  -  -\n",
        "$ zpool status -v\n",
        "root@h:~# zfs list\n",
        "```\n",
        "<pre>",
        "\x1b[31m",
        "\u00a0",
        "\ufeff",
        "\u2028",
        "\x00",
        "mirror",
        "raidz2-0",
        "ONLINE",
        "UNKNOWN",
        "Every 2s: zpool iostat -vl 1\n",
        "1700000000\n",
        "no pools available\n",
        "> ",
        "{",
        "}",
        '"vdevs": {',
        '",',
    ]
)
_SNIPPET = st.one_of(_SNIPPETS, st.text(max_size=6))
_EDITS = edits(_SNIPPET, max_length=60, max_size=5)


def _accounted(text: str) -> None:
    imported = import_paste(text)
    reported = [u.line for u in imported.unread]
    lines = nonblank(text)
    assert set(reported) | imported.used == lines
    assert not set(reported) & imported.used
    assert len(reported) == len(set(reported))  # one reason per line
    assert all(u.why and u.text.strip() for u in imported.unread)
    assert all(u.why != "not read" for u in imported.unread)  # the safety net never had to act
    assert imported.ok == bool(imported.samples)
    look(paste_tick(imported, 1_700_000_000.0))


@FUZZ
@given(seed=st.sampled_from(SEEDS), edits=_EDITS)
def test_mutated_pastes_never_raise_and_account_for_every_line(seed, edits):
    _accounted(apply_edits(seed, edits))


@settings(deadline=None, database=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_any_text(text):
    _accounted(text)


@settings(deadline=None, database=None)
@given(
    st.lists(st.sampled_from(SEEDS), min_size=2, max_size=4), st.sampled_from(["", "\n", "\r\n", "$ ls\n"])
)
def test_several_pastes_together(parts, glue):
    _accounted(glue.join(parts))


_WORDS = st.sampled_from(
    [
        "pool:",
        "state:",
        "config:",
        "errors:",
        "id:",
        "NAME",
        "STATE",
        "READ",
        "WRITE",
        "CKSUM",
        "ONLINE",
        "DEGRADED",
        "UNAVAIL",
        "tank",
        "mirror-0",
        "raidz2-1",
        "draid1:2d:4c:0s-0",
        "spare-0",
        "replacing-1",
        "logs",
        "cache",
        "spares",
        "sda",
        "0",
        "4",
        "1.5K",
        "-",
        "10.5T",
        "45%",
        "1.00x",
        "/mnt",
        "#zpool",
        "statuspool:",
        "> ",
        "+",
        "**",
        "`",
        "12:00:01.5",
    ]
)


@settings(deadline=None, database=None)
@given(st.lists(_WORDS, max_size=40), st.sampled_from([" ", "  ", "\t", " \t "]))
def test_unflatten_and_headerless_rows_never_raise(words, sep):
    line = sep.join(words)
    flat = unflatten(line)
    assert flat is None or all(isinstance(x, str) for x in flat)
    shape = headerless_columns(line)
    assert shape is None or len(shape[0]) == len(line.split()) - 1
    assert len(unwrap([line, line, line])) == 3  # line numbers kept
    _accounted(line + "\n" + line.replace(" ", "\n"))


@settings(deadline=None, database=None)
@given(st.lists(_WORDS, min_size=1, max_size=30))
def test_depth_by_names_is_a_tree(names):
    depths = by_names(names)
    assert len(depths) == len(names) and depths[0] == 0
    assert all(d <= prev + 1 for prev, d in pairwise(depths))  # never skips a level down
    mangled(names, depths)


def test_a_flattened_report_whose_state_is_glued_to_its_label_is_unread_not_a_crash():
    """Found by the CI fuzzing profile: a report flattened onto one line (a web page turned to
    text) with `state:ONLINE` glued reads as a pool named "mypool state:ONLINE", which opens no
    status; the rest of the line then had no pool to belong to and zdash raised IndexError."""
    flat = (
        "#zpool statuspool: mypool state:ONLINE scan: none requested config: NAME STATE READ WRITE"
        " CKSUM mypool ONLINE 0 0 0 mirror-0 ONLINE 0 0 0 ada1 ONLINE 0 0 0 ada2 ONLINE 0 0 0"
        " errors: No known data errors\n"
    )
    _accounted(flat)
    assert [u.why for u in import_paste(flat).unread] == ["not recognised as a zpool status report"]


_ZDB_LINES = [
    line
    for n in ("zdb-C.txt", "zdb-l-d1.txt")
    for line in (CAPTURES / "ashift-mismatch" / n).read_text().splitlines()
] + ["MOS Configuration:", "tank:", "[...]", "LABEL 1", "-" * 36, "    ashift: 12", ""]


@FUZZ
@given(st.lists(st.sampled_from(_ZDB_LINES), max_size=40), st.lists(st.text(max_size=30), max_size=5))
def test_zdb_blocks_never_raise_but_parse_errors(picked, noise):
    """Any arrangement of zdb dump lines (and noise) is read or refused with a ParseError."""
    lines = [*picked, *noise]
    for i in range(len(lines)):
        if starts_zdb(lines, i):
            end = take_zdb(lines, i, lambda j: False)
            assert i < end <= len(lines)
            with contextlib.suppress(ParseError):
                read_zdb("\n".join(lines[i:end]))
