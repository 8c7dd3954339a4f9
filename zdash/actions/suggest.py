"""From a check's SuggestedAction to a plan Request. The checks name the catalog action and
give an argv; for attach that argv is only a prefix (the new disk is the admin's choice), for
replace the new disk is optional (none: in place, after swapping the disk in the same slot).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from zdash.actions.plan import ActionName, Request, is_action
from zdash.checks.finding import SuggestedAction

# What the confirm screen must ask for before a plan can be built.
NewDevice: TypeAlias = Literal["required", "optional"]
NEW_DEVICE: dict[ActionName, NewDevice] = {"attach": "required", "replace": "optional"}


class NotGuided(ValueError):
    """A suggestion with no catalog action (a read-only command to copy): nothing to plan."""


def request_from_suggestion(s: SuggestedAction, new_device: str | None = None) -> Request:
    argv, action = tuple(s.argv), s.action
    if action is None or not is_action(action) or len(argv) < 3:
        raise NotGuided(f"{s.label!r} is not a guided action")
    if action == "promote":  # zfs promote DATASET
        return Request("promote", argv[-1].split("/", 1)[0].split("@", 1)[0], argv[-1])
    operands = [a for a in argv[2:] if not a.startswith("-")]
    flags = [a for a in argv[2:] if a.startswith("-")]
    pool, rest = operands[0], operands[1:]
    if action == "scrub":  # -p pauses, -s stops, else start/resume
        return Request("scrub-pause" if "-p" in flags else "scrub-stop" if "-s" in flags else "scrub", pool)
    device = rest[0] if rest else None
    new = new_device or (rest[1] if len(rest) > 1 else None)
    return Request(action, pool, device, new)


def needs_new_device(s: SuggestedAction) -> NewDevice | None:
    """'required' (attach; a replace the suggestion says needs a new disk), 'optional' (replace)
    or None (any other action, or none)."""
    action = s.action or ""
    if not is_action(action) or action not in NEW_DEVICE:
        return None
    return "required" if s.new_device == "required" else NEW_DEVICE[action]
