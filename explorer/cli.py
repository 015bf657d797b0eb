"""Command line: `explorer validate`, `explorer score`, `explorer eval`, `explorer synth` and `explorer train`.

Exit codes: 0 all good; 1 some input lines were invalid or some examples could not be scored
(everything else was still processed and written); 2 bad usage (unknown option or detector, an
option out of range, an output that would overwrite an input, a model that cannot be used);
3 an input file could not be read or the output could not be written.

Outputs are written whole or not at all (`explorer.files.atomic_writer`): a failed or killed run
leaves the previous output as it was. `--quiet` leaves only errors and warnings on stderr: no
progress bars or notices from the explorer or the libraries it loads.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from tqdm import tqdm

from explorer import console, detectors
from explorer.config import cache_dir, torch_threads
from explorer.data.example import Example
from explorer.data.jsonl import JSON_LINES, LoadResult, parse_jsonl, write_jsonl
from explorer.detectors.ops import attribution
from explorer.files import WriteError, atomic_writer, same_file
from explorer.models.language_model import InvalidModelError
from explorer.scoring import ray_engine, scores_file
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import ScoredExample, score_requests
from explorer.scoring.scores_file import output_record

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_IO = 0, 1, 2, 3


class CliError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _refuse_overwriting(outputs: Sequence[Path], inputs: Sequence[Path | None]) -> None:
    """An output that names an input of the same command would replace what it reads."""
    for output in outputs:
        for given in inputs:
            if given is not None and same_file(output, given):
                raise CliError(f"--out {output} is the input file {given}; choose another output path", EXIT_USAGE)


def _load(path: Path) -> LoadResult:
    try:
        loaded = parse_jsonl(path)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}", EXIT_IO) from error
    for problem in loaded.errors:
        print(f"{path}: {problem}", file=sys.stderr)
    for warning in loaded.warnings:
        print(f"{path}: warning: {warning}", file=sys.stderr)
    return loaded


def _method_names(value: str) -> list[str]:
    chosen = [name.strip() for name in value.split(",") if name.strip()]
    for name in chosen:
        try:
            detectors.spec(name)
        except detectors.UnknownDetectorError as error:
            raise argparse.ArgumentTypeError(str(error)) from error
    if not chosen:
        raise argparse.ArgumentTypeError("name at least one detector")
    return chosen


def detector_options(names: Sequence[str], model: str | None, salience: dict | None = None) -> dict[str, dict]:
    """Each detector's constructor options: `model` (`detectors.create` gives it only to those
    that run a language model) and, for the salience detector, its method and settings."""
    return {name: {"model": model, **((salience or {}) if name == "salience" else {})} for name in names}


def build_detectors(names: Sequence[str], model: str | None, salience: dict | None = None) -> list[detectors.Detector]:
    """Instantiate detectors by name; `model` goes to those that run a language model and
    `salience` (method and its settings) to the salience detector.

    A detector that cannot work with the chosen model (e.g. no classifier prompt was trained
    for it) or settings is a usage error with the detector's message, not a traceback.
    """
    options = detector_options(names, model, salience)
    chosen = []
    for name in names:
        try:
            chosen.append(detectors.create(name, **options[name]))
        except (detectors.DetectorError, InvalidModelError, FileNotFoundError, ValueError) as error:
            raise CliError(f"{name}: {error}", EXIT_USAGE) from error
    return chosen


def _cache(args: argparse.Namespace) -> ResultCache | None:
    return None if args.no_cache else ResultCache(args.cache_dir)


def _scored(args: argparse.Namespace, requests: Sequence[tuple[Example, Sequence[str]]]) -> Iterator[ScoredExample]:
    """Each example scored by the detectors named with it, in input order, on the `--engine`.

    The detectors are built here for either engine, so one that cannot work is a usage error
    before anything runs; on Ray each worker then builds its own.
    """
    ray_options = {"--address": args.address, "--workers": args.workers, "--gpus-per-worker": args.gpus_per_worker}
    if args.engine == "local" and any(value is not None for value in ray_options.values()):
        given = ", ".join(option for option, value in ray_options.items() if value is not None)
        raise CliError(f"{given}: only with --engine ray", EXIT_USAGE)
    names = list(dict.fromkeys(m for _, ms in requests for m in ms))
    _set_threads(args, names)
    built = {d.name: d for d in build_detectors(names, args.model, _salience_options(args))}
    directory = None if args.no_cache else args.cache_dir or cache_dir()
    if args.engine == "local":
        return score_requests(((e, [built[m] for m in ms]) for e, ms in requests), _cache(args))
    built.clear()  # built only to refuse what cannot work: each worker builds its own
    settings = ray_engine.Settings(args.address, args.workers or 1, args.gpus_per_worker or 0.0, args.quiet)
    try:
        return ray_engine.score(
            requests, detector_options(names, args.model, _salience_options(args)), directory, settings
        )
    except ray_engine.EngineError as error:
        raise CliError(str(error), EXIT_USAGE) from error


def _set_threads(args: argparse.Namespace, names: Sequence[str]) -> None:
    """torch's threads (`--threads`, else `config.torch_threads()`) when a chosen detector runs a
    neural model: ROUGE alone never loads torch."""
    if any(detectors.spec(name).cost != detectors.INSTANT for name in names):
        import torch

        torch.set_num_threads(args.threads or torch_threads())


def _salience_options(args: argparse.Namespace) -> dict:
    options = {"method": args.salience_method, "steps": args.salience_steps, "samples": args.salience_samples}
    return {k: v for k, v in options.items() if v is not None}


def _add_salience_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("salience")
    group.add_argument(
        "--salience-method",
        choices=list(attribution.METHODS),
        help=f"attribution method of the salience detector (default: {attribution.DEFAULT_METHOD}, the paper's); "
        + "; ".join(f"{m.name}: {m.title}" for m in attribution.METHODS.values()),
    )
    group.add_argument(
        "--salience-steps",
        type=int,
        help=f"integrated gradients: interpolation steps (default {attribution.DEFAULT_STEPS})",
    )
    group.add_argument(
        "--salience-samples",
        type=int,
        help=f"argument Shapley values: sampled argument orders (default {attribution.DEFAULT_SAMPLES})",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="torch CPU threads for model-based detectors (default: $EXPLORER_TORCH_THREADS or 1, the fastest "
        "measured on 2 cores; use more cores as more workers: --engine ray --workers N)",
    )


def run_validate(args: argparse.Namespace) -> int:
    loaded = _load(args.input)
    read = "non-empty line(s)" if loaded.layout == JSON_LINES else f"record(s), read as {loaded.layout}"
    print(
        f"{args.input}: {len(loaded.examples)} valid example(s), "
        f"{len(loaded.errors)} problem(s) in {loaded.lines_read} {read}"
    )
    return EXIT_OK if loaded.ok else EXIT_PARTIAL


def run_score(args: argparse.Namespace) -> int:
    _refuse_overwriting([args.out], [args.input])
    loaded = _load(args.input)
    scored_examples = _scored(args, [(example, args.methods) for example in loaded.examples])
    failures = 0
    # The output is created before scoring, so an unwritable one fails at once, not hours later.
    with (
        atomic_writer(args.out) as out,
        tqdm(total=len(loaded.examples), unit="example", file=sys.stderr, disable=args.quiet) as bar,
    ):
        for scored in scored_examples:
            for name, message in scored.errors.items():
                failures += 1
                tqdm.write(f"{scored.example.id}: {name}: {message}", file=sys.stderr)
            out.write(json.dumps(output_record(scored), ensure_ascii=False) + "\n")
            bar.update()
    return EXIT_OK if loaded.ok and not failures else EXIT_PARTIAL


def _report_paths(out: Path) -> tuple[Path, Path]:
    stem = out.with_suffix("") if out.suffix in (".md", ".json") else out
    return stem.with_name(stem.name + ".md"), stem.with_name(stem.name + ".json")


def _given_scores(args: argparse.Namespace, examples: Sequence) -> scores_file.ScoresFile:
    if args.scores is None:
        return scores_file.ScoresFile()
    try:
        given = scores_file.parse_scores(args.scores, examples)
    except OSError as error:
        raise CliError(f"cannot read {args.scores}: {error.strerror or error}", EXIT_IO) from error
    for problem in given.errors:
        print(f"{args.scores}: {problem}", file=sys.stderr)
    return given


def run_eval(args: argparse.Namespace) -> int:
    if args.ablation:
        from explorer.commands import run_ablation

        return run_ablation(args)
    from explorer.evaluation import auc, report  # scipy and scikit-learn load only for this command

    markdown_path, json_path = _report_paths(args.out)
    _refuse_overwriting([markdown_path, json_path], [args.input, args.scores])
    loaded = _load(args.input)
    given = _given_scores(args, loaded.examples)
    results, failures = given.results, given.failures
    examples = [e for e in loaded.examples if args.split is None or e.split == args.split]
    missing = {
        e.id: [m for m in args.methods if m not in results.get(e.id, {}) and m not in failures.get(e.id, {})]
        for e in examples
    }
    to_score = [e for e in examples if missing[e.id]]
    if to_score:
        scored_examples = _scored(args, [(example, missing[example.id]) for example in to_score])
        for scored in tqdm(
            scored_examples, total=len(to_score), unit="example", file=sys.stderr, disable=args.quiet, desc="scoring"
        ):
            results.setdefault(scored.example.id, {}).update(scored.results)
            failures.setdefault(scored.example.id, {}).update(scored.errors)
    for example_id, errors in failures.items():
        for name, message in errors.items():
            if name in args.methods:
                print(f"{example_id}: {name}: {message}", file=sys.stderr)

    settings = auc.Settings(n_bootstrap=args.bootstrap, alpha=args.alpha, seed=args.seed)
    evaluated = auc.evaluate(examples, results, args.methods, settings)
    split = f", {args.split} split" if args.split else ""
    description = f"Data: `{args.input.name}`{split}."
    markdown_text = report.markdown(evaluated, title=f"Evaluation of {args.input.name}", description=description)
    record = report.to_json(
        evaluated, meta={"data": str(args.input), "split": args.split, "scores": args.scores and str(args.scores)}
    )
    with atomic_writer(markdown_path) as markdown_out, atomic_writer(json_path) as json_out:
        markdown_out.write(markdown_text)
        json_out.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    if not args.quiet:
        print(markdown_text)
        print(f"wrote {markdown_path} and {json_path}", file=sys.stderr)
    return EXIT_OK if loaded.ok and not given.errors and not evaluated.failures else EXIT_PARTIAL


def run_synth(args: argparse.Namespace) -> int:
    from explorer.data import synthetic  # the evaluation module it reuses loads scikit-learn

    spare_path = args.spare or args.input.with_name("spare_arguments.jsonl")
    _refuse_overwriting([args.out], [args.input, spare_path])
    loaded = _load(args.input)
    spare = {}
    if args.spare is not None or spare_path.is_file():
        try:
            spare = synthetic.read_spare_arguments(spare_path)
        except OSError as error:
            raise CliError(f"cannot read {spare_path}: {error.strerror or error}", EXIT_IO) from error
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
        + (f" (spare arguments: {spare_path})" if spare else " (no spare arguments file)"),
        file=sys.stderr,
    )
    return EXIT_OK if loaded.ok else EXIT_PARTIAL


def run_train(args: argparse.Namespace) -> int:
    if args.task == "generator":
        from explorer.commands import run_train_generator

        return run_train_generator(args)
    import torch  # the training stack loads only for this command

    from explorer.config import SAMPLE_DIR
    from explorer.models.trained import user_trained_dir
    from explorer.training import TrainingInputError, TrainingRequest
    from explorer.training.data import target, training_examples

    trainer = detectors.trainer(args.method)
    paths = args.data or [SAMPLE_DIR / "synthetic.jsonl"]
    if args.out is not None:
        _refuse_overwriting([args.out], paths)
    if args.threads:
        torch.set_num_threads(args.threads)
    examples = []
    for path in paths:
        loaded = _load(path)
        if not loaded.ok:
            raise CliError(f"{path} has invalid lines; fix them before training on it", EXIT_IO)
        examples.extend(loaded.examples)
    splits = ["train", "dev"] if args.with_dev else ["train"]
    train_set = training_examples(examples, splits)
    dev_set = training_examples(examples, ["dev"])
    if len({target(e, args.task) for e in train_set}) < 2:
        raise CliError(f"the training data needs examples with and without a {args.task} error", EXIT_USAGE)
    given = {
        "steps": args.steps,
        "batch_size": args.batch_size,
        "learning_rate": args.lr,
        "eval_every": args.eval_every,
    }
    given = {k: v for k, v in given.items() if v is not None}
    if given and trainer.no_step_options:
        raise CliError(
            f"--steps, --batch-size, --lr and --eval-every do not apply to the "
            f"{detectors.spec(args.method).title.lower()} ({trainer.no_step_options})",
            EXIT_USAGE,
        )
    print(
        f"training the {args.task} {args.method} on {len(train_set)} examples ({'+'.join(splits)}), "
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
    out = args.out or user_trained_dir(args.method, record["model"], args.task)
    try:
        trainer.save(model, record, out)
    except OSError as error:
        raise CliError(f"cannot write {out}: {error.strerror or error}", EXIT_IO) from error
    kept = f"step {record['kept_step']}" if "kept_step" in record else f"C={record['kept_C']}"
    print(f"kept {kept}; wrote {out} ({record['seconds']:.0f} s)", file=sys.stderr)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer", description="Detect hallucination and coverage errors in RAG answers."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    validate = commands.add_parser("validate", help="check a JSON Lines file of examples")
    validate.add_argument("input", type=Path)
    validate.set_defaults(run=run_validate)

    score = commands.add_parser("score", help="score examples with one or more detectors")
    score.add_argument("input", type=Path)
    score.add_argument(
        "--methods",
        type=_method_names,
        default=["rouge"],
        help=f"comma-separated detectors: {', '.join(detectors.names())} (default: rouge)",
    )
    score.add_argument("--out", type=Path, required=True, help="output JSON Lines file")
    score.add_argument("--model", help="causal LM for model-based detectors: a local HF folder or a .gguf file")
    score.add_argument("--cache-dir", type=Path, help="result cache folder (default: $EXPLORER_CACHE_DIR)")
    score.add_argument("--no-cache", action="store_true", help="neither read nor write cached results")
    score.add_argument("--quiet", action="store_true", help="no progress bar or notices, only errors and warnings")
    ray_engine.add_options(score)
    _add_salience_options(score)
    score.set_defaults(run=run_score)

    evaluate = commands.add_parser(
        "eval", help="ROC AUC of detectors against gold labels, per error type and slice (Table 1 of the paper)"
    )
    evaluate.add_argument("input", type=Path, help="JSON Lines examples with labels")
    evaluate.add_argument("--scores", type=Path, help="`explorer score` output to use; missing scores are computed")
    evaluate.add_argument(
        "--methods",
        type=_method_names,
        default=detectors.names(),
        help=f"comma-separated detectors (default: all: {', '.join(detectors.names())})",
    )
    evaluate.add_argument("--out", type=Path, required=True, help="report path: writes REPORT.md and REPORT.json")
    evaluate.add_argument("--split", choices=("train", "dev", "test"), help="evaluate only the examples of this split")
    evaluate.add_argument(
        "--bootstrap",
        type=console.COUNT,
        default=1000,
        help="bootstrap resamples for intervals, 0 for none (default 1000)",
    )
    evaluate.add_argument(
        "--alpha",
        type=console.bounded(float, 0, 1, open_ends=True),
        default=0.05,
        help="significance level (default 0.05)",
    )
    evaluate.add_argument("--seed", type=console.SEED, default=0, help="bootstrap seed (default 0)")
    evaluate.add_argument("--model", help="causal LM for model-based detectors: a local HF folder or a .gguf file")
    evaluate.add_argument("--cache-dir", type=Path, help="result cache folder (default: $EXPLORER_CACHE_DIR)")
    evaluate.add_argument("--no-cache", action="store_true", help="neither read nor write cached results")
    evaluate.add_argument(
        "--quiet", action="store_true", help="no progress bar, table or notices, only errors and warnings"
    )
    evaluate.add_argument(
        "--ablation",
        nargs="?",
        const="alignment_classifier",
        choices=detectors.trainable(),
        help="Table 2: train this learned detector (default alignment_classifier) on growing training sets "
        "(Synth, +Para, +Dev, +Org) from the input and evaluate each on --split (default test)",
    )
    ray_engine.add_options(evaluate)
    _add_salience_options(evaluate)
    evaluate.set_defaults(run=run_eval)

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

    train = commands.add_parser(
        "train",
        help="train a classifier for one error type on error-free and synthetic examples (§3.3, §4.2)",
    )
    train.add_argument(
        "--task",
        choices=("hallucination", "coverage", "generator"),
        required=True,
        help="an error type (trains --method), or generator: the NPOV response generator's soft prompt (§2.1)",
    )
    train.add_argument(
        "--method",
        choices=detectors.trainable(),
        default="classifier",
        help="classifier: 5-token soft prompt on the language model (the paper's); alignment_classifier: "
        "logistic regression on MiniLM alignment features (seconds); cross_encoder: LoRA adapter and head on "
        "all-MiniLM-L6-v2 (default: classifier)",
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
        type=console.POSITIVE,
        help="optimizer steps (default: 60 classifier, 200 cross_encoder, 30 generator)",
    )
    train.add_argument(
        "--batch-size",
        type=console.POSITIVE,
        help="examples (classifier, default 8) or pairs (cross_encoder, 16) a step",
    )
    train.add_argument(
        "--lr",
        type=console.bounded(float, 0, math.inf, open_ends=True),
        help="AdamW learning rate (default: 0.02 classifier, 0.002 cross_encoder)",
    )
    train.add_argument(
        "--eval-every",
        type=console.POSITIVE,
        help="dev ROC AUC every N steps (default: 15 classifier, 50 cross_encoder)",
    )
    train.add_argument("--seed", type=console.SEED, default=0)
    train.add_argument(
        "--with-dev", action="store_true", help="train on the dev split too (dev AUC is then not held out)"
    )
    train.add_argument("--out", type=Path, help="output folder (default: the cache, where the detector finds it)")
    train.add_argument(
        "--model",
        help="classifier: causal LM, a local HF folder or .gguf file (default: packaged SmolLM2); "
        "alignment_classifier, cross_encoder: a local sentence-transformers / BERT-style folder "
        "(default: packaged all-MiniLM-L6-v2)",
    )
    train.add_argument("--threads", type=console.POSITIVE, help="torch CPU threads (default: torch's choice)")
    train.set_defaults(run=run_train)
    from explorer import commands as more  # it imports this module's helpers

    more.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console.report_warnings()
    if getattr(args, "quiet", False):
        console.quiet_libraries()
    try:
        return args.run(args)
    except CliError as error:
        print(f"explorer: {error}", file=sys.stderr)
        return error.code
    except WriteError as error:
        print(f"explorer: {error}; nothing was written", file=sys.stderr)
        return EXIT_IO
    except InvalidModelError as error:
        print(f"explorer: {error}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(
            "explorer: interrupted; any previous output is as it was, finished results are cached: run again to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
