"""`zfs promote`: through pyzfs (import name libzfs_core) when the host has it, the CLI
otherwise. Both paths share one plan; the argv shown is always the CLI equivalent, because
that is what an admin reviews and what the audit log should read like.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from zdash.actions.plan import Check, Via
from zdash.model import Pool, Snapshot


def _binding() -> ModuleType:
    """The distro package python3-pyzfs (never the PyPI 'pyzfs'). Imported by name: it ships
    no type information, and most hosts (and CI) do not have it."""
    return importlib.import_module("libzfs_core")


def promote_via() -> Via:
    try:
        _binding()
    except Exception:  # noqa: BLE001 - ImportError, or a CFFI load failure against a missing libzfs_core.so
        return "cli"
    return "libzfs_core"


def lzc_promote(dataset: str) -> None:
    """Raises the binding's typed exception on failure (the executor records it as stderr)."""
    _binding().lzc_promote(dataset.encode())


def promote_checks(snap: Snapshot, pool: Pool, name: str | None) -> tuple[tuple[Check, ...], str]:
    """(checks, summary). zfs refuses a non-clone, a snapshot, and a snapshot name that exists on
    both sides among those that move ('conflicting snapshot'); all are checked here first."""
    by_name = {d.name: d for d in snap.datasets}
    if not name:
        return (Check("dataset", False, "promote needs the clone: zdash plan promote POOL DATASET"),), ""
    if not snap.datasets:
        return (Check("dataset", False, "the dataset list could not be read"),), ""
    d = by_name.get(name)
    if d is None or d.pool != pool.name:
        return (Check("dataset", False, f"no dataset {name!r} in {pool.name}"),), ""
    if d.kind == "snapshot":
        return (Check("dataset", False, f"{name} is a snapshot: snapshots cannot be promoted"),), ""
    if not d.origin:
        return (Check("is a clone", False, f"{name} is not a clone (origin '-'): nothing to promote"),), ""
    parent, origin_snap = d.origin.split("@", 1)
    # zfs list orders a dataset's snapshots by creation: those up to the origin are what moves.
    theirs = [n.split("@", 1)[1] for n in by_name if n.startswith(parent + "@")]
    moving = theirs[: theirs.index(origin_snap) + 1] if origin_snap in theirs else theirs
    mine = {n.split("@", 1)[1] for n in by_name if n.startswith(name + "@")}
    clash = sorted(set(moving) & mine)
    checks = [Check("is a clone", True, f"{name} is a clone of {d.origin}")]
    if clash:
        checks.append(
            Check(
                "snapshot names",
                False,
                f"{', '.join(clash)} exist(s) on both {parent} "
                f"and {name}: zfs refuses ('conflicting snapshot'); rename first",
            )
        )
    else:
        checks.append(
            Check("snapshot names", True, f"no clash among the {len(moving)} snapshot(s) that move")
        )
    summary = (
        f"{d.origin} and the {len(moving) - 1} older snapshot(s) of {parent} move to {name} "
        f"(renamed {name}@…); {parent} becomes a clone of {name}@{origin_snap}. No data is "
        f"copied. Anything that names those snapshots under {parent} must be updated."
    )
    return tuple(checks), summary
