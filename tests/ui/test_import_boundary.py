"""Only zdash/ui imports Textual: the headless commands (record, summary, check) and the core
modules must run on a server without it. Checked in a fresh interpreter."""

import subprocess
import sys

HEADLESS = (
    "zdash.cli",
    "zdash.builder",
    "zdash.checks.registry",
    "zdash.commands.record",
    "zdash.sources.replay",
    "zdash.config",
    "zdash.model",
)


def test_core_modules_do_not_import_textual():
    code = (
        "import importlib, sys\n"
        f"for m in {HEADLESS!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')"
        " or m.startswith('textual_plotext'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Textual loaded by a headless module: {out.stdout}"


def test_cli_help_and_parsing_do_not_import_textual():
    code = (
        "import sys\nfrom zdash import cli\n"
        "a = cli._parse(['replay', 'x.yaml', '--wall', '--speed', '4'])\n"
        "b = cli._parse(['--theme', 'zdash-light', '--interval', '2', 'tank', 'backup'])\n"
        "c = cli._parse(['--demo'])\n"
        "assert (a.cmd, a.file, a.wall, a.speed) == ('replay', 'x.yaml', True, 4.0), a\n"
        "assert (b.cmd, b.pools, b.theme, b.interval) == (None, ['tank', 'backup'], 'zdash-light', 2.0), b\n"
        "assert (c.cmd, c.demo, c.pools) == (None, True, []), c\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
