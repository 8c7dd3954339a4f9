# One command before every push: `make check` (what .ci/run runs, with the tests).
# Tools come from the dev extra: .venv/bin/pip install -e '.[dev]'
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: check guardrails lint format types contracts deadcode deps docs test fix

check: guardrails test

guardrails: lint format types contracts deadcode deps docs

lint:
	$(BIN)/ruff check zdash tests fixtures

format:
	$(BIN)/ruff format --check zdash tests fixtures

types:
	$(BIN)/mypy

contracts:
	$(BIN)/lint-imports

deadcode:
	$(BIN)/vulture

# Every module zdash imports is a declared dependency (not one that comes in through another).
deps:
	$(BIN)/deptry zdash

# The manual (docs/, mkdocs.yml): a broken link or anchor fails the build.
docs:
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test:
	$(BIN)/pytest -q
	$(BIN)/pytest -q -m slow
	$(BIN)/pytest -q -m e2e

# Rewrites files: the safe lint fixes and the formatter.
fix:
	$(BIN)/ruff check --fix zdash tests fixtures
	$(BIN)/ruff format zdash tests fixtures
