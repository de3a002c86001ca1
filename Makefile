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
# The same compiler with React, in an environment of its own: the browser test of MDX pages
# (tests/test_browser_mdx.py) renders each page to HTML with it (tests/e2e/mdx_render.mjs).
MDX_RENDER := .cache/mdx-render

# The other supported Pythons: the model and the pages must come out the same on each
# (tests/test_python_versions.py). Each gets .cache/pyX.Y with argmatrix installed editable.
OTHER_PYTHONS := 3.10 3.12 3.13
PYTHON_ENVS   := $(foreach version,$(OTHER_PYTHONS),.cache/py$(version))
empty :=
space := $(empty) $(empty)

.PHONY: properdocs
.PHONY: lock test-latest
.PHONY: install docs docs-zensical serve test test-fast lint check-docs history bench live-env pythons old-sglang new-sglang live-env-0523 clean

install: $(VENV)/.installed

# Every install below takes its versions from a lock in locks/ (`pip install -c`): a developer's
# machine and CI test against the same releases, whatever was published that morning. `make lock`
# refreshes the locks; `make test-latest` runs the suite on the newest releases. pyproject.toml
# keeps open ranges for users. Builds run without isolation, on the locked setuptools.
LOCKS := locks
PIP_LOCKED = pip install -q --no-build-isolation -c

$(VENV)/.installed: pyproject.toml $(LOCKS)/dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c $(LOCKS)/dev.txt pip setuptools wheel
	$(BIN)/$(PIP_LOCKED) $(LOCKS)/dev.txt -e '.[docs,test,markdown,zensical,sphinx]'
	# The showcase registry: read statically, so no dependency of sglang is needed.
	$(BIN)/pip install -q --no-deps --no-warn-conflicts $(SGLANG)
	touch $@

# torch 2.13.0, its CPU build, for the three live environments below. Where pip finds that build
# without an index (a folder of wheels named by PIP_FIND_LINKS or by pip's configuration: this
# project's machines have /opt/wheels), it is installed from there and nothing is added; else
# pip is pointed at TORCH_INDEX, PyTorch's CPU index. `make test TORCH_INDEX=<url>` names
# another index; `TORCH_INDEX=` (empty) takes PyPI's own wheel, on Linux x86_64 the CUDA build
# (several GB more). `make prerequisites` checks the source before anything is installed.
TORCH := torch==2.13.0
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
# "yes" where pip finds the CPU build without an index; asked once, and only when needed.
LOCAL_TORCH = $(eval LOCAL_TORCH := $(shell $(PYTHON) -m pip install --dry-run -q --no-index \
	--no-deps --ignore-installed '$(TORCH)+cpu' >/dev/null 2>&1 && echo yes))$(LOCAL_TORCH)
TORCH_INDEX ?= $(if $(LOCAL_TORCH),,$(TORCH_CPU_INDEX))
TORCH_FROM = $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX) )

# A heavy environment that can import sglang's registry for real (CPU torch), used by the
# static-vs-live test and the benchmark. Built once, cached in .cache/.
live-env: $(LIVE)/.installed

$(LIVE)/.installed: tests/live/requirements.txt $(LOCKS)/live-sglang-0.5.7.txt
	$(PYTHON) -m venv $(LIVE)
	$(LIVE)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.7.txt pip setuptools wheel
	$(LIVE)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.7.txt $(TORCH_FROM)$(TORCH)
	$(LIVE)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.7.txt -r tests/live/requirements.txt
	$(LIVE)/bin/pip install -q --no-deps --no-warn-conflicts $(SGLANG)
	touch $@

# lmdeploy's command line, read live with `mock: auto` (tests/test_live_lmdeploy.py): its sources
# only, none of its dependencies (the stand-ins take their place).
LMDEPLOY := .cache/lmdeploy-0.18.0
.PHONY: lmdeploy-cli
lmdeploy-cli: $(LMDEPLOY)/.installed

$(LMDEPLOY)/.installed:
	$(BIN)/pip install -q --no-deps --no-warn-conflicts --target $(LMDEPLOY) lmdeploy==0.18.0
	touch $@

