# array-vectorize: one entry point for set-up, demo, tests and benchmarks. `make help` lists targets.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# No pip cache: CI installs into a fresh venv once (the cache would only fill the disk), and the
# test extras (JAX, Dask, pandas, PyTorch for test-torch) would leave hundreds of MB in it.
PIP    := $(PY) -m pip --disable-pip-version-check --no-cache-dir

.DEFAULT_GOAL := help

# CI (CI=true) builds a fresh clone once: incremental compilation's records would only cost there.
ifeq ($(CI),true)
export CARGO_INCREMENTAL := 0
endif
.PHONY: help venv wheel wheelhouse test-deps demo test test-rust test-python test-torch mutation bench fmt lint clean numpy-table

help: ## Show this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(VENV)/.ready: pyproject.toml
	@echo "Creating $(VENV) and installing maturin (the Rust build tool) from PyPI..."
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip "maturin>=1.5,<2"
	touch $@

venv: $(VENV)/.ready ## Create .venv with maturin

wheel: $(VENV)/.ready ## Build the extension once (dev profile, opt-level 1) into dist/ and install it
	rm -rf dist && mkdir -p dist
	@echo "Building the Rust core with cargo (the first build compiles every crate: about 2-3 minutes on 2 cores; later builds only what changed)..."
	$(PY) -m maturin build --profile dev --out dist
	$(PIP) install -q --force-reinstall --no-deps dist/*.whl
	$(PIP) install -q "$$(ls dist/*.whl)" numpy

# The wheel of dist/ as it is (`make wheel`, `make demo` and `make test` build it; after editing the
# sources, `make wheel` first), else a fresh build.
wheelhouse: ## array-vectorize's wheel in wheelhouse/, for pip to build projects using array_vectorize.build (PIP_FIND_LINKS)
	@ls dist/array_vectorize-*.whl >/dev/null 2>&1 || $(MAKE) --no-print-directory wheel
	rm -rf wheelhouse && mkdir wheelhouse
	cp dist/array_vectorize-*.whl wheelhouse/
	@echo "wheelhouse/ holds $$(cd wheelhouse && ls): export PIP_FIND_LINKS=\"$$PWD/wheelhouse\" for pip and python -m build"

test-deps: wheel
	$(PIP) install -q "$$(ls dist/*.whl)[test]"

demo: wheel ## Set up, then vectorize a function and print its generated source and result
	$(PY) examples/demo.py

test-rust: ## cargo tests of every compiler stage (no Python needed)
	cargo test --quiet

# pytest-xdist (test extras): one worker per core; --dist loadgroup keeps the users of a session or
# module fixture on one worker (tests/conftest.py), so each such fixture is made once;
# --durations=20 lists the slowest tests in every log (CI's time: docs/testing.md).
test-python: ## pytest against the installed wheel (run `make test-deps` first)
	cd tests && ../$(PY) -m pytest -q -p no:cacheprovider -n auto --dist loadgroup --durations=20

TORCH_VENV := .venv-torch

# PyTorch from PyPI (the plain `pip install torch` wheel), in a venv of its own: with torch
# importable, tests/oracle.py adds it to every behaviour test's backends.
test-torch: wheel ## Install PyTorch from PyPI into .venv-torch, then run tests/backends/test_torch.py there
	test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv $(TORCH_VENV)
	$(TORCH_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-cache-dir torch "$$(ls dist/*.whl)[test]"
	cd tests && ../$(TORCH_VENV)/bin/python -m pytest -q -p no:cacheprovider backends/test_torch.py

mutation: ## Break the runtime helpers and codegen one way at a time; the differential tests must notice (a few minutes)
	$(PY) tests/mutation/run.py

test: test-deps test-rust test-python mutation ## Set up (with the test extras), then run the whole suite

bench: $(VENV)/.ready ## Release build, then every benchmark (figures for the README)
	$(PY) -m maturin build --release --out dist-release --quiet
	$(PIP) install -q --force-reinstall --no-deps dist-release/*.whl
	$(PIP) install -q "$$(ls dist-release/*.whl)[test,bench]"
	$(PY) benchmarks/run.py

numpy-table: test-deps ## Regenerate docs/numpy.md's table from the compiler's NumPy table (D16)
	$(PY) tools/numpy_table.py

fmt: ## Format Rust
	cargo fmt

lint: ## cargo fmt --check and clippy
	cargo fmt --check
	cargo clippy --quiet -- -D warnings

clean: ## Remove build outputs and the venv
	rm -rf target dist dist-release wheelhouse $(VENV) $(TORCH_VENV)
