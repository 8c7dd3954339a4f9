"""The README a new user reads first: short, every link lands, the test command is the one CI
runs, and nothing it or the manual says points outside the repository (a user of the package
has only what is in it)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _published_texts() -> dict[str, str]:
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    return {str(f.relative_to(ROOT)): f.read_text() for f in files}


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_every_link_in_the_readme_lands_in_the_repository():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links the manual"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing


def test_the_readme_test_command_is_what_ci_runs():
    blocks = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    tests = [b for b in blocks if "pytest" in b]
    assert len(tests) == 1, "one test command in the README"
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests[0].strip() in ci


def test_nothing_published_points_outside_the_repository():
    outside = re.compile(r"\.\./shared|/work/|\]\(\.\./")
    hits = {name: m[0] for name, text in _published_texts().items() if (m := outside.search(text))}
    assert not hits, hits
