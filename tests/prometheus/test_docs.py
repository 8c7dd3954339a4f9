"""The shipped alert rules and Grafana dashboard: valid, about metrics that exist, and doing what
their names say (promtool's own rule unit tests), so an admin can load them as they are."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from zdash.prometheus.metrics import SPECS

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "prometheus" / "zdash.rules.yml"
RULE_TESTS = ROOT / "docs" / "prometheus" / "zdash.rules.test.yml"
DASHBOARD = ROOT / "docs" / "grafana" / "zdash.json"
KNOWN = {s.name for s in SPECS} | {"up", "node_textfile_mtime_seconds"}
COUNTERS = {s.name for s in SPECS if s.kind == "counter"}
_yaml = YAML(typ="safe")
needs_promtool = pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool not installed (apt-get install prometheus)"
)


def metric_names(promql: str) -> set[str]:
    return set(re.findall(r"\b(zdash_[a-z_]+|up|node_[a-z_]+)\s*[{\[]", promql)) | set(
        re.findall(r"\b(zdash_[a-z_]+)\b", promql)
    )


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["promtool", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_rules_use_only_metrics_zdash_exports():
    doc = _yaml.load(RULES.read_text())
    rules = [r for g in doc["groups"] for r in g["rules"]]
    assert {r["alert"] for r in rules} >= {
        "ZfsCriticalFinding",
        "ZfsRedundancyExhausted",
        "ZfsPoolAlmostFull",
        "ZfsPoolFilling",
        "ZdashSourceDown",
        "ZfsSlowDisk",
    }
    for r in rules:
        names = metric_names(r["expr"])
        assert names and names <= KNOWN, (r["alert"], names - KNOWN)
        assert r["labels"]["severity"] in ("critical", "warning")


@needs_promtool
def test_promtool_checks_and_unit_tests_the_rules():
    checked = promtool("check", "rules", RULES.name, cwd=RULES.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", RULE_TESTS.name, cwd=RULES.parent)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def _targets(dash: dict) -> list[tuple[dict, dict]]:
    return [(p, t) for p in dash["panels"] for t in p.get("targets", ())]


def test_dashboard_is_importable_with_the_datasource_as_a_variable():
    dash = json.loads(DASHBOARD.read_text())
    assert dash["title"] and dash["uid"] and isinstance(dash["schemaVersion"], int)
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    )
    # No datasource is hard-wired: every panel and query uses the variable.
    for p in dash["panels"]:
        assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, p["title"]
    for p, t in _targets(dash):
        assert t["datasource"]["uid"] == "${datasource}", p["title"]
    for v in variables.values():
        if v["type"] == "query":
            assert v["datasource"]["uid"] == "${datasource}"
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    # Panels fit the 24-column grid without overlapping.
    cells = set()
    for p in dash["panels"]:
        g = p["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24, p["title"]
        mine = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not mine & cells, f"{p['title']} overlaps another panel"
        cells |= mine
    titles = " ".join(p["title"] for p in dash["panels"])
    for wanted in ("Pool capacity", "Fill per vdev", "Disk wait per device", "%UTIL per device", "Findings"):
        assert wanted in titles


def test_dashboard_queries_use_only_metrics_zdash_exports():
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for _, t in _targets(dash)] + [
        v["definition"] for v in dash["templating"]["list"] if v["type"] == "query"
    ]
    for expr in exprs:
        names = metric_names(expr)
        assert names and names <= KNOWN, (expr, names - KNOWN)


def _counters_outside_a_rate(promql: str) -> set[str]:
    """The counters a query reads raw: a counter's value is where it stands since the exporter
    started (or zpool clear), only its rate() or increase() over a window means anything."""
    inside = re.sub(r"\b(?:rate|irate|increase)\(\s*zdash_[a-z_]+(?:\{[^}]*\})?\[[^\]]+\]\s*\)", "", promql)
    return metric_names(inside) & COUNTERS


def test_counters_are_read_through_rate_or_increase():
    dash = json.loads(DASHBOARD.read_text())
    rules = [r for g in _yaml.load(RULES.read_text())["groups"] for r in g["rules"]]
    queries = [(p["title"], t["expr"]) for p, t in _targets(dash)] + [(r["alert"], r["expr"]) for r in rules]
    for where, expr in queries:
        assert not _counters_outside_a_rate(expr), (where, expr)
    # Throughput is the counters' rate over Grafana's own window, read and write per vdev.
    throughput = [t["expr"] for p, t in _targets(dash) if p["title"] == "Throughput per vdev"]
    assert sorted(throughput) == [
        f'rate(zdash_vdev_{d}_bytes_total{{instance=~"$instance",pool=~"$pool"}}[$__rate_interval])'
        for d in ("read", "write")
    ]
    assert _counters_outside_a_rate("zdash_vdev_read_bytes_total") == {"zdash_vdev_read_bytes_total"}


@needs_promtool
def test_dashboard_promql_parses(tmp_path):
    """Every panel's query, its variables filled in, as a recording rule: promtool parses it."""
    dash = json.loads(DASHBOARD.read_text())
    rules = [
        {
            "record": f"zdash:panel{p['id']}:{t['refId']}",
            "expr": t["expr"]
            .replace("$instance", ".*")
            .replace("$pool", ".*")
            .replace("$__rate_interval", "1m"),
        }
        for p, t in _targets(dash)
    ]
    path = tmp_path / "dashboard.rules.yml"
    with open(path, "w") as f:
        _yaml.dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
    checked = promtool("check", "rules", path.name, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _expand(pattern: str) -> list[str]:
    """`zdash_{pool,vdev}_x` -> zdash_pool_x, zdash_vdev_x (the manual's shorthand)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if m is None:
        return [pattern]
    return [n for alt in m[1].split(",") for n in _expand(pattern[: m.start()] + alt + pattern[m.end() :])]


def test_the_manual_lists_every_metric():
    page = (ROOT / "docs" / "prometheus.md").read_text()
    section = page[page.index("## Metrics") : page.index("## Alert rules")]
    listed = {n for token in re.findall(r"`(zdash_[^`]*)`", section) for n in _expand(token)}
    assert listed == {s.name for s in SPECS}, (
        sorted({s.name for s in SPECS} - listed),
        sorted(listed - KNOWN),
    )
