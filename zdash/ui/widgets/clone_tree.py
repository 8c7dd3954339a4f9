"""The clone dependency graph as a Tree: filesystems, the snapshots that have clones, and each
clone under its origin snapshot. Rebuilt only when the set of datasets or their relations
change, keeping what was expanded and the cursor; the first time datasets arrive, the cursor
goes to the first origin snapshot (what this view is for)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from rich.style import Style
from textual.reactive import var
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from zdash import fmt
from zdash.model import Dataset
from zdash.ui.clonegraph import CloneGraph, Node
from zdash.ui.markup import cell_text
from zdash.ui.roles import ROLE_CLASSES, Cell, Role, role_styles

Signature = tuple[tuple[str, str, str | None, tuple[str, ...], int | None], ...]


def node_label(node: Node, graph: CloneGraph, parent: Dataset | None) -> Cell:
    """(text, role) runs: Tree renders Rich text, so colours come from the roles' component
    classes (roles.role_styles)."""
    d = node.dataset
    if d.kind == "snapshot":
        n = len(node.children)
        return (
            ("@" + d.name.split("@", 1)[1], "info"),
            (f"  → {n} clone" + ("s" if n != 1 else ""), "muted"),
        )
    clone = graph.is_clone(d.name)
    # Under its origin a clone shows its full name (it lives elsewhere in the namespace).
    name = d.name if clone or parent is None else d.name.rsplit("/", 1)[-1]
    cells: list[tuple[str, Role]] = [
        (name, "bold" if parent is None else "text"),
        (f"  {fmt.size(d.used)}", "muted"),
    ]
    if clone:
        cells.append(("  clone", "warn"))
    if node.snapshots:
        cells.append((f"  +{node.snapshots} snap", "muted"))
    return tuple(cells)


class CloneTree(Tree[str]):
    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | ROLE_CLASSES
    datasets: var[tuple[Dataset, ...]] = var((), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("datasets", id=id)
        self.show_root = False
        self._signature: Signature | None = None
        self._placed = False
        self.graph = CloneGraph(())
        self._styles: dict[Role, Style] = {}

    def on_mount(self) -> None:
        self._styles = role_styles(self)
        self.app.theme_changed_signal.subscribe(self, self._on_theme)
        self._rebuild()

    def _on_theme(self, _theme: object) -> None:
        self._styles = role_styles(self)
        self._signature = None
        self._rebuild()

    def watch_datasets(self) -> None:
        self._rebuild()

    def _rebuild(self) -> None:
        datasets = self.datasets
        sig = tuple((d.name, d.kind, d.origin, d.clones, d.used) for d in datasets)
        if sig == self._signature or not self._styles:
            return
        self._signature = sig
        self.graph = CloneGraph(datasets)
        expanded = {n.data for n in self._all(self.root) if n.is_expanded}
        first = not expanded
        keep = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        for root in self.graph.roots():
            self._add(self.root, root, None, expanded, first)
        self.root.expand()
        target = next((n for n in self._all(self.root) if n.data == keep), None)
        if target is not None:
            self.move_cursor(target)
        if not self._placed and datasets:
            self._placed = True  # once: later the cursor is the viewer's
            # Tree numbers its lines on the next refresh; place the cursor after it.
            self.call_after_refresh(lambda: setattr(self, "cursor_line", self.first_interesting_line()))

    def _add(
        self,
        parent: TreeNode[str],
        node: Node,
        parent_ds: Dataset | None,
        expanded: set[str | None],
        first: bool,
    ) -> None:
        label = cell_text(node_label(node, self.graph, parent_ds), self._styles)
        if node.children:
            branch = parent.add(label, data=node.dataset.name)
            for child in node.children:
                self._add(branch, child, node.dataset, expanded, first)
            if first or node.dataset.name in expanded:
                branch.expand()
        else:
            parent.add_leaf(label, data=node.dataset.name)

    def _all(self, node: TreeNode[str]) -> Iterator[TreeNode[str]]:
        for child in node.children:
            yield child
            yield from self._all(child)

    def first_interesting_line(self) -> int:
        """Where the cursor starts: the first origin snapshot (what this view is for)."""
        for node in self._all(self.root):
            if "@" in (node.data or "") and node.children:
                return node.line if node.line >= 0 else 0
        return 0
