"""`explorer synth` and `explorer train`."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from pathlib import Path

from explorer import console, detectors
from explorer.cli.common import (
    EXIT_IO,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    STEP_OPTIONS,
    CliError,
    add_step_options,
    checked_step_options,
    load,
    load_training_files,
)
from explorer.cli.guard import Files, declare
from explorer.config import SAMPLE_DIR
from explorer.data.jsonl import write_jsonl


def spare_path(args: argparse.Namespace) -> Path:
    """`--spare`, else spare_arguments.jsonl beside the input (read when it is there)."""
    return args.spare or args.input.with_name("spare_arguments.jsonl")


def run_synth(args: argparse.Namespace) -> int:
    from explorer.data import synthetic  # the evaluation module it reuses loads scikit-learn

    spare_file = spare_path(args)
    loaded = load(args.input)
    spare = {}
    if args.spare is not None or spare_file.is_file():
        try:
            spare = synthetic.read_spare_arguments(spare_file)
        except OSError as error:
            raise CliError(f"cannot read {spare_file}: {error.strerror or error}", EXIT_IO) from error
        except ValueError as error:
            raise CliError(str(error), EXIT_IO) from error
    made = synthetic.synthesize(loaded.examples, spare, seed=args.seed)
    taken = {e.id for e in loaded.examples}
    clashes = [e.id for e in made if e.id in taken]
    if clashes and not args.only_synthetic:
        raise CliError(f"the input already has examples with the new ids: {', '.join(clashes[:5])}", EXIT_USAGE)
    write_jsonl(made if args.only_synthetic else [*loaded.examples, *made], args.out)
    sources = sum(synthetic.is_error_free(e.labels) for e in loaded.examples)
    print(
        f"{len(made)} synthetic example(s) from {sources} error-free example(s)"
        + (f" (spare arguments: {spare_file})" if spare else " (no spare arguments file)"),
        file=sys.stderr,
    )
    return EXIT_OK if loaded.ok else EXIT_PARTIAL


def training_task(args: argparse.Namespace) -> str | None:
    """`--task`, one of the detector's weights' tasks; a detector with one task (or one adapter
    for all) needs none."""
    tasks = detectors.weights(args.detector).tasks
    if args.task is None:
        if len(tasks) > 1:
            raise CliError(f"--task is required for --detector {args.detector}: {' or '.join(tasks)}", EXIT_USAGE)
        return tasks[0] if tasks else None
    if args.task not in tasks:
        known = " or ".join(tasks) if tasks else "none: one adapter serves every task"
        raise CliError(f"--task {args.task} does not apply to --detector {args.detector} ({known})", EXIT_USAGE)
    return args.task


def trainer_help(args: argparse.Namespace) -> str:
    """What `--help` adds: the trainer's own description, `--model`, tasks and defaults, for the
    `--detector` (or `--task generator`) given before it."""
    if args.task == "generator":
        from explorer.training.generator import GeneratorTrainer

        trainer = GeneratorTrainer()
        lines = [f"--task generator: {trainer.description}", f"  --model: {trainer.model_help}"]
    else:
        trainer, tasks = detectors.trainer(args.detector), detectors.weights(args.detector).tasks
        lines = [
            f"--detector {args.detector}: {trainer.description}",
            f"  --model: {trainer.model_help}",
            "  --task: " + (" or ".join(tasks) if len(tasks) > 1 else f"{tasks[0]} (the default)" if tasks else "none"),
        ]
    if trainer.settings is None:
        lines.append(f"  no step options: {trainer.no_step_options}")
    else:
        defaults = {field.name: field.default for field in dataclasses.fields(trainer.settings)}
        lines.append(
            "  defaults: " + ", ".join(f"{STEP_OPTIONS[k]} {v}" for k, v in defaults.items() if k in STEP_OPTIONS)
        )
        fixed = [f"{k} {v}" for k, v in defaults.items() if k not in STEP_OPTIONS and k != "seed"]
        if fixed:
            lines.append(f"  fixed here: {', '.join(fixed)}")
    return "\n".join(lines)


class TrainerHelp(argparse.Action):
    """`-h`/`--help`: the command's help, then that of the trainer chosen by the options before it."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.print_help()
        print(f"\n{trainer_help(namespace)}")
        parser.exit()


