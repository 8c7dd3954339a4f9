import os

import pytest

from tests.zfs.lab import cap_arc, zfs_available

WHY_NOT = zfs_available()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/zfs/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.zfs)
            if WHY_NOT:
                item.add_marker(pytest.mark.skip(reason=WHY_NOT))


@pytest.fixture(scope="session", autouse=True)
def _small_arc():
    if not WHY_NOT:
        cap_arc()
