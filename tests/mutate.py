"""Mutations of real command outputs for the hypothesis fuzz tests: cut short, spliced, lines
duplicated, swapped or re-indented, tabs and spaces exchanged — what a truncated pipe, a
terminal paste or a format change between releases does to the text a parser reads."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# A fuzz test's settings: no deadline (a cold parse can take a while on a shared CI core), no
# example database (a run leaves nothing behind), and mutated seeds are large by design.
FUZZED = settings(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

OPS = ("cut", "drop", "insert", "dupline", "tabs", "indent", "swap")


def edits(snippet: st.SearchStrategy[str], ops=OPS, max_length: int = 60, max_size: int = 5):
    return st.lists(
        st.tuples(st.sampled_from(ops), st.integers(0, 1 << 16), st.integers(0, max_length), snippet),
        max_size=max_size,
    )


def apply_edits(text: str, edits) -> str:
    for op, at, length, snippet in edits:
        i = at % (len(text) + 1)
        j = min(len(text), i + length)
        start = text.rfind("\n", 0, i) + 1
        if op == "cut":
            text = text[:i]
        elif op == "drop":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + snippet + text[i:]
        elif op == "dupline":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end + 1
            text = text[:end] + text[start:end] + text[end:]
        elif op == "tabs":
            text = text[:i] + text[i:j].replace("\t", "        ").replace("  ", "\t") + text[j:]
        elif op == "indent":
            text = text[:start] + snippet.replace("\n", "")[:4] + "  " + text[start:]
        elif op == "swap":
            lines = text.split("\n")
            k, m = at % max(1, len(lines)), (at + length) % max(1, len(lines))
            lines[k], lines[m] = lines[m], lines[k]
            text = "\n".join(lines)
    return text


def mutated(seeds: list[str], snippet: st.SearchStrategy[str], max_length: int = 40, max_size: int = 4):
    """One of the real `seeds`, edited a few times."""
    return st.builds(
        apply_edits, st.sampled_from(seeds), edits(snippet, max_length=max_length, max_size=max_size)
    )