# ProperDocs (continues MkDocs 1.x, finds plugins under properdocs.plugins), in a venv of its own
# without MkDocs: tests/test_properdocs.py builds a project with the argmatrix plugin in it.
PROPERDOCS := .cache/properdocs
properdocs: $(PROPERDOCS)/.installed

$(PROPERDOCS)/.installed: pyproject.toml $(LOCKS)/properdocs.txt
	$(PYTHON) -m venv $(PROPERDOCS)
	$(PROPERDOCS)/bin/pip install -q -c $(LOCKS)/properdocs.txt pip setuptools wheel
	$(PROPERDOCS)/bin/$(PIP_LOCKED) $(LOCKS)/properdocs.txt -r $(LOCKS)/properdocs.in -e .
	touch $@

# pydantic, for a registry whose model is typed with stand-ins (tests/test_live_pydantic.py): not
# a dependency of argmatrix, so it lives in its own folder, put on the path of that test's process.
PYDANTIC := .cache/pydantic-2.14.3
.PHONY: pydantic-lib
pydantic-lib: $(PYDANTIC)/.installed

$(PYDANTIC)/.installed: $(LOCKS)/pydantic.txt
	$(BIN)/pip install -q --no-warn-conflicts -c $(LOCKS)/pydantic.txt --target $(PYDANTIC) -r $(LOCKS)/pydantic.in
	touch $@

# Typer, for Typer registries (tests/test_typer_registry.py): 0.29.2 vendors its own Click and
# needs pydantic, 0.9.4 runs on Click 8.1.8. Neither is a dependency of argmatrix, and pydantic
# must not be importable in .venv: each lives in its own folder, put on the path of that test's
# processes.
TYPER_NEW := .cache/typer-0.29.2
TYPER_OLD := .cache/typer-0.9.4
.PHONY: typer-libs
typer-libs: $(TYPER_NEW)/.installed $(TYPER_OLD)/.installed

$(TYPER_NEW)/.installed: $(LOCKS)/typer-0.29.2.txt
	$(BIN)/pip install -q --no-warn-conflicts -c $(LOCKS)/typer-0.29.2.txt --target $(TYPER_NEW) -r $(LOCKS)/typer-0.29.2.in
	touch $@

$(TYPER_OLD)/.installed: $(LOCKS)/typer-0.9.4.txt
	$(BIN)/pip install -q --no-warn-conflicts -c $(LOCKS)/typer-0.9.4.txt --target $(TYPER_OLD) -r $(LOCKS)/typer-0.9.4.in
	touch $@

# A program `make test` needs beside Python: present, or one line naming the command that
# installs it (Debian's packages; README.md lists them all).
need = @command -v $(1) >/dev/null 2>&1 || \
	{ echo "make: $(1) is not installed: $(2) (fix: $(3))" >&2; exit 1; }

# The corpus of real command lines (tests/test_corpus.py, marker `corpus`): current releases of
# Click, Typer and argparse servers (locks/corpus.in), from wheels only, in an environment of
# their own with argmatrix installed editable, where each is read live and statically and
# compared with its framework's own view.
CORPUS := .cache/corpus
.PHONY: corpus
corpus: $(CORPUS)/.installed

$(CORPUS)/.installed: pyproject.toml $(LOCKS)/corpus.in $(LOCKS)/corpus.txt
	$(PYTHON) -m venv $(CORPUS)
	$(CORPUS)/bin/pip install -q -c $(LOCKS)/corpus.txt pip setuptools wheel
	$(CORPUS)/bin/pip install -q -c $(LOCKS)/corpus.txt --only-binary=:all: -r $(LOCKS)/corpus.in
	$(CORPUS)/bin/$(PIP_LOCKED) $(LOCKS)/corpus.txt -e .
	touch $@

