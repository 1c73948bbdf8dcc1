# Both entry points bootstrap the virtualenv themselves, so a fresh clone needs only python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test test-fast lint typecheck pytest docs bench clean mcp-peers

# The built JupyterLab extension is installed as data files: a rebuild means a reinstall.
$(STAMP): pyproject.toml src/threadlab/labextension/package.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,all]'
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# MCP peers from npm, in a cache folder of the project: the reference server that
# notebooks/mcp.ipynb uses (on the lab's PATH) and the MCP Inspector, whose CLI the tests run.
NPM_CACHE := .cache/npm
NPM_BIN := $(NPM_CACHE)/node_modules/.bin
MCP_PEERS := @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/inspector@0.21.1

mcp-peers:
	@if [ -x $(NPM_BIN)/mcp-server-everything ] && [ -x $(NPM_BIN)/mcp-inspector ]; then :; \
	elif command -v npm >/dev/null; then \
	  npm install --silent --no-audit --no-fund --prefix $(NPM_CACHE) $(MCP_PEERS) \
	  || echo "npm could not install the MCP peers: notebooks/mcp.ipynb needs them"; \
	else echo "npm not found: notebooks/mcp.ipynb needs Node.js for its MCP server"; fi

lab: $(STAMP) mcp-peers
	PATH="$(CURDIR)/$(NPM_BIN):$$PATH" $(BIN)/jupyter lab $(ALLOW_ROOT) notebooks/

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/lint-imports
	$(BIN)/biome check src/threadlab/widgets/static src/threadlab/sandbox/harness

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck docs pytest

# What a change can be checked against in about a minute: every test that starts no other
# process (no kernel, browser, PostgreSQL, worker or sandbox runner). `make test` runs them all.
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not processes"

# The documentation site (MkDocs Material, the API reference from the docstrings) into .site/;
# --strict: a broken link, anchor or reference fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .site
