"""Hypothesis: mutated pastes never raise, and every non-blank line is used or reported."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate import apply_edits, edits
from tests.paste import pastes
from tests.paste.helpers import CAPTURES, human_paste, nonblank
from zdash.builder import SnapshotBuilder
from zdash.paste.front import paste_tick
from zdash.paste.samples import import_paste

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
    SnapshotBuilder(1.0, None).feed(paste_tick(imported, 1_700_000_000.0))


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
