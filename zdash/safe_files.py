"""Every file zdash writes goes through here: recordings and their lock, the textfile, imports,
the audit log, crash reports, screenshots, ssh's config.

zdash runs as root beside other users. Writing by path, as `open(path, "w")` does, follows
whatever is at that path: a link another user planted in /tmp, in node_exporter's textfile
directory (its service user owns it) or in their home (root's HOME under `sudo -E`) turns a
write of root's into a write to /etc/shadow. So:

- The directory is opened by walking its path one name at a time (`open_dir`). A symbolic link
  on the way is followed only when root or this user made it: the kernel's protected_symlinks
  rule, kept everywhere and whatever the sysctl says. Every later step is relative to that
  opened directory, so a name swapped on the way after the walk changes nothing.
- A new file is created with O_CREAT|O_EXCL|O_NOFOLLOW: an existing name, a link even dangling,
  is never opened, let alone written through.
- A whole file (`write_atomic`) is written to a new file of a random name beside its target,
  flushed to disk, given its mode (zdash made it, so chmod-ing it is fine) and renamed over the
  target: a reader sees the old file or the new one, and a link at the target is replaced, never
  its target. A target that is a link is refused unless the caller was told --force.
- A stream (`create_stream`: a recording) is created in place the same way; with --force an
  existing file is replaced by a fresh one (renamed over it), never emptied or written through.
- An append-only log (`open_append`: the audit log) is opened O_NOFOLLOW and must be a regular
  file of this user's with one link (a hard link to another file is refused).
- zdash's own state directory (audit log, crash reports) is 0700, this user's, and reached
  through directories only root or this user can write (`private_dir`); a HOME that belongs to
  someone else (`sudo -E`) is passed over for this user's own home from the password database.

UnsafePath (an OSError) carries a one-line message for the admin.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import secrets
import stat
from collections.abc import Iterator

_MAX_LINKS = 40  # as the kernel's own limit on links followed while resolving one path
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class UnsafePath(OSError):
    """A path zdash will not write through; str() is one line for the admin."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EPERM, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _trusted(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _owner(uid: int) -> str:
    with contextlib.suppress(KeyError):
        return pwd.getpwuid(uid).pw_name
    return f"uid {uid}"


def open_dir(path: str) -> int:
    """The directory `path` names, opened (a file descriptor, O_DIRECTORY) by walking it one name
    at a time from / (or the working directory). A link on the way is followed only when root or
    this user owns it; UnsafePath otherwise, and OSError when a name is missing or no directory."""
    start = "/" if os.path.isabs(path) else "."
    todo = [p for p in path.split("/") if p and p != "."]
    fd = os.open(start, _DIR)
    links = 0
    try:
        while todo:
            name = todo.pop(0)
            try:
                nxt = os.open(name, _DIR | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                st = os.lstat(name, dir_fd=fd)
                if not stat.S_ISLNK(st.st_mode):
                    raise
                if not _trusted(st.st_uid):
                    raise UnsafePath(
                        f"{path}: {name} is a symbolic link made by {_owner(st.st_uid)}: zdash does not "
                        "follow another user's links (name the directory it points to)"
                    ) from None
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, f"{path}: too many levels of symbolic links") from None
                target = os.readlink(name, dir_fd=fd)
                todo = [p for p in target.split("/") if p and p != "."] + todo
                if target.startswith("/"):
                    os.close(fd)
                    fd = os.open("/", _DIR)
                continue
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def parent_of(path: str) -> Iterator[tuple[int, str]]:
    """(the opened directory holding `path`, the file's name in it); closed on leaving."""
    directory, name = os.path.split(path)
    if not name or name in (".", ".."):
        raise IsADirectoryError(errno.EISDIR, f"{path} names a directory, not a file")
    fd = open_dir(directory or ".")
    try:
        yield fd, name
    finally:
        os.close(fd)


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None


def _temp_name(name: str) -> str:
    return f".{name}.{secrets.token_hex(6)}.tmp"


