"""`explorer rates` on the labelled foreign dev sets with the labels hidden: the 95% interval covers
the true share of answers with each error, on a half of the claims and on resampled subsets of it
whose true rate is 10% and 50% (fixed seeds).

Each dev set is cut in two by claim: `explorer calibrate` refits the verdict detector's
calibration on one half's labels, and `explorer rates` judges the other half, from which the labels
are removed. Where the detector barely tells the labelled answers with an error from those without
(the second recipe's hallucinations), `rates` refuses that error type, and the test checks it is so.

The scores are the stacked detector's, precomputed (`SCORES`, numbers only, by line: scoring 377
answers takes minutes on two cores; after a refit of the detector, rerun `python -m
tests.evaluation.test_rates_coverage OUT_dev.jsonl OUT_dev_v3.jsonl` on `explorer score` outputs).
The dev sets are for selection and evaluation only: nothing here trains on them, and no text of
theirs is in the repository.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer import detectors
from explorer.cli import main
from explorer.data.example import Labels
from explorer.data.jsonl import parse_jsonl, write_jsonl
from explorer.data.shared_data import SharedDataNotFoundError, shared_data_dir
from explorer.evaluation import refit
from explorer.evaluation.rates import MIN_SEPARATION, probabilities

SCORES = Path(__file__).parent / "data" / "foreign_dev_stacked_scores.json"
DEV_SETS = ("dev.jsonl", "dev_v3.jsonl")
FLAGS = {"hallucination": "hallucination", "coverage": "coverage_error"}
BOOTSTRAP = "500"


def _dev_set(name: str):
    try:
        folder = shared_data_dir("npov_foreign") / "npov_foreign"
    except SharedDataNotFoundError as error:
        pytest.skip(str(error))
    examples = parse_jsonl(folder / name).examples
    scores = json.loads(SCORES.read_text())["scores"][name]
    assert len(scores) == len(examples), f"{name} changed: rewrite {SCORES.name} (see this module's docstring)"
    return examples, scores


def _scores_file(path: Path, examples, scores) -> Path:
    lines = [
        {"id": e.id, "scores": {"stacked": {"hallucination": h, "coverage": c, "per_perspective": per_perspective}}}
        for e, (h, c, per_perspective) in zip(examples, scores)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _subset(rng: random.Random, examples, error_type: str, rate: float):
    """Answers of `examples`, without repeats, of which the share `rate` has the error: all of
    the larger class that fits, a draw of the other."""
    flag = FLAGS[error_type]
    positives = [e for e in examples if getattr(e.labels, flag)]
    negatives = [e for e in examples if not getattr(e.labels, flag)]
    size = min(len(positives) / rate, len(negatives) / (1 - rate))
    chosen = rng.sample(positives, round(size * rate)) + rng.sample(negatives, round(size * (1 - rate)))
    return chosen


@pytest.mark.parametrize("name", DEV_SETS)
def test_the_interval_covers_the_true_rate_on_a_held_out_half_and_on_subsets_at_10_and_50_percent(name, tmp_path):
    examples, scores = _dev_set(name)
    by_id = dict(zip((e.id for e in examples), scores))
    topics = sorted({e.topic for e in examples})
    random.Random(0).shuffle(topics)
    calibrating = set(topics[: len(topics) // 2])
    labelled = [e for e in examples if e.topic in calibrating]
    scores_path = _scores_file(tmp_path / "scores.jsonl", labelled, [by_id[e.id] for e in labelled])
    held_out = [e for e in examples if e.topic not in calibrating]
    write_jsonl(labelled, tmp_path / "labelled.jsonl")
    assert (
        main(
            ["calibrate", str(tmp_path / "labelled.jsonl"), "--scores", str(scores_path)]
            + ["--out", str(tmp_path / "mine.json"), "--bootstrap", "0", "--quiet"]
        )
        == 0
    )

    # One log: the held-out half, and four subsets of it (copies under new ids) as groups.
    rng = random.Random(0)
    groups = {"half": held_out}
    for error_type in FLAGS:
        for rate in (0.1, 0.5):
            groups[f"{error_type} {rate:.0%}"] = _subset(rng, held_out, error_type, rate)
    log, log_scores = [], []
    for group, members in groups.items():
        for example in members:
            hidden = example.replace(id=f"{group}/{example.id}", labels=Labels(), extra={"subset": group})
            log.append(hidden)
            log_scores.append(by_id[example.id])
    write_jsonl(log, tmp_path / "log.jsonl")
    assert all(e.labels.is_empty() for e in parse_jsonl(tmp_path / "log.jsonl").examples)
    _scores_file(tmp_path / "log-scores.jsonl", log, log_scores)
    code = main(
        ["rates", str(tmp_path / "log.jsonl"), "--scores", str(tmp_path / "log-scores.jsonl"), "--by", "subset"]
        + ["--calibration", str(tmp_path / "mine.json"), "--out", str(tmp_path / "rates"), "--quiet"]
        + ["--bootstrap", BOOTSTRAP, "--seed", "0"]
    )
    assert code == 0
    found = json.loads((tmp_path / "rates.json").read_text())
    assert found["detector"] == detectors.VERDICT_DETECTOR and found["calibrated_on"].startswith("your ")
    assert name != "dev.jsonl" or not found["refused"]
    estimated = {(r["group"], r["error_type"]): r for r in found["rates"]}
    for error_type in FLAGS:
        if error_type in found["refused"]:
            # Refused only where the detector barely separates the labelled answers: say so, and check it does.
            assert "says too little for a rate" in found["refused"][error_type]
            fit = refit.read(tmp_path / "mine.json").calibrations.detectors["stacked"][1][error_type]
            high, low = (probabilities(fit, np.asarray(s)).mean() for s in (fit.sample.positives, fit.sample.negatives))
            assert high - low < MIN_SEPARATION and name != "dev.jsonl"
            continue
        for group in ["half", f"{error_type} 10%", f"{error_type} 50%"]:
            members = groups[group]
            truth = sum(bool(getattr(e.labels, FLAGS[error_type])) for e in members) / len(members)
            rate = estimated[(group, error_type)]
            assert rate["low"] <= truth <= rate["high"], (name, group, error_type, truth, rate)
            if name == "dev.jsonl":  # where the detector separates well, an interval that says something
                assert rate["high"] - rate["low"] < 0.5, (name, group, error_type, rate)
                if group.endswith("10%"):  # the plain mean of P(error) keeps the calibration set's share
                    assert abs(rate["rate"] - truth) < abs(rate["mean_probability"] - truth) - 0.1


def _write_fixture(paths: list[str]) -> None:
    """`SCORES` from `explorer score ... --detectors stacked` outputs of the dev sets (in `DEV_SETS` order)."""
    found = {}
    for name, path in zip(DEV_SETS, paths):
        lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
        found[name] = [
            [*(round(r["scores"]["stacked"][t], 6) for t in FLAGS), r["scores"]["stacked"]["per_perspective"]]
            for r in lines
        ]
    info = detectors.create(detectors.VERDICT_DETECTOR).info()
    record = {
        "about": "the stacked detector's foreign dev scores by line: hallucination, coverage, per perspective",
        "detector": {"name": info["detector"], "version": info["version"]},
        "scores": found,
    }
    SCORES.write_text(json.dumps(record) + "\n")


if __name__ == "__main__":
    _write_fixture(sys.argv[1:])
