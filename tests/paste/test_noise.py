"""Word salad is UNKNOWN (issue #25): 20,000 lines of random zpool words made zdash invent a
dozen pools and say CRITICAL. A big paste of which under 1 % reads as zpool or zfs output is
not judged by what chance assembled; real pastes (the whole corpus) read far more."""

from __future__ import annotations

import random

import pytest

from tests.paste.salad import ZPOOL_WORDS
from zdash.cli import main
from zdash.paste.front import NOISE_MAX_READ, NOISE_MIN_LINES


@pytest.mark.slow
def test_random_zpool_words_are_unknown_with_the_reason(tmp_path, capsys):
    for seed in range(3):
        rnd = random.Random(seed)
        lines = [" ".join(rnd.choice(ZPOOL_WORDS) for _ in range(rnd.randrange(1, 12))) for _ in range(20000)]
        path = tmp_path / f"salad{seed}.txt"
        path.write_text("\n".join(lines) + "\n")
        assert main(["check", "--text", str(path)]) == 3
        out = capsys.readouterr()
        assert out.out.startswith("ZDASH UNKNOWN - no pool could be read"), out.out[:200]
        assert "too little to judge the paste by" in out.err


def test_a_real_status_inside_a_long_page_is_still_read(tmp_path, capsys):
    """The guard is for noise: a status among a page's prose, read at over 1 % of its lines."""
    from tests.faults.probes import paste_text

    status = paste_text()
    prose = "\n".join(f"comment {i}: has anyone seen this before?" for i in range(NOISE_MIN_LINES // 2))
    path = tmp_path / "page.txt"
    path.write_text(prose + "\n" + status + "\n" + prose + "\n")
    read = sum(1 for line in status.splitlines() if line.strip())
    assert read > NOISE_MAX_READ * (NOISE_MIN_LINES + read)  # the case the guard must leave alone
    assert main(["check", "--text", str(path)]) in (0, 1, 2)
    assert "too little" not in capsys.readouterr().err
