"""What the command line accepts and shows beyond argparse: numeric option ranges, the
explorer's warnings as `explorer: warning: ...` lines, and `--quiet` for the libraries too.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable

from tqdm import tqdm


def bounded(kind: Callable[[str], float], low: float, high: float | None = None, *, open_ends: bool = False):
    """An argparse type: a number of `kind` in [low, high] (in (low, high) with `open_ends`)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        above = value > low if open_ends else value >= low
        below = high is None or (value < high if open_ends else value <= high)
        if not (above and below):
            left, right = ("(", ")") if open_ends else ("[", "]")
            span = f"{left}{low}, {high}{right}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: must be {span}")
        return value

    return parse


COUNT = bounded(int, 0)
POSITIVE = bounded(int, 1)
SEED = bounded(int, 0, 2**32 - 1)  # numpy's seed range


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
