"""Markup for the plan screen, from the action engine's data alone (no widgets), so what the
admin reads before confirming is tested as text: the exact command, what it does, every
pre-flight check with its verdict and reason, and afterwards what happened."""

from __future__ import annotations

import shlex

from zdash.actions import ActionPlan, Mark, Outcome, Progress
from zdash.ui.markup import tag

# Every mark (tests hold this to actions.Mark): a risk accepted explicitly reads as a warning.
MARK_VAR: dict[Mark, str] = {
    "PASS": "$zd-ok",
    "FAIL": "$zd-crit",
    "ACCEPTED": "$zd-warn",
    "WARN": "$zd-warn",
}
REPLAY_NOTE = "Replay: read-only, for training — zdash never runs actions from a recording."


def _duration(text: str | None) -> str:
    """The catalog says "seconds" for the quick ones: as a sentence, "a few seconds"."""
    if not text:
        return "unknown"
    return "a few seconds" if text == "seconds" else text


def command_markup(plan: ActionPlan) -> str:
    """Shown above everything else, never scrolled away: this is what would run, and where (a
    fleet's pool: its host's name as the prompt, and the words that say so)."""
    if not plan.argv:
        return tag("(no command: the request names nothing to act on)", "bold $text-accent")
    if plan.host:
        return (
            tag(f"{plan.host}$ {plan.shell_text}", "bold $text-accent")
            + "\n"
            + tag(f"runs on {plan.host}, over ssh", "bold $zd-warn")
        )
    return tag(f"$ {plan.shell_text}", "bold $text-accent")


def plan_markup(plan: ActionPlan, exact: tuple[str, ...] = ()) -> str:
    """`exact`: the argv this host starts when it is not the plan's own (ssh to the plan's host)."""
    lines = [tag(plan.summary)] if plan.summary else []
    if plan.disruptive:
        lines.append(tag("Disruptive: review the checks below before you confirm.", "bold $zd-warn"))
    lines += [
        "",
        f"{tag('Takes', '$foreground-muted')}  {tag(_duration(plan.duration))}",
        "",
        tag("Pre-flight checks", "bold $text-primary"),
    ]
    for c in plan.checks:
        lines.append(f"  {tag(c.mark, 'bold ' + MARK_VAR[c.mark])}  {tag(c.name, 'bold')}: {tag(c.reason)}")
    if plan.alternatives:
        lines += [
            "",
            tag(
                "Instead you may want: " + ", ".join(plan.alternatives) + " (offered by the finding)",
                "$foreground-muted",
            ),
        ]
    if exact:
        lines += [
            "",
            tag(
                f"Exactly what starts here (no shell on this side; {plan.host} runs the words after --)",
                "bold",
            ),
            tag(shlex.join(exact), "$foreground-muted"),
        ]
    return "\n".join(lines)


def outcome_line(out: Outcome) -> str:
    """One line for the fixed bottom of the screen; the details go to outcome_markup."""
    if out.ok:
        where = f" on {out.plan.host}" if out.plan.host else ""
        return tag(f"✓ Done: {out.plan.shell_text} exited 0{where}.", "bold $zd-ok")
    if out.status == "failed":
        first = next((line for line in out.stderr.splitlines() if line.strip()), "")
        return tag(f"✖ Failed: exit code {out.rc}" + (f": {first}" if first else "."), "bold $zd-crit")
    return tag(f"✖ Refused, nothing ran: {out.refused_reason}", "bold $zd-crit")


def preflight_tally(plan: ActionPlan) -> str:
    """Next to the prompt, which stays in view while the checks may be scrolled away."""
    marks = [c.mark for c in plan.checks]
    order: tuple[Mark, ...] = ("FAIL", "ACCEPTED", "WARN", "PASS")  # worst first
    parts = [f"{marks.count(m)} {m}" for m in order if m in marks]
    worst: Mark = next((m for m in order if m in marks), "PASS")
    return tag("Pre-flight: " + ", ".join(parts) + ".", MARK_VAR[worst])


def outcome_markup(out: Outcome, audit_path: str) -> str:
    """The details under the checks; the verdict itself is outcome_line, shown at the bottom."""
    lines = ["", tag("Outcome", "bold $text-primary")]
    if out.rc is not None:
        lines.append(tag(f"exit code {out.rc}", "$foreground-muted"))
    lines += [f"  {tag(line, '$zd-crit')}" for line in out.stderr.rstrip().splitlines()]
    lines += [f"  {tag(line)}" for line in out.stdout.rstrip().splitlines()]
    if out.status == "refused":
        lines.append(tag(f"Nothing ran: {out.refused_reason}", "$zd-crit"))
    if out.difference:
        lines += ["", tag("What changed since the plan was made:", "bold")]
        lines += [f"  {tag(d, '$zd-crit' if d.startswith('-') else '$zd-ok')}" for d in out.difference]
        lines.append(tag("Close this and open the plan again to review the new state.", "$foreground-muted"))
    lines.append(tag(f"Recorded in the audit log {audit_path}", "$foreground-muted"))
    return "\n".join(lines)


def progress_line(p: Progress) -> str:
    text = f"Now: {p.text}" + (" ✓" if p.done else "  (updates with each sample)")
    return tag(text, "bold $zd-ok" if p.done else "$text-primary")
