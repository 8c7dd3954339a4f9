"""Threshold ranges as the Monitoring Plugins guidelines define them
(monitoring-plugins.org/doc/guidelines.html#THRESHOLDFORMAT), for `zdash check -w/-c`:

    [@]start:end    start defaults to 0, `~` is minus infinity, an empty end is infinity;
                    alert when the value is outside start..end (ends included), or inside with `@`

    80       alert above 80 (outside 0..80)     80:    alert below 80
    ~:80     alert above 80, negatives too      @70:80 alert from 70 to 80, ends included

Pure: text in, a Range or a ValueError whose message an admin can act on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EXAMPLES = "80 (above 80), 10: (below 10), ~:80, 70:80 (outside) or @70:80 (inside)"


@dataclass(frozen=True, slots=True)
class Range:
    start: float
    end: float
    inside: bool  # `@`: alert inside start..end instead of outside it
    text: str  # as given: what perfdata's warn/crit fields carry

    @classmethod
    def parse(cls, text: str) -> Range:
        body = text.strip()
        inside = body.startswith("@")
        if inside:
            body = body[1:]
        start_text, sep, end_text = body.rpartition(":") if ":" in body else ("", "", body)
        try:
            start = -math.inf if start_text == "~" else _number(start_text) if start_text else 0.0
            end = math.inf if sep and end_text == "" else _number(end_text)
        except ValueError:
            raise ValueError(f"{text!r} is not a threshold range: use {EXAMPLES}") from None
        if start > end:
            raise ValueError(f"{text!r}: the range's start is above its end")
        return cls(start, end, inside, text.strip())

    def alerts(self, value: float) -> bool:
        within = self.start <= value <= self.end
        return within if self.inside else not within


def _number(text: str) -> float:
    v = float(text)  # ValueError for anything else
    if not math.isfinite(v):
        raise ValueError(text)
    return v
