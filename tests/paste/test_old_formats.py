"""Pastes of OpenZFS 0.6 to 2.2 from public reports (tests/importing/pastes.py cites each)."""

from __future__ import annotations

from tests.paste import pastes
from tests.paste.helpers import nonblank, snapshot
from zdash.config import CheckConfig
from zdash.fold import run_checks
from zdash.model import UNSEEN
from zdash.parse.units import parse_ctime

G, T = 2**30, 2**40


def _unread(imported) -> list[tuple[int, str]]:
    return [(u.line, u.why) for u in imported.unread]


def test_every_transcribed_paste_accounts_for_every_line():
    for name in (n for n in dir(pastes) if n.isupper()):
        text = getattr(pastes, name)
        _, imported = snapshot(text)
        reported = {u.line for u in imported.unread}
        assert imported.used | reported == nonblank(text), name
        assert not imported.used & reported, name


def test_065_status_after_a_prompt_then_prose_and_a_zfs_get_table():
    snap, imported = snapshot(pastes.ESOS_065)
    (pool,) = snap.pools
    assert [v.name for v in pool.top_level] == [f"mirror-{i}" for i in range(4)]
    assert all(len(v.children) == 2 for v in pool.top_level)
    (scan,) = pool.scans
    assert (scan.function, scan.state, scan.processed) == ("scrub", "finished", 0)
    assert scan.end_time - scan.start_time == 17 * 60  # pre-0.8 "0h17m"
    assert _unread(imported) == [
        (24, "not recognised as zpool status, zpool list, zpool iostat or zfs list output"),
        (26, "`zpool get` / `zfs get` output: not imported"),
        (27, "`zpool get` / `zfs get` output: not imported"),
    ]


def test_06507_decimal_comma_fenced_config_and_list_without_ckpoint():
    snap, imported = snapshot(pastes.ZOL_06507)
    (pool,) = snap.pools
    assert pool.top_level[0].kind == "raidz1" and len(pool.top_level[0].children) == 4
    assert pool.size == round(6.22 * T) and pool.alloc == round(1.83 * T) and pool.free == round(4.39 * T)
    assert (pool.cap_pct, pool.frag_pct, pool.dedup_ratio) == (29, 18, 1.0)
    assert pool.scans == ()  # "307445734561825858h42m": the 0.6.5.7 overflow is not a duration
    assert _unread(imported) == [
        (8, "Markdown/HTML formatting, not command output"),
        (16, "Markdown/HTML formatting, not command output"),
    ]


def test_065_canceled_scrub_and_mirrored_log():
    snap, imported = snapshot(pastes.ZOL_065_LOGS)
    (pool,) = snap.pools
    assert [(v.name, v.vclass) for v in pool.top_level] == [
        ("mirror-0", "normal"),
        ("mirror-1", "normal"),
        ("mirror-2", "normal"),
        ("mirror-3", "log"),
    ]
    assert pool.scans[0].state == "canceled"
    assert pool.scans[0].end_time == parse_ctime("Sun Jun 12 04:29:37 2016")
    assert imported.unread == []


def test_063_iostat_with_markdown_rules_and_an_anonymous_raidz():
    snap, imported = snapshot(pastes.ZOL_063_IOSTAT)
    (pool,) = snap.pools
    assert pool.state == UNSEEN  # iostat alone says nothing of health
    assert {leaf.state for leaf in pool.leaves()} == {UNSEEN}
    # ... so nothing is said of it: no health finding, no "no scrub on record"
    assert [f for f in run_checks([snap], CheckConfig()) if f.check in ("health", "scan")] == []
    (raidz,) = pool.top_level
    assert (raidz.name, raidz.kind, len(raidz.children)) == ("raidz2-0", "raidz2", 6)
    assert pool.io_of(pool.root).write_bytes == round(35.5 * 2**20) and pool.io_of(raidz).write_ops == 389
    assert pool.io_of(raidz.children[0]).read_bytes == 432 * 1024
    assert [line for line, _ in _unread(imported)] == [1, 5, 16, 18]
    assert any("numbered by position" in n for n in imported.notes)


