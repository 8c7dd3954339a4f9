"""Several outputs pasted together, with prompts, prose, colours, CRLF, tabs turned to spaces,
forum and mail quoting: the same pools come out, and every stray line is reported by number."""

from __future__ import annotations

from tests.paste.helpers import CAPTURES, human_paste, nonblank, snapshot
from zdash.paste.samples import import_paste
from zdash.paste.split import split_pasted


def _tree(snap):
    return [
        (
            p.name,
            p.state,
            [
                (
                    v.name,
                    v.state,
                    v.alloc,
                    v.free,
                    v.read_errors,
                    v.checksum_errors,
                    p.io_of(v).write_ops if p.io_of(v) else None,
                )
                for v in p.root.walk()
            ],
        )
        for p in snap.pools
    ]


def _read(rel: str) -> str:
    return (CAPTURES / rel).read_text()


SESSION = (
    "Last login: Sun Nov 22 03:30:01 2026 from 10.0.0.5\n"  # 1
    "\x1b[01;32mroot@lab\x1b[00m:\x1b[01;34m~\x1b[00m# uname -r\n"  # 2
    "6.1.0-56-amd64\n"  # 3
    "root@lab:~# zpool status -v healthy\n"  # 4
    + _read("healthy/zpool-status.txt")  # 5-18
    + "[root@lab ~]$ sudo zpool list -v\n"  # 19
    + _read("healthy/zpool-list-v.txt")  # 20-27
    + "lab% zpool iostat -v -l healthy 1 2\n"  # 28
    + _read("healthy/zpool-iostat-v-l-1-2.txt")  # 29-48
    + "see, it is idle\n"  # 49
    + "$ zfs list\n"  # 50
    + _read("healthy/zfs-list.txt")  # 51-53
)
IDLE = SESSION.split("\n").index("see, it is idle") + 1
STRAY = {1: "not recognised", 2: "a shell command", 3: "not recognised", IDLE: "not recognised"}


def test_a_terminal_session_with_prompts_and_strays():
    snap, imported = snapshot(SESSION)
    assert {u.line: u.why for u in imported.unread}.keys() == STRAY.keys()
    for u in imported.unread:
        assert STRAY[u.line] in u.why
    assert str(imported.unread[0]) == (
        "line 1: Last login: Sun Nov 22 03:30:01 2026 from 10.0.0.5 "
        "(not recognised as zpool status, zpool list, zpool iostat or zfs list output)"
    )
    assert [b.command[:2] for b in imported.doc.blocks] == [
        ("zpool", "status"),
        ("zpool", "list"),
        ("zpool", "iostat"),
        ("zpool", "iostat"),
        ("zfs", "list"),
    ]
    (pool,) = snap.pools
    assert pool.name == "healthy" and pool.cap_pct == 15 and len(snap.datasets) == 2
    assert pool.top_level[0].alloc == 151 * 2**20 and pool.top_level[0].cap_pct == 15.7
    assert (
        pool.io_of(pool.root) is not None and pool.io_of(pool.root).write_ops == 0
    )  # the 2nd (last) report: idle


def _mangle(text: str) -> str:
    """What a forum, a Windows editor and a web page do to a paste."""
    text = text.replace("\t", "        ")  # TABs became 8 spaces
    text = text.replace("ONLINE  ", "ONLINE\u00a0 ")  # a non-breaking space
    return "\r\n".join("    " + line if line else line for line in text.split("\n"))  # CRLF, indented


def test_crlf_spaces_nbsp_and_forum_indentation_change_nothing():
    clean = human_paste("errors", "after-scrub")
    snap, _imported = snapshot(clean)
    mangled, imported2 = snapshot(_mangle(clean))
    assert imported2.unread == [] and _tree(mangled) == _tree(snap)
    assert mangled.pools[0].find("/tmp/zl/errors/d1").read_errors == 70
    assert mangled.datasets == snap.datasets


def test_mail_quoting_and_mixed_tabs_and_spaces():
    text = _read("degraded/zpool-status.resilvering.txt")
    lines = text.split("\n")
    mixed = "\n".join(ln.replace("\t", "    ", 1) if i % 2 else ln for i, ln in enumerate(lines))
    quoted = "\n".join("> " + ln for ln in mixed.split("\n"))
    snap, imported = snapshot(quoted)
    ref, _ = snapshot(text)
    assert imported.unread == [] and _tree(snap) == _tree(ref)
    assert snap.pools[0].scan.function == "resilver" and snap.pools[0].scan.pct_done == 98.67


