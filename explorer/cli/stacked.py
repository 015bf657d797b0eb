"""The command that made the shipped stacked heads (`explorer/resources/stacked/`; each head's
`training.json` names the whole line that made it), e.g. the coverage head and the argument head:

    python -m explorer.cli.stacked --data ~/.cache/rag-error-explorer/perspectrum.jsonl \\
        --organic ~/.cache/rag-error-explorer/written.jsonl ~/.cache/rag-error-explorer/written-second.jsonl \\
        --part head --dev ../shared/data/npov_foreign/dev.jsonl --also-dev ../shared/data/npov_foreign/dev_v3.jsonl \\
        --with-data-dev --cache --error-types coverage \\
        --coverage-features 'tagger_coverage + matching + polarity + meaning' --ship

trains each error type (`explorer.training.stacked.train`) on the head's half of the claims of
Perspectrum train and the team-written corpora, choosing C (and, without `--<error
type>-features`, the feature set) on the worst slice of each dev set. Beside the coverage head it
fits the argument head (`explorer.training.stacked.train_arguments`) on the same answers. It
scores the components once for both error types (through the result cache with `--cache`, so a
rerun after one component changed scores only that one; with all of them cached, the coverage
heads took 26 s). `explorer train --detector stacked` trains one error type's example head
through the result cache.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from explorer import detectors
from explorer.cli import guard
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES
from explorer.detectors.base import Detector, DetectorResult
from explorer.detectors.stacked import create_components
from explorer.scoring.cache import ResultCache
from explorer.scoring.runner import all_results
from explorer.training import ScoreExamples
from explorer.training import stacked as training
from explorer.training.data import ForeignTraining, foreign_parser, foreign_sets, is_labelled, training_examples


def scored_once(score: ScoreExamples) -> ScoreExamples:
    """`score` that keeps each example's results (by content), so the second error type's fit reads
    them back instead of scoring the shared examples again."""
    kept: dict[str, Mapping[str, DetectorResult]] = {}

    def score_once(examples: Sequence[Example], chosen: Sequence[Detector]) -> list[Mapping[str, DetectorResult]]:
        keys = [e.content_hash() for e in examples]
        missing = {key: e for key, e in zip(keys, examples) if key not in kept}
        kept.update(zip(missing, score(list(missing.values()), chosen)))
        return [kept[key] for key in keys]

    return score_once


def feature_options(parser) -> None:
    parser.add_argument(
        "--also-dev",
        type=Path,
        nargs="*",
        default=[],
        metavar="FILE",
        help="more dev files a choice must hold on (each set's worst slice counts: explorer.training.stacked)",
    )
    parser.add_argument(
        "--with-data-dev", action="store_true", help="the dev split of --data is one more dev set to hold on"
    )
    parser.add_argument(
        "--cache",
        action="store_true",
        help="read and write the components' results through the result cache, so a rerun after one component "
        "changed scores only that one",
    )
    for error_type in ERROR_TYPES:
        parser.add_argument(
            f"--{error_type}-features",
            metavar="SET",
            help=f"fit the {error_type} head on this feature set only (explorer.training.stacked.feature_sets: "
            "'all', 'own', 'all but tagger', a component's name...) or on components joined by ' + ' "
            "('tagger + polarity + invention'), C still chosen on --dev",
        )


def build_parser():
    return foreign_parser(
        "explorer.cli.stacked",
        "Train the stacked detector's heads, choosing C and features on --dev.",
        detectors.weights("stacked").shipped,
        feature_options,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return guard.main(build_parser(), argv, lambda args: run(foreign_sets(args, argv)))


def run(given: ForeignTraining) -> int:
    cache = ResultCache() if given.options.cache else None
    components, score = create_components(), scored_once(functools.partial(all_results, cache=cache))
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    dev_sets = {"dev": given.dev_set}
    for path in given.options.also_dev:
        dev_sets[path.name] = [e for e in parse_jsonl(path).examples if is_labelled(e.labels)]
    if given.options.with_data_dev:
        dev_sets["perspectrum dev"] = training_examples(parse_jsonl(given.options.data).examples, ["dev"])
    for error_type in given.error_types:
        features = getattr(given.options, f"{error_type}_features")
        model, record = training.train(
            error_type, given.train_set, dev_sets, components, score, features=features, log=log
        )
        arguments = None
        if error_type == "coverage":
            arguments = training.train_arguments(given.train_set, components, score, log=log)
        given.stamp(record, "explorer.cli.stacked")
        training.save(model, record, given.out / error_type, arguments)
        kept = f"kept {record['kept_features']} features, C={record['kept_C']}"
        log(f"{error_type}: {kept}, written to {given.out / error_type}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
