"""`zpool status -j [--json-int]` (OpenZFS 2.3+) into Pool records.

Traps (§4.2, §4.3, §12.8 of docs/zfs-output-reference.md, and the 2.3.2 captures):
- without --json-int every number is a string ("160M", "1.25K") and times are locale dates
  ("Sun Nov 22 03:47:53 UTC 2026") or "-"; --json-int only converts all-digit strings;
- vdev "state" is the raw enum (CANT_OPEN, CLOSED), not the text name;
- class groups (dedup, special, logs, l2cache, spares) sit BESIDE "vdevs", not inside it;
- the pool's guid key is "pool_guid" in real 2.3.2 output (the reference says "guid");
- raidz parity is only in the name (vdev_type is "raidz" for raidz1/2/3).
"""

from __future__ import annotations

import json

from zdash.model import UNSEEN, Pool, Vdev, VdevClass
from zdash.parse import ParseError
from zdash.parse.classes import JSON_CLASS_GROUPS, JSON_CLASSES
from zdash.parse.reuse import Reuse
from zdash.parse.zpool_status import json_reuse
from zdash.parse.zpool_status.common import (
    AUX_TEXT,
    MAX_DEPTH,
    kind_from_name,
    kind_from_vdev_type,
    msgid_in,
    one_line,
    text_state,
)
from zdash.parse.zpool_status.json_scan import JsonObject, count, parse_scans, string


def parse_status_json(text: str, reuse: Reuse[Vdev] | None = None) -> tuple[Pool, ...]:
    """Every pool of a `zpool status -j` document, in document order. `reuse`: the leaves the
    caller's last parse built, by their JSON content (zdash.parse.reuse): an unchanged leaf is
    the same Vdev again. The result is equal either way."""
    if not text.strip():
        return ()  # zpool prints nothing (only "no pools available" on stderr) when none exist
    try:
        # with `reuse`, a pool's vdev tree whose text is as last time is the object decoded then
        doc = json.loads(text) if reuse is None else json_reuse.decode(text, reuse)
    except (ValueError, RecursionError) as e:
        raise ParseError(f"zpool status -j: not JSON ({str(e)[:80]})") from None
    return parse_status_document(doc, reuse)


def parse_status_document(doc: object, reuse: Reuse[Vdev] | None = None) -> tuple[Pool, ...]:
    """parse_status_json on a document already decoded (a paste's, found among other text)."""
    if not isinstance(doc, dict):
        raise ParseError("zpool status -j: top level is not an object")
    version = doc.get("output_version")
    major = count(version.get("vers_major"), "vers_major") if isinstance(version, dict) else None
    if major != 0:
        raise ParseError(f"zpool status -j: unsupported output_version {major!r} (zdash reads 0.x)")
    pools = doc.get("pools", {})
    if not isinstance(pools, dict):
        raise ParseError("zpool status -j: 'pools' is not an object")
    return tuple(_pool(key, obj, reuse) for key, obj in pools.items())