def test_a_garbage_line_inside_a_config_table_is_reported_and_the_rest_imported():
    lines = _read("errors/zpool-status.after-scrub.txt").split("\n")
    lines.insert(13, "\t    (this disk was replaced last week)")  # becomes line 14
    snap, imported = snapshot("\n".join(lines))
    (u,) = imported.unread
    assert (u.line, u.why) == (14, "not a config row (NAME STATE READ WRITE CKSUM)")
    assert [v.name for v in snap.pools[0].leaves()] == [f"/tmp/zl/errors/d{i}" for i in range(1, 5)]


def test_an_unreadable_pool_is_reported_line_by_line_and_the_other_pool_kept():
    broken = (
        "  pool: broken\n state: ONLINE\nconfig:\n\n\tNAME   STATE\n\tbroken  ONLINE\n"
        "\t  sda  ONLINE\n\tsecond  ONLINE\n\t  sdb  ONLINE\n\n"
    )  # two pool-level rows
    text = _read("healthy/zpool-status.txt") + "\n" + broken
    snap, imported = snapshot(text)
    assert [p.name for p in snap.pools] == ["healthy"]
    lines = [u.line for u in imported.unread]
    assert lines == [16, 17, 18, 20, 21, 22, 23, 24]
    assert all(u.why.startswith("zpool status of broken could not be read: ") for u in imported.unread)


def test_two_pools_pasted_apart_and_their_iostat_together():
    a = _read("capacity/zpool-status.cap85.txt")
    b = _read("capacity/zpool-status.cap93.txt")
    io_a = _read("capacity/zpool-iostat-v.cap85.txt").split("\n")
    io_b = _read("capacity/zpool-iostat-v.cap93.txt").split("\n")
    # One `zpool iostat -v` report of both pools: header once, a separator between pools.
    iostat = "\n".join(io_a[:-2] + io_b[3:])
    snap, imported = snapshot(a + "$ echo next\n" + b + iostat)
    assert [p.name for p in snap.pools] == ["cap85", "cap93"]
    assert all(p.io_of(p.root) is not None for p in snap.pools)
    assert [u.line for u in imported.unread] == [a.count("\n") + 1]


def test_a_pool_pasted_twice_keeps_the_later_report():
    first = _read("scrub/zpool-status.scrubbing.txt")
    later = _read("scrub/zpool-status.scrubbed.txt")
    snap, imported = snapshot(first + later)
    assert snap.pools[0].scan.state == "finished"
    assert any("pasted twice" in n for n in imported.notes)


def test_nothing_readable():
    text = "hello\n\n$ ls /tank\nfoo  bar\ncannot open 'tank': no such pool\n"
    imported = import_paste(text)
    assert not imported.ok and imported.samples == ()
    assert [(u.line, u.why) for u in imported.unread] == [
        (1, "not recognised as zpool status, zpool list, zpool iostat or zfs list output"),
        (3, "a shell command, not zpool or zfs output"),
        (4, "not recognised as zpool status, zpool list, zpool iostat or zfs list output"),
        (5, "zpool/zfs error message"),
    ]


def test_every_line_is_used_or_reported_in_a_messy_paste():
    text = SESSION + "\n```\n" + _mangle(human_paste("raidz-wide", "mixed")) + "\n</pre>\n"
    imported = import_paste(text)
    reported = {u.line for u in imported.unread}
    assert imported.used | reported == nonblank(text) and not imported.used & reported


def test_blocks_are_found_by_shape_without_prompts():
    text = human_paste("clones", None, prompt="").replace("zpool status -v\n", "")
    doc = split_pasted(text)
    assert [b.kind for b in doc.blocks] == ["status", "list", "iostat", "zfs"]


