# argmatrix developer tasks. Every target creates what it needs; nothing needs installing by hand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LIVE   := .cache/live-sglang
SGLANG := sglang==0.5.7

.PHONY: install docs serve test lint check-docs bench live-env clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[docs,test]'
	# The showcase registry: read statically, so no dependency of sglang is needed.
	$(BIN)/pip install -q --no-deps $(SGLANG)
	touch $@

# A heavy environment that can import sglang's registry for real (CPU torch), used by the
# static-vs-live test and the benchmark. Built once, cached in .cache/.
live-env: $(LIVE)/.installed

$(LIVE)/.installed: tests/live/requirements.txt
	$(PYTHON) -m venv $(LIVE)
	$(LIVE)/bin/pip install -q --upgrade pip
	$(LIVE)/bin/pip install -q torch==2.13.0
	$(LIVE)/bin/pip install -q -r tests/live/requirements.txt
	$(LIVE)/bin/pip install -q --no-deps $(SGLANG)
	touch $@

docs: install
	$(BIN)/argmatrix generate
	$(BIN)/mkdocs build --strict
	@echo "Site built in site/ -- open site/index.html, or run 'make serve'."

serve: install
	$(BIN)/mkdocs serve

lint: install
	$(BIN)/ruff check src tests bench

test: install live-env lint
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python $(BIN)/pytest -q

check-docs: install
	$(BIN)/argmatrix check
	$(BIN)/argmatrix check --config docs/reference/argmatrix.yaml

bench: install live-env
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python $(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache site build docs/showcase .pytest_cache .hypothesis
