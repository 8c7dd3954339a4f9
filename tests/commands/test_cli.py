"""`zdash plan ACTION`: the command line offers exactly the catalog's actions. zdash.cli keeps its
own copy of the names (importing zdash.actions would slow every `zdash --help`), so this is
where the two are held equal."""

import pytest

from zdash.actions import ACTIONS
from zdash.cli import build_parser, main


def test_plan_help_lists_every_catalog_action_in_order(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line: argparse would wrap inside scrub-pause
    with pytest.raises(SystemExit) as done:
        main(["plan", "--help"])
    assert done.value.code == 0
    (listed,) = [
        ln.split(None, 1)[1] for ln in capsys.readouterr().out.splitlines() if ln.startswith("  ACTION ")
    ]
    assert listed == ", ".join(ACTIONS)


@pytest.mark.parametrize("action", ACTIONS)
def test_plan_accepts_each_catalog_action(action):
    args = build_parser().parse_args(["plan", action, "tank"])
    assert (args.cmd, args.action, args.pool) == ("plan", action, "tank")


def test_plan_refuses_an_action_outside_the_catalog(capsys):
    with pytest.raises(SystemExit) as done:
        main(["plan", "add", "tank", "/dev/sdz"])
    assert done.value.code == 2
    assert "invalid choice: 'add'" in capsys.readouterr().err
