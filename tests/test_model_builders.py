"""The model's fast constructor (zdash.model.builder_of): what it builds is what
the class's own constructor builds, so the fold's snapshots are the ones a user's
checks and screen see."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zdash.model import DiskIo, IoStats, Vdev, builder_of
from zdash.parse.zpool_iostat import IostatRow

VALUES = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))


@pytest.mark.parametrize("cls", [Vdev, IoStats, DiskIo, IostatRow])
@given(data=st.data())
def test_a_built_object_is_the_one_the_class_builds(cls, data):
    n = len(dataclasses.fields(cls))
    values = data.draw(st.lists(VALUES, min_size=n, max_size=n))
    built, made = builder_of(cls)(*values), cls(*values)
    assert type(built) is cls
    assert built == made and hash(built) == hash(made)
    assert pickle.loads(pickle.dumps(built)) == made
    with pytest.raises(dataclasses.FrozenInstanceError):  # still frozen
        setattr(built, dataclasses.fields(cls)[0].name, "changed")


class _WeakBase:  # a weakref slot (dataclass's weakref_slot=True is 3.11+)
    __slots__ = ("__weakref__",)


@dataclasses.dataclass(frozen=True, slots=True)
class _WithWeakref(_WeakBase):  # another memory layout than a plain twin's: the slower builder serves it
    a: int
    b: str


def test_a_class_of_another_layout_is_built_the_slow_way_alike():
    built = builder_of(_WithWeakref)(1, "x")
    assert type(built) is _WithWeakref and built == _WithWeakref(1, "x")
