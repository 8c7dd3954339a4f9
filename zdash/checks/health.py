"""Health: what the pool can still survive, and what its error counters say.

One fault, one finding:
- a pool that cannot serve its data (FAULTED, UNAVAIL, SUSPENDED) or has permanent data errors;
- per top-level vdev whose redundancy is reduced (zdash.redundancy): CRITICAL when it has
  nothing left to lose (a 2-way mirror on one side, a raidz1 missing a member) naming the disks
  it now runs on, WARNING when reduced but not gone ("raidz2-0 can lose 1 more disk"), with
  the devices that are missing or rebuilding;
- a hot spare standing in (once the vdev is whole again on it), a hot spare that is unusable;
- error counters on devices that are in service. Counts that grew while a scrub ran belong to
  the scrub: one finding for the pool ("the scrub finished at T and repaired X on DEV"),
  WARNING unless data was lost. Counts that grow outside a scrub mean a device failing now:
  CRITICAL until `zpool clear` resets them. Growth is judged on counter deltas since zdash
  started watching, whatever the charts' window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from zdash.checks import stories, tracker
from zdash.checks._common import act, is_device_path
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.config import CheckConfig
from zdash.fmt import fmt_bytes, fmt_list, fmt_time, plural
from zdash.model import UNSEEN, Pool, Scan, Snapshot, Vdev
from zdash.redundancy import Margin, margins, rebuilding, resilver_running, unshown_losses

ID = "health"

POOL_DOWN = {"FAULTED", "UNAVAIL", "SUSPENDED"}
# zpool's status codes that say more than the pool's state word: HC and JQ are printed only for a
# pool whose I/O is suspended (failmode=wait / continue), 8A only when its error log holds
# permanent errors - whatever the state reads and whether or not the paste shows the error list.
SUSPENDED_MSGIDS = {"ZFS-8000-HC", "ZFS-8000-JQ"}
DATA_ERRORS_MSGID = "ZFS-8000-8A"
LABEL_MSGID = "ZFS-8000-4J"  # a device's label is missing or invalid: replace it
# ZFS-8000-9P: "One or more devices has experienced an unrecoverable error. An attempt was made
# to correct the error." zpool prints it while a device's error counters are not zero.
REPAIRED_MSGID = "ZFS-8000-9P"
_REPAIRED_STATUS = "One or more devices has experienced an unrecoverable error"
OUT_OF_SERVICE = {"OFFLINE", "FAULTED", "UNAVAIL", "REMOVED", "DEGRADED"}

STATE_WHY = {
    "OFFLINE": "taken offline by an administrator",
    "FAULTED": "faulted by ZFS after too many errors",
    "DEGRADED": "still read by ZFS but marked DEGRADED after too many checksum or slow-I/O errors",
    "UNAVAIL": "cannot be opened (missing, unplugged or renamed)",
    "REMOVED": "removed while the system was running",
}
LOOK = (
    "Look at the disk first: `smartctl -a` (reallocated and pending sectors, CRC errors), the "
    "kernel log (`dmesg`, `journalctl -k`) for resets and timeouts, then cabling and the HBA."
)

Counts = tuple[int, int, int]


def _counts(v: Vdev) -> Counts:
    return (v.read_errors, v.write_errors, v.checksum_errors)


def _describe_counts(c: Counts) -> str:
    return ", ".join(plural(n, f"{kind} error") for kind, n in zip(("read", "write", "checksum"), c) if n)


@dataclass
class _Leaf:
    """What zdash has seen of one device's error counters since it started watching."""

    last: Counts = (0, 0, 0)
    during_scrub: int = 0  # errors added while a scrub was running
    outside_scrub: int = 0  # errors added at any other time: the device is failing now
    last_growth: float | None = None


@dataclass
class _Pool:
    leaves: dict[str, _Leaf] = field(default_factory=dict)
    seen_at: float | None = None  # when the counters last observed were read by zpool status
    # Leaves that arrived while zdash watched (an attach), by key, until their resilver is done:
    # a mirror side being attached is redundancy being added, not a side that was lost.
    joined: dict[str, float] = field(default_factory=dict)


def _scrub_between(pool: Pool, since: float | None, until: float) -> bool:
    """Did a scrub run at any time between two readings of the counters? A small pool's scrub
    can start and finish between two `zpool status` runs; its start and end times say so."""
    lo = since if since is not None else until
    for s in pool.scans:
        if s.function not in ("scrub", "errorscrub") or s.start_time is None:
            continue
        if s.state == "scanning":
            return True
        end = s.end_time if s.end_time is not None else (s.pause_time or until)
        if s.start_time <= until + 1 and end >= lo - 1:
            return True
    return False


def _status_time(snap: Snapshot) -> float:
    """When the `zpool status` behind this snapshot was read (it runs every few ticks)."""
    age = next((s.age_s for s in snap.sources if s.key == "status" and s.age_s is not None), 0.0)
    return snap.time - age


