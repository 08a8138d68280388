PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: bf16-models dropout-models demo test test-full test-torch211 fuzz bench tested-models small-models conv-nets venv clean

$(STAMP): pyproject.toml requirements-dev.txt
	test -x $(BIN)/pip || $(PY) -m venv --clear $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

# three workers on two cores: many tests spend their time waiting on the processes they start
# (training jobs, Ray workers, a second compiler process), so a third worker fills the idle core
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 3 --durations=25 tests

# The compile paths' tests under torch 2.11, the oldest torch pyproject.toml allows and the one
# GPU images ship: a second environment (torch 2.11's wheel with its CUDA libraries, about 5 GB),
# the rest of requirements-dev.txt as pinned. Not part of `test`.
VENV211 := .venv-torch211
$(VENV211)/.installed: requirements-dev.txt
	test -x $(VENV211)/bin/pip || $(PY) -m venv --clear $(VENV211)
	grep -v '^torch==' requirements-dev.txt > $(VENV211)/requirements.txt
	$(VENV211)/bin/python -m pip install -q torch==2.11.0 -r $(VENV211)/requirements.txt
	touch $@

test-torch211: $(VENV211)/.installed
	PYTHONPATH=. $(VENV211)/bin/python -m pytest -q -n 3 -p no:cacheprovider tests/compiler tests/models \
		tests/optim tests/ops/test_ops_triton.py

# every case of the long tables (all OpInfo ops on both backends; a fixed spread in `test`) and
# the tests marked `full` (longer variants of cases `test` covers)
test-full: $(STAMP)
	BESSEMER_TEST_FULL=1 $(BIN)/python -m pytest -q -n 3 tests

# The program fuzzer: N random programs (seeds SEED..SEED+N-1) compiled forward and
# backward against eager; a failing program is shrunk and printed as a test.
N ?= 1000
SEED ?= 0
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz --n $(N) --seed $(SEED) $(FUZZ_ARGS)

demo: $(STAMP)
	$(BIN)/python -m bessemer.demo

bench: $(STAMP)
	$(BIN)/bessemer bench

tested-models: $(STAMP)
	$(BIN)/bessemer bench all --scale small --steps 30 --warmup 2 --page docs/tested-models.md --readme README.md

# the small custom models (zoo/small.py: SGD with momentum and clip_grad_norm_), each also as one
# whole-step program (bessemer-step); the small-model row: the MLP at batch 8, where a step is a
# few ms and the per-call cost shows; and the zoo's tiny MLP at batch 64, whose step is mostly
# the cost of calls (about 1-2 ms); GPT-2 at scale tiny
small-models: $(STAMP)
	$(BIN)/bessemer bench small --scale small --modes eager,inductor,bessemer,bessemer-step --steps 30 --warmup 5 --out bench-out/small-custom --page docs/small-custom-models.md --title "Small custom models"
	$(BIN)/bessemer bench mlp --scale small --batch 8 --modes eager,inductor,bessemer,bessemer-step --steps 50 --warmup 5 --out bench-out/small --page docs/small-models.md --title "Small models"
	$(BIN)/bessemer bench mlp --scale tiny --batch 64 --modes eager,inductor,bessemer,bessemer-step --steps 200 --warmup 20 --no-memory --out bench-out/per-call --page docs/per-call.md --title "A per-call-bound model"
	$(BIN)/bessemer bench gpt2 --scale tiny --modes eager,inductor,bessemer,bessemer-step --steps 100 --warmup 10 --no-memory --out bench-out/gpt2-tiny --page docs/gpt2-tiny.md --title "GPT-2 tiny"

# bert-base-uncased and gpt2 with their published dropout (0.1) on, at scale small: bessemer draws
# eager's masks (runtime/rng.py), so its losses stay eager's; Inductor draws its own
dropout-models: $(STAMP)
	$(BIN)/bessemer bench bert-base-uncased gpt2 --scale small --dropout --steps 10 --warmup 2 --no-warm --out bench-out/dropout --page docs/dropout-models.md --title "Transformers models with dropout"

# the conv nets of zoo/convnets.py beside ResNet-50 and the small CNN, at scale small; the run's
# time is compiling (Inductor's cold compile of one of these nets is most of a model's share),
# not the steps, so the warm-start processes are left out to keep it near ten minutes
conv-nets: $(STAMP)
	$(BIN)/bessemer bench resnet18 mobilenet-v2 efficientnet-b0 densenet121 regnet-y-040 convnext-tiny resnet50 cnn --scale small --modes eager,inductor,bessemer --steps 10 --warmup 2 --no-warm --out bench-out/conv-nets --page docs/conv-nets.md --title "Conv nets"

# gpt2, llama and bert-base-uncased with the forward under bf16 autocast in every mode (eager,
# Inductor, bessemer), at scale small; on a CPU without AVX512-BF16 or AMX torch emulates bf16
# and the rows say little (the page records the CPU and the bf16 matmul peak)
bf16-models: $(STAMP)
	$(BIN)/bessemer bench gpt2 llama bert-base-uncased --scale small --dtype bf16 --steps 10 --warmup 2 --no-warm --out bench-out/bf16 --page docs/bf16-models.md --title "bf16 autocast"

clean:
	rm -rf $(VENV) build *.egg-info
