"""The bundled scenario library: recordings made on real pools in the lab by
fixtures/make_fixtures.py, replayable by name (`zdash replay NAME`, `zdash replay --list`).

The files are the repository's fixtures/ folder, shipped inside the wheel (zdash.resources
finds either); ZDASH_FIXTURES points elsewhere. No Textual here: `--list` is headless.

Each scenario's description (shown while its replay waits at the start) is written here, once:
what the lab did and what to look at, then the story of its fault in the words its finding uses
(zdash.checks.stories). make_fixtures.py records it into the file's header, and
tests/test_scenarios.py holds the recording, the finding and docs/scenarios.md to these words.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from zdash.checks import stories
from zdash.resources import ResourceError, bundled_dir
from zdash.sources.session import SessionError, read_session

SUFFIX = ".yaml.gz"
DEMO = "deranged-mirror"  # what a newcomer sees first: one sick disk dragging a healthy pool


@dataclass(frozen=True, slots=True)
class Scenario:
    """One bundled recording: what the lab did (and what to look at), and the story of its
    fault as its finding tells it (empty for the healthy baseline)."""

    setup: str
    story: tuple[str, ...] = ()  # its sentences, each said by the finding (at some moment)

    @property
    def description(self) -> str:
        return " ".join((self.setup, *self.story))


SCENARIOS: dict[str, Scenario] = {
    "deranged-mirror": Scenario(
        "Two 2-way mirrors under load. Ten seconds in, one disk of mirror-1 (/dev/mapper/sick, "
        "dm-delay) starts taking 40 ms per I/O: beside its partner, the same MB/s at a far higher "
        "%UTIL and disk wait.",
        stories.slow_disk("mirror-1", 0),
    ),
    "healthy": Scenario(
        "Two 2-way mirrors on equal disks under random read/write load. This is what normal looks "
        "like: every disk of a mirror at about the same MB/s, %UTIL and latency, both vdevs "
        "filling evenly, nothing above info. Use it as the baseline when reading the other "
        "scenarios."
    ),
    "deranged-raidz": Scenario(
        "A raidz1 of three disks under load; ten seconds in one member (/dev/mapper/sick) starts "
        "taking 40 ms per I/O. Every stripe waits for all its columns: compare its %UTIL and disk "
        "wait with the two healthy members.",
        stories.slow_disk("raidz1-0", 0),
    ),
    "degraded-resilver": Scenario(
        "Two 2-way mirrors. At 5 s a disk of mirror-1 is taken offline: the pool goes DEGRADED "
        "and mirror-1 has no redundancy left. At 10 s it is replaced by a new disk: watch the "
        "resilver progress (zdash's own ETA beside zpool's) until the pool is ONLINE again. The "
        "expert move is `zpool replace` (never detach + attach), onto a by-id path, and a scrub "
        "afterwards."
    ),
    "imbalance-added-vdev": Scenario(
        "One mirror filled to about 60 %, then a second mirror added with `zpool add`, then a "
        "little more data. The old vdev stays far fuller than the new one: ZFS does not move "
        "existing data, and new writes now lean on the emptier vdev, so its disks take most of "
        "the write load. Only rewriting the data (send/receive, or copy and rename) rebalances it."
    ),
    "imbalance-size": Scenario(
        "Two mirrors of 256 MiB disks filled to about 60 %, then the disks of mirror-1 were "
        "upgraded to 1 GiB ones (autoexpand): mirror-1 is now four times the size of mirror-0 at "
        "a fraction of its fill. Nothing is wrong with the data, but new writes lean on the big "
        "vdev (the allocator weighs vdevs by free space), so its disks take most of the write "
        "load while mirror-0 fills up. Upgrade mirror-0 too, or accept it; only rewriting the "
        "data moves old blocks."
    ),
    "ashift-mismatch": Scenario(
        "A mirror created with ashift=9 (512-byte sectors), then a second mirror added with "
        "ashift=12. Mixed ashift blocks `zpool remove` of any top-level vdev forever, and 512-byte "
        "sectors on 4K-native disks mean read-modify-write on every write. The fix is a new pool "
        "with ashift=12."
    ),
    "capacity-85": Scenario(
        "A pool at 85 % capacity. Above about 80 % the allocator switches from first-fit to "
        "best-fit, fragmentation grows and writes slow down sharply; at 100 % even deletes can "
        "fail, because copy-on-write needs space to free space. Free space (or add a vdev) before "
        "it gets worse."
    ),
    "capacity-93": Scenario(
        "A pool at 93 %: critical. Writes are slow and fragmenting, and a little more data makes "
        "the pool read-only in practice. Delete snapshots that hold space (`zfs list -o space`), "
        "move data away or add capacity now."
    ),
    "clones": Scenario(
        "A clone chain: tank/base@s1 was cloned to tank/c1, tank/c1@s2 to tank/c2, and the clones "
        "were then rewritten. `zfs destroy -R tank/base@s1` would take c1, its snapshot and c2 "
        "with it. A clone that shares nothing with its origin any more gains nothing from being a "
        "clone: `zfs promote` it to cut the dependency before deleting the original."
    ),
    "scrub-repair": Scenario(
        "A mirror whose second disk was silently overwritten with garbage while the pool was "
        "exported. At 4 s a scrub starts (its disks are slow: it runs for about 20 s): it finds "
        "the bad blocks by checksum and repairs them from the good side. Watch the scan progress, "
        'CKSUM grow on that disk and "repaired" in the scan line. Afterwards: `zpool clear`, and '
        "watch that disk: one event is bad luck, a trend is a failing disk."
    ),
    "raidz2-wide": Scenario(
        "A raidz2 of ten disks under light load. Wider than about 8 disks, a raidz vdev resilvers "
        "slowly (every disk is read to rebuild one) and small blocks waste space on parity and "
        "padding. Prefer two narrower vdevs, or dRAID for many disks."
    ),
    "two-pools": Scenario(
        "Two pools on one host, as most servers have: tank (two mirrors, busy) is healthy; backup "
        "(a raidz1 of three disks) lost a member to `zpool offline` at 6 s and has no redundancy "
        "left: one more failure there loses the pool. The wall shows both tiles side by side, the "
        "sick one first; the dashboard has a tab per pool (`[`/`]` or 1-9). An expert restores "
        "backup's redundancy first (replace the disk), whatever tank's load."
    ),
    "faulted-disk": Scenario(
        "Two 2-way mirrors under load. At 6 s ZFS faults a disk of mirror-1 (injected with "
        "`zinject -A fault`, as ZED does after too many I/O errors): the pool is DEGRADED and "
        "mirror-1 runs on one disk, so one more failure there loses the pool: critical. At 14 s "
        "the admin replaces it (`zpool replace tank OLD NEW`): the resilver copies mirror-1's "
        "data to the new disk and the pool is ONLINE again. A FAULTED disk is not read any more; "
        "do not `zpool clear` it back into service before its SMART data and the kernel log say "
        "why it failed."
    ),
    "log-special": Scenario(
        "A pool with support vdevs: a data mirror, a special mirror (metadata and small blocks), "
        "a log mirror (the ZIL for sync writes) and a cache disk (L2ARC), under sync-heavy load. "
        "Watch the log take the sync writes. At 8 s one side of the special mirror is taken "
        "offline: the special vdev holds the pool's metadata, so losing it loses the whole pool, "
        "and with one side left it is as critical as any data vdev without redundancy. (Losing "
        "the log loses only sync writes in flight at a crash; losing the cache loses nothing.)"
    ),
    "ashift-512-on-4k": Scenario(
        "A pool created with ashift=9 (512-byte blocks) on a disk whose physical sectors are 4 "
        "KiB (a 512e disk: it accepts 512-byte writes and turns each into a read-modify-write of 4 "
        'KiB). ZFS itself says so in `zpool status` ("block size: 512B configured, 4096B '
        'native"). Writes are slower than they should be, for the life of the vdev: ashift cannot '
        "be changed. The fix is a new vdev or pool created with ashift=12, and moving the data."
    ),
}


def fixtures_dir() -> Path:
    return bundled_dir("fixtures")


def demo_recording() -> Path:
    """The demo's recording: the DEMO scenario, or the session file ZDASH_DEMO names."""
    path = Path(os.environ.get("ZDASH_DEMO") or fixtures_dir() / f"{DEMO}{SUFFIX}")
    if not path.is_file():
        raise ResourceError(
            f"zdash: the demo recording is missing ({path}). This zdash install is incomplete: "
            f"reinstall it, or set ZDASH_DEMO to a session file."
        )
    return path


