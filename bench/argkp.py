"""Argument matching on real data: IBM ArgKP scored like the 2021 Key Point Analysis task (track 1).

    python bench/argkp.py [--split dev] [--detectors rouge,semantic] [--limit N] [--data DIR]

ArgKP (Bar-Haim et al., ACL 2020) pairs crowd arguments with the key points of their topic and
stance, labelled by humans as matching or not. Each detector scores every (argument, key
point) pair of a topic and stance with its argument-level coverage: the pair becomes an
example whose only argument is the argument and whose response is the key point (a
one-claim response), and the match score is `1 - coverage error`.

The metric is the shared task's (IBM/KPA_2021_shared_task, `code/track_1_kp_matching.py`):
each argument keeps its highest-scoring key point; per topic and stance, those pairs are
ranked by score and the top 50% evaluated by average precision (scikit-learn), where a pair
without a gold label counts as non-matching (strict) or matching (relaxed); the mean over
topic-stance groups is the mAP. Departure: ties in score are ranked in argument order (a
stable sort); the task's script uses pandas' default unstable sort.

Results go through the result cache (`explorer.scoring.cache`), so a rerun, or a run after new
detectors land, only computes what is missing. Nothing is tuned here; use `--split train`
for any choice and report `--split dev`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.data.example import Example, Perspective  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_example  # noqa: E402

CHECKOUT = Path(__file__).resolve().parent.parent
# The shared data sits beside the checkout (../shared/data); a git worktree under wt/ has it two levels up.
DATA_CANDIDATES = (CHECKOUT.parent / "shared" / "data" / "argkp", CHECKOUT.parent.parent / "shared" / "data" / "argkp")
STANCE_NAMES = {1: "pro", -1: "con"}


def default_data_dir() -> Path | None:
    return next((path for path in DATA_CANDIDATES if (path / "arguments_dev.csv").exists()), None)


def load_split(data_dir: Path, split: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """ArgKP's arguments, key points and labels for `split` (the task's three CSV files)."""
    return tuple(pd.read_csv(data_dir / f"{name}_{split}.csv") for name in ("arguments", "key_points", "labels"))


def limit_arguments(arguments: pd.DataFrame, per_group: int | None) -> pd.DataFrame:
    """The first `per_group` arguments (by file order) of each topic and stance; all when None."""
    if per_group is None:
        return arguments
    return arguments.groupby(["topic", "stance"], sort=False, group_keys=False).head(per_group)


def candidate_pairs(arguments: pd.DataFrame, key_points: pd.DataFrame) -> pd.DataFrame:
    """Every (argument, key point) of the same topic and stance: the task's candidate matches."""
    return arguments.merge(key_points, on=["topic", "stance"])[
        ["arg_id", "key_point_id", "argument", "key_point", "topic", "stance"]
    ]


def pair_example(row) -> Example:
    """One pair as an example: the argument is the only argument, the key point the response."""
    name = STANCE_NAMES.get(int(row.stance), str(row.stance))
    return Example(
        id=f"{row.arg_id}|{row.key_point_id}",
        query=row.topic,
        perspectives=(Perspective(name, (row.argument,)),),
        response=row.key_point,
        topic=row.topic,
    )


def best_key_points(pairs: pd.DataFrame, scores: pd.Series) -> pd.DataFrame:
    """Each argument's highest-scoring key point (the first one on a tie), with its score."""
    scored = pairs.assign(score=scores.to_numpy())
    best = scored.loc[scored.groupby("arg_id", sort=False)["score"].idxmax()]
    return best[["arg_id", "key_point_id", "topic", "stance", "score"]].reset_index(drop=True)


def with_labels(best: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Gold labels of the chosen pairs: unlabelled pairs are 0 in `label_strict`, 1 in `label_relaxed`."""
    merged = best.merge(labels, how="left", on=["arg_id", "key_point_id"])
    merged["label_strict"] = merged["label"].fillna(0)
    merged["label_relaxed"] = merged["label"].fillna(1)
    return merged


def average_precision_top(group: pd.DataFrame, label_column: str, top_fraction: float = 0.5) -> float:
    """AP of the top `top_fraction` of a topic-stance group ranked by score; 0 when none match."""
    top = group.sort_values("score", ascending=False, kind="stable").head(int(len(group) * top_fraction))
    if (top[label_column] == 0).all():
        return 0.0
    return float(average_precision_score(top[label_column], top["score"]))


def mean_average_precision(merged: pd.DataFrame, label_column: str) -> float:
    return float(
        np.mean([average_precision_top(group, label_column) for _, group in merged.groupby(["topic", "stance"])])
    )


def match_scores(detector, pairs: pd.DataFrame, cache: ResultCache | None) -> tuple[pd.Series, int]:
    """`1 - coverage error` for every pair, through the cache; returns scores and failures."""
    scores, failures = [], 0
    for row in pairs.itertuples(index=False):
        scored = score_example(pair_example(row), [detector], cache)
        if detector.name in scored.results:
            scores.append(1.0 - scored.results[detector.name].coverage)
        else:
            failures += 1
            scores.append(0.0)
    return pd.Series(scores, index=pairs.index), failures


def _detector_names(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    for name in names:
        try:
            detectors.spec(name)
        except detectors.UnknownDetectorError as error:
            raise argparse.ArgumentTypeError(str(error)) from error
    return names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="ArgKP key point matching mAP (KPA 2021 track 1) per detector.")
    parser.add_argument("--split", choices=("dev", "train"), default="dev")
    parser.add_argument(
        "--detectors", type=_detector_names, default=detectors.names(), help="comma-separated detectors (default: all)"
    )
    parser.add_argument("--limit", type=int, help="only the first N arguments of each topic and stance")
    parser.add_argument(
        "--data", type=Path, default=default_data_dir(), help="ArgKP folder (default: ../shared/data/argkp)"
    )
    parser.add_argument("--model", help="causal LM for model-based detectors (default: the packaged one)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write cached results")
    args = parser.parse_args(argv)
    if args.data is None or not (args.data / f"arguments_{args.split}.csv").exists():
        parser.error(f"ArgKP not found (looked in {', '.join(map(str, DATA_CANDIDATES))}); pass --data")

    arguments, key_points, labels = load_split(args.data, args.split)
    arguments = limit_arguments(arguments, args.limit)
    pairs = candidate_pairs(arguments, key_points)
    cache = None if args.no_cache else ResultCache()
    print(
        f"ArgKP {args.split}: {len(arguments)} arguments, {len(pairs)} candidate pairs, "
        f"{arguments.groupby(['topic', 'stance']).ngroups} topic-stance groups"
    )
    print(f"{'detector':<22} {'strict mAP':>10} {'relaxed mAP':>11} {'seconds':>8}")
    for name in args.detectors:
        started = time.perf_counter()
        detector = detectors.create(name, model=args.model)
        scores, failures = match_scores(detector, pairs, cache)
        merged = with_labels(best_key_points(pairs, scores), labels)
        strict = mean_average_precision(merged, "label_strict")
        relaxed = mean_average_precision(merged, "label_relaxed")
        note = f"  ({failures} pairs could not be scored: counted as 0)" if failures else ""
        seconds = time.perf_counter() - started
        print(f"{detectors.spec(name).title:<22} {strict:>10.3f} {relaxed:>11.3f} {seconds:>8.1f}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
