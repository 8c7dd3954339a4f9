"""Content for the plan screen, from the action engine's data alone (no widgets), so what the
admin reads before confirming is tested as text: the exact command, what it does, every
pre-flight check with its verdict and reason, and afterwards what happened."""

from __future__ import annotations

import shlex

from textual.content import Content

from zdash.actions import ActionPlan, Mark, Outcome, Progress
from zdash.ui.markup import join, lines, tag
from zdash.visible import visible

# Every mark (tests hold this to actions.Mark): a risk accepted explicitly reads as a warning.
MARK_VAR: dict[Mark, str] = {
    "PASS": "$zd-ok",
    "FAIL": "$zd-crit",
    "ACCEPTED": "$zd-warn",
    "WARN": "$zd-warn",
}
# One line at 80 columns: the prompt under it must stay in view on a small terminal.
PRACTICE_NOTE = "Practice on a recording: confirm as on the live host; nothing will run."


def practised_content(plan: ActionPlan) -> Content:
    """After a confirmation in a replay: that nothing ran, and exactly what would have."""
    where = f" on {plan.host}" if plan.host else ""
    return lines(
        (
            join(
                tag("practice: nothing was run.", "bold $zd-warn"),
                " ",
                tag(f"On the live host{where}, zdash checks the pool once more, then runs:"),
            ),
            tag(f"$ {plan.shell_text}", "bold $text-accent"),
            tag(f"argv: {list(plan.argv)!r}", "$foreground-muted"),
        )
    )


def _duration(text: str | None) -> str:
    """The catalog says "seconds" for the quick ones: as a sentence, "a few seconds"."""
    if not text:
        return "unknown"
    return "a few seconds" if text == "seconds" else text


def command_content(plan: ActionPlan) -> Content:
    """Shown above everything else, never scrolled away: this is what would run, and where (a
    fleet's pool: its host's name as the prompt, and the words that say so)."""
    if not plan.argv:
        return tag("(no command: the request names nothing to act on)", "bold $text-accent")
    if plan.host:
        return lines(
            (
                tag(f"{plan.host}$ {plan.shell_text}", "bold $text-accent"),
                tag(f"runs on {plan.host}, over ssh", "bold $zd-warn"),
            )
        )
    return tag(f"$ {plan.shell_text}", "bold $text-accent")


def plan_content(plan: ActionPlan, exact: tuple[str, ...] = ()) -> Content:
    """`exact`: the argv this host starts when it is not the plan's own (ssh to the plan's host)."""
    out: list[Content | str] = [tag(plan.summary)] if plan.summary else []
    if plan.disruptive:
        out.append(tag("Disruptive: review the checks below before you confirm.", "bold $zd-warn"))
    out += [
        "",
        join(tag("Takes", "$foreground-muted"), "  ", tag(_duration(plan.duration))),
        "",
        tag("Pre-flight checks", "bold $text-primary"),
    ]
    for c in plan.checks:
        out.append(
            join(
                "  ", tag(c.mark, "bold " + MARK_VAR[c.mark]), "  ", tag(c.name, "bold"), ": ", tag(c.reason)
            )
        )
    if plan.alternatives:
        out += [
            "",
            tag(
                "Instead you may want: " + ", ".join(plan.alternatives) + " (offered by the finding)",
                "$foreground-muted",
            ),
        ]
    if exact:
        out += [
            "",
            tag(
                f"Exactly what starts here (no shell on this side; {plan.host} runs the words after --)",
                "bold",
            ),
            tag(shlex.join(exact), "$foreground-muted"),
        ]
    return lines(out)


def outcome_line(out: Outcome) -> Content:
    """One line for the fixed bottom of the screen; the details go to outcome_content."""
    if out.ok:
        where = f" on {out.plan.host}" if out.plan.host else ""
        return tag(f"✓ Done: {out.plan.shell_text} exited 0{where}.", "bold $zd-ok")
    if out.status == "failed":
        first = visible(next((line for line in out.stderr.splitlines() if line.strip()), ""))
        return tag(f"✖ Failed: exit code {out.rc}" + (f": {first}" if first else "."), "bold $zd-crit")
    return tag(f"✖ Refused, nothing ran: {out.refused_reason}", "bold $zd-crit")


def preflight_tally(plan: ActionPlan) -> Content:
    """Next to the prompt, which stays in view while the checks may be scrolled away."""
    marks = [c.mark for c in plan.checks]
    order: tuple[Mark, ...] = ("FAIL", "ACCEPTED", "WARN", "PASS")  # worst first
    parts = [f"{marks.count(m)} {m}" for m in order if m in marks]
    worst: Mark = next((m for m in order if m in marks), "PASS")
    return tag("Pre-flight: " + ", ".join(parts) + ".", MARK_VAR[worst])


def outcome_content(out: Outcome, audit_path: str) -> Content:
    """The details under the checks; the verdict itself is outcome_line, shown at the bottom."""
    rows: list[Content | str] = ["", tag("Outcome", "bold $text-primary")]
    if out.rc is not None:
        rows.append(tag(f"exit code {out.rc}", "$foreground-muted"))
    # A command's own output is outside text: the runner's sample went through no builder.
    rows += [join("  ", tag(visible(line), "$zd-crit")) for line in out.stderr.rstrip().splitlines()]
    rows += [join("  ", tag(visible(line))) for line in out.stdout.rstrip().splitlines()]
    if out.status == "refused":
        rows.append(tag(f"Nothing ran: {out.refused_reason}", "$zd-crit"))
    if out.difference:
        rows += ["", tag("What changed since the plan was made:", "bold")]
        rows += [join("  ", tag(d, "$zd-crit" if d.startswith("-") else "$zd-ok")) for d in out.difference]
        rows.append(tag("Close this and open the plan again to review the new state.", "$foreground-muted"))
    rows.append(tag(f"Recorded in the audit log {audit_path}", "$foreground-muted"))
    return lines(rows)


def progress_line(p: Progress) -> Content:
    text = f"Now: {p.text}" + (" ✓" if p.done else "  (updates with each sample)")
    return tag(text, "bold $zd-ok" if p.done else "$text-primary")
