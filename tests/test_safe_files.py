"""zdash.safe_files, the one writer: no write follows a link, a whole file is replaced atomically
with its own mode, a stream is created new (or replaced, with --force, by a new file), an
append-only log is only ever a file of this user's, and zdash's state lives in a directory no
one else can change. (The same with a real second user planting the links: tests/hostile.)"""

from __future__ import annotations

import fcntl
import os
import stat

import pytest

from zdash import safe_files
from zdash.safe_files import (
    UnsafePath,
    create_new,
    create_stream,
    open_append,
    open_dir,
    private_dir,
    private_problem,
    write_atomic,
)

OTHER_UID = 65534  # nobody


def _victim(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("root's\n")
    os.chmod(victim, 0o600)
    return victim


def test_write_atomic_replaces_a_file_whole_with_its_own_mode(tmp_path):
    target = tmp_path / "zdash.prom"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    write_atomic(str(target), b"new\n", mode=0o644)
    assert target.read_text() == "new\n" and stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["zdash.prom"]  # no temporary file left


def test_write_atomic_refuses_a_link_and_with_force_replaces_the_link_not_its_target(tmp_path):
    victim = _victim(tmp_path)
    link = tmp_path / "zdash.prom"
    link.symlink_to(victim)
    with pytest.raises(UnsafePath, match="is a symbolic link"):
        write_atomic(str(link), b"x")
    assert victim.read_text() == "root's\n"
    write_atomic(str(link), b"mine\n", force=True)
    assert not link.is_symlink() and link.read_text() == "mine\n"
    assert victim.read_text() == "root's\n" and stat.S_IMODE(os.stat(victim).st_mode) == 0o600


def test_a_planted_temporary_name_is_never_written(tmp_path, monkeypatch):
    """The old writer used FILE.tmp: a name anyone could plant. The new one is random, created
    O_EXCL; a collision is another name, never a write through what is there."""
    victim = _victim(tmp_path)
    names = iter(["planted", "planted", "fresh"])
    monkeypatch.setattr(safe_files, "_temp_name", lambda _name: next(names))
    (tmp_path / "planted").symlink_to(victim)
    write_atomic(str(tmp_path / "out"), b"ok")
    assert (tmp_path / "out").read_text() == "ok" and victim.read_text() == "root's\n"


def test_create_new_refuses_any_existing_name_even_a_dangling_link(tmp_path):
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        create_new(str(tmp_path / "dangling"))
    assert not (tmp_path / "nowhere").exists()


def test_create_stream_with_force_puts_a_new_file_in_place_of_a_link(tmp_path):
    victim = _victim(tmp_path)
    link = tmp_path / "r.yaml"
    link.symlink_to(victim)
    fd = create_stream(str(link), force=True)
    os.write(fd, b"recording\n")
    os.close(fd)
    assert link.read_text() == "recording\n" and not link.is_symlink() and victim.read_text() == "root's\n"


def test_create_stream_with_force_leaves_a_file_another_writer_holds(tmp_path):
    path = tmp_path / "r.yaml"
    first = create_stream(str(path))
    os.write(first, b"first writer's ticks\n")
    with pytest.raises(OSError, match="being written"):
        create_stream(str(path), force=True, busy=f"{path} is being written by another zdash")
    os.close(first)
    assert path.read_text() == "first writer's ticks\n"


def test_create_stream_is_locked_for_the_writers_life(tmp_path):
    fd = create_stream(str(tmp_path / "r.yaml"))
    other = os.open(tmp_path / "r.yaml", os.O_RDONLY)
    with pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(other)
    os.close(fd)


def test_a_directory_link_of_another_user_is_not_followed(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a link another user owns needs root")
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "incident"
    link.symlink_to(real)
    os.lchown(link, OTHER_UID, OTHER_UID)
    with pytest.raises(UnsafePath, match="symbolic link made by"):
        create_new(str(link / "x.zdash"))
    assert list(real.iterdir()) == []
    os.lchown(link, 0, 0)  # root's own link: followed
    os.close(create_new(str(link / "x.zdash")))
    assert (real / "x.zdash").exists()


def test_open_dir_follows_relative_and_absolute_links_of_this_user(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "rel").symlink_to("a/b")
    (tmp_path / "abs").symlink_to(tmp_path / "a")
    for path, expected in (
        (tmp_path / "rel", tmp_path / "a" / "b"),
        (tmp_path / "abs" / "b", tmp_path / "a" / "b"),
    ):
        fd = open_dir(str(path))
        try:
            assert os.fstat(fd).st_ino == os.stat(expected).st_ino
        finally:
            os.close(fd)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(OSError):
        open_dir(str(tmp_path / "loop"))


def test_open_append_refuses_a_link_and_a_hard_link(tmp_path):
    victim = _victim(tmp_path)
    (tmp_path / "audit.jsonl").symlink_to(victim)
    with pytest.raises(OSError):
        open_append(str(tmp_path / "audit.jsonl"))
    os.unlink(tmp_path / "audit.jsonl")
    os.link(victim, tmp_path / "audit.jsonl")
    with pytest.raises(UnsafePath, match="2 links"):
        open_append(str(tmp_path / "audit.jsonl"))
    assert victim.read_text() == "root's\n"


def test_private_dir_is_made_0700_and_a_shared_one_is_refused(tmp_path):
    made = private_dir(str(tmp_path / "state" / "zdash"))
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    assert "writable by others" in (private_problem(str(shared)) or "")
    with pytest.raises(UnsafePath, match="writable by others"):
        private_dir(str(shared / "zdash"))  # nothing is created inside a shared directory
    assert list(shared.iterdir()) == []


def test_private_dir_refuses_a_directory_another_user_owns(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("a directory of another user's needs root to make")
    theirs = tmp_path / "alice"
    theirs.mkdir()
    os.chown(theirs, OTHER_UID, OTHER_UID)
    with pytest.raises(UnsafePath, match="belongs to"):
        private_dir(str(theirs / ".local" / "state" / "zdash"))
    assert list(theirs.iterdir()) == []