def test_07_zed_mail_fields_are_reported_and_the_status_imported():
    snap, imported = snapshot(pastes.ZED_07)
    (pool,) = snap.pools
    assert (pool.msgid, pool.state) == ("ZFS-8000-9P", "ONLINE")
    assert [v.name for v in pool.top_level] == ["raidz1-0", "raidz1-2"]
    assert pool.find("ata-ST4000VN000-1H4168_S301EJ9F").checksum_errors == 3
    scan = pool.scans[0]
    assert scan.processed == 192 * 1024 and scan.end_time - scan.start_time == 50 * 3600 + 42 * 60
    assert [line for line, _ in _unread(imported)] == [1, 3, 4, 5, 6]
    assert all("ZED" in why for _, why in _unread(imported))


def test_0712_status_after_a_prompt_naming_the_pool():
    snap, imported = snapshot(pastes.ZOL_0712)
    assert [p.name for p in snap.pools] == ["jbod3-node805-data2"]
    assert imported.doc.blocks[0].command == ("zpool", "status", "jbod3-node805-data2")
    assert snap.pools[0].scans[0].processed == 204 * 1024 and imported.unread == []


def test_07_iostat_l_with_nine_latency_columns_logs_and_cache():
    snap, imported = snapshot(pastes.PR4433_07_IOSTAT_L)
    (sample,) = [s for s in imported.samples if s.key == "iostat"]
    assert sample.argv == ("zpool", "iostat", "-v", "-H", "-p", "-l")
    (pool,) = snap.pools
    assert [(v.name, v.vclass) for v in pool.top_level] == [
        ("A1", "normal"),
        ("A2", "normal"),
        ("A3", "log"),
        ("A4", "cache"),
    ]
    a1 = pool.io_of(pool.find("A1"))
    assert (a1.total_wait_read, a1.total_wait_write, a1.disk_wait_read, a1.disk_wait_write) == (
        338,
        425,
        105,
        111,
    )
    a3 = pool.io_of(pool.find("A3"))
    assert (a3.write_ops, a3.write_bytes, a3.total_wait_write) == (105, round(7.04 * 2**20), 6000)
    assert pool.io_of(pool.find("A4")).total_wait_write == 210
    assert imported.unread == []


def test_065_list_v_short_vdev_rows_and_anonymous_mirrors():
    snap, imported = snapshot(pastes.LIST_V_065)
    p1, zroot = snap.pools
    assert [(v.name, v.kind, len(v.children)) for v in p1.top_level] == [
        ("mirror-0", "mirror", 2),
        ("mirror-1", "mirror", 2),
    ]
    m0, m1 = p1.top_level
    assert (m0.alloc, m0.free, m0.cap_pct, m0.frag_pct) == (968 * 1024, round(79.1 * 2**20), 1.0, 2)
    assert (m1.alloc, m1.cap_pct) == (round(41.5 * 1024), 0.0)
    assert p1.state == "ONLINE" and all(v.state == "ONLINE" for v in p1.root.walk())
    assert (zroot.top_level[0].name, zroot.top_level[0].alloc) == ("ada0p3", round(2.68 * G))
    assert imported.unread == [] and imported.doc.blocks[0].command == ("zpool", "list", "-v")


def test_08_list_v_anonymous_raidz_and_logs_header_with_dash_health():
    snap, imported = snapshot(pastes.LIST_V_08)
    (pool,) = snap.pools
    (raidz,) = pool.top_level
    assert (raidz.name, len(raidz.children), raidz.cap_pct) == ("raidz1-0", 6, 47.6)
    assert raidz.alloc == round(15.5 * T) and pool.cap_pct == 47
    assert _unread(imported) == [
        (1, "not recognised as zpool status, zpool list, zpool iostat or zfs list output")
    ]


