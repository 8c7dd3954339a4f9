"""The findings, worst first: one row each (severity, pool, title); Enter opens the finding's
why, evidence and suggested actions. Rows are keyed by Finding.key, so the cursor stays on a
finding while its title changes tick by tick."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from zdash.checks.finding import Finding
from zdash.ui.palette import SEVERITY_ICON, palette, severity_role

NONE_KEY = "-"


def finding_id(f: Finding) -> str:
    return "\x1f".join(str(k) for k in f.key)


class FindingsTable(DataTable):
    class Open(Message):
        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", show_header=False, **kwargs)
        self._by_id: dict[str, Finding] = {}
        self._order: list[str] = []
        self._cells: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}
        self._findings: Sequence[Finding] = ()
        self._pool_prefix = False

    def on_mount(self) -> None:
        self._pal = palette(self.app)
        self._title_width = 0
        self.app.theme_changed_signal.subscribe(self, self._on_theme)

    def on_resize(self) -> None:
        self.show(self._findings)

    def _fit_columns(self) -> bool:
        """The title column takes the rest of the width (DataTable has no 1fr columns), so a
        long title ends in an ellipsis instead of scrolling sideways. True when rebuilt."""
        width = max(20, self.size.width - 6 - 2 * 2 - 2)
        if width == self._title_width:
            return False
        self._title_width = width
        self.clear(columns=True)
        self.add_column("sev", width=6, key="sev")
        self.add_column("title", width=width, key="title")
        return True

    def _on_theme(self, _theme: object) -> None:
        self._pal = palette(self.app)
        self._order = []  # force a full redraw in the new colours
        self.show(self._findings)

    def _row(self, f: Finding | None) -> tuple[tuple[str, str], tuple[str, str]]:
        if f is None:
            return ("✓", "ok"), ("nothing to report: no check found anything", "muted")
        # With several pools, say which one; with one, the pool name is noise.
        prefix = self._pool_prefix and f.pool and not f.title.startswith(f.pool)
        title = f"{f.pool}: {f.title}" if prefix else f.title
        return (SEVERITY_ICON[f.severity], severity_role(f.severity)), (title, "text")

    def _text(self, cell: tuple[str, str]) -> Text:
        return Text(cell[0], style=self._pal.get(cell[1], ""), no_wrap=True, overflow="ellipsis")

    def show(self, findings: Sequence[Finding], pool_prefix: bool | None = None) -> None:
        self._findings = findings
        if pool_prefix is not None and pool_prefix != self._pool_prefix:
            self._pool_prefix, self._order = pool_prefix, []
        self._by_id = {finding_id(f): f for f in findings}
        order = list(self._by_id) or [NONE_KEY]
        cells = {k: self._row(self._by_id.get(k)) for k in order}
        self.border_title = f"Findings ({len(findings)})" if findings else "Findings"
        keep = self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None
        with self.app.batch_update():
            if self._fit_columns() or order != self._order:
                self.clear()
                for k in order:
                    self.add_row(*(self._text(c) for c in cells[k]), key=k)
                if keep in cells:
                    self.move_cursor(row=order.index(keep), animate=False)
            else:
                for k in order:
                    for col, (a, b) in zip(("sev", "title"), zip(self._cells.get(k, ((), ())), cells[k])):
                        if a != b:
                            self.update_cell(k, col, self._text(b))
            self._order, self._cells = order, cells

    @property
    def current(self) -> Finding | None:
        if 0 <= self.cursor_row < len(self._order):
            return self._by_id.get(self._order[self.cursor_row])
        return None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        f = self._by_id.get(str(event.row_key.value))
        if f is not None:
            self.post_message(self.Open(f))
