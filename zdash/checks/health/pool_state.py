"""The pool as a whole: a pool that cannot serve its data (FAULTED, UNAVAIL, SUSPENDED, or I/O
suspended by zpool's word), one zpool calls DEGRADED with nothing zdash sees to explain it, and
permanent data errors."""

from __future__ import annotations

from zdash.checks._common import act
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.checks.health.common import DATA_ERRORS_MSGID, ID, counts, last_scrub, log_known_empty, zpool_says
from zdash.fmt import fmt_list, plural
from zdash.model import CANNOT_SERVE, UNSEEN, Pool

# zpool's status codes that say more than the pool's state word: HC and JQ are printed only for a
# pool whose I/O is suspended (failmode=wait / continue), 8A only when its error log holds
# permanent errors - whatever the state reads and whether or not the paste shows the error list.
SUSPENDED_MSGIDS = {"ZFS-8000-HC", "ZFS-8000-JQ"}


def pool_state(pool: Pool, explained: bool) -> Finding | None:
    suspended = pool.state == "SUSPENDED" or (
        pool.msgid in SUSPENDED_MSGIDS and pool.state not in CANNOT_SERVE
    )
    if not suspended and (pool.state in ("ONLINE", UNSEEN) or (pool.state == "DEGRADED" and explained)):
        return None
    actions: tuple[SuggestedAction, ...] = ()
    if pool.state in CANNOT_SERVE or suspended:
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
        evidence=(("State", pool.state), *zpool_says(pool)),
        actions=actions,
    )


def data_errors(pool: Pool) -> Finding | None:
    scrub = last_scrub(pool)
    # A scrub that finished "with N errors" could not repair N blocks; with no device counters
    # (cleared, or a paste cut before them) no scrub-repair finding says so: this one does.
    unrepaired = (
        scrub.errors
        if scrub is not None
        and scrub.state == "finished"
        and scrub.errors
        and not log_known_empty(pool)
        and not any(any(counts(leaf)) for leaf in pool.leaves())
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
