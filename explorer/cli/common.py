"""What the commands share: exit codes and their error (recorded in `explorer.cli.exit_codes`),
reading input, building detectors from their names and options, and scoring on the chosen engine."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from explorer import console, detectors
from explorer.cli.exit_codes import EXIT_IO, EXIT_OK, EXIT_PARTIAL, EXIT_SERVER, EXIT_USAGE, CliError  # noqa: F401
from explorer.config import cache_dir, torch_threads
from explorer.data.example import Example
from explorer.data.jsonl import LoadResult, parse_jsonl
from explorer.models.language_model import InvalidModelError
from explorer.scoring import ray_engine
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import ScoredExample, score_requests


def load(path: Path) -> LoadResult:
    try:
        loaded = parse_jsonl(path)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}", EXIT_IO) from error
    for problem in loaded.errors:
        print(f"{path}: {problem}", file=sys.stderr)
    for warning in loaded.warnings:
        print(f"{path}: warning: {warning}", file=sys.stderr)
    return loaded


def parse_detector_names(value: str) -> list[str]:
    chosen = [name.strip() for name in value.split(",") if name.strip()]
    for name in chosen:
        try:
            detectors.spec(name)
        except detectors.UnknownDetectorError as error:
            raise argparse.ArgumentTypeError(str(error)) from error
    if not chosen:
        raise argparse.ArgumentTypeError("name at least one detector")
    return chosen


def detector_options(
    names: Sequence[str], model: str | None, given: Mapping[str, dict] | None = None
) -> dict[str, dict]:
    """Each detector's constructor options: `model` (`detectors.create` gives it only to those
    that run a language model) and the options of its spec given on the command line (`given`)."""
    return {name: {"model": model, **(given or {}).get(name, {})} for name in names}


def build_detectors(
    names: Sequence[str], model: str | None, given: Mapping[str, dict] | None = None
) -> list[detectors.Detector]:
    """Instantiate detectors by name; `model` goes to those that run a language model and each
    one's options given on the command line (`given`, by detector name) to it.

    A detector that cannot work with the chosen model (e.g. no classifier prompt was trained
    for it) or settings is a usage error with the detector's message, not a traceback.
    """
    options = detector_options(names, model, given)
    chosen = []
    for name in names:
        try:
            chosen.append(detectors.create(name, **options[name]))
        except (detectors.DetectorError, InvalidModelError, FileNotFoundError, ValueError) as error:
            raise CliError(f"{name}: {error}", EXIT_USAGE) from error
    return chosen


def result_cache(args: argparse.Namespace) -> ResultCache | None:
    return None if args.no_cache else ResultCache(args.cache_dir)


def score_on_engine(
    args: argparse.Namespace, requests: Sequence[tuple[Example, Sequence[str]]]
) -> Iterator[ScoredExample]:
    """Each example scored by the detectors named with it, in input order, on the `--engine`.

    The detectors are built here for either engine, so one that cannot work is a usage error
    before anything runs; on Ray each worker then builds its own.
    """
    ray_options = {"--address": args.address, "--workers": args.workers, "--gpus-per-worker": args.gpus_per_worker}
    if args.engine == "local" and any(value is not None for value in ray_options.values()):
        given = ", ".join(option for option, value in ray_options.items() if value is not None)
        raise CliError(f"{given}: only with --engine ray", EXIT_USAGE)
    names = list(dict.fromkeys(m for _, ms in requests for m in ms))
    set_threads(args, names)
    built = {d.name: d for d in build_detectors(names, args.model, given_options(args))}
    directory = None if args.no_cache else args.cache_dir or cache_dir()
    if args.engine == "local":
        return score_requests(((e, [built[m] for m in ms]) for e, ms in requests), result_cache(args))
    built.clear()  # built only to refuse what cannot work: each worker builds its own
    settings = ray_engine.Settings(args.address, args.workers or 1, args.gpus_per_worker or 0.0, args.quiet)
    try:
        return ray_engine.score(requests, detector_options(names, args.model, given_options(args)), directory, settings)
    except ray_engine.EngineError as error:
        raise CliError(str(error), EXIT_USAGE) from error


def set_threads(args: argparse.Namespace, names: Sequence[str]) -> None:
    """torch's threads (`--threads`, else `config.torch_threads()`) when a chosen detector runs a
    neural model: ROUGE alone never loads torch."""
    if any(detectors.spec(name).cost != detectors.INSTANT for name in names):
        import torch

        torch.set_num_threads(args.threads or torch_threads())


def given_options(args: argparse.Namespace) -> dict[str, dict]:
    """The detector options (`DetectorSpec.options`) given on the command line, by detector name."""
    given = {}
    for name in detectors.names():
        options = detectors.spec(name).options
        chosen = {o.name: value for o in options if (value := getattr(args, o.dest(name))) is not None}
        if chosen:
            given[name] = chosen
    return given


def add_detector_options(parser: argparse.ArgumentParser) -> None:
    """One group of options per detector that declares some on its spec, then `--threads`."""
    for name in detectors.names():
        if options := detectors.spec(name).options:
            group = parser.add_argument_group(name)
            for option in options:
                group.add_argument(
                    option.flag(name),
                    *option.aliases,
                    dest=option.dest(name),
                    type=option.type,
                    choices=list(option.choices) or None,
                    help=option.help,
                )
    parser.add_argument(
        "--threads",
        type=console.THREADS,
        help="torch CPU threads for model-based detectors (default: $EXPLORER_TORCH_THREADS or 1, the fastest "
        "measured on 2 cores; use more cores as more workers: --engine ray --workers N)",
    )


def load_training_files(paths: Sequence[Path]) -> list[Example]:
    """Every example of `paths`; a file with an invalid line stops training (a model trained on
    part of what was asked for would be silently different)."""
    examples = []
    for path in paths:
        loaded = load(path)
        if not loaded.ok:
            raise CliError(f"{path} has invalid lines; fix them before training on it", EXIT_IO)
        examples.extend(loaded.examples)
    return examples


# The step options of `explorer train` and `explorer eval --ablation`, by the trainer settings'
# field each one sets.
STEP_OPTIONS = {
    "steps": "--steps",
    "batch_size": "--batch-size",
    "learning_rate": "--lr",
    "eval_every": "--eval-every",
    "minutes": "--minutes",
    "micro_batch": "--micro-batch",
}


def add_step_options(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """The `STEP_OPTIONS`, each defaulting to the trainer's own; `scope` ends each help."""
    parser.add_argument("--steps", type=console.TRAINING_STEPS, help=f"optimizer steps (default: the trainer's){scope}")
    parser.add_argument("--batch-size", type=console.BATCH_SIZE, help=f"items a step (default: the trainer's){scope}")
    parser.add_argument("--lr", type=console.LEARNING_RATE, help=f"AdamW learning rate (default: the trainer's){scope}")
    parser.add_argument(
        "--eval-every", type=console.TRAINING_STEPS, help=f"dev ROC AUC every N steps (default: the trainer's){scope}"
    )
    parser.add_argument(
        "--minutes",
        type=console.MINUTES,
        help="stop after this much time, evaluated and kept as at the last step (a lent GPU's time is fixed)" + scope,
    )
    parser.add_argument(
        "--micro-batch",
        type=console.BATCH_SIZE,
        help=f"examples in one forward pass, for trainers that batch them (default: the trainer's){scope}",
    )


def step_options(args: argparse.Namespace) -> dict[str, float]:
    """The step options given on the command line, by settings field."""
    given = {
        field: getattr(args, option.removeprefix("--").replace("-", "_")) for field, option in STEP_OPTIONS.items()
    }
    return {k: v for k, v in given.items() if v is not None}


def checked_step_options(args: argparse.Namespace, title: str, settings: type | None, why_none: str | None) -> dict:
    """The step options given, each one a field of `settings` (the trainer of `title`'s; None,
    for `why_none`, when it takes no steps)."""
    given = step_options(args)
    if given and settings is None:
        options = ", ".join(STEP_OPTIONS[name] for name in given)
        raise CliError(f"{options} do not apply to the {title} ({why_none})", EXIT_USAGE)
    fields = {field.name for field in dataclasses.fields(settings)} if given else set()
    foreign = [STEP_OPTIONS[name] for name in given if name not in fields]
    if foreign:
        raise CliError(f"{', '.join(foreign)} do not apply to the {title}", EXIT_USAGE)
    return given