class Tracker(tracker.StructuralTracker):
    """Its memory (error counters) changes only when `zpool status` answers, so its findings are
    reused until the structure changes."""

    def __init__(self, cfg: CheckConfig) -> None:
        super().__init__(cfg)
        self._pools: dict[str, _Pool] = {}
        self._observed = 0

    def observe(self, snap: Snapshot) -> None:
        if snap.structure_id and snap.structure_id == self._observed:
            return  # the same status as last time: no counter can have moved
        self._observed = snap.structure_id
        seen = set()
        read_at = _status_time(snap)
        for pool in snap.pools:
            seen.add(pool.name)
            state = self._pools.setdefault(pool.name, _Pool())
            # A count that rose between two readings rose during a scrub if one ran in between.
            scrubbing = _scrub_between(pool, state.seen_at, read_at)
            keys = set()
            for leaf in pool.leaves():
                keys.add(leaf.key)
                now = _counts(leaf)
                known = state.leaves.get(leaf.key)
                if known is None:
                    state.leaves[leaf.key] = _Leaf(last=now)
                    if state.seen_at is not None:  # not the first look: it came while we watched
                        state.joined[leaf.key] = snap.time
                    continue
                if any(n < was for n, was in zip(now, known.last)):
                    state.leaves[leaf.key] = _Leaf(last=now)  # `zpool clear`: a fresh start
                    continue
                grown = sum(now) - sum(known.last)
                if grown > 0:
                    if scrubbing:
                        known.during_scrub += grown
                    else:
                        known.outside_scrub += grown
                    known.last_growth = snap.time
                known.last = now
            for gone in set(state.leaves) - keys:
                del state.leaves[gone]
            running = resilver_running(pool)
            building = {leaf.key for leaf in pool.leaves() if rebuilding(leaf)}
            for key in [k for k in state.joined if k not in keys or not (running or k in building)]:
                del state.joined[key]  # resilvered (or gone): a side like any other from now on
            state.seen_at = read_at
        for gone in set(self._pools) - seen:
            del self._pools[gone]

    def judge(self, snap: Snapshot) -> list[Finding]:
        out: list[Finding] = []
        for pool in snap.pools:
            out.extend(self._pool(pool, self._pools.get(pool.name, _Pool())))
        return out

    def _pool(self, pool: Pool, state: _Pool) -> list[Finding]:
        out: list[Finding] = []
        pool_margins = margins(pool, joining=_attached(pool, state))
        vdev_findings = [f for m in pool_margins if (f := _redundancy(pool, m)) is not None]
        covered = {leaf.key for m in pool_margins if m.reduced for leaf in m.lost + m.degraded}
        for top, lost in unshown_losses(pool):
            vdev_findings.append(_unshown_vdev(pool, top, lost))
            covered |= {leaf.key for leaf in lost}
        spare_findings = _spares(pool, pool_margins) + _stuck_replaces(pool, pool_margins)
        if (f := _pool_state(pool, explained=bool(vdev_findings or spare_findings))) is not None:
            out.append(f)
        if (f := _data_errors(pool)) is not None:
            out.append(f)
        out += vdev_findings
        out += spare_findings
        out += _cache(pool)
        out += _errors(pool, state, covered, self.cfg.one_look)
        out += _vdev_errors(pool)
        return out


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    return tracker.fold(Tracker, history, cfg)


def _attached(pool: Pool, state: _Pool) -> frozenset[str]:
    """Keys of the leaves known to have been attached: seen arriving, or named by a transcript's
    `zpool attach` line (by their name or the last part of their path)."""
    named = {d.rsplit("/", 1)[-1] for d in pool.attached_devices}
    by_name = {
        leaf.key
        for leaf in pool.leaves()
        if named and (leaf.name in named or (leaf.path or "").rsplit("/", 1)[-1] in named)
    }
    return frozenset(state.joined) | by_name


# --- the pool as a whole ----------------------------------------------------------------------


def _zpool_says(pool: Pool) -> list[tuple[str, str]]:
    return [
        (label, " ".join(v.split()))
        for label, v in (("Status", pool.status), ("Action", pool.action), ("See", pool.msgid))
        if v
    ]


def _pool_state(pool: Pool, explained: bool) -> Finding | None:
    suspended = pool.state == "SUSPENDED" or (pool.msgid in SUSPENDED_MSGIDS and pool.state not in POOL_DOWN)
    if not suspended and (pool.state in ("ONLINE", UNSEEN) or (pool.state == "DEGRADED" and explained)):
        return None
    actions: tuple[SuggestedAction, ...] = ()
    if pool.state in POOL_DOWN or suspended:
        severity = Severity.CRITICAL
        why = (
            "ZFS stopped all I/O to the pool because too many devices failed: "
            "applications block until the devices return and `zpool clear` resumes the pool."
            + (
                f" The pool reads {pool.state}, but zpool's status ({pool.msgid}) says its I/O is suspended."
                if pool.state != "SUSPENDED"
                else ""
            )
            if suspended
            else "The pool cannot serve all its data: a top-level vdev is missing or failed, "
            "and ZFS needs every top-level vdev (data is striped across them)."
        )
        if suspended:
            actions = (
                act("Resume the pool once the devices are back", "clear", "zpool", "clear", pool.name),
            )
    elif pool.status or not pool.root.children or any(v.state == UNSEEN for v in pool.root.walk()):
        # zpool explains a fault zdash cannot see (a paste cut short, a device the tree does not
        # show): its word is all there is, and it says something is out of service.
        severity = Severity.WARNING
        why = (
            f"zpool reports the pool {pool.state}, but the vdev tree zdash has does not show which "
            "device is out of service (the output may have been cut short). zpool's own status "
            "text (below) says why; look at the full `zpool status -v`."
        )
    else:
        # Every vdev zdash sees is whole, yet zpool says DEGRADED (or worse): zpool's word is the
        # verdict's floor, so the header never says OK beside it. What explains it usually has a
        # finding of its own (a replace whose old side ZFS has not detached yet).
        severity = Severity.WARNING
        why = (
            f"zpool reports the pool {pool.state}, though every vdev zdash can see is whole: the pool "
            "can lose as many devices as it was built to. Something zpool counts is still out of "
            "service; zpool's own status text (below) says what. Look at the full `zpool status -v`."
        )
    return Finding(
        ID,
        severity,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name}: {pool.state}"
        + (", I/O suspended" if suspended and pool.state != "SUSPENDED" else ""),
        why=why,
        evidence=(("State", pool.state), *_zpool_says(pool)),
        actions=actions,
    )


