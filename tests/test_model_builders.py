"""The model's fast constructors (zdash.model.builder_of, replacer_of): what they build is what
the class's own constructor (or evolve) builds, so the fold's snapshots are the ones a user's
checks and screen see."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zdash.model import DiskIo, IoStats, Vdev, builder_of, evolve, replacer_of
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


@pytest.mark.slow
@pytest.mark.parametrize("cls", [Vdev, IoStats, DiskIo, IostatRow, _WithWeakref])
@given(data=st.data())
def test_a_replaced_object_is_the_one_evolve_gives(cls, data):
    names = [f.name for f in dataclasses.fields(cls)]
    obj = cls(*data.draw(st.lists(VALUES, min_size=len(names), max_size=len(names))))
    changed = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    values = data.draw(st.lists(VALUES, min_size=len(changed), max_size=len(changed)))
    made = replacer_of(cls, *changed)(obj, *values)
    assert type(made) is cls
    assert made == evolve(obj, **dict(zip(changed, values)))
    assert made is not obj


def test_a_measured_leaf_is_its_tree_node_with_this_ticks_figures():
    leaf = Vdev(name="sda", kind="disk", state="ONLINE", path="/dev/sda", guid="7", device="sda")
    io, disk = IoStats(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0), DiskIo("sda", util_pct=42.0)
    made = replacer_of(Vdev, "io", "disk")(leaf, io, disk)
    assert (made.io, made.disk, made.path, made.guid) == (io, disk, "/dev/sda", "7")


def test_a_field_the_class_does_not_have_is_refused():
    with pytest.raises(TypeError, match="no field"):
        replacer_of(IoStats, "util_pct")
