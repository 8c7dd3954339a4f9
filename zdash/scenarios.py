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
from zdash.config import ConfigError, read_config
from zdash.resources import ResourceError, bundled_dir
from zdash.sources.incidents import Incident, default_dir, is_incident_file, list_incidents
from zdash.sources.recording import open_recording
from zdash.sources.session import SessionError, SessionHeader
from zdash.sources.store import SUFFIX as STORE_SUFFIX
from zdash.visible import visible

SUFFIX = ".yaml.gz"
SUFFIXES = (SUFFIX, STORE_SUFFIX)  # the short scenarios are text; the long ones, .zdash
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
        "Two 2-way mirrors. At 5 s a disk of mirror-1 is taken offline: the pool goes DEGRADED and "
        "mirror-1 runs on one disk. At 10 s it is replaced by a new disk: watch the resilver "
        "progress (zdash's own ETA beside zpool's) until the pool is ONLINE again.",
        (stories.NO_REDUNDANCY_RULE, stories.OFFLINE_ADVICE, stories.RESILVER_ADVICE),
    ),
    "imbalance-added-vdev": Scenario(
        "One mirror filled to about 60 %, then a second mirror added with `zpool add`, then a "
        "little more data: the old vdev far fuller than the new one.",
        (stories.ADDED_LATER_RULE, stories.REBALANCE_ADVICE),
    ),
    "imbalance-size": Scenario(
        "Two mirrors of 256 MiB disks filled to about 55 %, then the disks of mirror-1 were "
        "upgraded to 1 GiB ones (autoexpand): mirror-1 is now four times the size of mirror-0, "
        "holding about the same data at a fraction of its fill.",
        (stories.GROWN_RULE, stories.REBALANCE_ADVICE),
    ),
    "ashift-mismatch": Scenario(
        "A mirror created with ashift=9 (512-byte sectors), then a second mirror added with ashift=12.",
        (stories.ASHIFT_MIX_RULE, stories.ashift_mix_fix(12)),
    ),
    "capacity-85": Scenario(
        "A pool at 85 % capacity: a warning.",
        (stories.CAPACITY_RULE, stories.CAPACITY_ADVICE),
    ),
    "capacity-93": Scenario(
        "A pool at 93 %: critical, a little more data makes it read-only in practice.",
        (stories.CAPACITY_RULE, stories.CAPACITY_ADVICE),
    ),
    "clones": Scenario(
        "A clone chain: tank/base@s1 was cloned to tank/c1, tank/c1@s2 to tank/c2, and the clones "
        "were then rewritten: `zfs destroy -R tank/base@s1` would take c1, its snapshot and c2 with it.",
        (stories.CLONE_RULE, stories.CLONE_PROMOTE),
    ),
    "scrub-repair": Scenario(
        "A mirror whose second disk was silently overwritten with garbage while the pool was "
        "exported. At 4 s a scrub starts (its disks are slow: it runs for about 20 s): it finds "
        "the bad blocks by checksum and repairs them from the good side. Watch the scan progress, "
        'CKSUM grow on that disk and "repaired" in the scan line.',
        (stories.SCRUB_RULE, stories.SCRUB_ADVICE),
    ),
    "raidz2-wide": Scenario(
        "A raidz2 of ten disks under light load.",
        (stories.WIDE_RAIDZ_RULE, stories.WIDE_RAIDZ_ADVICE),
    ),
    "two-pools": Scenario(
        "Two pools on one host, as most servers have: tank (two mirrors, busy) is healthy; backup "
        "(a raidz1 of three disks) lost a member to `zpool offline` at 6 s. The wall shows both "
        "tiles side by side, the sick one first; the dashboard has a tab per pool (`[`/`]` or "
        "1-9). Backup comes first, whatever tank's load.",
        (stories.NO_REDUNDANCY_RULE, stories.OFFLINE_ADVICE),
    ),
    "faulted-disk": Scenario(
        "Two 2-way mirrors under load. At 6 s ZFS faults a disk of mirror-1 (injected with "
        "`zinject -A fault`, as ZED does after too many I/O errors): the pool is DEGRADED and "
        "mirror-1 runs on one disk. At 14 s the admin replaces it (`zpool replace tank OLD NEW`) "
        "and the resilver brings the pool back ONLINE.",
        (stories.NO_REDUNDANCY_RULE, stories.FAULTED_ADVICE, stories.RESILVER_ADVICE),
    ),
    "log-special": Scenario(
        "A pool with support vdevs: a data mirror, a special mirror (metadata and small blocks), "
        "a log mirror (the ZIL for sync writes) and a cache disk (L2ARC), under sync-heavy load. "
        "Watch the log take the sync writes. At 8 s one side of the special mirror is taken "
        "offline. (Losing the log loses only sync writes in flight at a crash; losing the cache "
        "loses nothing.)",
        (stories.SPECIAL_RULE, stories.NO_REDUNDANCY_RULE, stories.OFFLINE_ADVICE),
    ),
    "ashift-512-on-4k": Scenario(
        "A pool created with ashift=9 (512-byte blocks) on a disk whose physical sectors are 4 KiB "
        "(a 512e disk: it accepts 512-byte writes and turns each into a read-modify-write of 4 "
        'KiB). ZFS itself says so in `zpool status` ("block size: 512B configured, 4096B native").',
        (stories.ASHIFT_RMW_RULE, stories.ashift_rmw_fix(12)),
    ),
    # The long ones: real incidents kept by zdash's own flight recorder (fixtures/make_incidents.py),
    # the ten minutes before the finding and all of it until it cleared. They open paused 5 s
    # before the onset.
    "raidz-full-resilver": Scenario(
        "A raidz1 of four disks holding 1 GiB through a backup window: bursts of durable writes "
        "and uncached reads with idle gaps of 3-6 s, ten minutes of it before the fault. Then ZFS "
        "faults one member (injected with `zinject -A fault`, as ZED does after too many I/O "
        "errors): the pool is DEGRADED and raidz1-0 has no redundancy left. A minute later the "
        "admin replaces it (`zpool replace tank OLD NEW`, a slow new disk taking one resilver write "
        "at a time): watch the resilver from its start to its end, about ten minutes, with zdash's "
        "own rate and ETA, until the pool is ONLINE again. The host is so busy meanwhile that "
        "zpool answers late a few times, and zdash says for those seconds that it cannot see the "
        "pool rather than show old data as current.",
        (stories.NO_REDUNDANCY_RULE, stories.FAULTED_ADVICE, stories.RESILVER_ADVICE),
    ),
    "slow-disk-backup-window": Scenario(
        "Two 2-way mirrors of 256 MiB disks through a backup window: bursts of durable writes and "
        "uncached reads with idle gaps of 3-6 s, ten minutes of it before the fault. Then one disk "
        "of mirror-1 (/dev/mapper/sick, dm-delay) starts taking 40 ms per I/O. Half a minute "
        "later zpool status answers so late that zdash says it cannot see the pool (the "
        "incident's onset: a slow disk slows ZFS's own commands) and names the disk beside it: "
        "the same MB/s as its partner at a far higher disk wait and %UTIL. A minute and a half "
        "later the admin replaces it (`zpool replace tank /dev/mapper/sick NEW`), and the finding clears as the "
        "resilver ends. Afterwards, on a pool this small, the window's rewrites read for a few "
        'minutes as "tank is filling" (a trend over 300 MiB of headroom): a trend, not a fault.',
        stories.slow_disk("mirror-1", 0),
    ),
    "pool-filling": Scenario(
        "One 2.5 GiB disk, 55 % full, through a backup window (bursts of durable writes and "
        "uncached reads with idle gaps of 3-6 s), ten minutes of it. Then a job without rotation "
        "starts writing a dump, about 1 MiB/s. zdash's fill trend warns within a minute "
        '("tank is filling: full in about 23 h at this rate"), and the estimate shortens as the '
        "rate holds: half an hour, then 25 minutes, while CAP is still 60-75 %, long before the "
        "80 % threshold. The recording ends at 75 %, at the flight recorder's 20-minute cap: the "
        "time to act that the trend gives.",
        (stories.CAPACITY_RULE, stories.CAPACITY_ADVICE),
    ),
    "mirror-scrub-repairs": Scenario(
        "A mirror of two 1 GiB disks, a fifth full, through a backup window (bursts of durable "
        "writes and uncached reads with idle gaps of 3-6 s), ten minutes of it. Its second disk, "
        "/dev/mapper/b, was overwritten with garbage while the pool was exported. Then the admin starts a scrub: within seconds it has "
        "repaired the first block from the good side, and zdash says so while it runs. It ends "
        "2 min 20 s later, 196 MiB repaired on /dev/mapper/b (1,587 checksum "
        "errors), nothing unrepairable. A minute later the admin runs `zpool clear` and scrubs "
        "again to verify: the finding clears, the second scrub finds nothing in the two-thirds "
        "of the pool it reads before the recording ends.",
        (stories.SCRUB_RULE, stories.SCRUB_ADVICE),
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
    if not d.is_dir():
        return []
    return sorted({p.name[: -len(suffix)] for suffix in SUFFIXES for p in d.glob(f"*{suffix}")})


def _bundled(name: str) -> Path | None:
    """The bundled recording of that name, in either format (the long ones are `.zdash`)."""
    return next((f for suffix in SUFFIXES if (f := fixtures_dir() / f"{name}{suffix}").is_file()), None)


def path_of(name_or_file: str) -> str:
    """A file path as given, the bundled scenario of that name, or an incident the flight
    recorder kept (zdash incidents); the path unchanged when it is none of these (the
    recording's reader then says what is wrong with it)."""
    if os.path.exists(name_or_file) or os.sep in name_or_file or name_or_file.endswith((".yaml", ".gz")):
        return name_or_file
    bundled = _bundled(name_or_file)
    if bundled is not None:
        return str(bundled)
    kept = incident_path(name_or_file)
    return kept if kept is not None else name_or_file


def incident_path(name: str) -> str | None:
    """An incident file of the flight recorder's by its name (with or without .zdash)."""
    try:
        directory = read_config().flight_recorder.dir or default_dir()
    except ConfigError:
        return None
    file = name if name.endswith(STORE_SUFFIX) else name + STORE_SUFFIX
    path = os.path.join(directory, file)
    return path if is_incident_file(file) and os.path.isfile(path) else None


def _header(path: Path | str) -> SessionHeader:
    rec = open_recording(str(path))
    try:
        return rec.header
    finally:
        rec.close()


def describe(name: str, path: Path | str | None = None) -> str:
    """The start of a recording's description, whole sentences up to a line's worth."""
    try:
        header = _header(path or _bundled(name) or fixtures_dir() / f"{name}{SUFFIX}")
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
    _print_incidents()
    return 0


def _print_incidents() -> None:
    """Beside the scenarios, the real incidents this host's flight recorder kept."""
    try:
        directory = read_config().flight_recorder.dir or default_dir()
    except ConfigError:
        return
    kept = [i for i in list_incidents(directory) if isinstance(i, Incident)]
    if not kept:
        return
    print(f"\nincidents the flight recorder kept here ({directory}; zdash incidents lists them):")
    width = max(len(i.name) - len(STORE_SUFFIX) for i in kept)
    for i in kept:
        about = visible(f"{i.severity} {i.title} ({i.state})")  # the file's own words, shown safe
        print(f"{i.name[: -len(STORE_SUFFIX)].ljust(width)}  {about}")
