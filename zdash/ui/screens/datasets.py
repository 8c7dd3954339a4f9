"""The datasets view: the clone dependency graph (origin → clones) on the left; on the right,
the highlighted dataset and everything `zfs destroy -R` on it would take."""

from __future__ import annotations

from typing import ClassVar

from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static, Tree

from zdash import fmt
from zdash.feed.frame import Frame
from zdash.ui.app import ZdashApp
from zdash.ui.clonegraph import CloneGraph
from zdash.ui.markup import NEWLINE, join, tag
from zdash.ui.widgets.clone_tree import CloneTree
from zdash.ui.widgets.status_bar import StatusBar


def detail_content(graph: CloneGraph, name: str | None) -> Content:
    d = graph.by_name.get(name or "")
    if d is None:
        if not graph.by_name:
            return tag("No dataset list yet (zfs list runs about once a minute).", "$foreground-muted")
        return tag("Select a dataset or snapshot.", "$foreground-muted")
    lines: list[Content | str] = [
        tag(d.name, "bold"),
        tag(d.kind + (f", clone of {d.origin}" if d.origin else ""), "$foreground-muted"),
        "",
    ]
    facts = [("used", fmt.size(d.used)), ("refer", fmt.size(d.refer))]
    if d.used_by_dataset is not None:
        facts.append(("own data", fmt.size(d.used_by_dataset)))
    if d.used_by_snapshots is not None:
        facts.append(("in snapshots", fmt.size(d.used_by_snapshots)))
    lines.append(Content("  ").join(join(tag(k, "$foreground-muted"), f" {v}") for k, v in facts))
    taken = graph.destroyed_by(d.name)
    lines += ["", tag(f"zfs destroy -R {d.name}", "bold $text-accent")]
    if "/" not in d.name and "@" not in d.name:
        lines.append(
            tag(
                "  not possible on a pool's root dataset (that is zpool destroy); "
                f"everything under it is {len(taken)}:",
                "$zd-warn",
            )
        )
    elif not taken:
        lines.append(tag("  takes nothing else: nothing depends on it", "$zd-ok"))
    else:
        lines.append(tag(f"  would also destroy {len(taken)}:", "$zd-warn"))
    for n in taken:
        kind = "clone" if graph.is_clone(n) else graph.by_name[n].kind
        lines.append(join("    ", tag(n), "  ", tag(kind, "$foreground-muted")))
    if d.origin:
        lines += [
            "",
            tag(
                "It depends on its origin snapshot: the origin cannot be destroyed "
                f"without it. `zfs promote {d.name}` reverses the dependency.",
                "$foreground-muted",
            ),
        ]
    return NEWLINE.join(lines)


class DatasetsScreen(Screen[None]):
    app = getters.app(ZdashApp)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,d", "app.pop_screen", "Dashboard", tooltip="Back to the dashboard"),
        Binding("question_mark", "help", "Keys", tooltip="This help"),
        Binding("q", "app.quit", "Quit", tooltip="Quit zdash"),
    ]

    def compose(self) -> ComposeResult:
        yield StatusBar()
        with Horizontal(id="datasets-body"):
            yield CloneTree(id="clone-tree")
            with VerticalScroll(id="dataset-detail-scroll"):
                yield Static(id="dataset-detail")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        tree = self.query_one(CloneTree)
        tree.border_title = "Datasets · origin → clones"
        self.query_one("#dataset-detail-scroll").border_title = "destroy -R"
        self.watch(self.app, "frame", self._on_frame, init=True)
        tree.focus()

    def _on_frame(self, frame: Frame | None) -> None:
        if frame is None or not self.is_current:
            return
        self.query_one(CloneTree).datasets = frame.snapshot.datasets  # rebuilt now, if they changed
        self._detail()

    def on_screen_resume(self) -> None:
        self._on_frame(self.app.frame)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        self._detail()

    def _detail(self) -> None:
        tree = self.query_one(CloneTree)
        name = tree.cursor_node.data if tree.cursor_node is not None else None
        self.query_one("#dataset-detail", Static).update(detail_content(tree.graph, name))

    def action_help(self) -> None:
        from zdash.ui.screens.help import DATASETS_KEYS, DATASETS_LEGEND, HelpScreen

        self.app.push_screen(HelpScreen(self, DATASETS_KEYS, DATASETS_LEGEND))
