"""Every path and environment variable the explorer reads, in one place.

Shipped files (sample data, precomputed scores, trained weights, the stop-word list) live
inside the package under `resources/` and are found through `importlib.resources`, so a plain
`pip install .` (not only an editable install) has them.

| variable | what | default |
|---|---|---|
| `EXPLORER_CACHE_DIR` | result cache and classifiers the user trained | `~/.cache/rag-error-explorer` |
| `EXPLORER_MODEL_CACHE` | language models converted from GGUF | `<cache>/models` under the home folder |
| `EXPLORER_SHARED_DATA` | third-party reference data (ArgKP, Perspectrum) | `../shared/data` beside the checkout |

The generation servers the app offers its visitors, and their keys, are the operator's: they
come from Streamlit's secrets (`[generation]` in `.streamlit/secrets.toml`), read by
`explorer.generation.servers`; the app reads no other variable a visitor could name.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

APP_NAME = "rag-error-explorer"
RESOURCES = Path(str(resources.files("explorer") / "resources"))
SAMPLE_DIR = RESOURCES / "samples"
SAMPLE_EXAMPLES = SAMPLE_DIR / "examples.jsonl"
SHIPPED_SCORES = SAMPLE_DIR / "scores"
STOPWORDS = RESOURCES / "stopwords-english.txt"
ENGLISH_VERBS = RESOURCES / "english-verbs.txt"
CHECKOUT = Path(__file__).resolve().parent.parent


def shipped_weights(detector_name: str) -> Path:
    """The folder of a learned detector's shipped weights, one subfolder per task."""
    return RESOURCES / detector_name


def cache_dir() -> Path:
    configured = os.environ.get("EXPLORER_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / APP_NAME


def model_cache_dir() -> Path:
    configured = os.environ.get("EXPLORER_MODEL_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / APP_NAME / "models"


def shared_data_dir() -> Path | None:
    """Third-party reference data: `$EXPLORER_SHARED_DATA`, else `../shared/data` beside the
    checkout (two levels up from a git worktree under the checkout's parent); None when absent."""
    configured = os.environ.get("EXPLORER_SHARED_DATA")
    if configured:
        return Path(configured)
    candidates = (CHECKOUT.parent / "shared" / "data", CHECKOUT.parent.parent / "shared" / "data")
    return next((path for path in candidates if path.is_dir()), None)


def torch_threads() -> int:
    """torch's CPU threads for scoring: `EXPLORER_TORCH_THREADS`, default 1.

    Measured with `bench/salience.py` on 2 cores: torch's default (2 threads that busy-wait)
    took 131 s where 1 thread took 33 s on a lightly loaded machine, 244 s vs 35 s on a loaded
    one. More cores pay off as more one-thread workers (`--engine ray --workers N`: 19 s with 2).
    """
    configured = os.environ.get("EXPLORER_TORCH_THREADS", "1")
    try:
        threads = int(configured)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ValueError(f"EXPLORER_TORCH_THREADS={configured!r}: must be a whole number of at least 1")
    return threads


def offline_hub() -> None:
    """Models load from local files only: no hub is reachable, and a lookup would hang."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