def _data_errors(pool: Pool) -> Finding | None:
    scrub = _last_scrub(pool)
    # A scrub that finished "with N errors" could not repair N blocks; with no device counters
    # (cleared, or a paste cut before them) no scrub-repair finding says so: this one does.
    unrepaired = (
        scrub.errors
        if scrub is not None
        and scrub.state == "finished"
        and scrub.errors
        and not _log_known_empty(pool)
        and not any(any(_counts(leaf)) for leaf in pool.leaves())
        else 0
    )
    # zpool prints ZFS-8000-8A only when the pool's error log is not empty: a paste cut before
    # the "errors:" line (or a status read without -v) still says there are permanent errors.
    said = pool.msgid == DATA_ERRORS_MSGID
    if not (pool.error_count or pool.error_files or unrepaired or said):
        return None
    n = pool.error_count or len(pool.error_files) or unrepaired
    evidence = [("Data errors", str(n) if n else f"not listed ({DATA_ERRORS_MSGID})")]
    if unrepaired:
        evidence.append(("Last scrub", f"finished with {plural(unrepaired, 'unrepairable error')}"))
    if pool.error_files:
        evidence.append(("Affected", fmt_list(list(pool.error_files))))
    return Finding(
        ID,
        Severity.CRITICAL,
        pool.name,
        pool.name,
        "pool",
        topic="data-errors",
        title=f"{pool.name}: {plural(n, 'permanent data error') if n else 'permanent data errors'}",
        why=(
            "ZFS found blocks it could not repair from any copy: these files (or metadata) are "
            "damaged. Restore them from backup or delete them, then scrub: the error list is only "
            "cleared by a scrub that no longer finds the damage."
        ),
        evidence=tuple(evidence),
        actions=(act("Scrub after restoring the files", "scrub", "zpool", "scrub", pool.name),),
    )


# --- redundancy per top-level vdev ---------------------------------------------------------------


def _state_text(leaf: Vdev) -> str:
    return leaf.state + (f" ({leaf.aux})" if leaf.aux and not rebuilding(leaf) else "")


def _redundancy(pool: Pool, m: Margin) -> Finding | None:
    if not m.reduced:
        return None
    top = m.top
    log = top.vclass == "log"
    gone = [f"{leaf.known_as} {_state_text(leaf)}" for leaf in m.lost]
    gone += [f"{leaf.known_as} DEGRADED" for leaf in m.degraded if leaf not in m.lost]
    rebuilding_on = [leaf.label for leaf in m.rebuilding]
    # "(awaiting resilver)": queued behind the running resilver, not written to yet (corpus 188).
    waiting = bool(m.rebuilding) and all("awaiting resilver" in (leaf.aux or "") for leaf in m.rebuilding)
    resilvering = "waiting to resilver" if waiting else "resilvering"
    # A dRAID rebuilds onto its distributed spare, whose space is on every member: zpool marks
    # them all "(resilvering)" (seen in the lab, 2.3.2); the spare is what is being rebuilt.
    dspares = [leaf.label for leaf in m.rebuilding if leaf.kind == "dspare"] if top.kind == "draid" else []
    runs_on = [leaf.label for leaf in m.whole]
    what = "; ".join(gone) or "a member missing"
    if dspares:
        what += f"; rebuilding onto distributed spare {fmt_list(dspares)} (its space is on every member)"
    elif rebuilding_on:
        what += f"; {resilvering} onto {fmt_list(rebuilding_on)}"
    # The severity is the redundancy model's, whatever the story: nothing left to lose is
    # CRITICAL (a log vdev's loss costs at most sync writes in flight: WARNING), less is WARNING.
    severity = (
        (Severity.WARNING if log else Severity.CRITICAL) if m.exhausted or m.lost_vdev else Severity.WARNING
    )
    catching_up = not m.lost and not m.degraded and pool.state == "ONLINE" and top.state == "ONLINE"
    # ...from a sole whole copy that itself reports errors (corpus 197: a mirror's survivor with
    # 701 read errors feeding two new disks): a block it cannot read has no other copy.
    failing_source = [leaf for leaf in m.whole if any(_counts(leaf))] if m.exhausted else []
    advice = _advice(pool, m)
    if catching_up and failing_source:
        errs = "; ".join(f"{leaf.label}: {_describe_counts(_counts(leaf))}" for leaf in failing_source)
        title = (
            f"{top.name}: its only whole copy reports errors ({errs}) while "
            f"{fmt_list(rebuilding_on)} {'is' if len(rebuilding_on) == 1 else 'are'} resilvered from it"
        )
        why = (
            f"ZFS reports {top.name} ONLINE, but until the resilver completes every block of it is "
            f"read from {fmt_list(runs_on)}, and {'it has' if len(runs_on) == 1 else 'they have'} "
            "failed reads or returned bad data. A block no whole copy can give back is lost, and "
            "the resilver cannot rebuild it either. Copy off what matters now, keep load off the "
            "pool, and look at the source disk's cabling and SMART data; do not detach or replace "
            "it before the resilver is done."
        )
    elif catching_up:
        # Only devices being resilvered, and ZFS calls the vdev and the pool ONLINE: a device
        # catching up on the writes it missed while away, or attached without zdash knowing (an
        # attach it saw, or a transcript's `zpool attach` line, is not a loss: see margins()).
        # Nothing needs doing: with some redundancy kept meanwhile it is a note; with none left
        # until the resilver ends, one failure loses what is not copied yet: CRITICAL, as the
        # words say.
        if not m.exhausted:
            severity = Severity.INFO
        title = f"{top.name}: {resilvering} {fmt_list(rebuilding_on)} ({m.describe()} until it completes)"
        why = (
            f"ZFS reports {top.name} and the pool ONLINE while {fmt_list(rebuilding_on)} is resilvered: "
            "a device came back and is catching up on the writes it missed, or was attached "
            "(no attach is in what zdash read). Until the resilver completes only "
            f"{fmt_list(runs_on) or 'the other devices'} hold every block: {m.describe()}. "
            + (stories.NO_REDUNDANCY_RULE + " " if m.exhausted else "")
            + stories.RESILVER_ADVICE
        )
    elif m.lost_vdev:
        title = f"{top.name} is lost: {what}"
        why = (
            "This top-level vdev has lost more devices than its redundancy covers. "
            + (
                "It is a log device: the pool falls back to its main vdevs for the intent log; only sync "
                "writes in flight at a crash could be lost."
                if log
                else "ZFS stripes data over every top-level vdev, so the pool cannot serve the data on it "
                "until enough of its devices return."
            )
            + advice
        )
    elif m.exhausted:
        alone = runs_on[0] if len(runs_on) == 1 else fmt_list(runs_on)
        title = (
            f"{top.name} has no redundancy left: runs on {alone}"
            + (" alone" if len(runs_on) == 1 else "")
            + f" ({what})"
        )
        why = (
            f"{top.name} was built to survive {plural(m.design, 'failed disk')}; it has none to spare "
            f"now. Every block of it depends on {fmt_list(runs_on)}: one more failure there "
            + (
                "loses the log device (only sync writes in flight at a crash)."
                if log
                else "loses data, and because the pool needs every top-level vdev, loses the pool. "
                + stories.NO_REDUNDANCY_RULE
            )
            + (" " + stories.RESILVER_ADVICE if rebuilding_on else "")
            + advice
        )
    else:
        title = f"{m.describe()} ({what})"
        why = (
            f"{top.name} was built to survive {plural(m.design, 'failed disk')} and can now survive "
            f"{m.left}. The pool still serves all data; restore the missing device before another "
            "one fails." + (" " + stories.RESILVER_ADVICE if rebuilding_on else "") + advice
        )
    if m.degraded and not catching_up:
        why += (
            " A DEGRADED disk is still read by ZFS, but it was flagged for too many checksum or "
            "slow-I/O errors: it cannot be counted on as a copy."
        )
    evidence: list[tuple[str, str]] = [
        ("Redundancy", f"can lose {max(m.left, 0)} more of {m.design} (built for)"),
        ("Runs on", fmt_list(runs_on) or "nothing"),
    ]
    for leaf in (*m.lost, *[x for x in m.degraded if x not in m.lost]):
        reason = STATE_WHY.get(leaf.state, leaf.state)
        errs = _describe_counts(_counts(leaf))
        evidence.append((leaf.label, f"{_state_text(leaf)}: {reason}" + (f"; {errs}" if errs else "")))
        if leaf.was:
            evidence.append(("Was", leaf.was))
    if rebuilding_on:
        evidence.append((resilvering.capitalize(), fmt_list(rebuilding_on)))
    evidence += _zpool_says(pool)
    if top.vclass in ("special", "dedup", "log"):
        # zpool prints these under their class heading with an ordinary name (mirror-1): the
        # class is what tells an admin how much is at stake.
        title = f"{top.vclass} {title}"
        if top.vclass == "special":
            why += " " + stories.SPECIAL_RULE
        elif top.vclass == "dedup":
            why += (
                " A dedup vdev holds the pool's dedup table: the pool cannot survive its loss, so it "
                "counts like any data vdev."
            )
    return Finding(
        ID,
        severity,
        pool.name,
        top.name,
        "vdev",
        title=title,
        why=why,
        evidence=tuple(evidence),
        actions=_repairs(pool, m),
    )


