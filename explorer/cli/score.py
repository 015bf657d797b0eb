"""`explorer validate`, `explorer score` and `explorer eval`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from explorer import console, detectors
from explorer.cli.common import (
    EXIT_IO,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    STEP_OPTIONS,
    CliError,
    add_detector_options,
    add_step_options,
    load,
    parse_detector_names,
    score_on_engine,
    step_options,
)
from explorer.cli.guard import Files, declare
from explorer.data.jsonl import JSON_LINES
from explorer.files import atomic_writer
from explorer.scoring import ray_engine, scores_file
from explorer.scoring.scores_file import output_record


def run_validate(args: argparse.Namespace) -> int:
    loaded = load(args.input)
    read = "non-empty line(s)" if loaded.layout == JSON_LINES else f"record(s), read as {loaded.layout}"
    print(
        f"{args.input}: {len(loaded.examples)} valid example(s), "
        f"{len(loaded.errors)} problem(s) in {loaded.lines_read} {read}"
    )
    return EXIT_OK if loaded.ok else EXIT_PARTIAL


def run_score(args: argparse.Namespace) -> int:
    loaded = load(args.input)
    scored_examples = score_on_engine(args, [(example, args.detectors) for example in loaded.examples])
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


def report_paths(out: Path) -> tuple[Path, Path]:
    """What `explorer eval --out OUT` (and `--ablation`) writes: OUT.md and OUT.json."""
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


def scores_for(
    args: argparse.Namespace, read: Sequence, examples: Sequence, detector_names: Sequence[str]
) -> tuple[dict, dict, scores_file.ScoresFile]:
    """Each of `examples`' results by the detectors named: those of `--scores` (checked against
    all the examples `read`), the rest scored on the `--engine`; and the failures, reported.
    Also the `--scores` file as read (its `errors` are the lines it could not use)."""
    given = _given_scores(args, read)
    results, failures = given.results, given.failures
    missing = {
        e.id: [m for m in detector_names if m not in results.get(e.id, {}) and m not in failures.get(e.id, {})]
        for e in examples
    }
    to_score = [e for e in examples if missing[e.id]]
    if to_score:
        scored_examples = score_on_engine(args, [(example, missing[example.id]) for example in to_score])
        for scored in tqdm(
            scored_examples, total=len(to_score), unit="example", file=sys.stderr, disable=args.quiet, desc="scoring"
        ):
            results.setdefault(scored.example.id, {}).update(scored.results)
            failures.setdefault(scored.example.id, {}).update(scored.errors)
    for example_id, errors in failures.items():
        for name, message in errors.items():
            if name in detector_names:
                print(f"{example_id}: {name}: {message}", file=sys.stderr)
    return results, failures, given


def run_eval(args: argparse.Namespace) -> int:
    if args.ablation:
        from explorer.cli.extras import run_ablation

        return run_ablation(args)
    ablation_only = [STEP_OPTIONS[name] for name in step_options(args)] + ["--evaluate-on"] * bool(args.evaluate_on)
    if ablation_only:
        raise CliError(f"{', '.join(ablation_only)}: only with --ablation", EXIT_USAGE)
    from explorer.evaluation import auc, report  # scipy and scikit-learn load only for this command

    markdown_path, json_path = report_paths(args.out)
    loaded = load(args.input)
    examples = [e for e in loaded.examples if args.split is None or e.split == args.split]
    results, _, given = scores_for(args, loaded.examples, examples, args.detectors)

    settings = auc.Settings(n_bootstrap=args.bootstrap, alpha=args.alpha, seed=args.seed)
    evaluated = auc.evaluate(examples, results, args.detectors, settings)
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


def add_parsers(commands) -> None:
    validate = commands.add_parser("validate", help="check a JSON Lines file of examples")
    validate.add_argument("input", type=Path)
    validate.set_defaults(run=run_validate)
    declare(validate, Files(inputs=("input",)))

    score = commands.add_parser("score", help="score examples with one or more detectors")
    score.add_argument("input", type=Path)
    score.add_argument(
        "--detectors",
        "--methods",
        dest="detectors",
        type=parse_detector_names,
        default=["rouge"],
        help=f"comma-separated detectors: {', '.join(detectors.names())} (default: rouge; --methods is an accepted "
        "alias)",
    )
    score.add_argument("--out", type=Path, required=True, help="output JSON Lines file")
    score.add_argument("--model", help="causal LM for model-based detectors: a local HF folder or a .gguf file")
    score.add_argument("--cache-dir", type=Path, help="result cache folder (default: $EXPLORER_CACHE_DIR)")
    score.add_argument("--no-cache", action="store_true", help="neither read nor write cached results")
    score.add_argument("--quiet", action="store_true", help="no progress bar or notices, only errors and warnings")
    ray_engine.add_options(score)
    add_detector_options(score)
    score.set_defaults(run=run_score)
    declare(score, Files(inputs=("input", "model"), output="out", unguarded=("cache_dir",)))

    evaluate = commands.add_parser(
        "eval", help="ROC AUC of detectors against gold labels, per error type and slice (Table 1 of the paper)"
    )
    evaluate.add_argument("input", type=Path, help="JSON Lines examples with labels")
    evaluate.add_argument("--scores", type=Path, help="`explorer score` output to use; missing scores are computed")
    evaluate.add_argument(
        "--detectors",
        "--methods",
        dest="detectors",
        type=parse_detector_names,
        default=detectors.names(),
        help=f"comma-separated detectors (default: all: {', '.join(detectors.names())}; --methods is an accepted "
        "alias)",
    )
    evaluate.add_argument("--out", type=Path, required=True, help="report path: writes REPORT.md and REPORT.json")
    evaluate.add_argument("--split", choices=("train", "dev", "test"), help="evaluate only the examples of this split")
    evaluate.add_argument(
        "--bootstrap",
        type=console.BOOTSTRAP,
        default=1000,
        help="bootstrap resamples for intervals, 0 for none (default 1000)",
    )
    evaluate.add_argument(
        "--alpha",
        type=console.ALPHA,
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
        "(Synth, +Para, +Dev, +Org) from the input and evaluate each on --split (default test); a rerun with "
        "the same --out, data and settings keeps the stages already in OUT.json",
    )
    evaluate.add_argument(
        "--evaluate-on",
        type=Path,
        help="--ablation: evaluate each stage on this file's examples (its --split, when given) instead of the "
        "input's (e.g. a dev set the stages never train on)",
    )
    add_step_options(evaluate, " (--ablation only)")
    ray_engine.add_options(evaluate)
    add_detector_options(evaluate)
    evaluate.set_defaults(run=run_eval)
    declare(
        evaluate,
        Files(
            inputs=("input", "scores", "model", "evaluate_on"),
            output="out",
            written=report_paths,
            unguarded=("cache_dir",),
        ),
    )
