# brushwork: `make demo` and `make test` set everything up first (idempotent).
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.brushwork-installed

.PHONY: setup system demo test bench clean

setup: system node_modules/.package-lock.json $(STAMP)

system:
	@scripts/setup-system.sh

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[dev,train]'
	@touch $@

demo: setup
	$(VENV)/bin/brushwork demo
	$(VENV)/bin/brushwork episode

test: setup
	$(VENV)/bin/pytest

bench: setup
	$(VENV)/bin/python benchmarks/render.py
	$(VENV)/bin/python benchmarks/score.py
	$(VENV)/bin/python benchmarks/pool.py
	$(VENV)/bin/python benchmarks/env.py

clean:
	rm -rf out .pytest_cache