def _unshown_vdev(pool: Pool, top: Vdev, lost: tuple[Vdev, ...]) -> Finding:
    """Devices out of service in a vdev the input did not show (bare device rows pasted without
    their vdev's row, corpus 211): what the vdev survives depends on a layout nobody pasted.
    Two out of one vdev leave no redundancy short of triple parity or a 4-way mirror; one out
    leaves none in a 2-way mirror or raidz1, one more failure in raidz2."""
    two = len(lost) >= 2
    gone = "; ".join(f"{leaf.known_as} {_state_text(leaf)}" for leaf in lost)
    return Finding(
        ID,
        Severity.CRITICAL if two else Severity.WARNING,
        pool.name,
        lost[0].label if len(lost) == 1 else top.name,
        "leaf" if len(lost) == 1 else "vdev",
        title=(
            f"{plural(len(lost), 'device')} of one vdev out of service ({gone}); the vdev's layout "
            "is not shown"
        ),
        why=(
            f"{fmt_list([leaf.label for leaf in lost])} "
            + ("serve" if two else "serves")
            + " no data, and the rows of the vdev above "
            + ("them" if two else "it")
            + " (mirror, raidz or draid, and its other members) are not in the input, so how much "
            "redundancy is left is not known. "
            + (
                "Two members out of one vdev: a 2-way mirror or a raidz1 has lost data, a raidz2 "
                "or a 3-way mirror runs without redundancy, only a raidz3 or a wider mirror can "
                "lose one more disk. "
                if two
                else "One member out: a 2-way mirror or a raidz1 runs without redundancy (one "
                "more failure loses data), a raidz2 or a 3-way mirror can lose one more disk. "
            )
            + "Look at the whole `zpool status -v` to know which, and replace the failed devices."
        ),
        evidence=tuple(
            (
                leaf.label,
                _state_text(leaf) + (f", {_describe_counts(_counts(leaf))}" if any(_counts(leaf)) else ""),
            )
            for leaf in lost
        ),
        actions=(act("Show the whole pool", None, "zpool", "status", "-v", pool.name),)
        if pool.name and not pool.name.startswith("(")
        else (),
    )


def _label_lost(pool: Pool, leaf: Vdev) -> bool:
    """Its ZFS label is missing or damaged: zpool says ZFS-8000-4J of an UNAVAIL device, or
    "corrupted data" beside it. `zpool online` cannot bring such a disk back."""
    return leaf.state in ("UNAVAIL", "FAULTED") and (
        "corrupted data" in (leaf.aux or "") or (pool.msgid == LABEL_MSGID and leaf.state == "UNAVAIL")
    )


def _state_advice(pool: Pool, leaf: Vdev) -> str:
    if _label_lost(pool, leaf):
        return stories.LABEL_ADVICE
    return {
        "OFFLINE": stories.OFFLINE_ADVICE,
        "FAULTED": stories.FAULTED_ADVICE,
        "DEGRADED": stories.DEGRADED_ADVICE,
        "UNAVAIL": stories.UNAVAIL_ADVICE,
        "REMOVED": stories.UNAVAIL_ADVICE,
    }.get(leaf.state, "")


def _advice(pool: Pool, m: Margin) -> str:
    """What to do about each device out of service, by its state, each said once; nothing
    while a resilver already repairs the vdev."""
    if m.rebuilding:
        return ""
    said = dict.fromkeys(
        _state_advice(pool, leaf) for leaf in (*m.lost, *[x for x in m.degraded if x not in m.lost])
    )
    return "".join(" " + text for text in said if text)


