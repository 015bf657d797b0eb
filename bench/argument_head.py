"""A coverage head per argument, measured beside the verdict's example heads: how v16's was chosen.

    python bench/argument_head.py --data PERSPECTRUM.jsonl --organic WRITTEN.jsonl WRITTEN-SECOND.jsonl \
        --part head --dev ../shared/data/npov_foreign/dev.jsonl \
        --also-dev ../shared/data/npov_foreign/dev_v3.jsonl --with-data-dev --cache

Each argument of each training answer is a row: the components' scores of its words (the
highest and the mean over them, `argument_head.COMPONENTS`), the log of the answer's argument count and of its
words, and with `--sizes` each score times each of the two (so how far a score is trusted may
follow the answer's size); the label is whether the argument is dropped (`Labels.uncovered`). The
training answers are those the stacked heads are fitted on (the head's half of the claims, the
same command line as `python -m explorer.cli.stacked`), without the coverage errors that name no
argument. An answer's score is its most likely dropped argument's P. Printed per dev set and slice
(ROC AUC × 100, each set's selection slices: `explorer.training.stacked.selection_slices`): the
shipped verdict's coverage; the argument head alone; and the verdict with the argument head's
score joined by noisy-or at each of `--weights`, the meaning check's doubt at each of `--doubts`
(`stacked.DOUBT` is the shipped one), the floor kept, the shipped argument head's join left out
(the head fitted here takes its place: `explorer.detectors.ops.argument_head` is what it fits).
The components' scores come through the result cache with `--cache` (they are the stacked
command's, so its cache serves).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from bench.joins import rejoined  # noqa: E402
from explorer import detectors  # noqa: E402
from explorer.cli.stacked import feature_options  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.detectors.details import EVIDENCE  # noqa: E402
from explorer.detectors.ops import argument_head  # noqa: E402
from explorer.detectors.stacked import StackedDetector, create_components  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import all_results  # noqa: E402
from explorer.training import stacked as training  # noqa: E402
from explorer.training.data import foreign_parser, foreign_sets, is_labelled, training_examples  # noqa: E402


def columns(sizes: bool) -> int:
    """How many of the argument head's features the rows keep: all, or without the size products."""
    return len(argument_head.FEATURES) if sizes else len(argument_head.SCORES) + len(argument_head.SIZES)


def main(argv=None) -> int:
    shipped_heads = detectors.weights("stacked").shipped
    parser = foreign_parser("", __doc__.splitlines()[0], shipped_heads, feature_options, writes=False)
    parser.add_argument("--sizes", action="store_true", help="each score times the answer's size too")
    parser.add_argument("--weights", default="0.25,0.35,0.5", help="the argument head's weights in the join")
    parser.add_argument("--doubts", default="0.2,0.25", help="the meaning check's doubt's weights beside it")
    parser.add_argument("--strengths", default="0.1,1.0", help="the logistic regression's C values")
    parser.set_defaults(error_types="coverage")
    args = parser.parse_args(argv)
    given = foreign_sets(args, argv)
    cache = ResultCache() if args.cache else None
    components = create_components()
    score = functools.partial(all_results, cache=cache)
    dev_sets = {"dev": given.dev_set}
    for path in args.also_dev:
        dev_sets[path.name] = [e for e in parse_jsonl(path).examples if is_labelled(e.labels)]
    if args.with_data_dev:
        dev_sets["perspectrum dev"] = training_examples(parse_jsonl(args.data).examples, ["dev"])
    slices = {name: training.selection_slices(examples, "coverage") for name, examples in dev_sets.items()}
    dev = list({e.id: e for found in slices.values() for members in found.values() for e, _ in members}.values())
    kept = columns(args.sizes)
    train, x, y = training.labelled_arguments(given.train_set, components, score)
    print(f"{len(train)} training answers, {len(y)} arguments, {sum(y)} dropped", flush=True)
    verdict = StackedDetector(components=components)
    dev_rows, shipped = {}, {}
    for example, results in zip(dev, score(dev, list(components.values()))):
        dev_rows[example.id] = argument_head.rows(example, results)[1][:, :kept]
        shipped[example.id] = verdict.combine(example, results)
    for strength in (float(c) for c in args.strengths.split(",")):
        head = argument_head.fit(x[:, :kept], y, strength, argument_head.FEATURES[:kept])
        read = {
            i: float(head.p_error(np.where(np.isnan(r), head.mean, r)).max(initial=0.0)) for i, r in dev_rows.items()
        }
        readings = {"verdict": {i: r.coverage for i, r in shipped.items()}, "argument head": read}
        for weight in (float(w) for w in args.weights.split(",")):
            for doubt in (float(d) for d in args.doubts.split(",")):
                readings[f"verdict + argument head at {weight}, doubt {doubt}"] = {
                    i: rejoined(EVIDENCE.of(shipped[i])["coverage"], read[i], weight, doubt, argument=0.0)
                    for i in shipped
                }
        print(f"C={strength}")
        for name, scores in readings.items():
            cells = [
                f"{set_name}: {slice_name} "
                f"{100 * roc_auc_score([label for _, label in m], [scores[e.id] for e, _ in m]):.1f}"
                for set_name, found in slices.items()
                for slice_name, m in found.items()
            ]
            print(f"  {name}: " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
