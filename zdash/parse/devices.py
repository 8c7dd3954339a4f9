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
    transport: str | None = None  # nvme, sata, sas, usb... (None in recordings made before it was read)
    model: str | None = None


def parse_devices(text: str) -> dict[str, DeviceFacts]:
    out: dict[str, DeviceFacts] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) not in (4, 6):  # 4: recorded before the transport and model were read
            raise ParseError(f"devices line {n}: expected 6 tab-separated fields, got {len(cols)}")
        path, dev, phys, rot, transport, model = (None if c == "-" else c for c in (*cols, "-", "-")[:6])
        if not path:
            raise ParseError(f"devices line {n}: no path")
        try:
            sector = int(phys) if phys else None
            rotational = bool(int(rot)) if rot else None
        except ValueError:
            raise ParseError(f"devices line {n}: sector size / rotational not numbers") from None
        out[path] = DeviceFacts(path, dev, sector, rotational, transport, model)
    return out
