"""Turn a folder of real captures (tests/captures/<scenario>) into Ticks, so the builder,
checks and UI can be tested on real OpenZFS 2.3 output without a pool."""

from __future__ import annotations

import os

from zdash.raw import RawSample, Tick

CAPTURES = os.path.join(os.path.dirname(__file__), "captures")

# capture file stem -> (sample key, the argv it was produced by, as the builder dispatches on it)
_FILES = {
    "zpool-status-j-json-int": ("status", ("zpool", "status", "-j", "--json-int", "-p")),
    "zpool-list-v-H-p": ("list", ("zpool", "list", "-v", "-H", "-p")),
}


def _read(scenario: str, stem: str, phase: str | None) -> str | None:
    name = f"{stem}.{phase}.txt" if phase else f"{stem}.txt"
    path = os.path.join(CAPTURES, scenario, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def capture_tick(scenario: str, phase: str | None = None, t: float = 1_700_000_000.0) -> Tick:
    samples = [
        RawSample(
            "version", ("zpool", "version"), 0, "zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.3.2-2~bpo12+2\n", "", t
        )
    ]
    for stem, (key, argv) in _FILES.items():
        text = _read(scenario, stem, phase)
        if text is not None:
            samples.append(RawSample(key, argv, 0, text, "", t))
    iostat = _read(scenario, "zpool-iostat-v-l-H-p-1-2", phase)
    if iostat:
        rows = iostat.splitlines()
        second = rows[len(rows) // 2 :]  # the 2nd report covers a real 1 s interval
        samples.append(
            RawSample(
                "iostat",
                ("zpool", "iostat", "-v", "-H", "-p", "-l", "-y", "1"),
                None,
                f"{int(t)}\n" + "\n".join(second) + "\n",
                "",
                t,
            )
        )
    return Tick(t, tuple(samples))
