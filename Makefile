# Both entry points bootstrap the virtualenv themselves, so a fresh clone needs only python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every command runs in this project's virtualenv, whichever one the calling shell has active
# (IPython warns, and the tests fail, when VIRTUAL_ENV names another).
export VIRTUAL_ENV := $(abspath $(VENV))

.PHONY: lab test test-fast lint js-check typecheck pytest docs bench clean mcp-peers npm-packages

# The built JupyterLab extension is installed as data files: a rebuild means a reinstall.
$(STAMP): pyproject.toml src/threadlab/labextension/package.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,all]'
	# nbgrader (the tests grade an exercise with its CLI) installs JupyterLab and server
	# extensions of its own: the lab and the browser tests run without them.
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null 2>&1
	for part in formgrader validate_assignment assignment_list course_list; do \
	  $(BIN)/jupyter server extension disable --sys-prefix \
	    nbgrader.server_extensions.$$part >/dev/null 2>&1 || exit 1; done
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# npm packages, in a cache folder of the project (tests never fetch anything): the MCP reference
# server that notebooks/mcp.ipynb uses (on the lab's PATH) and the MCP Inspector, whose CLI the
# tests run; TypeScript, which type-checks the views' JavaScript from its JSDoc; jsdom, the
# DOM the views' unit tests run against; esbuild, which bundles the views' modules into the
# one script of every view (tools/build_views.py); the official MCP conformance suite, and the
# Node.js 22 it needs (an npm-packaged Node.js, whatever version the system has); the MCP Apps
# SDK (its host side, app-bridge) and two of its example servers, whose apps the tests draw.
NPM_CACHE := .cache/npm
NPM_BIN := $(NPM_CACHE)/node_modules/.bin
NPM_PACKAGES := @modelcontextprotocol/server-everything@2026.8.31 \
	@modelcontextprotocol/inspector@0.21.1 typescript@5.9.3 jsdom@26.1.0 esbuild@0.28.2 \
	@modelcontextprotocol/conformance@0.1.16 node@22.23.3 \
	@modelcontextprotocol/ext-apps@2.0.4 @modelcontextprotocol/server-basic-vanillajs@2.0.3 \
	@modelcontextprotocol/server-budget-allocator@2.0.3

npm-packages:
	@if [ -x $(NPM_BIN)/mcp-server-everything ] && [ -x $(NPM_BIN)/mcp-inspector ] \
	  && [ -x $(NPM_BIN)/tsc ] && [ -d $(NPM_CACHE)/node_modules/jsdom ] \
	  && [ -x $(NPM_BIN)/esbuild ] && [ -x $(NPM_BIN)/conformance ] \
	  && [ -x $(NPM_BIN)/node ] && [ -x $(NPM_BIN)/mcp-server-basic-vanillajs ] \
	  && [ -d $(NPM_CACHE)/node_modules/@modelcontextprotocol/ext-apps ] \
	  && [ -x $(NPM_BIN)/mcp-budget-allocator-server ]; then :; \
	elif command -v npm >/dev/null; then \
	  npm install --silent --no-audit --no-fund --prefix $(NPM_CACHE) $(NPM_PACKAGES) \
	  || echo "npm could not install $(NPM_PACKAGES)"; \
	else echo "npm not found: notebooks/mcp.ipynb and the JavaScript checks need Node.js"; fi

mcp-peers: npm-packages

# The views' JavaScript, type-checked (strict) from its JSDoc types; without Node.js it is
# skipped here and fails under CI=true.
js-check: npm-packages
	@if [ -x $(NPM_BIN)/tsc ]; then $(NPM_BIN)/tsc -p tsconfig.json; \
	elif [ "$$CI" = true ]; then echo "tsc is missing: make npm-packages needs Node.js"; exit 1; \
	else echo "skipped: the JavaScript type check needs Node.js (make npm-packages)"; fi

# LAB_ARGS: JupyterLab's own options, e.g. make lab LAB_ARGS="--port 9000 --no-browser
# --IdentityProvider.token=secret".
LAB_ARGS ?=
# The repository is the lab's root, its file browser opening on notebooks/: a lesson's links to
# ../docs/guides/ open in the lab as they do on disk.
lab: $(STAMP) npm-packages
	PATH="$(CURDIR)/$(NPM_BIN):$$PATH" $(BIN)/jupyter lab $(ALLOW_ROOT) \
	  --ServerApp.root_dir="$(CURDIR)" --ContentsManager.preferred_dir=notebooks $(LAB_ARGS)

lint: $(STAMP) js-check
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/lint-imports
	$(BIN)/biome check src/threadlab/widgets/js src/threadlab/widgets/static/threadlab.css \
	  src/threadlab/sandbox/harness tests/frontend labextension/src

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck docs pytest

# What a change can be checked against in under a minute: every test that starts no other
# process (no kernel, browser, PostgreSQL, worker or sandbox runner), one pytest worker per
# core. `make test` runs them all.
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not processes" -n auto

# The documentation site (MkDocs Material, the API reference from the docstrings) into .site/;
# --strict: a broken link, anchor or reference fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .site