# The option-list tools docs/guide/peers.md compares argmatrix with (locks/peers.in:
# sphinx-argparse-cli, sphinx-argparse, sphinx-click, mkdocs-click), beside Sphinx with Furo,
# MkDocs with Material and argmatrix itself installed editable, so every tool builds with the
# same engines: an environment of its own (.cache/peers), for that page only. None of them is a
# dependency of argmatrix or of its tests, and none of their code enters the repository.
PEERS := .cache/peers
.PHONY: peers-env peers
peers-env: $(PEERS)/.installed

$(PEERS)/.installed: pyproject.toml $(LOCKS)/peers.in $(LOCKS)/peers.txt
	$(PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/pip install -q -c $(LOCKS)/peers.txt pip setuptools wheel
	$(PEERS)/bin/$(PIP_LOCKED) $(LOCKS)/peers.txt -e '.[docs,sphinx]' -r $(LOCKS)/peers.in
	touch $@

# The comparison docs/guide/peers.md is written from: the shape fixtures built by argmatrix and by
# each peer into build/peers/, read in Chromium at 1400 and 390 px, both tables printed (the facts
# kept in build/peers/facts.json, screenshots in build/peers/screenshots/); exit 1 naming each cell
# of the page the build no longer shows. tests/test_peers_page.py builds argmatrix's part of it
# (with .venv) and holds argmatrix's cells.
peers: install browser-tools $(PEERS)/.installed
	$(BIN)/python tests/peers_build.py --out build/peers

# npm's own lock: `npm ci` installs exactly what locks/mdx/package-lock.json holds.
$(MDX)/.installed: $(LOCKS)/mdx/package.json $(LOCKS)/mdx/package-lock.json
	$(call need,npm,the MDX compiler's tests run it through Node.js,apt-get install nodejs npm)
	mkdir -p $(MDX)
	cp $(LOCKS)/mdx/package.json $(LOCKS)/mdx/package-lock.json $(MDX)/
	npm ci --prefix $(MDX) --no-audit --no-fund --silent
	touch $@

$(MDX_RENDER)/.installed: $(LOCKS)/mdx-render/package.json $(LOCKS)/mdx-render/package-lock.json
	$(call need,npm,the browser test of MDX pages renders them with React through Node.js,apt-get install nodejs npm)
	mkdir -p $(MDX_RENDER)
	cp $(LOCKS)/mdx-render/package.json $(LOCKS)/mdx-render/package-lock.json $(MDX_RENDER)/
	npm ci --prefix $(MDX_RENDER) --no-audit --no-fund --silent
	touch $@

old-sglang: $(OLD_SGLANG)/.installed

$(OLD_SGLANG)/.installed:
	$(BIN)/pip install -q --no-deps --no-warn-conflicts --target $(OLD_SGLANG) sglang==0.5.2
	touch $@

new-sglang: $(NEW_SGLANG)/.installed

SITE_PIP ?= $(BIN)/pip
$(NEW_SGLANG)/.installed:
	$(SITE_PIP) install -q --no-deps --no-warn-conflicts --target $(NEW_SGLANG) sglang==0.5.23
	touch $@

live-env-0523: $(LIVE_0523)/.installed

$(LIVE_0523)/.installed: tests/live/requirements-sglang-0.5.23.txt $(LOCKS)/live-sglang-0.5.23.txt
	$(PYTHON) -m venv $(LIVE_0523)
	$(LIVE_0523)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.23.txt pip setuptools wheel
	$(LIVE_0523)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.23.txt $(TORCH_FROM)$(TORCH)
	$(LIVE_0523)/bin/pip install -q -c $(LOCKS)/live-sglang-0.5.23.txt \
	  -r tests/live/requirements-sglang-0.5.23.txt
	$(LIVE_0523)/bin/pip install -q --no-deps --no-warn-conflicts sglang==0.5.23
	touch $@

# A Python that imports vLLM 0.33.0's command line live (CPU torch, vLLM --no-deps, its light
# dependencies; argmatrix stands in for xgrammar and llguidance), for tests/test_live_vllm.py and
# the benchmark. Built once, cached in .cache/ (about 2 minutes and 2.2 GB, 2 cores).
LIVE_VLLM := .cache/live-vllm
VLLM := vllm==0.33.0
.PHONY: live-env-vllm
live-env-vllm: $(LIVE_VLLM)/.installed

$(LIVE_VLLM)/.installed: tests/live/requirements-vllm-0.33.0.txt $(LOCKS)/live-vllm-0.33.0.txt
	$(PYTHON) -m venv $(LIVE_VLLM)
	$(LIVE_VLLM)/bin/pip install -q -c $(LOCKS)/live-vllm-0.33.0.txt pip setuptools wheel
	$(LIVE_VLLM)/bin/pip install -q -c $(LOCKS)/live-vllm-0.33.0.txt $(TORCH_FROM)$(TORCH)
	$(LIVE_VLLM)/bin/pip install -q -c $(LOCKS)/live-vllm-0.33.0.txt \
	  -r tests/live/requirements-vllm-0.33.0.txt
	$(LIVE_VLLM)/bin/pip install -q --no-deps --no-warn-conflicts $(VLLM)
	touch $@

# vLLM 0.33.0 as a documentation machine has it: vLLM --no-deps and its pure-Python requirements
# (the same list, at the same versions as live-env-vllm: locks/vllm-notorch-0.33.0.txt), and NO
# torch. tests/test_vllm_notorch.py reads every `vllm` subcommand with it and compares each with
# the CPU-torch read of live-env-vllm; the benchmark measures it. Built once (about 2 minutes).
VLLM_NOTORCH := .cache/vllm-notorch
NO_TORCH := import importlib.util, sys; sys.exit("torch is installed" if importlib.util.find_spec("torch") else 0)
.PHONY: vllm-notorch
vllm-notorch: $(VLLM_NOTORCH)/.installed

$(VLLM_NOTORCH)/.installed: tests/live/requirements-vllm-0.33.0.txt $(LOCKS)/vllm-notorch-0.33.0.txt
	$(PYTHON) -m venv $(VLLM_NOTORCH)
	$(VLLM_NOTORCH)/bin/pip install -q -c $(LOCKS)/vllm-notorch-0.33.0.txt pip setuptools wheel
	$(VLLM_NOTORCH)/bin/pip install -q -c $(LOCKS)/vllm-notorch-0.33.0.txt \
	  -r tests/live/requirements-vllm-0.33.0.txt
	$(VLLM_NOTORCH)/bin/pip install -q --no-deps --no-warn-conflicts $(VLLM)
	$(VLLM_NOTORCH)/bin/python -c '$(NO_TORCH)'
	touch $@

pythons: $(foreach env,$(PYTHON_ENVS),$(env)/.installed)

# The interpreter of Python $(1) that can create an environment (its venv and ensurepip modules):
# pyenv's, else the system's. Nothing is downloaded; prints nothing where there is none.
find_python = for candidate in "$$(pyenv root 2>/dev/null)"/versions/$(1).*/bin/python$(1) \
	                 "$$HOME"/.pyenv/versions/$(1).*/bin/python$(1) \
	                 /usr/local/bin/python$(1) /usr/bin/python$(1); do \
	  if "$$candidate" -c "import ensurepip, venv" >/dev/null 2>&1; then echo "$$candidate"; break; fi; \
	done
# Where it is missing: one line naming the command that installs it.
no_python = echo "make: Python $(1) is not installed: tests/test_python_versions.py compares pages made on it (fix: pyenv install $(1), or the system's python$(1) with its venv module)" >&2

.cache/py%/.installed: pyproject.toml $(LOCKS)/runtime.txt
	@python="$$($(call find_python,$*))"; \
	if [ -z "$$python" ]; then $(call no_python,$*); exit 1; fi; \
	"$$python" -m venv .cache/py$*
	.cache/py$*/bin/pip install -q -c $(LOCKS)/runtime.txt pip setuptools wheel
	.cache/py$*/bin/$(PIP_LOCKED) $(LOCKS)/runtime.txt -e .
	touch $@

# Refreshes every lock from its inputs (pyproject.toml's ranges, tests/live/requirements*.txt,
# locks/*.in, locks/mdx/package.json) with today's releases. Run it on purpose, then run
# `make test` and commit the locks with what the new releases needed.
UV_VERSION := 0.13.9
UV := .cache/uv/bin/uv
EXTRAS := --extra docs --extra test --extra markdown --extra zensical --extra sphinx
COMPILE = $(UV) pip compile -q --no-header --python-version 3.11 --python-platform x86_64-manylinux_2_28
LIVE_INPUTS = $(LOCKS)/torch-cpu.in $(LOCKS)/tools.in

$(UV):
	$(PYTHON) -m venv .cache/uv
	.cache/uv/bin/pip install -q uv==$(UV_VERSION)

lock: $(UV)
	$(UV) pip compile -q --no-header --universal --python-version 3.11 pyproject.toml \
	  $(LOCKS)/tools.in $(EXTRAS) -o $(LOCKS)/dev.txt --upgrade
	$(UV) pip compile -q --no-header --universal --python-version 3.10 pyproject.toml \
	  $(LOCKS)/tools.in -o $(LOCKS)/runtime.txt --upgrade
	$(COMPILE) pyproject.toml $(LOCKS)/properdocs.in $(LOCKS)/tools.in -o $(LOCKS)/properdocs.txt --upgrade
	$(COMPILE) $(LOCKS)/pydantic.in -o $(LOCKS)/pydantic.txt --upgrade
	$(COMPILE) $(LOCKS)/typer-0.29.2.in -o $(LOCKS)/typer-0.29.2.txt --upgrade
	$(COMPILE) $(LOCKS)/typer-0.9.4.in -o $(LOCKS)/typer-0.9.4.txt --upgrade
	$(COMPILE) pyproject.toml $(LOCKS)/tools.in $(LOCKS)/corpus.in -o $(LOCKS)/corpus.txt --upgrade
	$(COMPILE) pyproject.toml --extra docs --extra sphinx $(LOCKS)/peers.in $(LOCKS)/tools.in \
	  -c $(LOCKS)/dev.txt -o $(LOCKS)/peers.txt --upgrade
	$(COMPILE) tests/live/requirements.txt $(LIVE_INPUTS) -o $(LOCKS)/live-sglang-0.5.7.txt --upgrade
	$(COMPILE) tests/live/requirements-sglang-0.5.23.txt $(LIVE_INPUTS) \
	  -o $(LOCKS)/live-sglang-0.5.23.txt --upgrade
	$(COMPILE) tests/live/requirements-vllm-0.33.0.txt $(LIVE_INPUTS) \
	  -o $(LOCKS)/live-vllm-0.33.0.txt --upgrade
	$(COMPILE) tests/live/requirements-vllm-0.33.0.txt $(LOCKS)/tools.in \
	  -c $(LOCKS)/live-vllm-0.33.0.txt -o $(LOCKS)/vllm-notorch-0.33.0.txt --upgrade
	$(COMPILE) pyproject.toml $(LOCKS)/tools.in tests/live/requirements-vllm-0.33.0.txt \
	  --extra docs -c $(LOCKS)/dev.txt -c $(LOCKS)/vllm-notorch-0.33.0.txt \
	  -o $(LOCKS)/docs.txt --upgrade
	rm -f $(LOCKS)/mdx/package-lock.json
	cd $(LOCKS)/mdx && npm install --package-lock-only --no-audit --no-fund --silent
	rm -f $(LOCKS)/mdx-render/package-lock.json
	cd $(LOCKS)/mdx-render && npm install --package-lock-only --no-audit --no-fund --silent

# The showcase of sglang 0.5.23 (showcase/sglang-0.5.23/) reads the sources `new-sglang` installs.
SHOWCASE_0523 := showcase/sglang-0.5.23/argmatrix.yaml
# The showcase of vLLM 0.33 (showcase/vllm-0.33/) is read live in the docs environment, no torch.
SHOWCASE_VLLM := showcase/vllm-0.33

# The site needs only argmatrix and its `docs` extra (MkDocs, Material), locked in locks/docs.txt:
# an environment of its own (.cache/docs), so `make docs` on a fresh clone installs neither the
# test tools nor the other engines. `make test`'s .venv is left as it is.
DOCS_ENV := .cache/docs
DOCS_BIN := $(DOCS_ENV)/bin

# The vLLM showcase (showcase/vllm-0.33/) is read live WITHOUT torch: vLLM --no-deps and its
# pure-Python requirements (tests/live/requirements-vllm-0.33.0.txt, in locks/docs.txt), never
# torch (checked). The repository's site is built here, by `make docs` and by the tests.
.PHONY: docs-env
docs-env: $(DOCS_ENV)/.installed

$(DOCS_ENV)/.installed: pyproject.toml $(LOCKS)/docs.txt tests/live/requirements-vllm-0.33.0.txt
	$(PYTHON) -m venv $(DOCS_ENV)
	$(DOCS_BIN)/pip install -q -c $(LOCKS)/docs.txt pip setuptools wheel
	$(DOCS_BIN)/$(PIP_LOCKED) $(LOCKS)/docs.txt -e '.[docs]' \
	  -r tests/live/requirements-vllm-0.33.0.txt
	# The showcase registry: read statically, so no dependency of sglang is needed.
	$(DOCS_BIN)/pip install -q --no-deps --no-warn-conflicts $(SGLANG)
	$(DOCS_BIN)/pip install -q --no-deps --no-warn-conflicts $(VLLM)
	$(DOCS_BIN)/python -c '$(NO_TORCH)'
	touch $@

# new-sglang installs with the pip of the environment at hand: the docs environment's here.
docs serve: SITE_PIP = $(DOCS_BIN)/pip
docs: $(DOCS_ENV)/.installed new-sglang
	$(DOCS_BIN)/argmatrix generate
	$(DOCS_BIN)/mkdocs build --strict
	@echo "Site built in site/ -- open site/index.html, or run 'make serve'."

# The same site from the same mkdocs.yml, built by Zensical into build/site-zensical (Zensical
# has no option for the site folder: mkdocs.yml reads ARGMATRIX_SITE_DIR). Zensical ignores the
# MkDocs plugin, so the showcase pages are generated first (build outputs, git-ignored), the
# directives of the hand-written pages are expanded by the Markdown extension (argmatrix.markdown)
# and the site's stylesheet and script are copied from the package (git-ignored too).
# Not --clean, which would empty all of .cache (the test environments); Zensical's own cache
# entries (files named by a number at the top of .cache) are dropped instead, as they know
# nothing of the registry or the manifests.
docs-zensical: install new-sglang $(DOCS_ENV)/.installed
	$(BIN)/argmatrix generate
	$(BIN)/argmatrix generate --config $(SHOWCASE_0523)
	$(DOCS_BIN)/argmatrix generate --config $(SHOWCASE_VLLM)/argmatrix.yaml
	$(DOCS_BIN)/argmatrix generate --config $(SHOWCASE_VLLM)/cli.yaml
	$(BIN)/python -m argmatrix.integrations.assets docs/assets/argmatrix
	find .cache -maxdepth 1 -type f -name '[0-9]*' -delete 2>/dev/null || true
	ARGMATRIX_SITE_DIR=build/site-zensical $(BIN)/zensical build
	@echo "Site built in build/site-zensical/ -- open build/site-zensical/index.html."

serve: $(DOCS_ENV)/.installed new-sglang
	$(DOCS_BIN)/mkdocs serve

# Style, types and the direction of imports (the layers are in pyproject.toml).
lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# What the full suite needs beside .venv: the heavy live environments, the other Pythons, older
# and newer sglang sources, lmdeploy's sources, ProperDocs, pydantic, two Typers, the MDX
# compiler and, for the browser test of MDX pages, the same compiler with React.
TEST_NEEDS := browser-tools live-env live-env-0523 live-env-vllm vllm-notorch docs-env pythons \
              old-sglang new-sglang lmdeploy-cli properdocs pydantic-lib typer-libs corpus \
              $(MDX)/.installed $(MDX_RENDER)/.installed
# The browser tests drive Debian's Chromium through its ChromeDriver.
.PHONY: browser-tools
browser-tools:
	$(call need,chromium,the browser tests drive it,apt-get install chromium chromium-driver)
	$(call need,chromedriver,the browser tests drive Chromium with it,apt-get install chromium-driver)

# What `make test` needs beside Python 3.11 and make, checked before anything is installed: each
# missing one stops it with one line naming the command that installs it (README.md lists them).
# Free disk and torch's source matter only while an environment is still to be built: the
# environments in .cache/ and .venv take about 12 GB (11.5 GB measured on a fresh clone).
DISK_GB := 12
ENVIRONMENTS := $(VENV) $(LIVE) $(LIVE_0523) $(LIVE_VLLM) $(VLLM_NOTORCH) $(DOCS_ENV) $(PYTHON_ENVS) \
                $(OLD_SGLANG) $(NEW_SGLANG) $(LMDEPLOY) $(PROPERDOCS) $(PYDANTIC) $(TYPER_NEW) \
                $(TYPER_OLD) $(CORPUS) $(MDX) $(MDX_RENDER)
TORCH_ENVIRONMENTS := $(LIVE) $(LIVE_0523) $(LIVE_VLLM)
to_build = $(filter-out $(wildcard $(1:%=%/.installed)),$(1:%=%/.installed))

NO_VENV := make: $(PYTHON) cannot create environments: every install starts with its venv \
	module (fix: apt-get install python3-venv)
FREE_GB := df -Pk . | awk 'NR == 2 { print int($$4 / 1048576) }'
NO_DISK = make: $$free GB of disk is free here, and the environments make test builds in .cache/ \
	take about $(DISK_GB) GB (fix: free $$(($(DISK_GB) - free)) GB more)
check_disk = free=$$($(FREE_GB)); [ "$$free" -ge $(DISK_GB) ] || { echo "$(NO_DISK)" >&2; exit 1; }

# Where torch 2.13.0 will come from (TORCH_INDEX, above): nothing said when pip finds its CPU
# build on this machine; a note when it is PyPI's CUDA build; a stop when TORCH_INDEX does not
# answer.
INDEX_ANSWERS := import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=30)
FROM_PYPI = make: $(TORCH) comes from PyPI (TORCH_INDEX is empty): on Linux x86_64 that is the \
	CUDA build, several GB more than the CPU build
NO_TORCH_INDEX = make: $(TORCH)'s CPU build is in no folder of wheels pip knows, and \
	$(TORCH_INDEX) does not answer: the live environments import sglang and vLLM with it (fix: \
	export PIP_FIND_LINKS=<a folder holding its wheel>, or make test TORCH_INDEX=<an index that \
	has it>, or make test TORCH_INDEX= for PyPI's CUDA build)
