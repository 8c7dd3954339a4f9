"""`zdash check` as a monitoring plugin: its output read the way Nagios/Icinga read it.

The grammar is the Nagios plugin guidelines' (nagios-plugins.org/doc/guidelines.html#AEN200):
first line `TEXT | PERFDATA`, perfdata space-separated `'label'=value[UOM];[warn];[crit];[min];[max]`,
further lines long text. Parsed here independently of zdash's own formatter."""

from __future__ import annotations

import json
import re

import pytest

from zdash.cli import main

FIRST = re.compile(r"^ZDASH (OK|WARNING|CRITICAL|UNKNOWN) - (?P<text>[^|]+?)(?: \| (?P<perf>.+))?$")
NUM = r"-?\d+(?:\.\d+)?"
# warn and crit are in the range format (guidelines#THRESHOLDFORMAT): [@][start:]end, start ~
RANGE = rf"@?(?:(?:~|{NUM})?:)?(?:{NUM})?"
DATUM = re.compile(
    rf"^(?P<label>'(?:[^']|'')+'|[^'= ]+)=(?P<value>{NUM})(?P<uom>s|ms|us|%|B|KB|MB|GB|TB|c)?"
    rf"(?:;(?P<warn>{RANGE})?(?:;(?P<crit>{RANGE})?(?:;(?P<min>{NUM})?(?:;(?P<max>{NUM})?)?)?)?)?$"
)
CODES = {"OK": 0, "WARNING": 1, "CRITICAL": 2, "UNKNOWN": 3}


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["check", *argv])
    return code, capsys.readouterr().out


def parse_plugin_output(out: str) -> tuple[str, str, dict[str, dict], list[str]]:
    first, *rest = out.rstrip("\n").split("\n")
    m = FIRST.match(first)
    assert m, f"first line is not plugin output: {first!r}"
    perf: dict[str, dict] = {}
    for token in m["perf"].split(" ") if m["perf"] else []:
        d = DATUM.match(token)
        assert d, f"perfdata token does not follow the grammar: {token!r}"
        assert d["label"] not in perf, f"label repeated: {d['label']}"
        perf[d["label"].strip("'")] = d.groupdict()
    return m.group(1), m["text"], perf, rest


@pytest.mark.parametrize(
    "scenario,status,names",
    [
        ("healthy", "OK", ["tank ONLINE"]),
        ("capacity-85", "WARNING", ["tank", "85.0 % full"]),  # 85.07 %: rounded down, as zpool's CAP (85)
        ("capacity-93", "CRITICAL", ["tank", "93.0 % full"]),
        ("deranged-mirror", "WARNING", ["tank", "/dev/mapper/sick", "mirror-1"]),
    ],
)
def test_bundled_scenarios_read_as_plugin_output(capsys, scenario, status, names):
    code, out = run(capsys, "--replay", scenario)
    got, text, perf, long_text = parse_plugin_output(out)
    assert got == status and code == CODES[status]
    for name in names:  # the pager line names the pool and the cause
        assert name in text
    cap = perf["tank_cap"]
    assert cap["uom"] == "%" and (cap["warn"], cap["crit"], cap["min"], cap["max"]) == (
        "80",
        "90",
        "0",
        "100",
    )
    if status != "OK":
        assert float(cap["value"]) >= 80 or scenario == "deranged-mirror"
    assert all(re.match(r"^(! |\[(INFO|WARNING|CRITICAL) *\] )", line) for line in long_text)
    if status != "OK":  # the worst finding is the first long-text line
        assert long_text[0].startswith(f"[{status}")


def test_more_causes_are_counted_on_the_first_line(capsys, tmp_path):
    from tests.paste.helpers import human_paste

    paste = tmp_path / "errors.txt"
    paste.write_text(human_paste("errors", "after-scrub"))
    _code, out = run(capsys, "--text", str(paste))
    _, text, _, long_text = parse_plugin_output(out)
    serious = [line for line in long_text if not line.startswith("[INFO")]
    assert len(serious) > 1 and text.endswith(f"(+{len(serious) - 1} more)")


def test_a_named_pool_that_is_not_there_is_unknown_and_says_so(capsys):
    code, out = run(capsys, "--replay", "healthy", "nosuchpool")
    status, text, _, _ = parse_plugin_output(out)
    assert (code, status) == (3, "UNKNOWN") and "nosuchpool not found" in text


@pytest.mark.parametrize(
    ("status_ok", "said"),
    [
        # zpool status answered without the pool; only the iostat stream lagged (a loaded host)
        (True, "pool healthy not found (iostat: no fresh data for 1 s)"),
        # zpool status itself could not be read: nothing says whether the pool exists
        (False, "no pool could be read: permission denied"),
    ],
)
def test_a_pool_status_answered_without_is_not_found_even_when_iostat_lags(status_ok, said):
    from zdash.commands.check import summary
    from zdash.model import Snapshot, SourceState

    status = SourceState(
        "status", status_ok, None if status_ok else 1.0, None if status_ok else "permission denied"
    )
    iostat = SourceState("iostat", False, 1.0, "iostat: no fresh data for 1 s", stalled=True)
    sources = (status, iostat) if status_ok else (status,)
    assert summary([Snapshot(0.0, sources=sources)], [], 3, ("healthy",)) == said