def _pool(key: str, obj: object, reuse: Reuse[Vdev] | None = None) -> Pool:
    if not isinstance(obj, dict):
        raise ParseError(f"pool {key!r}: not an object")
    name = string(obj.get("name", key), "pool name") or key  # --json-pool-key-guid keys by guid
    if not name:
        raise ParseError("zpool status -j: a pool without a name")
    vdevs = obj.get("vdevs")
    root_obj = _root_object(name, vdevs)
    scans = parse_scans(obj.get("scan_stats"), name)
    # Text status marks the leaves a running scan is writing to; JSON only has the byte count.
    busy = next(
        (
            ("(resilvering)" if s.function == "resilver" else "(repairing)")
            for s in scans
            if s.function in ("scrub", "resilver") and s.state in ("scanning", "paused")
        ),
        None,
    )
    if reuse is None:
        root = _tree(name, obj, vdevs, root_obj, busy, None)
    else:
        # Everything the tree is made of (the vdevs, the class groups beside them, the scan's
        # mark on busy leaves): the same as last time (only the scan moved), the same tree.
        doc = (vdevs, tuple(obj.get(group) for group, _ in JSON_CLASS_GROUPS), busy)
        root = reuse.whole(("json tree", name), doc, lambda: _tree(name, obj, vdevs, root_obj, busy, reuse))
    guid = obj.get("pool_guid", obj.get("guid"))
    errlist = obj.get("errlist", [])
    if isinstance(errlist, str):
        errlist = []  # the log could not be read ("Permission denied" as a non-root user): no files
    if not isinstance(errlist, list):
        raise ParseError(f"pool {name!r}: errlist is not a list")
    return Pool(
        name=name,
        state=string(obj.get("state"), "pool state") or root.state,
        root=root,
        guid=None if guid is None else string(guid, "pool guid"),
        status=one_line(string(obj.get("status"), "status")),
        action=one_line(string(obj.get("action"), "action")),
        msgid=msgid_in(string(obj.get("msgid"), "msgid") or ""),
        scans=scans,
        error_count=count(obj.get("error_count"), "error_count"),
        error_files=tuple(string(f, "errlist entry") or "" for f in errlist),
    )


def _tree(
    name: str,
    obj: JsonObject,
    vdevs: object,
    root_obj: JsonObject,
    busy: str | None,
    reuse: Reuse[Vdev] | None,
) -> Vdev:
    """The pool's root vdev and everything below it."""
    children = list(_children(root_obj.get("vdevs"), "normal", 1, name, busy, reuse))
    for group, vclass in JSON_CLASS_GROUPS:  # beside "vdevs" in status -j (§4.3)
        children.extend(_children(obj.get(group), vclass, 1, name, busy, reuse))
    # --json-flat-vdevs: every vdev is also listed at the top of "vdevs", beside the root, with
    # its "parent"; the class vdevs (log, cache, spare, special, dedup) only there, without one.
    for key, entry in vdevs.items() if isinstance(vdevs, dict) and len(vdevs) > 1 else ():
        if entry is not root_obj and isinstance(entry, dict) and "parent" not in entry:
            flat_class = JSON_CLASSES.get(str(entry.get("class")))
            if flat_class is not None:
                children.extend(_children({key: entry}, flat_class, 1, name, busy, reuse))
    return _vdev(root_obj, "normal", 0, name, busy, tuple(children), reuse)


def _root_object(pool: str, vdevs: object) -> JsonObject:
    """status -j nests the root vdev under the pool's own name: vdevs.<pool> (§4.3)."""
    if not isinstance(vdevs, dict) or not vdevs:
        raise ParseError(f"pool {pool!r}: no vdev tree")
    roots = [v for v in vdevs.values() if isinstance(v, dict) and v.get("vdev_type") == "root"]
    root = vdevs.get(pool, roots[0] if roots else next(iter(vdevs.values())))
    if not isinstance(root, dict):
        raise ParseError(f"pool {pool!r}: root vdev is not an object")
    return root


def _children(
    group: object,
    vclass: VdevClass,
    depth: int,
    parent: str,
    busy: str | None,
    reuse: Reuse[Vdev] | None = None,
) -> tuple[Vdev, ...]:
    if group is None:
        return ()
    if not isinstance(group, dict):
        raise ParseError(f"zpool status -j: the vdevs under {parent!r} are not an object")
    if depth > MAX_DEPTH:
        raise ParseError(f"zpool status -j: vdev tree under {parent!r} deeper than {MAX_DEPTH} levels")
    out = []
    for key, child in group.items():
        if not isinstance(child, dict):
            raise ParseError(f"zpool status -j: vdev {key!r} under {parent!r} is not an object")
        if child.get("parent", parent) != parent:
            continue  # --json-flat-vdevs lists every descendant under each vdev: its children name it
        if reuse is not None and not child.get("vdevs"):  # a leaf: built from its own object alone
            try:
                known = (vclass, depth, key, busy, tuple(child.items()))
                leaf = reuse.get(known)
            except TypeError:  # a value zpool never prints (a list, an object): built afresh
                out.append(_vdev(child, vclass, depth, key, busy))
                continue
            if leaf is None:
                leaf = _vdev(child, vclass, depth, key, busy)
                reuse.put(known, leaf)
            out.append(leaf)
            continue
        out.append(_vdev(child, vclass, depth, key, busy, reuse=reuse))
    return tuple(out)


