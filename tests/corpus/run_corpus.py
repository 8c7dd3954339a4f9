#!/usr/bin/env python3
"""Run `zdash check --text CASE.txt --json` over the published-output corpus and score it.

Standard library only.  Usage:

    python tests/corpus/run_corpus.py --zdash /path/to/zdash [--json out.json] [--corpus DIR]

For every NNN-slug.txt with a NNN-slug.yaml next to it the script compares zdash's verdict with
the expert verdict in the YAML (see README.md in this folder):

  parsed         at least one pool was read (`pools` non-empty) and the exit code is not 3;
                 when the expected severity is `unknown`, exit code 3 (with or without a pool);
                 a paste of zfs output alone (no pool in it) is parsed when it gave findings
                 and the exit code is not 3
  pools          when expected.pools is given, the pools read are exactly those (`[]`: a
                 dataset listing yields no pool, so no pool-health verdict)
  severity right status OK/WARNING/CRITICAL/UNKNOWN mapped to ok/warning/critical/unknown equals
                 expected.severity (ok = nothing above info)
  subjects named every expected subject occurs (substring, case-sensitive) in some finding's
                 subject, pool or title
  must_not       no warning/critical finding mentions a must_not term (case-insensitive) in its
                 check, topic or title
  checks         every check listed in expected.checks reported something (any severity): how a
                 note an expert expects (the dedup note, an imbalance note) is asserted

Exit code: 0 always (this is a measuring tool, not a gate), 2 on usage errors.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

RANK = {"error": -1, "unknown": -1, "ok": 0, "info": 0, "warning": 1, "critical": 2}
STATUS = {"OK": "ok", "WARNING": "warning", "CRITICAL": "critical", "UNKNOWN": "unknown"}


# --- a tiny reader for the corpus' YAML subset ------------------------------------------------
# Supports: `key: scalar`, `key: [a, "b", c]`, `key: >` / `key: |` block scalars, one level of
# nested mappings (`expected:`), `# comments` after values, quoted scalars, `null`.

def _scalar(text: str):
    text = text.strip()
    if text in ("null", "~", ""):
        return None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        inner = text[1:-1]
        return inner.replace('\\"', '"') if text[0] == '"' else inner.replace("''", "'")
    return text


def _strip_comment(text: str) -> str:
    out, quote = [], None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _flow_list(text: str) -> list:
    inner = text.strip()[1:-1]
    items, cur, quote = [], [], None
    for ch in inner:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch == ",":
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur))
    return [_scalar(i) for i in items if i.strip()]


def load_case_yaml(path: Path) -> dict:
    lines = path.read_text(encoding="utf-8").splitlines()
    root: dict = {}
    stack = [(-1, root)]
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        m = re.match(r"\s*([A-Za-z0-9_]+):(.*)$", raw)
        if not m:
            raise ValueError(f"{path.name}: cannot read line {i}: {raw!r}")
        key, rest = m.group(1), _strip_comment(m.group(2)).strip()
        while stack and indent <= stack[-1][0]:
            stack.pop()
        parent = stack[-1][1]
        if rest in (">", "|", ">-", "|-"):
            block = []
            while i < len(lines) and (not lines[i].strip() or
                                      len(lines[i]) - len(lines[i].lstrip(" ")) > indent):
                block.append(lines[i].strip())
                i += 1
            parent[key] = (" " if rest.startswith(">") else "\n").join(b for b in block).strip()
        elif rest == "":
            child: dict = {}
            parent[key] = child
            stack.append((indent, child))
        elif rest.startswith("["):
            parent[key] = _flow_list(rest)
        else:
            parent[key] = _scalar(rest)
    return root


# --- running and scoring -----------------------------------------------------------------------

def run_case(zdash: str, txt: Path, timeout: float) -> tuple[int | None, dict | None, str]:
    try:
        proc = subprocess.run([zdash, "check", "--text", str(txt), "--json"],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"timeout after {timeout:g}s"
    except OSError as e:
        return None, None, f"cannot run zdash: {e}"
    try:
        return proc.returncode, json.loads(proc.stdout), ""
    except json.JSONDecodeError:
        err = (proc.stderr or proc.stdout).strip().splitlines()
        return proc.returncode, None, "no JSON" + (f": {err[-1]}" if err else "")


def score(case_id: str, meta: dict, rc: int | None, doc: dict | None, err: str) -> dict:
    exp = meta.get("expected") or {}
    expected = str(exp.get("severity", "unknown")).lower()
    subjects = [str(s) for s in (exp.get("subjects") or [])]
    must_not = [str(s) for s in (exp.get("must_not") or [])]
    checks = [str(s) for s in (exp.get("checks") or [])]
    want_pools = exp.get("pools")
    res = {"case": case_id, "expected": expected, "got": "error", "exit_code": rc,
           "parsed": False, "severity_right": False, "under": False, "over": False,
           "subjects": subjects, "subjects_missing": subjects[:], "must_not_hits": [],
           "checks": checks, "checks_missing": checks[:],
           "pools": [], "findings": [], "why_failed": []}
    if doc is None:
        res["why_failed"].append(err or "no output")
        res["under"] = RANK["error"] < RANK.get(expected, 0)
        res["ok"] = False
        return res
    findings = doc.get("findings") or []
    pools = doc.get("pools") or []
    res["pools"] = [p.get("name") for p in pools]
    res["findings"] = [f"{f.get('severity')}: {f.get('title')}" for f in findings]
    got = STATUS.get(str(doc.get("status")), "error")
    res["got"] = got
    # expected unknown: nothing to judge a pool by, so exit 3 is right even when no pool was read
    res["parsed"] = ((bool(pools) or bool(findings)) and rc != 3) or (expected == "unknown" and rc == 3)
    res["severity_right"] = got == expected
    res["under"] = RANK.get(got, -1) < RANK.get(expected, 0)
    res["over"] = RANK.get(got, -1) > RANK.get(expected, 0)
    hay = [" ".join(str(f.get(k) or "") for k in ("subject", "pool", "title")) for f in findings]
    res["subjects_missing"] = [s for s in subjects if not any(s in h for h in hay)]
    res["checks_missing"] = [c for c in checks if not any(f.get("check") == c for f in findings)]
    for term in must_not:
        for f in findings:
            if f.get("severity") in ("warning", "critical") and term.lower() in " ".join(
                    str(f.get(k) or "") for k in ("check", "topic", "title")).lower():
                res["must_not_hits"].append(f"{term} in '{f.get('title')}'")
    if not res["parsed"]:
        res["why_failed"].append("no pool read" if not pools else f"exit code {rc}")
    if not res["severity_right"]:
        res["why_failed"].append(f"severity {got} != {expected}")
    if res["subjects_missing"]:
        res["why_failed"].append("not named: " + ", ".join(res["subjects_missing"]))
    if res["must_not_hits"]:
        res["why_failed"].append("must_not: " + "; ".join(res["must_not_hits"]))
    if res["checks_missing"]:
        res["why_failed"].append("no finding from: " + ", ".join(res["checks_missing"]))
    if want_pools is not None and sorted(res["pools"]) != sorted(str(p) for p in want_pools):
        res["why_failed"].append(f"pools read {res['pools']}, expected {list(want_pools)}")
    res["ok"] = not res["why_failed"]
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zdash", required=True, help="path of the zdash executable to test")
    ap.add_argument("--json", metavar="OUT", help="write per-case results and totals as JSON")
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parent),
                    help="folder with NNN-slug.txt/.yaml pairs (default: this script's folder)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    ap.add_argument("cases", nargs="*", help="only these case ids (NNN or NNN-slug prefixes)")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not os.access(args.zdash, os.X_OK):
        print(f"run_corpus: {args.zdash} is not executable", file=sys.stderr)
        return 2
    results = []
    for yml in sorted(corpus.glob("[0-9][0-9][0-9]-*.yaml")):
        case_id = yml.stem
        if args.cases and not any(case_id.startswith(c) for c in args.cases):
            continue
        txt = yml.with_suffix(".txt")
        if not txt.exists():
            print(f"{case_id}: missing {txt.name}", file=sys.stderr)
            continue
        meta = load_case_yaml(yml)
        rc, doc, err = run_case(args.zdash, txt, args.timeout)
        res = score(case_id, meta, rc, doc, err)
        results.append(res)
        verdict = "ok" if res["ok"] else "FAIL (" + "; ".join(res["why_failed"]) + ")"
        print(f"{case_id:<64} expected {res['expected']:<8} got {res['got']:<8} {verdict}")
    n = len(results)
    with_subj = [r for r in results if r["subjects"]]
    with_must = [r for r in results if r["must_not_hits"]]
    totals = {
        "cases": n,
        "parsed": sum(r["parsed"] for r in results),
        "severity_right": sum(r["severity_right"] for r in results),
        "under_reported": sum(r["under"] for r in results),
        "over_reported": sum(r["over"] for r in results),
        "subjects_named": sum(not r["subjects_missing"] for r in with_subj),
        "cases_with_subjects": len(with_subj),
        "must_not_violations": len(with_must),
        "checks_reported": sum(not r["checks_missing"] for r in results if r["checks"]),
        "cases_with_checks": sum(bool(r["checks"]) for r in results),
        "all_ok": sum(r["ok"] for r in results),
    }
    print()
    print(f"cases:            {totals['cases']}")
    print(f"parsed:           {totals['parsed']}/{n}")
    print(f"severity right:   {totals['severity_right']}/{n}")
    print(f"under-reported:   {totals['under_reported']}")
    print(f"over-reported:    {totals['over_reported']}")
    print(f"subjects named:   {totals['subjects_named']}/{totals['cases_with_subjects']} "
          f"(cases with expected subjects)")
    print(f"must_not broken:  {totals['must_not_violations']}")
    print(f"checks reported:  {totals['checks_reported']}/{totals['cases_with_checks']} "
          f"(cases expecting a check's finding, e.g. the dedup note)")
    print(f"all checks ok:    {totals['all_ok']}/{n}")
    if args.json:
        Path(args.json).write_text(json.dumps({"totals": totals, "cases": results}, indent=2) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
