"""`zdash replay FILE|NAME` (the dashboard on a recording or a bundled scenario) and
`zdash replay --list` (the bundled scenarios, headless)."""

from __future__ import annotations

import sys
from argparse import Namespace

from zdash import scenarios


def run(args: Namespace) -> int:
    if args.list:
        return scenarios.print_list()
    if not args.file:
        print("zdash replay: give a session file or a scenario name (zdash replay --list)", file=sys.stderr)
        return 2
    args.file = scenarios.path_of(args.file)
    from zdash.commands.dashboard import run as dashboard

    return dashboard(args)