def names() -> list[str]:
    d = fixtures_dir()
    return sorted(p.name[: -len(SUFFIX)] for p in d.glob(f"*{SUFFIX}")) if d.is_dir() else []


def path_of(name_or_file: str) -> str:
    """A file path as given, or the bundled scenario of that name; the path unchanged when it is
    neither (the session reader then says what is wrong with it)."""
    if os.path.exists(name_or_file) or os.sep in name_or_file or name_or_file.endswith((".yaml", ".gz")):
        return name_or_file
    bundled = fixtures_dir() / f"{name_or_file}{SUFFIX}"
    return str(bundled) if bundled.is_file() else name_or_file


def describe(name: str) -> str:
    """The start of a scenario's description, whole sentences up to a line's worth."""
    try:
        header, ticks = read_session(str(fixtures_dir() / f"{name}{SUFFIX}"))
        ticks.close()
    except (SessionError, OSError) as e:
        return f"(unreadable: {e})"
    text = " ".join((header.description or "").split())
    if not text:
        return "(no description)"
    out = ""
    for sentence in text.replace(". ", ".\n").splitlines():
        out = f"{out} {sentence}".strip()
        if len(out) >= 50:
            break
    return out if len(out) <= 130 else out[:129] + "…"


def print_list() -> int:
    found = names()
    if not found:
        print(f"zdash: no bundled scenarios in {fixtures_dir()}")
        return 1
    width = max(len(n) for n in found)
    for n in found:
        print(f"{n.ljust(width)}  {describe(n)}")
    print(f"\nplay one with: zdash replay NAME   (files in {fixtures_dir()})")
    return 0