def run_train(args: argparse.Namespace) -> int:
    if args.task == "generator":
        from explorer.cli.extras import run_train_generator

        return run_train_generator(args)
    import torch  # the training stack loads only for this command

    from explorer.data.labels import ERROR_TYPES
    from explorer.scoring.cache import ResultCache
    from explorer.scoring.runner import all_results
    from explorer.training import TrainingInputError, TrainingRequest
    from explorer.training.data import labelled_examples, target, training_examples

    trainer = detectors.trainer(args.detector)
    task = training_task(args)
    paths = args.data or [SAMPLE_DIR / "synthetic.jsonl"]
    if args.threads:
        torch.set_num_threads(args.threads)
    examples = load_training_files(paths)
    splits = ["train", "dev"] if args.with_dev else ["train"]
    chosen = labelled_examples if trainer.reads_organic_errors else training_examples
    train_set = chosen(examples, splits)
    dev_set = chosen(examples, ["dev"])
    if task in ERROR_TYPES and len({target(e, task) for e in train_set}) < 2:
        raise CliError(f"the training data needs examples with and without a {task} error", EXIT_USAGE)
    title = detectors.spec(args.detector).title.lower()
    given = checked_step_options(args, title, trainer.settings, trainer.no_step_options)
    what = f"{task} {args.detector}" if task else args.detector
    print(
        f"training the {what} on {len(train_set)} examples ({'+'.join(splits)}), "
        f"dev {len(dev_set)}, {torch.get_num_threads()} thread(s)",
        file=sys.stderr,
    )
    request = TrainingRequest(
        task=task,
        train_set=train_set,
        dev_set=dev_set,
        dev_is_held_out=not args.with_dev,
        model=args.model,
        seed=args.seed,
        steps=given,
        log=lambda line: print(line, file=sys.stderr, flush=True),
        work=args.work,
        score_examples=functools.partial(all_results, cache=ResultCache()),
    )
    try:
        model, record = trainer.train(request)
    except TrainingInputError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    record.setdefault("data", [path.name for path in paths])  # the matcher's names its own (ArgKP)
    out = args.out or detectors.weights(args.detector).user_dir(record["model"], task)
    try:
        trainer.save(model, record, out)
    except OSError as error:
        raise CliError(f"cannot write {out}: {error.strerror or error}", EXIT_IO) from error
    kept = ", ".join(
        f"{name}={value}" if name == "C" else f"{name} {value}"
        for name, value in (
            (key.removeprefix("kept_"), value) for key, value in record.items() if key.startswith("kept_")
        )
    )
    took = f" ({record['seconds']:.0f} s)" if "seconds" in record else ""
    print(f"kept {kept}; wrote {out}{took}", file=sys.stderr)
    return EXIT_OK


def add_parsers(commands) -> None:
    synth = commands.add_parser(
        "synth",
        help="synthetic hallucinations and coverage errors from the error-free examples (the paper's §4.2)",
    )
    synth.add_argument("input", type=Path, help="JSON Lines examples with labels")
    synth.add_argument("--out", type=Path, required=True, help="output: the input examples, then the synthetic ones")
    synth.add_argument("--seed", type=console.SEED, default=0, help="random seed (default 0): same seed, same output")
    synth.add_argument(
        "--spare",
        type=Path,
        help="unused arguments to add, JSON Lines of {topic, perspective, arguments} "
        "(default: spare_arguments.jsonl next to the input, when there is one)",
    )
    synth.add_argument("--only-synthetic", action="store_true", help="write only the synthetic examples")
    synth.set_defaults(run=run_synth)
    # The shipped synthetic.jsonl is `explorer synth` of the shipped examples.jsonl: the one
    # repository file a command regenerates (tests/data/test_synthetic.py checks it).
    declare(
        synth,
        Files(
            inputs=("input", "spare"),
            also_read=lambda args: [spare_path(args)],
            output="out",
            may_replace=(SAMPLE_DIR / "synthetic.jsonl",),
        ),
    )

    train = commands.add_parser(
        "train",
        help="train a learned detector on error-free and synthetic examples (§3.3, §4.2)",
        add_help=False,
    )
    train.add_argument(
        "-h", "--help", action=TrainerHelp, help="show this help and the trainer of the --detector given before it"
    )
    tasks = dict.fromkeys(task for name in detectors.trainable() for task in detectors.weights(name).tasks)
    train.add_argument(
        "--task",
        choices=(*tasks, "generator"),
        help="what to train: an error type, the one task of a detector that answers both (its default), or "
        "generator: the NPOV response generator's LoRA adapter (§2.1)",
    )
    train.add_argument(
        "--detector",
        "--method",
        dest="detector",
        choices=detectors.trainable(),
        default="classifier_prompt",
        help="the learned detector to train (default: classifier_prompt); `--detector NAME --help` shows its "
        "trainer, its --model and its defaults; --method is an accepted alias",
    )
    train.add_argument(
        "--data",
        type=Path,
        action="append",
        help="JSON Lines with error-free and synthetic examples, repeatable "
        "(default: the shipped samples' synthetic.jsonl; generator: their examples.jsonl)",
    )
    add_step_options(train)
    train.add_argument("--work", type=Path, help="checkpoint folder of a trainer that resumes; a rerun resumes from it")
    train.add_argument("--seed", type=console.SEED, default=0)
    train.add_argument(
        "--with-dev", action="store_true", help="train on the dev split too (dev AUC is then not held out)"
    )
    train.add_argument("--out", type=Path, help="output folder (default: the cache, where the detector finds it)")
    train.add_argument("--model", help="the base model the trainer reads (`--detector NAME --help` says which kind)")
    train.add_argument("--threads", type=console.THREADS, help="torch CPU threads (default: torch's choice)")
    train.set_defaults(run=run_train)
    # Without --data it reads the shipped samples, files of the repository, which no output may replace.
    # --work is a resumable trainer's own checkpoint folder, read back by a rerun: like the result
    # cache's folder it is left to the trainer (the output guard refuses a folder that exists).
    declare(train, Files(inputs=("data", "model"), output="out", folder=True, unguarded=("work",)))
