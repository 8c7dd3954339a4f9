"""zpool_version.parse_version: text and JSON, userland and kmod."""

from __future__ import annotations

from pathlib import Path

import pytest

from zdash.parse import ParseError
from zdash.parse.zpool_version import parse_version

HEALTHY = Path(__file__).resolve().parents[1] / "captures" / "healthy"


@pytest.mark.parametrize("name", ["zpool-version.txt", "zpool-version-j.txt"])
def test_captures(name):
    assert parse_version((HEALTHY / name).read_text()) == ((2, 3, 2), (2, 3, 2))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("zfs-0.8.6-1\nzfs-kmod-0.8.6-1\n", ((0, 8, 6), (0, 8, 6))),
        # Ubuntu: userland and module from different packages can differ (reference §0)
        ("zfs-2.2.2-0ubuntu9.1\nzfs-kmod-2.1.5-1ubuntu6~22.04.1\n", ((2, 2, 2), (2, 1, 5))),
        ("zfs-2.1.4-FreeBSD_g52bad4f23\nzfs-kmod-2.1.4-FreeBSD_g52bad4f23\n", ((2, 1, 4), (2, 1, 4))),
        ("zfs-2.3.0-rc5\nzfs-kmod-2.3.0-rc5\n", ((2, 3, 0), (2, 3, 0))),
        # module not loaded: zpool prints the userland line, the error goes to stderr
        ("zfs-2.1.11-1\n", ((2, 1, 11), None)),
        (
            '{"output_version":{"command":"zpool version","vers_major":0,"vers_minor":1},'
            '"zfs_version":{"userland":"zfs-2.3.0-1","kernel":"zfs-kmod-2.3.0-1"}}',
            ((2, 3, 0), (2, 3, 0)),
        ),
    ],
)
def test_formats(text, expected):
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    "text", ["", "zpool: command not found\n", "{not json", '{"zfs_version": "2.3"}', "zfs-kmodX\n"]
)
def test_garbage(text):
    with pytest.raises(ParseError):
        parse_version(text)
