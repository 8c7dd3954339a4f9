"""A transcript's snapshot/clone/promote lines, replayed (zdash.paste.lineage), and what a paste
of dataset names alone says of the pool (nothing)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.paste.helpers import snapshot
from zdash.paste.lineage import replay

TRANSCRIPT = """\
# zfs create data/aaa
# touch /data/aaa/s1 && zfs snapshot data/aaa@snap01
# touch /data/aaa/s1 && zfs snapshot data/aaa@snap02
# touch /data/aaa/s1 && zfs snapshot data/aaa@snap03
# touch /data/aaa/s1 && zfs snapshot data/aaa@snap04
# zfs clone data/aaa@snap04 data/bbb
# zfs clone data/aaa@snap02 data/ccc
# zfs promote data/bbb
# zfs promote data/ccc
# zfs list -o name,used,avail data
NAME   USED  AVAIL
data   1.2G  8.0G
"""


def _origins(snap) -> dict[str, str]:
    return {d.name: d.origin for d in snap.datasets if d.origin}


def test_promotes_move_the_snapshots_and_turn_the_dependency_round():
    """Corpus 260's sequence: after `promote bbb` then `promote ccc`, ccc holds snap01-02, bbb
    holds snap03-04 and is a clone of ccc@snap02, aaa a clone of bbb@snap04 (what `zfs list`
    showed there). Read without the promotes, aaa@snap02 and aaa@snap04 were said to hold the
    clones."""
    snap, _ = snapshot(TRANSCRIPT)
    assert _origins(snap) == {"data/bbb": "data/ccc@snap02", "data/aaa": "data/bbb@snap04"}
    names = {d.name for d in snap.datasets if "@" in d.name}
    assert names == {"data/ccc@snap01", "data/ccc@snap02", "data/bbb@snap03", "data/bbb@snap04"}


def test_a_promote_the_transcript_cannot_replay_gives_no_lineage_rather_than_a_wrong_one():
    """The clone was made before the transcript (its origin unknown), or from a snapshot whose
    place among the others is unknown: no clone relation from the transcript, said in a note."""
    assert replay([(1, "promote", "tank/b", None)]) is None
    assert replay([(1, "clone", "tank/a@s", "tank/b"), (2, "promote", "tank/b", None)]) is None
    snap, imported = snapshot("# zfs clone tank/a@s tank/b\n# zfs promote tank/b\n" + TRANSCRIPT[-40:])
    assert _origins(snap) == {}
    assert any("were not replayed" in n for n in imported.notes)


@given(
    st.lists(
        st.tuples(st.sampled_from(["snapshot", "clone", "promote"]), st.integers(0, 3), st.integers(0, 3))
    )
)
def test_any_sequence_replays_or_gives_up_and_every_origin_is_a_known_snapshot(ops):
    events = []
    for n, (verb, a, b) in enumerate(ops):
        if verb == "snapshot":
            events.append((n, verb, f"p/f{a}@s{b}", None))
        elif verb == "clone" and a != b:
            events.append((n, verb, f"p/f{a}@s{n}", f"p/f{b}"))
        else:
            events.append((n, "promote", f"p/f{a}", None))
    lineage = replay(events)
    if lineage is not None:
        assert {o for _, o in lineage.origins} <= set(lineage.snapshots)


def test_names_alone_say_nothing_of_the_pool():
    """`zfs list -o name,origin` (corpus 261) or `-o name -t snapshot` (260): no pool read (the
    verdict is UNKNOWN), the clones still told; with space columns the pool is read (206)."""
    names = "# zfs list -o name,origin\nNAME  ORIGIN\ntank/a  -\ntank/b  tank/a@s1\n"
    snap, _ = snapshot(names)
    assert snap.pools == () and _origins(snap) == {"tank/b": "tank/a@s1"}
    spaced, _ = snapshot("# zfs list\nNAME  USED  AVAIL  REFER  MOUNTPOINT\ntank  1.9T  3.6G  96K  /tank\n")
    assert [p.name for p in spaced.pools] == ["tank"]


def test_a_heading_naming_no_subcommand_is_not_a_command_and_headerless_get_rows_are_read():
    """ "zpool properties" above `zpool get all` rows cut below their header (corpus 257): the
    heading was taken for a command and the rows for its output; the pool is now read, its
    capacity and dedup ratio with it."""
    rows = (
        "zpool properties\n"
        "storage  capacity    19%    -\n"
        "storage  health      ONLINE -\n"
        "storage  dedupratio  3.64x  -\n"
        "storage  free        4,36T  -\n"
        "storage  allocated   1,08T  -\n"
    )
    snap, _ = snapshot(rows)
    (pool,) = snap.pools
    assert pool.name == "storage" and pool.dedup_ratio == 3.64 and pool.cap_pct in (19, 20)


def test_headerless_get_rows_zdash_does_not_read_are_reported_not_dropped():
    text = "tank  guid      5918530084631666666  -\ntank  version   -                    default\n"
    snap, imported = snapshot(text)
    assert snap.pools == ()
    assert [(u.line, u.why) for u in imported.unread] == [
        (1, "`zpool get`: a property zdash does not read"),
        (2, "`zpool get`: a property zdash does not read"),
    ]
    _, imported = snapshot("tank  size  abc  -\ntank  capacity  zz%  -\n")
    assert {u.why for u in imported.unread} == {"`zpool get`: a value zdash cannot read"}
