# The two commands of the README: `make demo` (main job) and `make test` (test suite).
# Both create .venv with the pinned CPU dependency set on first use (make install).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test test-fast bench clean

install: $(STAMP)

# torch is installed first and alone, pinned to the CPU wheel on disk: any other
# torch (or a range resolved without it) pulls several GB of CUDA packages.
$(STAMP): setup.cfg constraints.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -c constraints.txt torch
	$(PY) -m pip install -q -c constraints.txt -e ".[dev,ray]"
	touch $(STAMP)

# The whole workflow (project.yml `all`) on the embedded synthetic corpus.
# A rerun skips the steps whose inputs did not change.
demo: install
	$(PY) -m spacy project run all . $(DEMO_ARGS)
	@echo "Report:    $(CURDIR)/reports/report.html"
	@echo "Metrics:   $(CURDIR)/reports/metrics.json"
	@echo "Sanitised: $(CURDIR)/reports/sanitized.jsonl"
	@echo "Package:   $(CURDIR)/packages/ (pip install the wheel in dist/)"

test: install
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -q -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info