def test_leaf_names_join_across_P_and_no_P_pastes():
    """status without -P, iostat with -P (and the reverse, in test_captures: deranged)."""
    status = (
        "  pool: t\n state: ONLINE\nconfig:\n\n\tNAME  STATE  READ WRITE CKSUM\n"
        "\tt  ONLINE  0 0 0\n\t  mirror-0  ONLINE  0 0 0\n\t    ata-X  ONLINE  0 0 0\n"
        "\t    sdb  ONLINE  0 0 0\n\nerrors: No known data errors\n"
    )
    iostat = (
        "              capacity     operations     bandwidth\n"
        "pool        alloc   free   read  write   read  write\n"
        "----------  -----  -----  -----  -----  -----  -----\n"
        "t            100M   900M      1      2     3K     4K\n"
        "  mirror     100M   900M      1      2     3K     4K\n"
        "    /dev/disk/by-id/ata-X-part1      -      -      1      1     2K     2K\n"
        "    /dev/sdb1        -      -      0      1     1K     2K\n"
    )
    snap, imported = snapshot(status + iostat)
    pool = snap.pools[0]
    assert [pool.io_of(v).read_bytes for v in pool.leaves()] == [2048, 1024]
    assert pool.io_of(pool.top_level[0]).write_ops == 2 and imported.unread == []


def test_tick_time_is_the_newest_time_in_the_paste_never_the_file_time():
    from zdash.parse.units import parse_ctime
    from zdash.paste.front import paste_tick

    imported = import_paste(_read("errors/zpool-status.permanent.txt"))
    assert imported.newest == parse_ctime("Sun Nov 22 03:47:54 2026")
    assert paste_tick(imported, 1_700_000_000.0).time == imported.newest
    # The paste's own clock, never the file's: a later mtime says nothing about the pool.
    assert paste_tick(imported, imported.newest + 86_400 * 900).time == imported.newest


def test_double_spaced_paste():
    """Some web pages put a blank line after every line: the config table stays one table."""
    text = _read("raidz-wide/zpool-status.mixed.txt")
    snap, imported = snapshot("\n\n".join(text.split("\n")))
    ref, _ = snapshot(text)
    assert imported.unread == [] and _tree(snap) == _tree(ref) and len(list(ref.pools[0].leaves())) == 7


def test_an_indented_line_under_state_is_reported_not_glued_to_it():
    text = _read("healthy/zpool-status.txt").replace(
        " state: ONLINE\n", " state: ONLINE\n    (was DEGRADED)\n"
    )
    snap, imported = snapshot(text)
    assert snap.pools[0].state == "ONLINE"
    assert [(u.line, u.why) for u in imported.unread] == [(3, "not part of a zpool status report")]


def test_a_terminal_saved_as_html_and_a_mail_wrapped_scan_line_read_as_printed():
    """Colours saved as HTML around the prompt (corpus 103), entities left in, and a mail client
    wrapping the scan line before its year (corpus 107): the same pool as the clean paste, the
    error list's `<metadata>:<0x0>` untouched."""
    text = _read("degraded/zpool-status.resilvering.txt")
    ref, _ = snapshot("# zpool status\n" + text)
    prompt = (
        '<font color="#26A269"><b>root@pve</b></font>:<font color="#12488B"><b>~</b></font># zpool status\n'
    )
    snap, imported = snapshot(prompt + text)
    assert _tree(snap) == _tree(ref) and imported.doc.blocks[0].command[:2] == ("zpool", "status")
    from zdash.paste.lines import clean_lines

    assert clean_lines("action: Enable all features using &apos;zpool upgrade&apos;.&nbsp;x") == [
        "action: Enable all features using 'zpool upgrade'. x"
    ]
    assert clean_lines("        <metadata>:<0x0>") == ["        <metadata>:<0x0>"]
    wrapped = clean_lines(
        "  scan: scrub repaired 408K in 2h39m with 0 errors on Sun Apr 14 03:03:58\n2019\nconfig:\n"
    )
    assert wrapped == [
        "  scan: scrub repaired 408K in 2h39m with 0 errors on Sun Apr 14 03:03:58 2019",
        "",
        "config:",
    ]