def _repairs(pool: Pool, m: Margin) -> tuple[SuggestedAction, ...]:
    """Per device out of service, what its state allows, in the order an expert tries them:
    an OFFLINE disk back online or replaced; a missing one online if it is back, else replaced;
    a lost label replaced (online cannot read it); a faulted or degraded one replaced, cleared
    only once the cause is known to be transient."""
    actions: list[SuggestedAction] = []
    if m.rebuilding:
        return ()  # a resilver is under way: the repair is running
    for leaf in (*m.lost, *[x for x in m.degraded if x not in m.lost]):
        target = leaf.label
        replace = act(
            f"Replace {target} (in place after swapping the disk, or name a new device)",
            "replace",
            "zpool",
            "replace",
            pool.name,
            target,
        )
        if _label_lost(pool, leaf):
            actions.append(replace)
            continue
        if leaf.state == "OFFLINE":
            actions.append(act(f"Bring {target} back online", "online", "zpool", "online", pool.name, target))
        elif leaf.state in ("UNAVAIL", "REMOVED"):
            actions.append(
                act(f"Online {target} if it is back", "online", "zpool", "online", pool.name, target)
            )
        actions.append(replace)
        if leaf.state in ("FAULTED", "DEGRADED"):
            actions.append(
                act(
                    f"Clear {target} once SMART and the kernel log show the cause was transient",
                    "clear",
                    "zpool",
                    "clear",
                    pool.name,
                    target,
                )
            )
    return tuple(actions)


# --- spares and cache ---------------------------------------------------------------------


def _unusable_spare(pool: Pool, spare: Vdev) -> Finding:
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        spare.label,
        "leaf",
        topic="spare",
        title=f"hot spare {spare.label} is {_state_text(spare)}: it cannot stand in",
        why=(
            "A hot spare that cannot be opened will not replace a failing disk: the pool "
            "has one spare fewer than it was built with. Replace or remove it."
        ),
        evidence=(("State", _state_text(spare)),),
        actions=(
            act(f"Remove the unusable spare {spare.label}", None, "zpool", "remove", pool.name, spare.label),
        ),
    )


def _spares(pool: Pool, pool_margins: list[Margin]) -> list[Finding]:
    out = [
        _unusable_spare(pool, spare)
        for top in pool.top_level
        if top.vclass == "spare"
        for spare in _leaves_of(top)
        if spare.state in ("FAULTED", "UNAVAIL", "REMOVED")
    ]
    out += _idle_in_use(pool)
    for m in pool_margins:
        if m.spares and not m.reduced:
            groups = [v for v in m.top.walk() if v.kind == "spare" and v.children]
            # Each spare-N holds the disk it replaces first, the spare(s) after it. Nested ones
            # (openzfs/zfs#16547: spare-6 > replacing-0 > spare-0, both draid spares for one
            # slot): the replaced disk is the first leaf down the first children, the spares are
            # every group's later children.
            stand_ins = list(
                dict.fromkeys(
                    [leaf.label for leaf in m.spares]
                    + [leaf.label for g in groups for c in g.children[1:] for leaf in _leaves_of(c)]
                )
            )
            originals = list(dict.fromkeys(_first_leaf(g.children[0]) for g in groups))
            failed = [leaf for leaf in m.top.leaves() if leaf.state in OUT_OF_SERVICE]
            replaced = originals or failed
            names = fmt_list([leaf.known_as for leaf in replaced]) or "a failed disk"
            working = [leaf for leaf in originals if leaf.state not in OUT_OF_SERVICE]
            # A resilver writing the spare in (a `zpool replace` onto it, by hand or by ZED):
            # detaching it now would undo that; nothing to offer until it ends.
            arriving = resilver_running(pool)
            out.append(
                Finding(
                    ID,
                    Severity.WARNING,
                    pool.name,
                    m.top.name,
                    "vdev",
                    topic="spare",
                    title=f"hot spare{'s' if len(stand_ins) > 1 else ''} {fmt_list(stand_ins)} "
                    f"stand{'' if len(stand_ins) > 1 else 's'} in for {names} in {m.top.name}"
                    + (f" ({fmt_list([g.name for g in groups])})" if groups else ""),
                    why=_spare_arriving_why(replaced) if arriving else _spare_why(working, replaced),
                    evidence=(
                        ("Spare", fmt_list(stand_ins)),
                        ("Replaces", names),
                        *((leaf.known_as, _state_text(leaf)) for leaf in replaced),
                    ),
                    actions=()
                    if arriving
                    else tuple(
                        act(f"Replace {leaf.known_as}", "replace", "zpool", "replace", pool.name, leaf.label)
                        for leaf in replaced
                        if leaf not in working
                    )
                    + tuple(
                        act(f"Return spare {s} to standby", "detach", "zpool", "detach", pool.name, s)
                        for s in (stand_ins if working else ())
                    ),
                )
            )
    return out


def _first_leaf(v: Vdev) -> Vdev:
    """The device a spare-N / replacing-N stands for: its first child, down to a disk."""
    while not v.is_leaf and v.children:
        v = v.children[0]
    return v


def _leaves_of(v: Vdev) -> tuple[Vdev, ...]:
    return (v,) if v.is_leaf else tuple(v.leaves())


def _spare_arriving_why(replaced: list[Vdev]) -> str:
    names = fmt_list([leaf.known_as for leaf in replaced]) or "the disk it replaces"
    return (
        f"A resilver is writing the spare in for {names}: a `zpool replace` onto the spare, by hand "
        "or by ZED after a fault. Leave it until the resilver ends (detaching the spare now would "
        f"undo it). Then either detach {names} to make the spare permanent, or replace {names} and "
        "the spare returns to standby."
    )


def _spare_why(working: list[Vdev], replaced: list[Vdev]) -> str:
    if working:
        return (
            f"The spare stands in for {fmt_list([leaf.known_as for leaf in working])}, which still works: "
            "it was put in by hand (`zpool replace` with a spare) or the fault that called it has "
            "cleared. Until it goes back the pool has one spare fewer for the next real failure. "
            "Detach the spare to return it to standby, or detach the disk it replaced to make the "
            "spare permanent."
        )
    return (
        "The hot spare took over and the vdev is whole again on it, but the failed disk is "
        "still part of the pool and the pool has one spare fewer. Replace the failed disk "
        "(`zpool replace`); the spare then returns to standby. Or make the spare "
        "permanent by detaching the failed disk."
    )


