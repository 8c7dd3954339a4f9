"""libzfs_core where it serves, on real OpenZFS (issue 30, part 4): `promote` through the
binding and through the CLI leave the pool in the same state (`zfs list -o name,origin`).

The binding is Debian's python3-pyzfs, unpacked by the lab into /usr/lib/zfslab-pyzfs; it
imports where cffi is installed (the test extra). It is put on sys.path for these tests only:
every other lab test runs without it, as on a host that has no pyzfs.
"""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

from tests.zfs.lab import sh
from zdash.actions import AuditLog, Request, execute, plan_now
from zdash.actions.promote import promote_via
from zdash.commands.plan import render

PYZFS = "/usr/lib/zfslab-pyzfs"


@pytest.fixture
def pyzfs(monkeypatch):
    """libzfs_core importable for this test, and forgotten after it."""
    monkeypatch.syspath_prepend(PYZFS)
    importlib.invalidate_caches()
    try:
        lzc = importlib.import_module("libzfs_core")
    except Exception as e:  # noqa: BLE001 - no cffi, or the library is missing
        pytest.skip(f"libzfs_core does not import here: {e}")
    yield lzc
    for name in [m for m in sys.modules if m == "libzfs_core" or m.startswith("libzfs_core.")]:
        del sys.modules[name]


def origins(pool: str) -> list[tuple[str, str]]:
    """`zfs list -o name,origin` of the pool, the pool's own name taken out."""
    out = sh("zfs", "list", "-r", "-H", "-t", "all", "-o", "name,origin", pool)

    def neutral(name: str) -> str:
        return "P" + name[len(pool) :] if name == pool or name.startswith((pool + "/", pool + "@")) else name

    return [tuple(neutral(c) for c in line.split("\t")) for line in out.splitlines()]  # type: ignore[misc]


def build_clone_family(lab, pool: str) -> None:
    """fs with three snapshots, a clone of the second with a snapshot of its own, and a clone
    of the third: promoting the first clone moves s1 and s2 to it."""
    lab.pool(pool, lab.loop(f"{pool}0"))
    sh("zfs", "create", f"{pool}/fs")
    lab.fill(f"/{pool}/fs/data", 4)
    for snap in ("s1", "s2", "s3"):
        sh("zfs", "snapshot", f"{pool}/fs@{snap}")
    sh("zfs", "clone", f"{pool}/fs@s2", f"{pool}/work")
    sh("zfs", "snapshot", f"{pool}/work@w1")
    sh("zfs", "clone", f"{pool}/fs@s3", f"{pool}/other")


def promote(pool: str, audit: AuditLog, via: str):
    p = asyncio.run(plan_now(Request("promote", pool, f"{pool}/work")))
    assert p.ok and p.via == via, render(p)
    assert p.argv == ("zfs", "promote", f"{pool}/work")  # what the admin reviews, whichever path runs
    out = asyncio.run(execute(p, "live", audit=audit))
    assert out.ok, (out.status, out.refused_reason, out.stderr)
    return audit.read()[-1]


def test_promote_through_libzfs_core_and_the_cli_leave_the_same_pool(lab, tmp_path, pyzfs, monkeypatch):
    audit = AuditLog(str(tmp_path / "audit.jsonl"))
    build_clone_family(lab, "plzc")
    build_clone_family(lab, "pcli")
    before = origins("plzc")
    assert before == origins("pcli")

    assert promote_via() == "libzfs_core"
    lzc_record = promote("plzc", audit, "libzfs_core")
    monkeypatch.setattr("zdash.actions.promote._binding", lambda: (_ for _ in ()).throw(ImportError("off")))
    assert promote_via() == "cli"
    cli_record = promote("pcli", audit, "cli")

    after = origins("plzc")
    assert after == origins("pcli")
    assert after == [
        ("P", "-"),
        ("P/fs", "P/work@s2"),
        ("P/fs@s3", "-"),
        ("P/other", "P/fs@s3"),
        ("P/work", "-"),
        ("P/work@s1", "-"),
        ("P/work@s2", "-"),
        ("P/work@w1", "-"),
    ], after
    assert (lzc_record["via"], cli_record["via"]) == ("libzfs_core", "cli")
    assert lzc_record["shell"] == cli_record["shell"].replace("pcli", "plzc")
