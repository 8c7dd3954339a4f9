"""The confirmation rule the confirm screen applies, kept pure so it is tested once here and
the UI cannot get it subtly wrong.

- Nothing is ever confirmed by Enter alone: Enter is what a hurried admin presses to get past
  a dialog, which is exactly the accident this screen exists to stop.
- A plan whose pre-flight fails cannot be confirmed at all.
- Plans with a confirm_token (detach, replace, offline: the device that goes; attach: the disk
  that gets overwritten) need that name typed, then submitted (Enter). The full path or its
  last component is accepted, exactly, case-sensitive: "sdb" must not confirm "sdb1".
- The rest (scrub start/pause/stop, clear, online, promote) need the explicit key "y".
"""

from __future__ import annotations

import os

from zdash.actions.plan import ActionPlan

CONFIRM_KEY = "y"
SUBMIT_KEY = "enter"


def accepted_answers(plan: ActionPlan) -> frozenset[str]:
    token = plan.confirm_token
    if not token:
        return frozenset()
    return frozenset({token, os.path.basename(token.rstrip("/"))} - {""})


def prompt(plan: ActionPlan) -> str:
    """What the confirm screen asks, in one line."""
    if not plan.ok:
        return "Pre-flight failed: this plan cannot run."
    where = f" on {plan.host}" if plan.host else ""
    if plan.confirm_token:
        short = os.path.basename(plan.confirm_token)
        also = f" (or {plan.confirm_token})" if short != plan.confirm_token else ""
        return f"Type {short}{also} and press Enter to run it{where}."
    return f"Press {CONFIRM_KEY} to run it{where}, Escape to cancel."


def confirmation_ok(plan: ActionPlan, typed_text: str | None, key: str) -> bool:
    """key: the Textual key name that submitted ("enter", "y", ...); typed_text: the input box's
    content (None when the screen has none)."""
    if not plan.ok:
        return False
    key = (key or "").lower()
    if plan.confirm_token:
        return key == SUBMIT_KEY and (typed_text or "").strip() in accepted_answers(plan)
    return key == CONFIRM_KEY
