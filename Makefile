PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench tested-models venv clean

$(STAMP): pyproject.toml requirements-dev.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 tests

demo: $(STAMP)
	$(BIN)/python -m bessemer.demo

bench: $(STAMP)
	$(BIN)/bessemer bench

tested-models: $(STAMP)
	$(BIN)/bessemer bench all --scale small --steps 5 --warmup 2 --page docs/tested-models.md --readme README.md

clean:
	rm -rf $(VENV) build *.egg-info
