"""Deeply nested YAML is refused as "nested too deeply" by every reader of user files, and the
guard leaves real documents (brackets inside recorded outputs, flow lists) alone."""

from __future__ import annotations

import pytest

from zdash.config import ConfigError, read_config
from zdash.yaml_doc import TooDeep, load_yaml

DEEP = "checks:\n  x: " + "[ " * 5000 + "]" * 5000 + "\n"


def test_deep_flow_nesting_is_refused_with_the_reason():
    with pytest.raises(TooDeep, match="nested too deeply"):
        load_yaml(DEEP)


def test_nesting_below_the_guard_and_brackets_in_text_still_load():
    doc = load_yaml("a: " + "[" * 40 + "]" * 40 + "\nout: |\n  [[[[ not yaml ]]]] {{{\n")
    assert isinstance(doc, dict) and doc["out"] == "[[[[ not yaml ]]]] {{{\n"


def test_a_deep_config_or_settings_file_is_a_config_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(DEEP.replace("checks:", "ui:"))
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_config(str(path))
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_config(path)


LAUGHS = 'a0: &a0 ["lol"]\n' + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
)


def test_aliases_are_refused_before_anything_is_built():
    from zdash.yaml_doc import HasAliases

    with pytest.raises(HasAliases, match=r"alias \*a0 \(line 2\)"):
        load_yaml(LAUGHS)
    assert load_yaml("note: 'R&D & ops'\nout: |\n  a & b *c\n") == {"note": "R&D & ops", "out": "a & b *c\n"}


def test_a_config_of_aliases_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(LAUGHS + "checks:\n  scrub_max_age_days: *a9\n")
    with pytest.raises(ConfigError, match=r"config\.yaml: holds a YAML alias"):
        read_config(str(path))


def test_every_yaml_read_has_a_size_cap(tmp_path):
    from zdash.yaml_doc import TooLarge, load_yaml_file

    path = tmp_path / "big.yaml"
    path.write_text("# " + "x" * (2 << 20) + "\n")
    with pytest.raises(TooLarge, match="larger than 1 MiB"):
        load_yaml_file(str(path))
    with pytest.raises(TooLarge):
        load_yaml("a: 1\n" * 100, max_bytes=100)
