"""A recording written to a network-shared folder (NFS homes are common; the lab's shared folder
is 9p): there the kernel emulates flock with the same byte-range locks SQLite takes, and a
writer that flocked the database itself failed every time with "database is locked"."""

import asyncio
import os
import shutil
import uuid

from zdash.commands.record import record
from zdash.fold.recording import load_replay


def _fstype(path: str) -> str:
    best = ("", "?")
    with open("/proc/mounts") as f:
        for line in f:
            mnt, fstype = line.split()[1:3]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best[0]):
                best = (mnt, fstype)
    return best[1]


def test_a_recording_to_the_shared_folder_is_written_and_read_back(lab):
    lab.pool("shared", lab.loop("s0"))
    folder = os.path.join(os.getcwd(), ".scratch", f"lab-{uuid.uuid4().hex[:8]}")
    os.makedirs(folder)
    try:
        path = os.path.join(folder, "incident.zdash")
        n = asyncio.run(record(path, 1.0, 3.0, ("shared",), quiet=True))
        print(f"{_fstype(folder)}: {n} ticks written to {path}")
        assert n >= 2
        assert not os.path.exists(path + "-lock")  # no stray sidecar once the writer is done
        _, snaps = load_replay(path)
        assert len(snaps) == n and all(s.pool("shared") is not None for s in snaps[1:])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
