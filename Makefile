# The two commands of the README: `make run` and `make test`.
# Both create .venv with the first Python >= 3.11 found and install the project into it.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $$p && break; done)
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Horizon needs Python 3.11 or newer on PATH"; exit 1; }
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/horizon

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/python -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(VENV)/bin/python $$f; done

clean:
	rm -rf $(VENV) build dist .pytest_cache
