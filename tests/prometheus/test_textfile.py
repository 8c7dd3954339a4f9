"""`zdash check --prometheus FILE`: the same diagnosis for node_exporter's textfile collector,
written atomically, beside the plugin output and exit code that stay what they were."""

from __future__ import annotations

import os

from tests.prometheus.helpers import parse, value
from zdash.cli import main


def test_check_writes_the_textfile_and_keeps_its_plugin_output(capsys, tmp_path):
    prom = tmp_path / "zdash.prom"
    code = main(["check", "--replay", "capacity-93", "--prometheus", str(prom)])
    out = capsys.readouterr()
    assert code == 2  # CRITICAL, as without --prometheus
    assert out.out.startswith("ZDASH CRITICAL - tank: tank is 93.0 % full")
    m = parse(prom.read_text())
    assert value(m, "zdash_pool_fill_ratio", pool="tank") > 0.9
    assert value(m, "zdash_finding", check="capacity", severity="critical", pool="tank") == 1
    assert os.listdir(tmp_path) == ["zdash.prom"]  # no FILE.tmp left behind
    assert oct(prom.stat().st_mode & 0o777) == "0o644"  # node_exporter runs as another user


def test_textfile_follows_a_pasted_diagnosis_too(capsys, tmp_path):
    from tests.paste.helpers import human_paste

    paste = tmp_path / "errors.txt"
    paste.write_text(human_paste("errors", "after-scrub"))
    prom = tmp_path / "zdash.prom"
    main(["check", "--text", str(paste), "--prometheus", str(prom)])
    capsys.readouterr()
    m = parse(prom.read_text())
    assert any(s.labels["check"] == "health" for s in m["zdash_finding"])


def test_the_textfile_is_replaced_whole(capsys, tmp_path, monkeypatch):
    """A reader (node_exporter) sees the old file or the new one, never half of either: the new
    text is complete in a new file beside FILE (a random name, not *.prom, so node_exporter never
    reads it and nothing can be planted at it) before it is renamed over FILE, 0644."""
    prom = tmp_path / "zdash.prom"
    prom.write_text('# the previous run\nzdash_pool_fill_ratio{pool="tank"} 0.5\n')
    renames = []
    real_rename = os.rename

    def watching_rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        new = tmp_path / src
        renames.append((src, dst, prom.read_text(), new.read_text(), os.stat(new).st_mode & 0o777))
        real_rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "rename", watching_rename)
    assert main(["check", "--replay", "deranged-mirror", "--prometheus", str(prom)]) == 1
    capsys.readouterr()
    [(src, dst, old_at_rename, new_at_rename, mode)] = renames
    assert dst == "zdash.prom" and src.startswith(".zdash.prom.") and not src.endswith(".prom")
    assert mode == 0o644
    assert old_at_rename.startswith("# the previous run")  # untouched until the rename
    assert (
        value(parse(new_at_rename), "zdash_finding", check="deranged_disk", subject="/dev/mapper/sick") == 1
    )
    assert prom.read_text() == new_at_rename


def test_a_failed_write_leaves_the_old_file_and_says_so(capsys, tmp_path, monkeypatch):
    prom = tmp_path / "zdash.prom"
    prom.write_text("old\n")

    def full_disk(src, dst, **_dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", full_disk)
    code = main(["check", "--replay", "healthy", "--prometheus", str(prom)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"zdash check: cannot write {prom}: No space left on device"
    assert prom.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["zdash.prom"]


def test_an_unwritable_path_is_one_line_before_any_work(capsys, tmp_path):
    for path, why in (
        (tmp_path / "no-such-dir" / "zdash.prom", "no directory"),
        (tmp_path, "is a directory"),
    ):
        code = main(["check", "--replay", "healthy", "--prometheus", str(path)])
        out = capsys.readouterr()
        assert code == 2 and out.out == ""
        assert len(out.err.strip().splitlines()) == 1 and why in out.err