def test_08_resilver_with_checksum_errors():
    snap, imported = snapshot(pastes.RESILVER_08)
    (pool,) = snap.pools
    (scan,) = pool.scans
    assert (scan.function, scan.state, scan.pct_done, scan.zpool_eta_s) == ("resilver", "scanning", 1.08, 91)
    assert scan.to_examine == round(74.3 * G)
    leaves = list(pool.leaves())
    assert [v.checksum_errors for v in leaves[:5]] == [442, 0, 0, 234, 84]
    assert leaves[0].aux == "(resilvering)" and imported.unread == []


def test_20_flush_left_labels_and_an_elision_row():
    snap, imported = snapshot(pastes.STATUS_20)
    (pool,) = snap.pools
    assert [v.name for v in pool.leaves()] == ["sda", "sdb"]
    assert pool.scans[0].end_time - pool.scans[0].start_time == 11 * 60 + 38
    assert _unread(imported) == [(10, "rows left out by the poster: the table is read around them")]


def test_207_status_head_without_config_keeps_the_pools_own_word_and_no_tree():
    """pool:/state:/scan: pasted without a config table: the state and the finished resilver are
    ZFS's own word and are kept; the vdevs are unknown, said in a note, never guessed."""
    snap, imported = snapshot(pastes.STATUS_207_HEAD)
    (pool,) = snap.pools
    assert (pool.name, pool.state, pool.root.children) == ("pool1", "ONLINE", ())
    assert [(s.function, s.state, s.errors) for s in pool.scans] == [("resilver", "finished", 0)]
    assert any("pool1: zpool status pasted without its config rows" in n for n in imported.notes)
    assert [line for line, _ in _unread(imported)] == [6, 7, 8]
    assert imported.unread[0].why == "`zpool version` output is not imported"


def test_212_list_v_vdev_cap_with_a_decimal():
    snap, imported = snapshot(pastes.LIST_V_212)
    (pool,) = snap.pools
    mirror, raidz = pool.top_level
    assert (mirror.name, mirror.cap_pct, mirror.alloc) == ("mirror-0", 11.9, 445 * G)
    assert (raidz.name, raidz.cap_pct, raidz.kind) == ("raidz1-1", 27.9, "raidz1")
    assert pool.cap_pct == 25 and imported.doc.blocks[0].command[:2] == ("zpool", "list")


def test_215_iostat_interval_without_v_keeps_the_last_report():
    snap, imported = snapshot(pastes.IOSTAT_215)
    (pool,) = snap.pools
    assert (pool.io_of(pool.root).write_ops, pool.io_of(pool.root).write_bytes) == (30, round(60.1 * 1024))
    assert any("2 zpool iostat reports pasted, the last one (line 6)" in n for n in imported.notes)
    assert [line for line, _ in _unread(imported)] == [8, 9]


def test_21_config_table_without_its_head_is_read_as_its_pool():
    snap, imported = snapshot(pastes.DRAID_TABLE_ONLY)
    (pool,) = snap.pools
    assert (pool.name, pool.state, pool.error_count) == ("pool-oss0", "DEGRADED", 0)
    draid = pool.top_level[0]
    assert (draid.kind, draid.children[0].checksum_errors, draid.children[0].aux) == (
        "draid",
        1925,
        "too many errors",
    )
    assert [(v.name, v.state, v.vclass) for v in pool.top_level[1:]] == [
        ("draid2-0-0", "AVAIL", "spare"),
        ("draid2-0-1", "AVAIL", "spare"),
    ]
    assert imported.unread == [] and any("without the pool:/state: lines" in n for n in imported.notes)


def test_21_hand_indented_rows_get_their_depth_back_and_the_dedup_table_is_reported():
    snap, imported = snapshot(pastes.HAND_INDENTED_21)
    (pool,) = snap.pools
    raidz, cache = pool.top_level
    assert (raidz.name, len(raidz.children), cache.name, cache.vclass) == ("raidz2-0", 6, "nvme1n1", "cache")
    dedup = [line for line, why in _unread(imported) if "dedup table" in why]
    assert dedup == list(range(22, 29))
    assert [line for line, why in _unread(imported) if "Markdown" in why] == [1, 18, 19]