def _stuck_replaces(pool: Pool, pool_margins: list[Margin]) -> list[Finding]:
    """A replacing-N whose old device still holds the data but whose new device is out of
    service, with no resilver running: the replace cannot finish and keeps the pool DEGRADED.
    (When the old side is gone too, the redundancy finding says so.)"""
    if resilver_running(pool):
        return []
    out = []
    for m in pool_margins:
        if m.reduced:
            continue
        for v in m.top.walk():
            if v.kind != "replacing" or len(v.children) < 2:
                continue
            old, new = v.children[0], v.children[1:]
            bad = [leaf for n in new for leaf in n.leaves() if leaf.state in OUT_OF_SERVICE]
            if old.is_leaf and old.state in OUT_OF_SERVICE and not bad:
                out.append(_replaced_not_detached(pool, m.top, v, old))
                continue
            if old.state != "ONLINE" or not bad:
                continue
            names = fmt_list([f"{leaf.label} {_state_text(leaf)}" for leaf in bad])
            out.append(
                Finding(
                    ID,
                    Severity.WARNING,
                    pool.name,
                    v.name,
                    "vdev",
                    topic="replace",
                    title=f"{v.name} in {m.top.name}: the replace of {old.label} cannot finish ({names})",
                    why=(
                        f"{old.label} still holds its data, but the device meant to replace it is out of "
                        "service and no resilver is running: the replace is stuck and keeps the pool "
                        "DEGRADED. Detach the new device (`zpool detach`, by its GUID when it is "
                        "missing) to cancel the replace, then replace again with a working disk."
                    ),
                    evidence=(("Old device", f"{old.label} {old.state}"), ("New device", names)),
                    actions=tuple(
                        act(
                            f"Cancel the replace: detach {leaf.label}",
                            "detach",
                            "zpool",
                            "detach",
                            pool.name,
                            leaf.guid or leaf.label,
                        )
                        for leaf in bad
                    ),
                )
            )
    return out


def _replaced_not_detached(pool: Pool, top: Vdev, v: Vdev, old: Vdev) -> Finding:
    """A replacing-N whose resilver is done (no resilver runs, its new side serves) still holding
    the old device: ZFS detaches it by itself when the replace completes, so this is usually the
    moment before; while it lasts zpool says DEGRADED, and the verdict is not OK beside it."""
    new = [leaf.label for c in v.children[1:] for leaf in _leaves_of(c)]
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        v.name,
        "vdev",
        topic="replace",
        title=f"{v.name} in {top.name}: {fmt_list(new)} is resilvered, the old {old.label} "
        f"({old.state}) not yet detached",
        why=(
            f"The replace of {old.label} has resilvered {fmt_list(new)}, and {top.name} is whole on it; "
            f"ZFS detaches {old.label} by itself when the replace completes, and until then zpool "
            f"reports the pool {pool.state}. If it stays (a replace that was interrupted, an old "
            f"device ZFS can no longer reach), detach it: `zpool detach {pool.name} {old.guid or old.label}`."
        ),
        evidence=(("Old device", _state_text(old)), ("New device", fmt_list(new)), *_zpool_says(pool)),
        actions=(
            act(
                f"Detach {old.label} if it stays",
                "detach",
                "zpool",
                "detach",
                pool.name,
                old.guid if old.guid and old.state != "OFFLINE" else old.label,
            ),
        ),
    )


def _idle_in_use(pool: Pool) -> list[Finding]:
    """A spare listed INUSE that no spare-N vdev of this pool holds: stuck after a replace (or
    serving another pool), so it is not ready for this pool's next failure."""
    serving = {
        leaf.label
        for top in pool.top_level
        if top.vclass != "spare"
        for v in top.walk()
        if v.kind == "spare"
        for leaf in v.children[1:]
    }
    serving |= {s.rsplit("/", 1)[-1] for s in serving}
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            spare.label,
            "leaf",
            topic="spare",
            title=f"hot spare {spare.label} is INUSE but stands in for no device of {pool.name}",
            why=(
                "zpool lists the spare as in use, yet no spare-N vdev of this pool holds it: it was "
                "left attached after a replace finished, or it serves another pool. Either way it "
                "will not take over this pool's next failure. If it serves nothing, detach it "
                "(`zpool detach`) so it returns to AVAIL; `zpool remove` and `zpool add … spare` "
                "re-adds it if detach refuses."
            ),
            evidence=(("State", _state_text(spare)),),
            actions=(act(f"Detach {spare.label}", "detach", "zpool", "detach", pool.name, spare.label),),
        )
        for top in pool.top_level
        if top.vclass == "spare"
        for spare in _leaves_of(top)
        if spare.state == "INUSE"
        and "in use by pool" not in (spare.aux or "")
        and spare.label not in serving
        and spare.name not in serving
    ]


def _cache(pool: Pool) -> list[Finding]:
    """A failed L2ARC device costs only cache hits, but a device that reads FAULTED, UNAVAIL,
    DEGRADED or REMOVED is never "OK" beside it: a warning; one taken OFFLINE on purpose, a note."""
    return [
        Finding(
            ID,
            Severity.INFO if leaf.state == "OFFLINE" else Severity.WARNING,
            pool.name,
            leaf.label,
            "leaf",
            topic="cache",
            title=f"cache device {leaf.label} is {_state_text(leaf)}",
            why="A lost L2ARC device costs only cache hits: no data lives there. Replace it when convenient.",
            evidence=(("State", _state_text(leaf)),),
        )
        for top in pool.top_level
        if top.vclass == "cache"
        for leaf in _leaves_of(top)
        if leaf.state in OUT_OF_SERVICE
    ]


# --- error counters and the scrub story ----------------------------------------------------------


def _last_scrub(pool: Pool) -> Scan | None:
    scrubs = [s for s in pool.scans if s.function == "scrub"]
    return max(scrubs, key=lambda s: s.end_time or s.start_time or 0, default=None)


