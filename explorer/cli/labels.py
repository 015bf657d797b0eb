"""`explorer calibrate` (the verdict's calibration refitted on your own labels) and `explorer rates`
(the share of a log's answers with each error, with intervals)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer import console, detectors
from explorer.cli.common import (
    EXIT_IO,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    CliError,
    add_detector_options,
    build_detectors,
    given_options,
    load,
    parse_detector_names,
)
from explorer.cli.guard import Files, declare
from explorer.cli.score import scores_for
from explorer.data.labels import ERROR_TYPES
from explorer.files import atomic_writer
from explorer.scoring import ray_engine


def scores_of(args: argparse.Namespace, read: Sequence, examples: Sequence, names: Sequence[str]):
    """`scores_for`, with the results read from `--scores` made the detectors' of today: a scores
    file does not record its detectors' version and settings, which a calibration is matched by."""
    results, failures, given = scores_for(args, read, examples, names)
    if given.results:
        infos = {detector.name: detector.info() for detector in build_detectors(names, args.model, given_options(args))}
        for by_name in results.values():
            for name, result in by_name.items():
                if not result.info and name in infos:
                    by_name[name] = dataclasses.replace(result, info=infos[name])
    return results, failures, given


def run_calibrate(args: argparse.Namespace) -> int:
    from explorer.evaluation import refit

    loaded = load(args.input)
    examples = [e for e in loaded.examples if args.split is None or e.split == args.split]
    results, _, given = scores_of(args, loaded.examples, examples, args.detectors)
    by_detector = {
        name: {example_id: found[name] for example_id, found in results.items() if name in found}
        for name in args.detectors
    }
    try:
        fitted = refit.fit_labels(
            examples, by_detector, source=args.input.name, n_bootstrap=args.bootstrap, seed=args.seed
        )
    except refit.TooFewLabels as error:
        raise CliError(f"{args.input}: {error}; nothing was written", EXIT_USAGE) from error
    refit.write(fitted, args.out)
    if not args.quiet:
        print(calibration_table(fitted))
        print(f"wrote {args.out}: calibrated on {fitted.name}", file=sys.stderr)
    for name, by_type in fitted.refused.items():
        for error_type, why in by_type.items():
            note = f"explorer: warning: {name} {error_type}: not refitted ({why}); the shipped calibration stays"
            print(note, file=sys.stderr)
    return EXIT_OK if loaded.ok and not given.errors else EXIT_PARTIAL


def _interval(spread, cut: str) -> str:
    found = spread.intervals.get(cut) if spread is not None else None
    return f" [{found[0]:.3f}, {found[1]:.3f}]" if found else ""


def calibration_table(fitted) -> str:
    """Each refitted detector and error type: counts, ROC AUC, threshold and bands, with intervals."""
    from explorer.evaluation.refit import CUTS

    head = ("ROC AUC", "threshold", "unlikely <")
    lines = [f"{'detector':<24}{'error':<15}{'pos/neg':>9}  " + "".join(f"{h:<24}" for h in head) + "likely >="]
    for name, (_, by_type) in fitted.calibrations.detectors.items():
        for error_type, fit in by_type.items():
            spread = fitted.spreads.get(name, {}).get(error_type)
            cells = [f"{fit.auc:.3f}{_interval(spread, 'auc')}"]
            if fit.informative:
                cells += [f"{getattr(fit, cut):.3f}{_interval(spread, cut)}" for cut in CUTS]
            else:
                cells += ["no verdict: does not rank errors higher"]
            lines.append(
                f"{name:<24}{error_type:<15}{f'{fit.positives}/{fit.negatives}':>9}  "
                + "".join(f"{cell:<24}" if i < 3 else cell for i, cell in enumerate(cells))
            )
    return "\n".join(lines)


def rates_paths(out: Path) -> tuple[Path, Path, Path]:
    """What `explorer rates --out OUT` writes: OUT.md, OUT.json and OUT.html (the figure)."""
    stem = out.with_suffix("") if out.suffix in (".md", ".json", ".html") else out
    return tuple(stem.with_name(stem.name + suffix) for suffix in (".md", ".json", ".html"))


def _calibrations(path: Path | None):
    """The calibrations in force: the shipped ones, with `--calibration`'s in place of theirs."""
    from explorer.evaluation import calibration, refit

    if path is None:
        return calibration.shipped()
    try:
        own = refit.read(path)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}", EXIT_IO) from error
    except refit.CalibrationFileError as error:
        raise CliError(f"--calibration: {error}", EXIT_USAGE) from error
    return refit.merged(calibration.shipped(), own.calibrations)


