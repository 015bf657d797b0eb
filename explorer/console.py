"""What the command line accepts and shows beyond argparse: every numeric option's range, the
explorer's warnings as `explorer: warning: ...` lines, and `--quiet` for the libraries too.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
import warnings
from collections.abc import Callable

from tqdm import tqdm


def bounded(
    kind: Callable[[str], float],
    low: float,
    high: float | None = None,
    *,
    open_ends: bool = False,
    open_low: bool = False,
):
    """An argparse type: a number of `kind` in [low, high] (in (low, high) with `open_ends`, in
    (low, high] with `open_low`). NaN is in no range."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        above = value > low if open_ends or open_low else value >= low
        below = high is None or (value < high if open_ends else value <= high)
        if not (above and below):
            left, right = "(" if open_ends or open_low else "[", ")" if open_ends else "]"
            span = f"{left}{low}, {high}{right}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: must be {span}")
        return value

    return parse


# Every numeric option's range, in one place. The ceilings sit far above any useful value and
# below what takes hours or the memory before any output (a 10^11-resample bootstrap, 10^8
# integrated-gradients steps, a million Ray actors).
MAX_THREADS = 256
MAX_SEED = 2**32 - 1  # numpy's seed range
MAX_BOOTSTRAP = 100_000
MAX_TRAINING_STEPS = 100_000
MAX_BATCH_SIZE = 4_096
MAX_SALIENCE_STEPS = 1_024  # integrated gradients; default 64
MAX_SALIENCE_SAMPLES = 1_024  # argument Shapley orders; default 4
MAX_NEW_TOKENS = 4_096  # half the packaged SmolLM2's context of 8,192 tokens: room for the prompt
MAX_TEMPERATURE = 100
MAX_WORKERS = 256
MAX_GPUS_PER_WORKER = 16
MAX_VARIANTS = 100
MAX_RETRIES = 10  # a server's failed connections, time-outs, 408, 409, 429 and 5xx
MAX_TIMEOUT = 3_600  # seconds to connect to a server, and to wait for each piece of its answer
MAX_LORA_RANK = 256  # the shipped adapters use 4-16; the models' hidden sizes are 384 and 576
MAX_LORA_ALPHA = 4 * MAX_LORA_RANK
MAX_EPOCHS = 100  # the matcher: one epoch over ArgKP train takes minutes
MAX_SESSION_MINUTES = 7 * 24 * 60
MAX_DEV_LOSSES = 10_000  # the generator's dev loss: one forward pass each
MAX_DEV_ANSWERS = 1_000  # the generator's dev answers: one generation each
MAX_ARGUMENTS = 100
MAX_CLAIMS = 100_000  # Perspectrum has under a thousand
MAX_DEADLINE = 86_400  # seconds for a server's whole answer

THREADS = bounded(int, 1, MAX_THREADS)
SEED = bounded(int, 0, MAX_SEED)
BOOTSTRAP = bounded(int, 0, MAX_BOOTSTRAP)
ALPHA = bounded(float, 0, 1, open_ends=True)
TRAINING_STEPS = bounded(int, 1, MAX_TRAINING_STEPS)
BATCH_SIZE = bounded(int, 1, MAX_BATCH_SIZE)
LEARNING_RATE = bounded(float, 0, math.inf, open_ends=True)
MINUTES = bounded(float, 0, math.inf, open_ends=True)  # a training session's time limit
SALIENCE_STEPS = bounded(int, 1, MAX_SALIENCE_STEPS)
SALIENCE_SAMPLES = bounded(int, 1, MAX_SALIENCE_SAMPLES)
NEW_TOKENS = bounded(int, 1, MAX_NEW_TOKENS)
TEMPERATURE = bounded(float, 0, MAX_TEMPERATURE, open_low=True)
TOP_P = bounded(float, 0, 1, open_low=True)
WORKERS = bounded(int, 1, MAX_WORKERS)
GPUS_PER_WORKER = bounded(float, 0, MAX_GPUS_PER_WORKER, open_low=True)
VARIANTS = bounded(int, 1, MAX_VARIANTS)
RETRIES = bounded(int, 0, MAX_RETRIES)
TIMEOUT = bounded(float, 0, MAX_TIMEOUT, open_low=True)
DEADLINE = bounded(float, 0, MAX_DEADLINE, open_low=True)
LORA_RANK = bounded(int, 1, MAX_LORA_RANK)
LORA_ALPHA = bounded(int, 1, MAX_LORA_ALPHA)
EPOCHS = bounded(int, 1, MAX_EPOCHS)
ARGUMENTS = bounded(int, 1, MAX_ARGUMENTS)
CLAIMS = bounded(int, 1, MAX_CLAIMS)
CLAIMS_SKIPPED = bounded(int, 0, MAX_CLAIMS)

# The fields of the trainers' settings dataclasses, as the `python -m explorer.training.*` modules
# take them (`--field-name`, `explorer.training.checkpoints.add_settings_options`).
SETTING_RANGES = {
    "steps": TRAINING_STEPS,
    "batch_size": BATCH_SIZE,
    "micro_batch": BATCH_SIZE,
    "learning_rate": LEARNING_RATE,
    "eval_every": TRAINING_STEPS,
    "save_every": bounded(int, 0, MAX_TRAINING_STEPS),  # 0: only when evaluated
    "rank": LORA_RANK,
    "seed": SEED,
    "reorder": bounded(float, 0, 1),  # a share of the examples
    "absent_share": bounded(float, 0, 1),  # a share of the pairs drawn
    "minutes": bounded(float, 0, MAX_SESSION_MINUTES),  # 0: no limit
    "dev_losses": bounded(int, 1, MAX_DEV_LOSSES),
    "dev_answers": bounded(int, 0, MAX_DEV_ANSWERS),
}


class _WarningLine(logging.Handler):
    """The explorer's own warnings (e.g. an unusable cache) as `explorer: warning: ...` lines,
    printed between progress bar updates."""

    def emit(self, record: logging.LogRecord) -> None:
        tqdm.write(f"explorer: warning: {record.getMessage()}", file=sys.stderr)


def report_warnings() -> None:
    logger = logging.getLogger("explorer")
    if not any(isinstance(handler, _WarningLine) for handler in logger.handlers):
        logger.addHandler(_WarningLine(logging.WARNING))
        logger.propagate = False


def quiet_libraries() -> None:
    """No progress bars, notices or Python warnings from transformers and the other libraries.

    The environment variables reach libraries imported later; the calls, those imported already.
    """
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"
    os.environ["TRANSFORMERS_NO_ADVISORY_WARNINGS"] = "1"
    warnings.filterwarnings("ignore")
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.set_verbosity_error()
        transformers_logging.disable_progress_bar()