def _create_temp(dir_fd: int, name: str, mode: int) -> tuple[int, str]:
    """A new file beside `name` (a random name, so nothing can be planted at it in advance)."""
    for _ in range(16):
        temp = _temp_name(name)
        try:
            return os.open(temp, _CREATE, mode, dir_fd=dir_fd), temp
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "could not make a temporary file name")


def refuse_link(path: str, st: os.stat_result | None, force: bool) -> None:
    if st is not None and stat.S_ISLNK(st.st_mode) and not force:
        raise UnsafePath(
            f"{path} is a symbolic link: zdash never writes through one (with --force it replaces the link itself)"
        )


def write_atomic(path: str, data: bytes, *, mode: int = 0o600, force: bool = False) -> None:
    """`data` as the whole of `path`: written beside it, flushed, renamed over it. An existing
    regular file is replaced; a link is refused unless `force` (then the link is replaced, never
    its target). `mode` is the new file's, whatever the umask."""
    with parent_of(path) as (dir_fd, name):
        st = _lstat(name, dir_fd)
        refuse_link(path, st, force)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{path} is a directory")
        fd, temp = _create_temp(dir_fd, name, 0o600)
        try:
            with os.fdopen(fd, "wb", closefd=True) as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)
                os.fsync(f.fileno())
            os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)  # the rename itself on disk


def create_new(path: str, mode: int = 0o666) -> int:
    """A new file at `path` (umask applied), opened for writing; FileExistsError when anything,
    even a dangling link, has that name."""
    with parent_of(path) as (dir_fd, name):
        return os.open(name, _CREATE, mode, dir_fd=dir_fd)


