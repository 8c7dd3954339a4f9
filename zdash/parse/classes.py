"""zpool's words for the vdev classes, in every output it prints, and back: the one table from
a heading or a JSON group to the model's VdevClass (zdash.model), and from a class to the
heading each output prints (the paste rebuilders write them).

zpool status prints "logs" and "spares" (plural), zpool list and iostat "logs" and "spare";
older releases printed "log". status -j groups them beside "vdevs" (§4.3 of
docs/zfs-output-reference.md), --json-flat-vdevs names each vdev's "class".
"""

from __future__ import annotations

from zdash.model import VdevClass

# Text `zpool status` headings (§3.1: "logs" and "spares" are plural, "cache" is l2cache). A
# pool named "log" or "spare" prints at the same depth: only these exact words are headings.
STATUS_HEADINGS: dict[str, VdevClass] = {
    "logs": "log",
    "dedup": "dedup",
    "special": "special",
    "cache": "cache",
    "spares": "spare",
}
# Table headings (`zpool list -v`, `zpool iostat -v`, and pasted status), singular or plural.
TABLE_HEADINGS: dict[str, VdevClass] = STATUS_HEADINGS | {"log": "log", "spare": "spare"}
# What each output prints for a class (normal vdevs have no heading).
STATUS_HEADING: dict[VdevClass, str] = {c: h for h, c in STATUS_HEADINGS.items()}
LIST_HEADING: dict[VdevClass, str] = STATUS_HEADING | {"spare": "spare"}
# JSON class groups sit beside "vdevs" in status -j, in text order (§4.3).
JSON_CLASS_GROUPS: tuple[tuple[str, VdevClass], ...] = (
    ("dedup", "dedup"),
    ("special", "special"),
    ("logs", "log"),
    ("l2cache", "cache"),
    ("spares", "spare"),
)
# A vdev's "class" in status -j -> zdash's class (--json-flat-vdevs lists class vdevs by it).
JSON_CLASSES: dict[str, VdevClass] = {
    "special": "special",
    "dedup": "dedup",
    "log": "log",
    "l2cache": "cache",
    "spare": "spare",
}
