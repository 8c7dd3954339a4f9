"""`zpool status` in either dialect: JSON when the command asked for it, text otherwise."""

from __future__ import annotations

from zdash.model import Pool, Vdev
from zdash.parse.reuse import Reuse
from zdash.parse.zpool_status.json_tree import parse_status_json
from zdash.parse.zpool_status.text import parse_status_text

# Short options of `zpool status` that consume the next characters as their argument
# (getopt "c:igLpPsvxDtT:" + "j" in 2.3): in "-Td" the 'd' is not a flag.
_TAKES_ARGUMENT = frozenset("cT")


def wants_json(argv: list[str]) -> bool:
    """True when argv asks for JSON: -j (also inside a cluster like -jp), --json, --json-*."""
    for arg in argv:  # program and subcommand words never start with '-'
        if arg == "--":
            break
        if arg.startswith("--json"):
            return True
        if arg.startswith("-") and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter == "j":
                    return True
                if letter in _TAKES_ARGUMENT:
                    break
    return False


def parse_status(argv: list[str], stdout: str, reuse: Reuse[Vdev] | None = None) -> tuple[Pool, ...]:
    """Pools from the output of the command line `argv` (e.g. ["zpool", "status", "-j"]).
    `reuse`: what the caller's last parse built, kept where its input is unchanged (JSON: each
    leaf, by its object; text: the whole tree, by its config table; see zdash.parse.reuse).

    "no pools available" goes to stderr (§0), but a caller that merged the streams gets it
    here: it means no pools, not a parse failure.
    """
    if stdout.strip() == "no pools available":
        return ()
    if wants_json(list(argv)):
        return parse_status_json(stdout, reuse)
    return parse_status_text(stdout, reuse)
