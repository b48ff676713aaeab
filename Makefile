# The two commands of the README: `make demo` and `make test` do all the set-up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Debian packages the browser and PDF tests need; installed here so no step is manual.
SYSTEM_PACKAGES := chromium poppler-utils

.PHONY: venv demo example test lint typecheck pytest bench system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The inspect extra too: its reader's tests read real Inspect AI logs through inspect_ai.
	$(BIN)/python -m pip install --quiet -e '.[dev,inspect]'
	touch $(STAMP)

venv: $(STAMP)

system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v pdftotext >/dev/null 2>&1 || missing="$$missing poppler-utils"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "warning: install$$missing (as root) for the browser and PDF tests"; \
	  fi; \
	fi

# vol-003 is not audited here: its audit fails by design on its balance (ambiguity is
# below the volume's minimum of validated items; tests/demo/test_vol3.py checks that this
# is its only finding).
demo: venv
	$(BIN)/probepress demo
	$(BIN)/probepress demo --check
	$(BIN)/probepress publish vol-001 vol-002 vol-003
	$(BIN)/probepress audit vol-001
	$(BIN)/probepress audit vol-002

# Regenerate the committed example from scratch after a change of its formats: published
# outputs are frozen (a published volume whose inputs changed is refused, an erratum is a
# new volume), so the old ones are removed first. Two commits: the inputs (publish needs a
# clean tree and records that commit), then the publication.
example: venv
	git diff --quiet && git diff --cached --quiet || { echo "commit or stash first"; exit 1; }
	rm -rf site_src/volumes/vol-* figures/*.json
	find site_src/downloads -mindepth 1 -not -path 'site_src/downloads/schemas*' -delete
	$(BIN)/probepress schema
	$(BIN)/probepress demo
	git add -A bank bundles figures site_src
	git commit -q -m "Example: regenerated inputs (probepress demo; old outputs removed)"
	$(BIN)/probepress publish vol-001 vol-002 vol-003
	git add -A bank bundles figures site_src
	git commit -q -m "Example: regenerated publication (probepress publish vol-001 vol-002 vol-003)"
	$(BIN)/probepress demo --check
	$(MAKE) demo
	test -z "$$(git status --porcelain)"

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

# Two workers on the two cores; a test module stays on one worker so its fixtures build once,
# slowest modules first (tests/conftest.py); CI prints the 25 slowest tests. Bytecode is
# cached even where the environment sets PYTHONDONTWRITEBYTECODE: each worker and each
# subprocess a test starts would otherwise compile the package again (18 s against 11 s of
# collection per worker, measured by the suite work of issue 13).
pytest: venv system-deps
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=25

test: lint typecheck pytest

bench: venv
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) site .pytest_cache .mypy_cache .ruff_cache