def _errors(pool: Pool, state: _Pool, covered: set[str], one_look: bool = False) -> list[Finding]:
    """Error counts on devices in service (a device already in a redundancy finding is told there)."""
    with_errors = [
        leaf
        for leaf in pool.leaves()
        if any(_counts(leaf)) and leaf.key not in covered and leaf.vclass not in ("cache", "spare")
    ]
    if not with_errors:
        return _silent_repair(pool)
    failing = [leaf for leaf in with_errors if state.leaves.get(leaf.key, _Leaf()).outside_scrub > 0]
    scrub = _last_scrub(pool)
    repaired = scrub is not None and bool(scrub.processed or scrub.errors)

    def scrub_found(leaf: Vdev) -> bool:
        # Seen growing while a scrub ran; or, with no history (a paste), checksum errors next to
        # a scrub that repaired data: that is what a scrub finds. Read/write errors alone are the
        # device failing requests, which a single look cannot tie to the scrub.
        if state.leaves.get(leaf.key, _Leaf()).during_scrub > 0:
            return True
        return repaired and leaf.checksum_errors > 0 and not (leaf.read_errors or leaf.write_errors)

    by_scrub = [leaf for leaf in with_errors if leaf not in failing and scrub_found(leaf)]
    out = [_failing(pool, leaf, state.leaves[leaf.key]) for leaf in failing]
    if by_scrub and scrub is not None:
        out.append(_scrub_story(pool, scrub, by_scrub))
    out += [
        _static(pool, leaf, one_look) for leaf in with_errors if leaf not in failing and leaf not in by_scrub
    ]
    return out


def _vdev_errors(pool: Pool) -> list[Finding]:
    """Counters on a vdev itself (the pool row, a mirror/raidz/draid, a spare-N or replacing-N),
    not on one of its disks: I/O the vdev could not complete from any of its members. One
    finding per pool, each vdev in the evidence."""
    vdevs = [
        v
        for v in pool.root.walk()
        if not v.is_leaf and any(_counts(v)) and v.vclass not in ("cache", "spare")
    ]
    if not vdevs:
        return []

    def where(v: Vdev) -> str:
        if v is pool.root:
            return f"{v.name} (pool row)"
        top = next((t for t in pool.top_level if t is not v and any(x is v for x in t.walk())), None)
        return f"{v.name} in {top.name}" if top is not None else v.name

    names = [where(v) for v in vdevs]
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            vdevs[0].name if len(vdevs) == 1 else pool.name,
            "vdev" if len(vdevs) == 1 else "pool",
            topic="vdev-errors",
            title=(
                f"{pool.name}: {_describe_counts(_counts(vdevs[0]))} on the pool row itself"
                if vdevs == [pool.root]
                else f"{names[0]}: {_describe_counts(_counts(vdevs[0]))} on the vdev itself"
                if len(vdevs) == 1
                else f"{pool.name}: errors counted on the vdevs themselves ({fmt_list(names)})"
            ),
            why=(
                "A vdev's own counters, not its disks', count I/O it could not complete from any "
                "of its members: a checksum error there is a block that none of its sides (or no "
                "combination of its raidz/draid columns) returned intact. The level above may still "
                "have rebuilt it (a draid's parity, a ditto copy): only data errors listed under "
                "`errors:` (`zpool status -v`) are lost data. It comes with failing or missing "
                "members: fix those first (see the other findings), then `zpool clear` and scrub; "
                "counts that come back on the vdev mean its members return bad data together."
            ),
            evidence=tuple(
                (name, f"{_describe_counts(_counts(v))} ({v.state})") for name, v in zip(names, vdevs)
            ),
            actions=(
                act(f"Reset the error counters of {pool.name}", "clear", "zpool", "clear", pool.name),
                act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name),
            ),
        )
    ]


def _silent_repair(pool: Pool) -> list[Finding]:
    """A scrub that repaired data while no device shows an error count (cleared since, or the
    repair was of blocks no device reported): the repair itself is the evidence."""
    scan = _last_scrub(pool)
    if (
        scan is None
        or scan.state not in ("finished", "scanning", "paused")
        or not scan.processed
        or scan.errors
    ):
        return _said_repaired(pool)
    # A scrub still running that has already repaired is the same evidence, so far (corpus 199).
    running = scan.state != "finished"
    done = (
        f"the running scrub (started {fmt_time(scan.start_time)}) has repaired {fmt_bytes(scan.processed)} so far"
        if running
        else f"the scrub finished {fmt_time(scan.end_time)} and repaired {fmt_bytes(scan.processed)}"
    )
    # A report without its devices (a status cut before its config) says nothing of their counters.
    seen = bool(pool.root.children)
    counters = (
        "Its error counters read 0 now (cleared, or a reboot reset them), so which one is not visible here. "
        if seen
        else "The report holds no device, so neither their error counters nor which one it was is known. "
    )
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            pool.name,
            "pool",
            topic="scrub-repair",
            title=f"{pool.name}: {done}, nothing unrepairable; "
            + ("no device shows errors now" if seen else "its devices' error counters are unknown"),
            why=(
                "The scrub found blocks whose data did not match their checksum and rewrote them "
                "from redundancy: some device returned wrong data. "
                + counters
                + LOOK
                + " Scrub again: a repair that comes back points to a failing disk."
            ),
            evidence=(
                (
                    "Scrub",
                    f"{'running' if running else 'finished'}, repaired {fmt_bytes(scan.processed)}"
                    f"{' so far' if running else ''}, 0 unrepairable",
                ),
            ),
            actions=(act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name),),
        )
    ]


def _said_repaired(pool: Pool) -> list[Finding]:
    """zpool's ZFS-8000-9P (by its code or its words) while no device shown has an error count: a
    report cut before the device that has them (corpus 275, 291). zpool prints it only while a
    device's counters are not zero, so its word is the evidence."""
    said = pool.msgid == REPAIRED_MSGID or " ".join((pool.status or "").split()).startswith(_REPAIRED_STATUS)
    if not said or any(any(_counts(leaf)) for leaf in pool.leaves()):
        return []
    return [
        Finding(
            ID,
            Severity.WARNING,
            pool.name,
            pool.name,
            "pool",
            topic="said-repaired",
            title=f"{pool.name}: zpool says a device had errors ZFS corrected; this output does not show which",
            why=(
                "ZFS-8000-9P: a device returned errors or bad data and redundancy repaired them, and "
                "its error counters are not zero yet. The device rows that would show which one are "
                "not in this output: `zpool status -v` names it. "
                + LOOK
                + " Then `zpool clear` it; if its counters grow again, replace it."
            ),
            evidence=tuple(_zpool_says(pool)),
            actions=(act("Show every device's error counters", None, "zpool", "status", "-v", pool.name),),
        )
    ]


