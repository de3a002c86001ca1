# argmatrix developer tasks. Every target creates what it needs; nothing needs installing by hand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LIVE   := .cache/live-sglang
SGLANG := sglang==0.5.7
# An older release, for `argmatrix diff` (tests/test_regdiff.py): its sources only, read statically.
OLD_SGLANG := .cache/sglang-0.5.2
# A release whose arguments are declared as annotated class fields (msgspec namespaces assembled
# by defstruct, turned into arguments by a generic helper): its sources only, read statically
# (tests/test_static_declarative_sglang.py).
NEW_SGLANG := .cache/sglang-0.5.23
# A Python that imports 0.5.23's registry live (CPU torch), for the same test's static-vs-live check.
LIVE_0523 := .cache/live-sglang-0.5.23
# The real MDX compiler (npm), with the frontmatter and GFM syntax Mintlify reads: every .mdx page
# the tests generate must compile with it (tests/test_mdx_*.py run it through node).
MDX := .cache/mdx

# The other supported Pythons: the model and the pages must come out the same on each
# (tests/test_python_versions.py). Each gets .cache/pyX.Y with argmatrix installed editable.
OTHER_PYTHONS := 3.10 3.12 3.13
PYTHON_ENVS   := $(foreach version,$(OTHER_PYTHONS),.cache/py$(version))
empty :=
space := $(empty) $(empty)

.PHONY: properdocs
.PHONY: install docs docs-zensical serve test test-fast lint check-docs history bench live-env pythons old-sglang new-sglang live-env-0523 clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[docs,test,markdown,zensical,sphinx]'
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

# lmdeploy's command line, read live with `mock: auto` (tests/test_live_lmdeploy.py): its sources
# only, none of its dependencies (the stand-ins take their place).
LMDEPLOY := .cache/lmdeploy-0.18.0
.PHONY: lmdeploy-cli
lmdeploy-cli: $(LMDEPLOY)/.installed
test: lmdeploy-cli

$(LMDEPLOY)/.installed:
	$(BIN)/pip install -q --no-deps --target $(LMDEPLOY) lmdeploy==0.18.0
	touch $@

# ProperDocs (continues MkDocs 1.x, finds plugins under properdocs.plugins), in a venv of its own
# without MkDocs: tests/test_properdocs.py builds a project with the argmatrix plugin in it.
PROPERDOCS := .cache/properdocs
properdocs: $(PROPERDOCS)/.installed
test: properdocs

$(PROPERDOCS)/.installed: pyproject.toml
	$(PYTHON) -m venv $(PROPERDOCS)
	$(PROPERDOCS)/bin/pip install -q properdocs==1.6.7 properdocs-theme-mkdocs==1.6.7
	$(PROPERDOCS)/bin/pip install -q -e .
	touch $@

# pydantic, for a registry whose model is typed with stand-ins (tests/test_live_pydantic.py): not
# a dependency of argmatrix, so it lives in its own folder, put on the path of that test's process.
PYDANTIC := .cache/pydantic-2.14.3
.PHONY: pydantic-lib
pydantic-lib: $(PYDANTIC)/.installed
test: pydantic-lib

$(PYDANTIC)/.installed:
	$(BIN)/pip install -q --target $(PYDANTIC) pydantic==2.14.3
	touch $@

$(MDX)/.installed:
	npm install --prefix $(MDX) --no-audit --no-fund --save-exact \
	  @mdx-js/mdx@3.1.1 remark-frontmatter@5.0.0 remark-gfm@4.0.1
	touch $@

old-sglang: $(OLD_SGLANG)/.installed

$(OLD_SGLANG)/.installed:
	$(BIN)/pip install -q --no-deps --target $(OLD_SGLANG) sglang==0.5.2
	touch $@

new-sglang: $(NEW_SGLANG)/.installed

$(NEW_SGLANG)/.installed:
	$(BIN)/pip install -q --no-deps --target $(NEW_SGLANG) sglang==0.5.23
	touch $@

live-env-0523: $(LIVE_0523)/.installed

$(LIVE_0523)/.installed: tests/live/requirements-sglang-0.5.23.txt
	$(PYTHON) -m venv $(LIVE_0523)
	$(LIVE_0523)/bin/pip install -q --upgrade pip
	$(LIVE_0523)/bin/pip install -q torch==2.13.0
	$(LIVE_0523)/bin/pip install -q -r tests/live/requirements-sglang-0.5.23.txt
	$(LIVE_0523)/bin/pip install -q --no-deps sglang==0.5.23
	touch $@

# A Python that imports vLLM 0.33.0's command line live (CPU torch, vLLM --no-deps, its light
# dependencies; argmatrix stands in for xgrammar and llguidance), for tests/test_live_vllm.py and
# the benchmark. Built once, cached in .cache/ (about 2 minutes and 2.2 GB, 2 cores).
LIVE_VLLM := .cache/live-vllm
.PHONY: live-env-vllm
live-env-vllm: $(LIVE_VLLM)/.installed
test: live-env-vllm

