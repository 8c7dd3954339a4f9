"""Deeply nested YAML is refused as "nested too deeply" by every reader of user files, and the
guard leaves real documents (brackets inside recorded outputs, flow lists) alone."""

from __future__ import annotations

import pytest

from zdash.config import ConfigError, load_config
from zdash.ui.settings import load_ui_settings
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
        load_config(str(path))
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_ui_settings(path)