check_torch = if [ -n "$(LOCAL_TORCH)" ]; then :; \
	elif [ -z "$(TORCH_INDEX)" ]; then echo "$(FROM_PYPI)"; \
	elif ! $(PYTHON) -c '$(INDEX_ANSWERS)' '$(TORCH_INDEX)/torch/' >/dev/null 2>&1; then \
	  echo "$(NO_TORCH_INDEX)" >&2; exit 1; \
	fi

.PHONY: prerequisites
prerequisites: browser-tools
	$(call need,node,the MDX pages are compiled by the real MDX compiler in Node.js,apt-get install nodejs npm)
	$(call need,npm,the MDX compiler is installed with it,apt-get install nodejs npm)
	@$(PYTHON) -c "import ensurepip, venv" >/dev/null 2>&1 || { echo "$(NO_VENV)" >&2; exit 1; }
	@for version in $(OTHER_PYTHONS); do \
	  [ -n "$$($(call find_python,$$version))" ] || { $(call no_python,$$version); exit 1; }; \
	done
	$(if $(call to_build,$(ENVIRONMENTS)),@$(check_disk))
	$(if $(call to_build,$(TORCH_ENVIRONMENTS)),@$(check_torch))

TEST_ENVIRONMENT = \
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python \
	ARGMATRIX_LIVE_PYTHON_0523=$(CURDIR)/$(LIVE_0523)/bin/python \
	ARGMATRIX_PYTHONS=$(subst $(space),:,$(foreach env,$(PYTHON_ENVS),$(CURDIR)/$(env)/bin/python))
