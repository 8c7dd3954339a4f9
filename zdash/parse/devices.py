"""Parse zdash's own `devices` sample (see sources/procfs.describe_devices)."""

from __future__ import annotations

from dataclasses import dataclass

from zdash.parse import ParseError


@dataclass(frozen=True, slots=True)
class DeviceFacts:
    path: str
    device: str | None  # kernel name, the /proc/diskstats key
    native_sector: int | None
    rotational: bool | None


def parse_devices(text: str) -> dict[str, DeviceFacts]:
    out: dict[str, DeviceFacts] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != 4:
            raise ParseError(f"devices line {n}: expected 4 tab-separated fields, got {len(cols)}")
        path, dev, phys, rot = (None if c == "-" else c for c in cols)
        if not path:
            raise ParseError(f"devices line {n}: no path")
        try:
            sector = int(phys) if phys else None
            rotational = bool(int(rot)) if rot else None
        except ValueError:
            raise ParseError(f"devices line {n}: sector size / rotational not numbers") from None
        out[path] = DeviceFacts(path, dev, sector, rotational)
    return out
