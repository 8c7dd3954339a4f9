"""Health: pool and vdev states, error counters (and whether they are still climbing), and
permanent data errors. One finding for the pool, one per vdev or leaf that has a problem."""

from __future__ import annotations

from collections.abc import Sequence

from zdash.checks._common import act, find_by_key, parents
from zdash.checks.finding import Finding, Severity
from zdash.config import CheckConfig
from zdash.fmt import fmt_duration, fmt_list, plural
from zdash.model import BAD_STATES, Pool, Snapshot, Vdev

ID = "health"

POOL_CRITICAL_STATES = {"FAULTED", "UNAVAIL", "SUSPENDED"}
LOST_STATES = {"FAULTED", "UNAVAIL"}

STATE_WHY = {
    "OFFLINE": "An administrator took it offline: its vdev runs without this copy until it is "
    "onlined (a short resilver catches it up) or replaced.",
    "FAULTED": "ZFS stopped using it after too many errors. Its vdev runs on the remaining "
    "redundancy; replace it, or clear it if the cause was transient.",
    "DEGRADED": "ZFS flagged it after too many checksum or slow I/O errors but still uses it.",
    "UNAVAIL": "The device cannot be opened (missing, unplugged, renamed). If it comes back, "
    "online it; otherwise replace it.",
    "REMOVED": "The device was removed while the system was running. Reattach and online it, or replace it.",
}


def check(history: Sequence[Snapshot], cfg: CheckConfig) -> list[Finding]:
    now, oldest = history[-1], history[0]
    window = now.time - oldest.time
    out: list[Finding] = []
    for pool in now.pools:
        if (f := _pool_finding(pool)) is not None:
            out.append(f)
        before = oldest.pool(pool.name) if len(history) > 1 else None
        up = parents(pool.root)
        out.extend(
            f
            for v in pool.root.walk()
            if v.kind != "root" and (f := _vdev_finding(pool, v, up.get(id(v)), before, window))
        )
    return out


def _pool_finding(pool: Pool) -> Finding | None:
    problems, why, actions = [], [], []
    evidence = [("State", pool.state)]
    severity = Severity.INFO
    if pool.state != "ONLINE":
        severity = Severity.CRITICAL if pool.state in POOL_CRITICAL_STATES else Severity.WARNING
        problems.append(pool.state)
        why.append(
            {
                "DEGRADED": "The pool still serves all data, but some redundancy is gone: one more "
                "failure in the affected vdev can lose data.",
                "SUSPENDED": "ZFS stopped all I/O to the pool because too many devices failed; "
                "applications block until the devices return and `zpool clear` resumes it.",
            }.get(
                pool.state,
                "The pool cannot serve all its data: a top-level vdev is missing or "
                "failed, and the pool needs every one of them.",
            )
        )
        if pool.state == "SUSPENDED":
            actions.append(
                act("Resume the pool once the devices are back", "clear", "zpool", "clear", pool.name)
            )
    if (pool.error_count or 0) > 0 or pool.error_files:
        severity = Severity.CRITICAL
        n = pool.error_count or len(pool.error_files)
        problems.append(plural(n, "permanent data error"))
        evidence.append(("Data errors", str(n)))
        if pool.error_files:
            evidence.append(("Affected", fmt_list(list(pool.error_files))))
        why.append(
            "ZFS found blocks it could not repair from any copy: these files (or metadata) "
            "are damaged. Restore them from backup or delete them, then scrub: the error "
            "list is only cleared by a scrub that no longer finds the damage."
        )
        actions.append(act("Scrub after restoring the files", "scrub", "zpool", "scrub", pool.name))
    if not problems:
        return None
    for label, value in (("Status", pool.status), ("Action", pool.action), ("See", pool.msgid)):
        if value:
            evidence.append((label, " ".join(value.split())))
    return Finding(
        ID,
        severity,
        pool.name,
        pool.name,
        "pool",
        title=f"{pool.name}: {', '.join(problems)}",
        why=" ".join(why),
        evidence=tuple(evidence),
        actions=tuple(actions),
    )


def _errors(v: Vdev) -> tuple[int, int, int]:
    return (v.read_errors, v.write_errors, v.checksum_errors)


