"""Redundancy per top-level vdev (zdash.redundancy's margins): CRITICAL with nothing left to
lose, naming the disks it runs on; WARNING when reduced but not gone; what to do per device out
of service, by its state."""

from __future__ import annotations

from zdash.checks import stories
from zdash.checks._common import act
from zdash.checks.finding import Finding, Severity, SuggestedAction
from zdash.checks.health.common import ID, STATE_WHY, counts, describe_counts, state_text, zpool_says
from zdash.fmt import fmt_list, plural
from zdash.model import Pool, Vdev
from zdash.redundancy import Margin

LABEL_MSGID = "ZFS-8000-4J"  # a device's label is missing or invalid: replace it


def vdev_redundancy(pool: Pool, m: Margin) -> Finding | None:
    if not m.reduced:
        return None
    top = m.top
    log = top.vclass == "log"
    gone = [f"{leaf.known_as} {state_text(leaf)}" for leaf in m.lost]
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
    failing_source = [leaf for leaf in m.whole if any(counts(leaf))] if m.exhausted else []
    advice = _advice(pool, m)
    if catching_up and failing_source:
        errs = "; ".join(f"{leaf.label}: {describe_counts(counts(leaf))}" for leaf in failing_source)
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
        errs = describe_counts(counts(leaf))
        evidence.append((leaf.label, f"{state_text(leaf)}: {reason}" + (f"; {errs}" if errs else "")))
        if leaf.was:
            evidence.append(("Was", leaf.was))
    if rebuilding_on:
        evidence.append((resilvering.capitalize(), fmt_list(rebuilding_on)))
    evidence += zpool_says(pool)
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


def unshown_vdev(pool: Pool, top: Vdev, lost: tuple[Vdev, ...]) -> Finding:
    """Devices out of service in a vdev the input did not show (bare device rows pasted without
    their vdev's row, corpus 211): what the vdev survives depends on a layout nobody pasted.
    Two out of one vdev leave no redundancy short of triple parity or a 4-way mirror; one out
    leaves none in a 2-way mirror or raidz1, one more failure in raidz2."""
    two = len(lost) >= 2
    gone = "; ".join(f"{leaf.known_as} {state_text(leaf)}" for leaf in lost)
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
                state_text(leaf) + (f", {describe_counts(counts(leaf))}" if any(counts(leaf)) else ""),
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