def opened_elsewhere(fd: int) -> bool:
    """Whether this process holds the file `fd` is open on through another descriptor too: after
    a library opened a path (SQLite its database), proof that it opened the file zdash just
    created and not whatever another user put at that name in between. True where /proc is not
    there to ask."""
    st = os.fstat(fd)
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return True
    for n in names:
        if n == str(fd):
            continue
        try:
            other = os.stat(f"/proc/self/fd/{n}")
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def create_stream(path: str, *, force: bool = False, mode: int = 0o666, busy: str | None = None) -> int:
    """A file at `path` to be written as it goes (a recording), opened for writing and locked
    (flock, exclusive) for the writer's life. Without `force` only a new name; with it, an
    existing file or link is replaced by a fresh file renamed over it (never emptied or written
    through), unless another writer holds the old one's lock: then OSError `busy`."""
    import fcntl

    if not force:
        fd = create_new(path, mode)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
        return fd
    with parent_of(path) as (dir_fd, name):
        st = _lstat(name, dir_fd)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{path} is a directory")
        if st is not None and stat.S_ISREG(st.st_mode):
            with contextlib.suppress(FileNotFoundError):
                old = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
                try:
                    fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise OSError(errno.EBUSY, busy or f"{path} is being written by another zdash") from None
                finally:
                    os.close(old)
        elif st is not None and not stat.S_ISLNK(st.st_mode):  # a device, a fifo (/dev/full)
            fd = os.open(name, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            return fd
        fd, temp = _create_temp(dir_fd, name, mode & ~_umask())
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            os.close(fd)
            raise
        return fd


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def open_lock(path: str) -> int:
    """A lock file beside a recording, opened (created when missing) without following a link.
    A stale one of this user's (a killed writer's) is reused; one another user made is refused:
    whoever holds it could stall every recording."""
    with parent_of(path) as (dir_fd, name):
        fd = os.open(name, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _trusted(st.st_uid):
            os.close(fd)
            raise UnsafePath(f"{path} belongs to {_owner(st.st_uid)}: remove it, then record again")
        return fd


def unlink(path: str) -> None:
    """Remove the file or link `path` itself (a link is removed, not its target); nothing when it
    is missing; UnsafePath for anything else (a device: `--force -o /dev/full` must not remove
    /dev/full)."""
    with parent_of(path) as (dir_fd, name):
        st = _lstat(name, dir_fd)
        if st is None:
            return
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            raise UnsafePath(f"{path} is not a regular file: zdash does not replace it")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)


def move_new(path: str, new_name: str) -> str:
    """Rename the file `path` to `new_name` in the same directory, never over anything (not even
    a dangling link): FileExistsError then. Returns the new path. (A recording written under a
    temporary name until it is whole: the flight recorder's incidents.)"""
    with parent_of(path) as (dir_fd, name):
        if _lstat(new_name, dir_fd) is not None:
            raise FileExistsError(errno.EEXIST, f"{new_name} exists: not replaced")
        os.rename(name, new_name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        os.fsync(dir_fd)
    return os.path.join(os.path.dirname(path), new_name)


def lexists(path: str) -> bool:
    """Whether anything (a file, a dangling link) has this name."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def open_append(path: str, mode: int = 0o600) -> int:
    """An append-only log, created `mode` when missing: never through a link, and only a
    regular file of this user's with one name (a hard link to root's file is refused)."""
    with parent_of(path) as (dir_fd, name):
        fd = os.open(
            name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd
        )
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_nlink != 1:
            os.close(fd)
            raise UnsafePath(
                f"{path} is not a file of zdash's own (owner {_owner(st.st_uid)}, {st.st_nlink} links): "
                "refusing to append to it"
            )
        return fd


def chain_problem(directory: str) -> str | None:
    """Why another user could change what `directory` (an existing one) holds, or None: it and
    every directory above it must belong to root or this user and be writable by no one else
    (unless sticky, as /tmp), and every link on its path must be root's or this user's."""
    here = os.path.abspath(directory)
    while True:  # the links of the path as written
        try:
            st = os.lstat(here)
        except OSError as e:
            return f"{here}: {e.strerror}"
        if stat.S_ISLNK(st.st_mode) and not _trusted(st.st_uid):
            return f"{here} is a link made by {_owner(st.st_uid)}"
        if here == "/":
            break
        here = os.path.dirname(here)
    here = os.path.realpath(directory)
    while True:  # the directories it leads to
        st = os.stat(here)
        if not _trusted(st.st_uid):
            return f"{here} belongs to {_owner(st.st_uid)}"
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            return f"{here} is writable by others (mode {stat.S_IMODE(st.st_mode):o})"
        if here == "/":
            return None
        here = os.path.dirname(here)


def private_problem(path: str) -> str | None:
    """Why `path` is no private directory of this user's, or None: a directory (no link) this
    user owns, writable by no one else, inside directories no one else can change."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"{path}: {e.strerror}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    if st.st_uid != os.geteuid():
        return f"{path} belongs to {_owner(st.st_uid)}"
    if st.st_mode & 0o022:
        return f"{path} is writable by others (mode {stat.S_IMODE(st.st_mode):o})"
    return chain_problem(os.path.dirname(os.path.abspath(path)))


def _nearest_existing(path: str) -> str:
    here = os.path.abspath(path)
    while not os.path.lexists(here):
        here = os.path.dirname(here)
    return here


def creation_problem(path: str) -> str | None:
    """Why `path` is not, or could not be made, a private directory (private_problem for one
    that exists; for one that does not, whether its nearest existing parent is safe to create
    it in), or None."""
    if os.path.lexists(path):
        return private_problem(path)
    return chain_problem(_nearest_existing(path))


def private_dir(path: str) -> str:
    """`path`, created 0700 when missing (with its missing parents, only inside directories
    no one else can change), checked by private_problem; UnsafePath when it is not private."""
    why = creation_problem(path)
    if why is None and not os.path.lexists(path):
        with contextlib.suppress(FileExistsError):
            os.makedirs(path, mode=0o700)
        why = private_problem(path)
    if why is not None:
        raise UnsafePath(f"not a private directory: {why}")
    return path


def own_home() -> str:
    """This user's home from the password database: where ssh looks, whatever $HOME says."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_dir
    except KeyError:
        return os.path.expanduser("~")
