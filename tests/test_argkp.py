"""The KPA 2021 track-1 metric in bench/argkp.py, on hand-made rankings and on real ArgKP."""

from pathlib import Path

import pandas as pd
import pytest

from bench.argkp import (
    average_precision_top,
    best_key_points,
    candidate_pairs,
    default_data_dir,
    load_split,
    main,
    mean_average_precision,
    with_labels,
)


def frame(rows):
    return pd.DataFrame(rows, columns=["arg_id", "key_point_id", "topic", "stance", "score", "label"])


def test_each_argument_keeps_its_best_key_point():
    pairs = pd.DataFrame(
        {
            "arg_id": ["a1", "a1", "a2", "a2"],
            "key_point_id": ["k1", "k2", "k1", "k2"],
            "topic": ["t"] * 4,
            "stance": [1] * 4,
        }
    )
    best = best_key_points(pairs, pd.Series([0.2, 0.9, 0.5, 0.5]))
    assert best[["arg_id", "key_point_id", "score"]].values.tolist() == [["a1", "k2", 0.9], ["a2", "k1", 0.5]]


def test_unlabelled_pairs_are_non_matching_when_strict_and_matching_when_relaxed():
    best = frame([["a1", "k1", "t", 1, 0.9, None], ["a2", "k1", "t", 1, 0.8, None]]).drop(columns="label")
    labels = pd.DataFrame({"arg_id": ["a1"], "key_point_id": ["k1"], "label": [1]})
    merged = with_labels(best, labels)
    assert merged["label_strict"].tolist() == [1, 0] and merged["label_relaxed"].tolist() == [1, 1]


def test_average_precision_of_the_top_half():
    # Six pairs ranked by score; the top 3 carry labels 1, 0, 1: AP = (1/1 + 2/3) / 2 = 5/6.
    group = pd.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], "label": [1, 0, 1, 1, 1, 1]})
    assert average_precision_top(group, "label") == pytest.approx(5 / 6)
    assert average_precision_top(group.assign(label=[0, 0, 0, 1, 1, 1]), "label") == 0.0


def test_mean_over_topic_and_stance_groups():
    merged = pd.DataFrame(
        {
            "topic": ["t", "t", "t", "t"],
            "stance": [1, 1, -1, -1],
            "score": [0.9, 0.1, 0.9, 0.1],
            "label_strict": [1, 0, 0, 1],
        }
    )
    # Group (t, 1): top 1 is a match, AP 1. Group (t, -1): top 1 is not, AP 0.
    assert mean_average_precision(merged, "label_strict") == pytest.approx(0.5)


DATA = default_data_dir()


@pytest.mark.skipif(DATA is None, reason="ArgKP is not in ../shared/data")
def test_candidates_are_every_key_point_of_the_same_topic_and_stance():
    arguments, key_points, _ = load_split(Path(DATA), "dev")
    pairs = candidate_pairs(arguments.head(3), key_points)
    first = arguments.iloc[0]
    expected = key_points[(key_points.topic == first.topic) & (key_points.stance == first.stance)]
    assert set(pairs[pairs.arg_id == first.arg_id].key_point_id) == set(expected.key_point_id)


@pytest.mark.skipif(DATA is None, reason="ArgKP is not in ../shared/data")
def test_bench_prints_strict_and_relaxed_map_per_detector(capsys):
    assert main(["--limit", "3", "--detectors", "rouge", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "ArgKP dev: 24 arguments" in out and "8 topic-stance groups" in out
    row = next(line for line in out.splitlines() if line.startswith("ROUGE-1"))
    strict, relaxed = (float(x) for x in row.split()[1:3])
    assert 0.0 <= strict <= 1.0 and 0.0 <= relaxed <= 1.0