def _vdev_finding(
    pool: Pool, v: Vdev, parent: Vdev | None, before: Pool | None, window: float
) -> Finding | None:
    leaf = v.is_leaf
    # A DEGRADED interior or top-level vdev is explained by its leaves; only a lost one is news.
    bad_state = v.state in BAD_STATES and (leaf or v.state in LOST_STATES)
    errs = _errors(v)
    if not bad_state and not any(errs):
        return None
    old = find_by_key(before, v.key) if before else None
    grown = [n - was for n, was in zip(errs, _errors(old))] if old else [0, 0, 0]
    growing = any(g > 0 for g in grown)
    being_replaced = parent is not None and parent.kind == "replacing"
    spared = parent is not None and parent.kind == "spare" and v.state != "ONLINE"
    name = v.label if leaf else v.name
    parts, why, severity = [], [], Severity.INFO
    if bad_state:
        if not leaf or pool.state in POOL_CRITICAL_STATES:
            severity = Severity.CRITICAL  # data is unavailable, not just less redundant
        elif v.vclass != "cache":  # a lost L2ARC device costs only cache hits
            severity = Severity.WARNING
        parts.append(v.state + (f" ({v.aux})" if v.aux else ""))
        why.append(
            "It is being replaced: ZFS resilvers its data onto the new device and detaches "
            "it when done; redundancy is reduced until then."
            if being_replaced
            else "A hot spare has taken its place. Replace it with a new disk and the spare goes "
            "back to standby; until then the pool has one spare fewer."
            if spared
            else STATE_WHY.get(v.state, "")
            if leaf
            else "This top-level vdev is lost: the pool stripes data over all top-level vdevs, "
            "so data on it is unavailable until enough of its devices return."
        )
    if any(errs):
        severity = max(severity, Severity.CRITICAL if growing else Severity.WARNING)
        parts.append(
            ", ".join(plural(n, f"{kind} error") for kind, n in zip(("read", "write", "checksum"), errs) if n)
            + (" and growing" if growing else "")
        )
        why.append(
            "Read/write errors are requests the device failed; checksum errors are data that "
            "came back wrong. ZFS repaired what it could from redundancy"
            + (
                f", but the counters rose within the last {fmt_duration(window)}: the device is failing now."
                if growing
                else ". Counters that stay put after `zpool clear` point to a past event (cable, "
                "controller reset); counters that come back point to the disk."
            )
        )
    evidence = [("State", v.state)] + ([("Note", v.aux)] if v.aux else [])
    for label, n, g in zip(("Read errors", "Write errors", "Checksum errors"), errs, grown):
        if n or g:
            evidence.append((label, f"{n} (+{g} in {fmt_duration(window)})" if g > 0 else str(n)))
    if v.was:
        evidence.append(("Was", v.was))
    where = f" in {parent.name}" if parent is not None and parent.kind != "root" else ""
    return Finding(
        ID,
        severity,
        pool.name,
        name,
        "leaf" if leaf else "vdev",
        title=f"{name}{where}: {', '.join(parts)}",
        why=" ".join(why),
        evidence=tuple(evidence),
        actions=_leaf_actions(pool, v, errs, growing)
        if leaf and not being_replaced and v.vclass != "spare"
        else (),
    )


def _leaf_actions(pool: Pool, v: Vdev, errs: tuple[int, int, int], growing: bool) -> tuple:
    target, actions = v.label, []
    if v.state == "OFFLINE":
        actions.append(act(f"Bring {target} back online", "online", "zpool", "online", pool.name, target))
    elif v.state in ("UNAVAIL", "REMOVED"):
        actions.append(act(f"Online {target} if it is back", "online", "zpool", "online", pool.name, target))
    if v.state in ("FAULTED", "DEGRADED", "UNAVAIL", "REMOVED") or growing:
        actions.append(
            act(
                f"Replace {target} (in place after swapping the disk, or name a new device)",
                "replace",
                "zpool",
                "replace",
                pool.name,
                target,
            )
        )
    if any(errs) or v.state in ("FAULTED", "DEGRADED"):
        actions.append(
            act(f"Reset the error counters of {target}", "clear", "zpool", "clear", pool.name, target)
        )
        actions.append(act("Scrub to verify every block", "scrub", "zpool", "scrub", pool.name))
    return tuple(actions)