def test_zpool_get_gives_the_pool_row_a_list_would_and_a_list_wins_over_it():
    """Corpus 132: the pool's fullness is only in `zpool get all` (98 %). A `zpool list` pasted
    too is the better source, before or after it."""
    status = _read("healthy/zpool-status.txt")
    get = (
        "# zpool get all healthy\n"
        "NAME     PROPERTY       VALUE       SOURCE\n"
        "healthy  size           1.88G       -\n"
        "healthy  capacity       98%         -\n"
        "healthy  altroot        -           default\n"
    )
    snap, imported = snapshot(status + get)
    (pool,) = snap.pools
    assert pool.cap_pct == 98 and pool.size == round(1.88 * 1024**3)
    assert [why for u in imported.unread for why in [u.why] if "altroot" in u.text] == [
        "`zpool get`: a property zdash does not read"
    ]
    listed = _read("healthy/zpool-list-v.txt")
    for text in (status + get + listed, status + listed + get):
        snap, _ = snapshot(text)
        assert snap.pools[0].cap_pct != 98  # the list's own figure
    snap, imported = snapshot("$ zfs snap -r $POOLNAME/rsnap@snap1\n" + status)
    assert [p.name for p in snap.pools] == ["healthy"]


def test_a_flattened_report_whose_labels_are_glued_to_the_values_before_them():
    """A blog's status turned to one line (corpus 236): the lost newlines glue `status:` to the
    state (`ONLINEstatus:`) and `errors:` to the last CKSUM (`0errors:`). The same pool, states
    and counters as the clean report, and its error line read."""
    text = _read("errors/zpool-status.after-scrub.txt")
    flat = "$ sudo zpool status errors " + " ".join(text.split())
    flat = flat.replace("ONLINE status:", "ONLINEstatus:").replace(" errors: No known", "errors: No known")
    assert "ONLINEstatus:" in flat and "0errors: No known" in flat
    snap, _ = snapshot(flat)
    ref, _ = snapshot(text)
    (pool,) = snap.pools
    assert pool.state == "ONLINE" and pool.error_count == 0

    def counters(s):
        return [
            (v.name, v.state, v.read_errors, v.write_errors, v.checksum_errors)
            for v in s.pools[0].root.walk()
        ]

    assert counters(snap) == counters(ref)


def test_a_script_comment_quoting_its_output_reads_as_the_output():
    """`# > ` before every line (a README showing what its script printed, corpus 238): the pool
    reads as it does without the marks."""
    text = _read("errors/zpool-status.after-scrub.txt")
    marked = "$ show volumes\n" + "\n".join("# > " + ln for ln in text.rstrip("\n").split("\n")) + "\n"
    snap, _ = snapshot(marked)
    ref, _ = snapshot(text)
    assert _tree(snap) == _tree(ref) and snap.pools[0].error_count == 0


def test_the_shell_waiting_after_an_empty_error_list_is_not_a_damaged_file():
    """`errors: Permanent errors have been detected…` with the list cut, then the prompt the
    user copied (`root@vulcan:~ # `, corpus 243): at least one error, and no file named after the
    prompt."""
    text = _read("errors/zpool-status.after-scrub.txt").replace(
        "errors: No known data errors",
        "errors: Permanent errors have been detected in the following files:\n",
    )
    snap, _ = snapshot(text + "\nroot@vulcan:~ # \n")
    (pool,) = snap.pools
    assert pool.error_count == 1 and pool.error_files == ()
    listed, _ = snapshot(text + "        errors/data:<0x1>\n[root@vulcan ~]# \n")
    assert listed.pools[0].error_files == ("errors/data:<0x1>",)


def test_a_pasted_pool_is_as_full_as_its_cap_says_not_as_its_rounded_figures():
    """zpool's CAP is floor(alloc * 100 / size) from exact bytes; ALLOC and SIZE are rounded to
    three digits. 922G of 1.00T reads as 90.04 % where zpool printed CAP 89 %: judged against
    the 90 % rule that was CRITICAL, for a pool zpool itself calls 89 % full. Figures that agree
    with CAP (84.8 % beside 84 %) and exact ones (-p) are kept as printed."""
    header = "NAME   SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT\n"
    snap, _ = snapshot(
        header + "tank  1.00T   922G   102G        -         -    12%    89%  1.00x    ONLINE  -\n"
    )
    assert 89.0 <= snap.pools[0].fill_pct < 89.95
    snap, _ = snapshot(
        header + "tank  14.5T  12.3T  2.23T        -         -    12%    84%  1.00x    ONLINE  -\n"
    )
    assert round(snap.pools[0].fill_pct, 1) == 84.8
    exact = "tank\t1099511627776\t989989961728\t109521666048\t-\t-\t12\t90\t1.00\tONLINE\t-\n"
    snap, _ = snapshot("# zpool list -Hp\n" + exact)
    assert snap.pools[0].alloc == 989989961728