def test_json_carries_the_same_summary_and_perfdata(capsys):
    _, out = run(capsys, "--replay", "capacity-85")
    _, text, perf, _ = parse_plugin_output(out)
    _, out_json = run(capsys, "--replay", "capacity-85", "--json")
    doc = json.loads(out_json)
    assert doc["schema"] == 1 and doc["summary"] == text
    assert {d["label"] for d in doc["perfdata"]} == set(perf)
    cap = next(d for d in doc["perfdata"] if d["label"] == "tank_cap")
    assert cap["value"] == float(perf["tank_cap"]["value"]) and cap["warn"] == 80


def test_names_cannot_end_the_text_inject_perfdata_or_forge_a_line():
    """A device named `d1 | injected=1` or holding a newline, a pool with a quote and '=': the
    output stays one status line, the text holds no '|', every label follows the grammar."""
    from zdash.perfdata import PerfDatum, plugin_text

    assert plugin_text("d1 | injected=1;2;3\nZDASH OK - fine") == "d1 ¦ injected=1;2;3\\x0aZDASH OK - fine"
    for label, expected in (
        ("ta'nk=1_cap", "'ta''nk_1_cap'=1"),
        ("mirror-1|x=9_fill", "'mirror-1¦x_9_fill'=1"),
        ("tank\x1b]0;T\x07_cap", "'tank\\x1b]0;T\\x07_cap'=1"),
    ):
        text = PerfDatum(label, 1).text()
        assert text == expected and DATUM.match(text), text


@pytest.mark.parametrize(
    "options,status,warn,crit",
    [
        (["-w", "70", "-c", "85"], "WARNING", "70", "85"),  # 85.0 % as shown: above 70, not above 85
        (["-w", "70", "-c", "80"], "CRITICAL", "70", "80"),
        (["--warning", "90", "--critical", "95"], "OK", "90", "95"),
        (["-w", "@80:86"], "WARNING", "@80:86", "90"),  # inside 80..86; -c not given: the config's
        (["-c", "~:50"], "CRITICAL", "80", "~:50"),
    ],
)
def test_capacity_thresholds_from_the_options_in_range_syntax(capsys, options, status, warn, crit):
    """-w/-c decide the pool's capacity verdict, and perfdata carries them as given."""
    code, out = run(capsys, *options, "--replay", "capacity-85")
    got, text, perf, long_text = parse_plugin_output(out)
    assert (got, code) == (status, CODES[status])
    cap = perf["tank_cap"]
    assert (cap["value"], cap["warn"], cap["crit"]) == ("85", warn, crit)
    if status != "OK":
        assert "tank is 85.0 % full" in text and long_text[0].startswith(f"[{status}")


def test_a_range_that_is_not_one_is_unknown_and_says_the_syntax(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "-w", "70%", "--replay", "capacity-85"])
    err = capsys.readouterr().err
    assert e.value.code == 3 and err.count("\n") == 1
    assert "'70%' is not a threshold range" in err and "@70:80" in err


def test_verbose_adds_the_evidence_and_commands_then_why_as_long_text(capsys):
    _, plain = run(capsys, "--replay", "capacity-85")
    _, one = run(capsys, "-v", "--replay", "capacity-85")
    _, two = run(capsys, "-vv", "--replay", "capacity-85")
    first = [parse_plugin_output(o)[:3] for o in (plain, one, two)]
    assert first[0] == first[1] == first[2]  # the status line and perfdata do not change
    lines = [parse_plugin_output(o)[3] for o in (plain, one, two)]
    assert len(lines[0]) < len(lines[1]) < len(lines[2])
    assert "    Capacity: 85.0 %" in lines[1] and "    $ zfs list -r -o space -S used tank" in lines[1]
    assert lines[2][1].startswith("    why: ") and "80 %" in lines[2][1]  # under the capacity finding
    assert not any(line.startswith("    why:") for line in lines[1])


def test_plugin_options_version_host_alias_and_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "-V"])
    assert e.value.code == 0 and re.fullmatch(r"zdash \S+\n", capsys.readouterr().out)
    code = main(["check", "-H", "nas1", "--replay", "healthy"])  # -H is --host: not with --replay
    assert code == 3 and "--host reads a live host" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["check", "--help"])
    text = capsys.readouterr().out
    assert e.value.code == 0 and re.match(r"zdash check v\S+\n\nUsage:\n zdash check \[-w RANGE\]", text)
    forms_wanted = ("-w, --warning=RANGE", "-c, --critical=RANGE", "-t, --timeout=SECONDS", "-H, --host=")
    for forms in (*forms_wanted, "-V, --version", "-v, --verbose"):
        assert f"\n {forms}" in text, forms