# The suite runs as on most developers' machines, where PYTHONDONTWRITEBYTECODE is
# unset (CI's machines set it): Python writes its bytecode caches, a live registry's import
# included, and the suite must pass all the same. ARGMATRIX_UPDATE_GOLDEN, which rewrites the
# golden files instead of comparing them, is for a pytest run by hand, never for these.
AS_ON_A_LAPTOP := env -u PYTHONDONTWRITEBYTECODE -u ARGMATRIX_UPDATE_GOLDEN
# The markers of pyproject.toml that the edit loop leaves out.
FAST := not (slow or hostile or live_env or engine or pythons or browser or real_rtp or corpus)

# The full suite, with the coverage of src/argmatrix (the floor is in pyproject.toml). Every
# marked suite runs, and a test whose engine or environment is missing fails; the one exception
# is `real_rtp`, which reads RTP-LLM's source from beside the clone (../shared/real-registries)
# and is skipped, with that reason, where it is absent.
test: prerequisites install $(TEST_NEEDS) lint
	$(AS_ON_A_LAPTOP) $(TEST_ENVIRONMENT) $(BIN)/pytest -q --cov --cov-report=term:skip-covered

# The edit-test loop (CONTRIBUTING.md has its time as measured): everything but the marked suites
# (hostile inputs, heavy live environments, external engines, other Pythons, the browser,
# RTP-LLM's real source, long runs), spread over every core (pytest-xdist). Needs nothing
# beside .venv but the sources of two sglang releases.
test-fast: install old-sglang new-sglang
	$(AS_ON_A_LAPTOP) $(BIN)/pytest -q -x -n auto -m "$(FAST)"

