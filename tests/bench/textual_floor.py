#!/usr/bin/env python3
"""The least a Textual dashboard costs: a header, a footer and one table of `--rows` rows of
eight figures, every figure changed once a second (what a pool's per-vdev rates do). No ZFS,
no parsing, no checks, no charts: run beside zdash by tests/bench/lab_cpu.py, it tells how
much of the dashboard's CPU any Textual app updating that screen would spend anyway.

Two smaller floors say what Textual costs before any table: `--label`, one line of text
changed once a second (the least a 1 Hz Textual screen can show), and `--idle`, the same
screen never changed (Textual's own timers and input loop, nothing drawn after the first
frame).

    .venv/bin/python -m tests.bench.textual_floor [--rows 10 | --label | --idle]
"""

from __future__ import annotations

import argparse
import random

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header, Static

COLUMNS = ("name", "alloc", "free", "r/s", "w/s", "rMB/s", "wMB/s", "%util")


class Floor(App[None]):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        for i in range(self.rows):
            table.add_row(f"vdev-{i}", *self._figures(), key=str(i))
        self.set_interval(1.0, self.tick)

    def _figures(self) -> list[str]:
        return [f"{random.random() * 100:.1f}" for _ in COLUMNS[1:]]

    def tick(self) -> None:
        table = self.query_one(DataTable)
        for i in range(self.rows):
            for column, value in zip(table.columns, self._figures()):
                table.update_cell(str(i), column, value)


class Label(App[None]):
    """One Static: changed once a second (`changing`), or never."""

    def __init__(self, changing: bool) -> None:
        super().__init__()
        self.changing = changing

    def compose(self) -> ComposeResult:
        yield Static("0.0 MB/s", id="figure")

    def on_mount(self) -> None:
        if self.changing:
            self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.query_one("#figure", Static).update(f"{random.random() * 100:.1f} MB/s")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=10)
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--label", action="store_true", help="one line of text changed once a second")
    kind.add_argument("--idle", action="store_true", help="one line of text, never changed")
    args = p.parse_args()
    app: App[None] = Label(args.label) if args.label or args.idle else Floor(args.rows)
    app.run()


if __name__ == "__main__":
    main()