$(LIVE_VLLM)/.installed: tests/live/requirements-vllm-0.33.0.txt
	$(PYTHON) -m venv $(LIVE_VLLM)
	$(LIVE_VLLM)/bin/pip install -q --upgrade pip
	$(LIVE_VLLM)/bin/pip install -q torch==2.13.0
	$(LIVE_VLLM)/bin/pip install -q -r tests/live/requirements-vllm-0.33.0.txt
	$(LIVE_VLLM)/bin/pip install -q --no-deps vllm==0.33.0
	touch $@

pythons: $(foreach env,$(PYTHON_ENVS),$(env)/.installed)

# The interpreter: pyenv's, else the system's.
.cache/py%/.installed: pyproject.toml
	@python=""; \
	for candidate in "$$(pyenv root 2>/dev/null)"/versions/$*.*/bin/python$* \
	                 "$$HOME"/.pyenv/versions/$*.*/bin/python$* \
	                 /usr/local/bin/python$* /usr/bin/python$*; do \
	  if "$$candidate" -c "import sys" >/dev/null 2>&1; then python="$$candidate"; break; fi; \
	done; \
	if [ -z "$$python" ]; then \
	  echo "Python $* is not installed; tests/test_python_versions.py needs it (fix: pyenv install $*)" >&2; \
	  exit 1; \
	fi; \
	"$$python" -m venv .cache/py$*
	.cache/py$*/bin/pip install -q -e .
	touch $@

# The showcase of sglang 0.5.23 (showcase/sglang-0.5.23/) reads the sources `new-sglang` installs.
SHOWCASE_0523 := showcase/sglang-0.5.23/argmatrix.yaml

docs: install new-sglang
	$(BIN)/argmatrix generate
	$(BIN)/mkdocs build --strict
	@echo "Site built in site/ -- open site/index.html, or run 'make serve'."

# The same site from the same mkdocs.yml, built by Zensical into build/site-zensical (Zensical
# has no option for the site folder: mkdocs.yml reads ARGMATRIX_SITE_DIR). Zensical ignores the
# MkDocs plugin, so the showcase pages are generated first (build outputs, git-ignored) and the
# directives of the hand-written pages are expanded by the Markdown extension (argmatrix.markdown).
# Not --clean, which would empty all of .cache (the test environments); Zensical's own cache
# entries (files named by a number at the top of .cache) are dropped instead, as they know
# nothing of the registry or the manifests.
docs-zensical: install new-sglang
	$(BIN)/argmatrix generate
	$(BIN)/argmatrix generate --config $(SHOWCASE_0523)
	find .cache -maxdepth 1 -type f -name '[0-9]*' -delete 2>/dev/null || true
	ARGMATRIX_SITE_DIR=build/site-zensical $(BIN)/zensical build
	@echo "Site built in build/site-zensical/ -- open build/site-zensical/index.html."

serve: install new-sglang
	$(BIN)/mkdocs serve

# Style, types and the direction of imports (the layers are in pyproject.toml).
lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# The full suite, with the coverage of src/argmatrix (the floor is in pyproject.toml).
test: install live-env live-env-0523 pythons old-sglang new-sglang $(MDX)/.installed lint
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python \
	ARGMATRIX_LIVE_PYTHON_0523=$(CURDIR)/$(LIVE_0523)/bin/python \
	ARGMATRIX_PYTHONS=$(subst $(space),:,$(foreach env,$(PYTHON_ENVS),$(CURDIR)/$(env)/bin/python)) \
	$(BIN)/pytest -q --cov --cov-report=term:skip-covered

# The edit-test loop: no heavy live environment, no other Pythons, no browser.
test-fast: install old-sglang new-sglang $(MDX)/.installed
	$(BIN)/pytest -q -x -m "not slow" --ignore=tests/test_browser_site.py --ignore=tests/test_python_versions.py

check-docs: install new-sglang
	$(BIN)/argmatrix check
	$(BIN)/argmatrix check --config docs/reference/argmatrix.yaml
	$(BIN)/argmatrix check --config $(SHOWCASE_0523)

# When each sglang flag arrived: every release since 0.5.0 (0.5.0rc2, the first on PyPI), as
# wheels in .cache/sglang-releases (sources only are read, statically), into the showcase's
# committed facts file. Run it when sglang releases; `make check-docs` does not need it.
SGLANG_RELEASES := 0.5.0rc2 $(foreach n,1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23,0.5.$(n))

history: install
	mkdir -p .cache/sglang-releases
	for version in $(SGLANG_RELEASES); do \
	  ls .cache/sglang-releases/sglang-$$version-*.whl >/dev/null 2>&1 || \
	  $(BIN)/pip download -q --no-deps --only-binary=:all: -d .cache/sglang-releases sglang==$$version; \
	done
	$(BIN)/argmatrix history --target sglang.srt.server_args:ServerArgs.add_cli_args \
	  --releases .cache/sglang-releases --output showcase/sglang-0.5.23/history.json

bench: install live-env new-sglang live-env-0523 live-env-vllm lmdeploy-cli
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python $(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache site build docs/showcase .pytest_cache .hypothesis