def _vdev(
    obj: JsonObject,
    vclass: VdevClass,
    depth: int,
    key: str,
    busy: str | None,
    children: tuple[Vdev, ...] | None = None,
    reuse: Reuse[Vdev] | None = None,
) -> Vdev:
    name = string(obj.get("name", key), "vdev name") or key
    if not name:
        raise ParseError("zpool status -j: a vdev without a name")
    if children is None:
        children = _children(obj.get("vdevs"), vclass, depth + 1, name, busy, reuse)
    was = string(obj.get("was"), "was")
    missing = "not_present" in obj
    vdev_type = string(obj.get("vdev_type"), "vdev_type")
    kind = (
        "missing"
        if missing
        else (kind_from_vdev_type(vdev_type, name) if vdev_type else kind_from_name(name, was))
    )
    aux_raw = string(obj.get("aux"), "aux")
    slow = count(obj.get("slow_ios"), "slow_ios")
    # -L (2.4) leaves out a leaf's state (and type, path, guid): unknown to zdash, not UNKNOWN,
    # the state zpool prints for a vdev it cannot tell about
    raw_state = string(obj.get("state"), "vdev state")
    state = (
        UNSEEN if raw_state is None and "state" not in obj else text_state(raw_state or "UNKNOWN", aux_raw)
    )
    physical = obj.get("physical_ashift") if "configured_ashift" in obj else None
    configured = obj.get("configured_ashift") if physical is not None else None
    guid = obj.get("guid")
    return Vdev(
        name=name,
        kind="root" if depth == 0 else kind,
        state=state,
        vclass=vclass,
        children=children,
        path=None if missing else string(obj.get("path"), "path"),
        guid=None if guid is None else string(guid, "guid"),
        read_errors=count(obj.get("read_errors"), "read_errors") or 0,
        write_errors=count(obj.get("write_errors"), "write_errors") or 0,
        checksum_errors=count(obj.get("checksum_errors"), "checksum_errors") or 0,
        slow_ios=None if children else slow,
        aux=_annotations(obj, aux_raw, state, not children, busy),
        was=was,
        physical_ashift=None if physical is None else count(physical, "physical_ashift"),
        configured_ashift=None if configured is None else count(configured, "configured_ashift"),
    )


def _annotations(
    obj: JsonObject, aux_raw: str | None, state: str, leaf: bool, busy: str | None
) -> str | None:
    """The words text status prints after the counters, two spaces apart (print_status_config())."""
    words = []
    if aux_raw:
        errors = sum(count(obj.get(k), k) or 0 for k in ("read_errors", "write_errors", "checksum_errors"))
        if aux_raw == "ERR_EXCEEDED" and leaf and not errors and count(obj.get("slow_ios"), "slow_ios"):
            words.append("too many slow I/Os")  # 2.2.4+ wording
        else:
            words.append(AUX_TEXT.get(aux_raw, aux_raw.lower().replace("_", " ")))
    # "(resilvering)"/"(repairing)": a healthy leaf the running scan has written to
    # (scan_processed is omitted when 0); "(awaiting resilver)" when deferred.
    if leaf and busy and state == "ONLINE" and count(obj.get("scan_processed"), "scan_processed"):
        words.append(busy)
    elif count(obj.get("resilver_deferred"), "resilver_deferred"):
        words.append("(awaiting resilver)")
    return "  ".join(words) or None