def run_rates(args: argparse.Namespace) -> int:
    from explorer.evaluation import rates
    from explorer.evaluation.calibration import cluster_of
    from explorer.render.rates import rates_figure, rates_markdown, rates_page

    calibrations = _calibrations(args.calibration)
    markdown_path, json_path, html_path = rates_paths(args.out)
    loaded = load(args.input)
    name = args.detector
    results, _, given = scores_of(args, loaded.examples, loaded.examples, [name])
    scored = [e for e in loaded.examples if name in results.get(e.id, {})]
    if not scored:
        raise CliError(f"{args.input}: {name} scored no answer; nothing was written", EXIT_PARTIAL)
    first = results[scored[0].id][name]
    fits = {error_type: calibrations.get(first, error_type) for error_type in ERROR_TYPES}
    scores = {t: [results[e.id][name].score(t) for e in scored] for t in ERROR_TYPES}
    groups = [rates.group_of(e, args.by) for e in scored]
    settings = rates.Settings(n_bootstrap=args.bootstrap, alpha=args.alpha, seed=args.seed)
    clusters = [cluster_of(e) for e in scored]
    found, refused = rates.estimate_all(scores, groups, fits, settings, clusters)
    if not found:
        reasons = "; ".join(f"{t}: {why}" for t, why in refused.items())
        raise CliError(f"no rate can be estimated with {name}: {reasons}; nothing was written", EXIT_USAGE)
    calibrated_on = calibrations.data_of(name)
    title = detectors.spec(name).title
    heading = f"Error rates in {args.input.name}"
    notes = [
        f"{len(scored)} answers scored by {title}, calibrated on {calibrated_on}; "
        f"{100 * (1 - args.alpha):g}% intervals from {args.bootstrap} bootstrap rounds over the calibration's "
        f"labelled answers and the log (seed {args.seed}); adjusted mean probability (see docs/guide/labelling.md)."
    ]
    if not_scored := len(loaded.examples) - len(scored):
        notes.append(f"{not_scored} answer(s) could not be scored and are left out.")
    table = rates_markdown(found, refused, heading, notes)
    figure = rates_figure(found, title=f"{heading}, by {args.by}" if args.by else heading)
    record = {
        "data": str(args.input),
        "detector": name,
        "calibrated_on": calibrated_on,
        "by": args.by,
        "answers": len(scored),
        "not_scored": not_scored,
        "settings": {"bootstrap": args.bootstrap, "alpha": args.alpha, "seed": args.seed},
        "rates": [rate.to_dict() for rate in found],
        "refused": refused,
    }
    with atomic_writer(markdown_path) as md, atomic_writer(json_path) as js, atomic_writer(html_path) as page:
        md.write(table)
        js.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        page.write(rates_page(figure, table, heading))
    if not args.quiet:
        print(table)
        print(f"wrote {markdown_path}, {json_path} and {html_path}", file=sys.stderr)
    return EXIT_OK if loaded.ok and not given.errors and not not_scored else EXIT_PARTIAL


def _scoring_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--scores", type=Path, help="`explorer score` output to use; missing scores are computed")
    command.add_argument("--model", help="causal LM for model-based detectors: a local HF folder or a .gguf file")
    command.add_argument("--cache-dir", type=Path, help="result cache folder (default: $EXPLORER_CACHE_DIR)")
    command.add_argument("--no-cache", action="store_true", help="neither read nor write cached results")
    command.add_argument("--bootstrap", type=console.BOOTSTRAP, default=1000, help="bootstrap rounds (default 1000)")
    command.add_argument("--seed", type=console.SEED, default=0, help="bootstrap seed (default 0)")
    command.add_argument("--quiet", action="store_true", help="no progress bar, table or notices")
    ray_engine.add_options(command)
    add_detector_options(command)


def add_parsers(commands) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="refit each detector's calibration (threshold, likely / unclear / unlikely bands) on your labelled "
        "answers, with bootstrap intervals; use it with --calibration",
    )
    calibrate.add_argument("input", type=Path, help="JSON Lines examples with labels (e.g. the app's labels file)")
    calibrate.add_argument("--out", type=Path, required=True, help="the calibration file to write (JSON)")
    calibrate.add_argument(
        "--detectors",
        type=parse_detector_names,
        default=[detectors.VERDICT_DETECTOR],
        help=f"comma-separated detectors to refit (default: the verdict's, {detectors.VERDICT_DETECTOR})",
    )
    calibrate.add_argument("--split", choices=("train", "dev", "test"), help="use only the examples of this split")
    _scoring_options(calibrate)
    calibrate.set_defaults(run=run_calibrate)
    declare(calibrate, Files(inputs=("input", "scores", "model"), output="out", unguarded=("cache_dir",)))

    estimate = commands.add_parser(
        "rates",
        help="the share of a log's answers with a hallucination and with a coverage error, overall and per group, "
        "with 95%% intervals, from the verdict's calibrated probabilities (labels are not read)",
    )
    estimate.add_argument("input", type=Path, help="JSON Lines answers (their labels, if any, are not read)")
    estimate.add_argument("--out", type=Path, required=True, help="report path: writes OUT.md, OUT.json and OUT.html")
    estimate.add_argument("--by", metavar="FIELD", help="also per group: topic, split or any field of the records")
    estimate.add_argument(
        "--detector",
        type=lambda value: parse_detector_names(value)[0],
        default=detectors.VERDICT_DETECTOR,
        help=f"the detector whose calibrated scores are read (default: the verdict's, {detectors.VERDICT_DETECTOR})",
    )
    estimate.add_argument("--calibration", type=Path, help="a file `explorer calibrate` wrote, in place of the shipped")
    estimate.add_argument("--alpha", type=console.ALPHA, default=0.05, help="1 - the intervals' level (default 0.05)")
    _scoring_options(estimate)
    estimate.set_defaults(run=run_rates)
    declare(
        estimate,
        Files(
            inputs=("input", "scores", "model", "calibration"),
            output="out",
            written=rates_paths,
            unguarded=("cache_dir",),
        ),
    )