def test_227_faulted_disk_in_an_online_pool():
    snap, imported = snapshot(pastes.FAULTED_227)
    (pool,) = snap.pools
    bad = list(pool.leaves())[1]
    assert (bad.state, bad.read_errors, bad.write_errors, bad.checksum_errors, bad.aux) == (
        "FAULTED",
        12,
        753,
        83,
        "too many errors",
    )
    assert imported.doc.blocks[0].command == ("zpool", "status") and imported.unread == []


def test_22_list_p_exact_bytes_and_a_cut_row_reported():
    snap, imported = snapshot(pastes.LIST_P_22)
    (pool,) = snap.pools
    assert (pool.state, pool.size, pool.alloc) == ("DEGRADED", 9981503995904, 3046188658688)
    log = pool.top_level[1]
    assert (log.name, log.vclass, log.state, log.alloc) == ("mirror-1", "log", "DEGRADED", 393216)
    assert [v.name for v in log.children] == ["sdb1"]
    assert _unread(imported) == [(13, "zpool list: 4 fields, the header has 11")]


def test_22_scan_format_and_prompt():
    snap, imported = snapshot(pastes.SCRUB_22)
    scan = snap.pools[0].scans[0]
    assert (scan.state, scan.pct_done, scan.to_examine, scan.issued) == ("scanning", 34.79, 749 * T, 260 * T)
    assert scan.zpool_eta_s == 18 * 3600 + 56 * 60 + 16 + 86400
    assert imported.unread == []


def test_freebsd_iostat_v_interval_with_a_cut_third_report():
    snap, imported = snapshot(pastes.IOSTAT_V_FREEBSD)
    (pool,) = snap.pools
    assert [(v.name, v.vclass) for v in pool.top_level] == [
        ("ada0p3.eli", "normal"),
        ("gpt/cache-august", "cache"),
        ("gpt/duracell", "cache"),
    ]
    assert (pool.io_of(pool.root).write_ops, pool.io_of(pool.root).read_bytes) == (
        10,
        round(12.3 * 1024),
    )  # report 2
    assert _unread(imported) == [
        (2, "not recognised as zpool status, zpool list, zpool iostat or zfs list output"),
        (24, "zpool iostat: 2 fields, the header has 7"),
    ]


def test_manpage_iostat_with_a_script_column():
    snap, imported = snapshot(pastes.IOSTAT_C_MANPAGE)
    (pool,) = snap.pools
    (sda1,) = pool.top_level
    assert (sda1.name, sda1.alloc, pool.io_of(sda1).write_bytes) == (
        "sda1",
        round(14.6 * G),
        round(2.69 * 2**20),
    )
    assert imported.unread == []


def test_machine_and_json_output_get_a_useful_reason():
    text = '$ zpool list -Hp\ntank\t100\t50\n$ zpool status -j\n{\n  "output_version": {\n}\n'
    _, imported = snapshot(text)
    assert _unread(imported) == [
        (2, "`zpool list -H` output has no header to read it by: paste it without -H"),
        # a document cut short: reported whole, never completed (tests/paste/test_json.py)
        *(
            (n, "zpool/zfs JSON cut short before it says which command printed it: not read")
            for n in (4, 5, 6)
        ),
    ]


def test_scripted_iostat_rows_are_read_by_the_flags_of_their_prompt():
    """`zpool iostat -pH` prints no header, but its prompt fixes the columns (corpus 175): the
    last interval's row gives the space and the rates; prose after it is not a row."""
    text = (
        "root@pbs:~# zpool iostat zpool -pH 1 2\n"
        "zpool   1483556872192   509307953152    64      12      281656  308598\n"
        "zpool   1483562782720   509302042624    94      155     388304  6364099\n"
        "Now lets run it again\n"
    )
    snap, imported = snapshot(text)
    (pool,) = snap.pools
    assert (pool.alloc, pool.free) == (1483562782720, 509302042624)
    assert pool.io_of(pool.root) is not None and pool.io_of(pool.root).write_bytes == 6364099
    assert _unread(imported) == [
        (4, "not recognised as zpool status, zpool list, zpool iostat or zfs list output")
    ]
    # -v adds vdev rows without indentation (their depth from their names, issue 26): the
    # pool's rows are read the same (tests/paste/test_fragments.py has the vdevs)
    verbose, _ = snapshot(text.replace("-pH", "-vpH"))
    assert [(p.name, p.alloc) for p in verbose.pools] == [("zpool", 1483562782720)]


