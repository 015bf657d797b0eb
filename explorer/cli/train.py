"""`explorer synth` and `explorer train`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer import console, detectors
from explorer.cli.common import (
    EXIT_IO,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    CliError,
    load,
    load_training_files,
    step_options,
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


def run_train(args: argparse.Namespace) -> int:
    if args.task == "generator":
        from explorer.cli.extras import run_train_generator

        return run_train_generator(args)
    import torch  # the training stack loads only for this command

    from explorer.models.trained import user_trained_dir
    from explorer.training import TrainingInputError, TrainingRequest
    from explorer.training.data import target, training_examples

    trainer = detectors.trainer(args.detector)
    paths = args.data or [SAMPLE_DIR / "synthetic.jsonl"]
    if args.threads:
        torch.set_num_threads(args.threads)
    examples = load_training_files(paths)
    splits = ["train", "dev"] if args.with_dev else ["train"]
    train_set = training_examples(examples, splits)
    dev_set = training_examples(examples, ["dev"])
    if len({target(e, args.task) for e in train_set}) < 2:
        raise CliError(f"the training data needs examples with and without a {args.task} error", EXIT_USAGE)
    given = step_options(args)
    if given and trainer.no_step_options:
        raise CliError(
            f"--steps, --batch-size, --lr and --eval-every do not apply to the "
            f"{detectors.spec(args.detector).title.lower()} ({trainer.no_step_options})",
            EXIT_USAGE,
        )
    print(
        f"training the {args.task} {args.detector} on {len(train_set)} examples ({'+'.join(splits)}), "
        f"dev {len(dev_set)}, {torch.get_num_threads()} thread(s)",
        file=sys.stderr,
    )
    request = TrainingRequest(
        task=args.task,
        train_set=train_set,
        dev_set=dev_set,
        dev_is_held_out=not args.with_dev,
        model=args.model,
        seed=args.seed,
        steps=given,
        log=lambda line: print(line, file=sys.stderr, flush=True),
    )
    try:
        model, record = trainer.train(request)
    except TrainingInputError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    record["data"] = [path.name for path in paths]
    out = args.out or user_trained_dir(args.detector, record["model"], args.task)
    try:
        trainer.save(model, record, out)
    except OSError as error:
        raise CliError(f"cannot write {out}: {error.strerror or error}", EXIT_IO) from error
    kept = f"step {record['kept_step']}" if "kept_step" in record else f"C={record['kept_C']}"
    print(f"kept {kept}; wrote {out} ({record['seconds']:.0f} s)", file=sys.stderr)
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
        help="train a classifier for one error type on error-free and synthetic examples (§3.3, §4.2)",
    )
    train.add_argument(
        "--task",
        choices=("hallucination", "coverage", "generator"),
        required=True,
        help="an error type (trains --detector), or generator: the NPOV response generator's LoRA adapter (§2.1)",
    )
    train.add_argument(
        "--detector",
        "--method",
        dest="detector",
        choices=detectors.trainable(),
        default="classifier_prompt",
        help="classifier_prompt: 5-token soft prompt on the language model (the paper's); alignment_classifier: "
        "logistic regression on MiniLM alignment features (seconds); cross_encoder: LoRA adapter and head on "
        "all-MiniLM-L6-v2 (default: classifier_prompt; the fine-tuned classifier trains with "
        "python -m explorer.training.classifier; --method is an accepted alias)",
    )
    train.add_argument(
        "--data",
        type=Path,
        action="append",
        help="JSON Lines with error-free and synthetic examples, repeatable "
        "(default: the shipped samples' synthetic.jsonl; generator: their examples.jsonl)",
    )
    train.add_argument(
        "--steps",
        type=console.TRAINING_STEPS,
        help="optimizer steps (default: 60 classifier_prompt, 200 cross_encoder, 80 generator)",
    )
    train.add_argument(
        "--batch-size",
        type=console.BATCH_SIZE,
        help="examples (classifier_prompt, default 8) or pairs (cross_encoder, 16) a step",
    )
    train.add_argument(
        "--lr",
        type=console.LEARNING_RATE,
        help="AdamW learning rate (default: 0.02 classifier_prompt, 0.002 cross_encoder)",
    )
    train.add_argument(
        "--eval-every",
        type=console.TRAINING_STEPS,
        help="dev ROC AUC every N steps (default: 15 classifier_prompt, 50 cross_encoder)",
    )
    train.add_argument("--seed", type=console.SEED, default=0)
    train.add_argument(
        "--with-dev", action="store_true", help="train on the dev split too (dev AUC is then not held out)"
    )
    train.add_argument("--out", type=Path, help="output folder (default: the cache, where the detector finds it)")
    train.add_argument(
        "--model",
        help="classifier_prompt: causal LM, a local HF folder or .gguf file (default: packaged SmolLM2); "
        "alignment_classifier, cross_encoder: a local sentence-transformers / BERT-style folder "
        "(default: packaged all-MiniLM-L6-v2)",
    )
    train.add_argument("--threads", type=console.THREADS, help="torch CPU threads (default: torch's choice)")
    train.set_defaults(run=run_train)
    # Without --data it reads the shipped samples, files of the repository, which no output may replace.
    declare(train, Files(inputs=("data", "model"), output="out", folder=True))
