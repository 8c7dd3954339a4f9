"""The expert's story of each fault, told once: what it is, what it does to the pool, and what
to do about it, with what each way out costs. The findings quote these sentences, the bundled
scenarios' descriptions (zdash.scenarios) are made of them, and the docs repeat those
descriptions word for word (tests/test_scenarios.py holds all three to the same words).

A sentence that depends on the pool in front of the admin (which vdev, how much redundancy it
keeps) is a function of exactly those facts, so a finding and a scenario that describe the same
situation say it in the same words.
"""

from __future__ import annotations

from zdash.fmt import plural

# --- a slow disk (deranged_disk) -----------------------------------------------------------------

SLOW_RULE = (
    "One sick disk drags its whole pool: fault it and the pool's speed returns, at the cost of "
    "redundancy until it is replaced."
)
SLOW_LOOK = (
    "Look first: `smartctl -a` (pending and reallocated sectors, CRC errors), the kernel log for "
    "link resets and timeouts, its cable, slot and HBA port."
)
SLOW_RELIEF = (
    "Relief now: `zpool offline` it (`-f` faults it): the speed returns at once, and its vdev can "
    "lose one disk fewer until it is replaced."
)
SLOW_SAFE = (
    "Safe: `zpool replace` it onto a new disk while it stays in (on a mirror, `zpool attach` "
    "beside it works too): no redundancy lost, but slow until the resilver ends."
)


def slow_relief_here(top: str, left_after: int) -> str:
    """What relief now costs this vdev: `left_after` is what the redundancy model says it could
    still lose with the slow disk out (zdash.redundancy.margin(top, without=disk).left)."""
    if left_after >= 1:
        return f"Here {top} can still lose {plural(left_after, 'more disk')} with it out."
    if left_after == 0:
        return f"Here {top} would have no redundancy left with it out: relief now is a risk to accept."
    return f"Here {top} cannot serve its data without it: only the safe way applies."


def slow_disk(top: str, left_after: int) -> tuple[str, ...]:
    """The whole story for one slow disk in `top`, in the order an expert works."""
    return (SLOW_RULE, SLOW_LOOK, SLOW_RELIEF, SLOW_SAFE, slow_relief_here(top, left_after))