def test_a_list_header_copied_without_its_altroot_name_still_reads_its_rows():
    """Corpus 203 (a FreeBSD blog): the header ends at HEALTH, the pool row still has its
    ALTROOT '-'. The whole table was refused ("11 fields, the header has 10"), and with it
    mirror-0's 82.1 %."""
    text = (
        "$ zpool list -v zvol0\n"
        "NAME             SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  \n"
        "zvol0           1.81T  1.49T   333G        -         -     5%    82%  1.00x    ONLINE  -\n"
        "  mirror-0      1.81T  1.49T   333G        -         -     5%  82.1%      -    ONLINE\n"
        "    ada1p1          -      -      -        -         -      -      -      -    ONLINE\n"
        "    ada2p1          -      -      -        -         -      -      -      -    ONLINE\n"
    )
    snap, imported = snapshot(text)
    (pool,) = snap.pools
    assert imported.unread == []
    (top,) = pool.top_level
    assert (top.name, round(top.alloc / top.size * 100)) == ("mirror-0", 82)


def test_iostat_cache_row_glued_to_its_device_is_two_rows():
    """zpool 0.7-rc printed the cache class row without its newline (openzfs/zfs#5852, corpus
    213): `cache  - ... -  loop0  3.34G ...` is the class row and the cache device, no pool
    named `cache`."""
    text = (
        "                                 capacity     operations     bandwidth \n"
        "pool                           alloc   free   read  write   read  write\n"
        "-----------------------------  -----  -----  -----  -----  -----  -----\n"
        "array1                         6.62T  2.44T  2.14K    113  44.2M   834K\n"
        "  raidz1                       6.62T  2.44T  2.14K    113  44.2M   834K\n"
        "    wwn-0x50014ee05878a760         -      -    441     23  8.90M   167K\n"
        "    wwn-0x50014ee0adcd6257         -      -    437     23  8.79M   167K\n"
        "cache                              -      -      -      -      -      -  "
        "loop0                        3.34G  60.7G      3      9   110K   755K\n"
        "-----------------------------  -----  -----  -----  -----  -----  -----\n"
    )
    snap, imported = snapshot(text)
    (pool,) = snap.pools
    assert [(v.name, v.vclass) for v in pool.top_level] == [("raidz1-0", "normal"), ("loop0", "cache")]
    assert (pool.find("loop0").alloc, pool.io_of(pool.find("loop0")).write_ops) == (round(3.34 * G), 9)
    assert imported.unread == []


def test_status_vv_byte_ranges_belong_to_the_file_above():
    """`zpool status -vv` (2.4) prints each damaged file with its block count and, under it, the
    byte ranges (openzfs/zfs#9781, corpus 215): two files are two errors, not five."""
    text = (
        "$ zpool status -vv\n"
        "    NAME        STATE     READ WRITE CKSUM\n"
        "    testpool    ONLINE       0     0     0\n"
        "      loop0     ONLINE       0     0    20\n"
        "\n"
        "errors: Permanent errors have been detected in the following files:\n"
        "\n"
        "    /var/tmp/testdir/10m_file: found 9 corrupted 128K blocks\n"
        "       [0x0-0x1ffff] (128K)\n"
        "       [0x100000-0x1fffff] (1M)\n"
        "\n"
        "    /var/tmp/testdir/1m_file: found 1 corrupted 128K block\n"
        "       [0x0-0x1ffff] (128K)\n"
    )
    snap, imported = snapshot(text)
    (pool,) = snap.pools
    assert pool.error_count == 2
    assert pool.error_files == ("/var/tmp/testdir/10m_file", "/var/tmp/testdir/1m_file")
    assert _unread(imported) == [
        (n, "zpool status -vv: a damaged byte range of the file above") for n in (9, 10, 13)
    ]