# The suite against the newest releases of what pyproject.toml allows (no lock), in an
# environment of its own (.cache/latest), so a new release of a dependency is met on purpose.
# The heavy environments of third-party registries stay locked: they are test data.
LATEST := .cache/latest
test-latest: prerequisites $(TEST_NEEDS)
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/pip install -q --upgrade pip setuptools wheel
	$(LATEST)/bin/pip install -q --upgrade -e '.[docs,test,markdown,zensical,sphinx]'
	$(LATEST)/bin/pip install -q --no-deps --no-warn-conflicts $(SGLANG)
	$(LATEST)/bin/pip list --format=freeze > $(LATEST)/versions.txt
	@echo "Testing against the newest releases (listed in $(LATEST)/versions.txt)."
	$(AS_ON_A_LAPTOP) $(TEST_ENVIRONMENT) PATH=$(CURDIR)/$(LATEST)/bin:$$PATH \
	  $(LATEST)/bin/pytest -q -p no:cacheprovider

check-docs: install new-sglang $(DOCS_ENV)/.installed
	$(BIN)/argmatrix check
	$(BIN)/argmatrix check --config docs/reference/argmatrix.yaml
	$(BIN)/argmatrix check --config $(SHOWCASE_0523)
	$(BIN)/argmatrix check --config showcase/click-server/argmatrix.yaml
	# vLLM's, read live where vLLM is installed without torch: the docs environment
	$(DOCS_BIN)/argmatrix check --config $(SHOWCASE_VLLM)/argmatrix.yaml
	$(DOCS_BIN)/argmatrix check --config $(SHOWCASE_VLLM)/cli.yaml

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

bench: install live-env new-sglang live-env-0523 live-env-vllm vllm-notorch lmdeploy-cli corpus
	ARGMATRIX_LIVE_PYTHON=$(CURDIR)/$(LIVE)/bin/python $(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .cache site build docs/showcase .pytest_cache .hypothesis
