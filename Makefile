# The two commands of the README: `make run` and `make test`.
# Both create .venv with the first Python >= 3.11 found and install the project into it.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $$p && break; done)
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench clean compiled pure typecheck

# The battle core's hot modules, compiled to C extensions by mypyc (`make compiled`, or
# HORIZON_COMPILE=1 when the venv is made) where a C compiler is present; the same source runs as
# pure Python otherwise (`make pure` removes the extensions). README "Engine speed".
COMPILED := horizon_tui/engine/components.py horizon_tui/engine/events.py horizon_tui/engine/battle.py \
	horizon_tui/engine/usability.py horizon_tui/engine/effects.py horizon_tui/engine/turns.py \
	horizon_tui/engine/ai.py horizon_tui/engine/attacks.py horizon_tui/engine/resolve.py horizon_tui/engine/sight.py \
	horizon_tui/engine/battlefield.py \
	horizon_tui/rules/ranges.py horizon_tui/rules/turns.py

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Horizon needs Python 3.11 or newer on PATH"; exit 1; }
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	@if [ "$(HORIZON_COMPILE)" = 1 ]; then $(MAKE) --no-print-directory compiled STAMP_DONE=1; fi
	@touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/horizon

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/python -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(VENV)/bin/python $$f; done

typecheck: $(STAMP)
	$(VENV)/bin/mypy

compiled: $(if $(STAMP_DONE),,$(STAMP))
	@if command -v cc >/dev/null 2>&1; then \
		$(VENV)/bin/python mypyc_build.py $(COMPILED) >build-mypyc.log 2>&1 || { tail -30 build-mypyc.log; exit 1; }; \
		echo "compiled with mypyc: $(COMPILED)"; \
	else echo "no C compiler (cc): the battle core stays pure Python"; fi

pure:
	rm -f horizon_tui/engine/*.so horizon_tui/rules/*.so *__mypyc*.so build-mypyc.log

clean: pure
	rm -rf $(VENV) build dist .pytest_cache