def _error_evidence(leaves: Sequence[Vdev]) -> list[tuple[str, str]]:
    return [(leaf.label, f"{_describe_counts(_counts(leaf))} ({leaf.state})") for leaf in leaves]


def _after_errors(pool: Pool, leaves: Sequence[Vdev]) -> tuple[SuggestedAction, ...]:
    """In zpool status's own order: look, clear, scrub again, replace if they return."""
    out = [
        act(f"Look at {leaf.label}'s SMART data", None, "smartctl", "-a", leaf.label)
        for leaf in leaves
        if leaf.kind != "file" and is_device_path(leaf.label)
    ]
    out += [
        act(f"Reset the error counters of {leaf.label}", "clear", "zpool", "clear", pool.name, leaf.label)
        for leaf in leaves
    ]
    out.append(act("Scrub again to verify every block", "scrub", "zpool", "scrub", pool.name))
    out += [
        act(
            f"Replace {leaf.label} if the errors come back",
            "replace",
            "zpool",
            "replace",
            pool.name,
            leaf.label,
        )
        for leaf in leaves
    ]
    return tuple(out)


def _log_known_empty(pool: Pool) -> bool:
    """zpool said "errors: No known data errors" (and no 8A): the pool's error log is empty now.
    A scrub's "with N errors" is history then: the damaged blocks were freed since (the file
    deleted or rewritten, its snapshots destroyed; 2.2+ drops a freed block's entry) or the log
    was cleared by a later clean pass. Not known-lost data now (corpus 234)."""
    return pool.error_count == 0 and not pool.error_files and pool.msgid != DATA_ERRORS_MSGID


def _scrub_story(pool: Pool, scan: Scan, leaves: Sequence[Vdev]) -> Finding:
    unrepaired = (scan.errors or 0) > 0
    gone = unrepaired and _log_known_empty(pool)
    lost = unrepaired and not gone
    counts = fmt_list([f"{leaf.label} ({_describe_counts(_counts(leaf))})" for leaf in leaves])
    if scan.state == "scanning":
        head = f"the running scrub has repaired {fmt_bytes(scan.processed or 0)} so far"
    elif scan.state == "finished":
        head = f"the scrub finished {fmt_time(scan.end_time)} and repaired {fmt_bytes(scan.processed or 0)}"
    else:
        head = f"the last scrub ({scan.state}) repaired {fmt_bytes(scan.processed or 0)}"
    tail = (
        f", {plural(scan.errors or 0, 'block')} unrepairable"
        + ("; none in the error log now" if gone else "")
        if unrepaired
        else ", nothing unrepairable"
    )
    return Finding(
        ID,
        Severity.CRITICAL if lost else Severity.WARNING,
        pool.name,
        pool.name,
        "pool",
        topic="scrub-repair",
        title=f"{pool.name}: {head} on {counts}{tail}",
        why=(
            "A scrub reads every block and checks it against its checksum; these counts are what it "
            "found and repaired from redundancy: the devices returned wrong or unreadable data. "
            + (
                "Some blocks could not be repaired from any copy: see the data errors. "
                if lost
                else "It could not repair some blocks, but zpool lists no data errors now: those "
                "blocks were freed since (the file deleted or rewritten, its snapshots destroyed) "
                "or a later pass cleared the log. Nothing is known lost now. "
                if gone
                else "Nothing was lost. "
            )
            + stories.SCRUB_RULE
            + " "
            + LOOK
            + " "
            + stories.SCRUB_ADVICE
        ),
        evidence=(
            (
                "Scrub",
                f"{scan.state}, repaired {fmt_bytes(scan.processed or 0)}, "
                f"{plural(scan.errors or 0, 'unrepairable error')}",
            ),
            *_error_evidence(leaves),
        ),
        actions=_after_errors(pool, leaves),
    )


def _where(pool: Pool, leaf: Vdev) -> str:
    """' in mirror-0' (the vdev a leaf belongs to), '' for a single-disk vdev."""
    top = next((t for t in pool.top_level if not t.is_leaf and any(x is leaf for x in t.leaves())), None)
    return f" in {top.name}" if top is not None else ""


def _failing(pool: Pool, leaf: Vdev, seen: _Leaf) -> Finding:
    return Finding(
        ID,
        Severity.CRITICAL,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label}{_where(pool, leaf)}: {_describe_counts(_counts(leaf))} and growing",
        why=(
            f"Its error counters rose by {seen.outside_scrub} while no scrub was running (last at "
            f"{fmt_time(seen.last_growth)}): the device is failing requests now. ZFS repairs what it "
            "can from redundancy, but every error spends some of it. "
            + LOOK
            + " If the disk is at fault, replace it while the vdev still has its redundancy."
        ),
        evidence=(
            ("Errors", _describe_counts(_counts(leaf))),
            ("Grown (outside scrubs)", str(seen.outside_scrub)),
            ("Last growth", fmt_time(seen.last_growth)),
            ("State", leaf.state),
        ),
        actions=_after_errors(pool, [leaf]),
    )


def _static(pool: Pool, leaf: Vdev, one_look: bool = False) -> Finding:
    return Finding(
        ID,
        Severity.WARNING,
        pool.name,
        leaf.label,
        "leaf",
        title=f"{leaf.label}{_where(pool, leaf)}: {_describe_counts(_counts(leaf))}",
        why=(
            "Read/write errors are requests the device failed; checksum errors are data that came back "
            "wrong. ZFS repaired what it could from redundancy. "
            + (
                "These counts are as of this output, one moment: whether they still grow is not in "
                "it. Counts that do not grow point"
                if one_look
                else "These counts have not grown while zdash watched: they point"
            )
            + " to a past event (a cable, a controller reset, a power loss) or a disk "
            "starting to fail. " + LOOK + " Then `zpool clear`, and scrub: counts that come back point "
            "to the disk."
        ),
        evidence=(("Errors", _describe_counts(_counts(leaf))), ("State", leaf.state)),
        actions=_after_errors(pool, [leaf]),
    )
