"""config: defaults, overrides from YAML, and clear errors instead of crashes."""

from __future__ import annotations

import dataclasses

import pytest

from zdash.config import CheckConfig, ConfigError, load_config


def write(tmp_path, text):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_defaults_are_the_documented_thresholds():
    cfg = CheckConfig()
    assert (cfg.capacity_pool_warn_pct, cfg.capacity_pool_crit_pct) == (80.0, 90.0)
    assert (cfg.capacity_vdev_warn_pct, cfg.capacity_vdev_crit_pct) == (80.0, 90.0)
    assert cfg.scrub_max_age_days == 35.0 and cfg.raidz_max_width == 8
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.raidz_max_width = 12


def test_no_file_at_the_default_place_means_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_config() == CheckConfig()


def test_an_explicit_config_path_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")


def test_overrides_under_checks_and_other_sections_ignored(tmp_path):
    path = write(
        tmp_path,
        "ui:\n  theme: dark\nchecks:\n  capacity_pool_warn_pct: 85\n"
        "  scrub_max_age_days: 60\n  disabled: [topology]\n",
    )
    cfg = load_config(path)
    assert cfg.capacity_pool_warn_pct == 85.0 and cfg.scrub_max_age_days == 60.0
    assert cfg.disabled == ("topology",) and cfg.raidz_max_width == 8


def test_empty_file_and_empty_section_mean_defaults(tmp_path):
    assert load_config(write(tmp_path, "")) == CheckConfig()
    assert load_config(write(tmp_path, "checks:\n")) == CheckConfig()


def test_unknown_key_is_a_clear_error_with_a_suggestion(tmp_path):
    path = write(tmp_path, "checks:\n  capacity_pool_warn_pc: 85\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert str(path) in message
    assert "unknown key 'checks.capacity_pool_warn_pc'" in message
    assert "did you mean 'checks.capacity_pool_warn_pct'" in message


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("checks:\n  raidz_max_width: wide\n", "must be a number"),
        ("checks:\n  raidz_max_width: 8.5\n", "whole number"),
        ("checks:\n  capacity_pool_warn_pct: 95\n", "must not exceed capacity_pool_crit_pct"),
        ("checks:\n  scrub_max_age_days: -1\n", "must not be negative"),
        ("checks: [1, 2]\n", "'checks' must be a mapping"),
        ("checks:\n  a: [\n", "not valid YAML"),
    ],
)
def test_bad_values_are_errors_not_crashes(tmp_path, text, fragment):
    with pytest.raises(ConfigError, match=None) as err:
        load_config(write(tmp_path, text))
    assert fragment in str(err.value)


def test_default_path_follows_xdg_config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "zdash").mkdir()
    (tmp_path / "zdash" / "config.yaml").write_text("checks:\n  raidz_max_width: 12\n")
    assert load_config().raidz_max_width == 12


def test_nan_and_infinite_thresholds_are_refused(tmp_path):
    import pytest

    for bad in (".nan", ".inf", "-.inf"):
        f = tmp_path / "c.yaml"
        f.write_text(f"checks:\n  capacity_pool_crit_pct: {bad}\n")
        with pytest.raises(ConfigError, match="must be a finite number"):
            load_config(f)


def test_an_unknown_check_in_disabled_is_named_with_a_hint(tmp_path):
    import pytest

    f = tmp_path / "c.yaml"
    f.write_text("checks:\n  disabled: [topolgy]\n")
    with pytest.raises(ConfigError, match="unknown check id 'topolgy' \\(did you mean 'topology'\\?\\)"):
        load_config(f)


def test_the_known_check_ids_are_the_registrys():
    from zdash.checks.registry import CHECKS
    from zdash.config import CHECK_IDS

    assert sorted(CHECK_IDS) == sorted(m.ID for m in CHECKS)


def test_a_deeply_nested_config_is_a_message_not_a_crash(tmp_path):
    import pytest

    f = tmp_path / "c.yaml"
    f.write_text("checks: " + "[" * 20000 + "]" * 20000 + "\n")
    with pytest.raises(ConfigError, match=r"nested too deeply|not valid YAML|must be a mapping"):
        load_config(f)
