"""The misstatement join of bench/judge_swap.py."""

import pytest

from bench.judge_swap import adapter_only, with_join
from explorer.detectors.base import DetectorResult
from explorer.detectors.details import EVIDENCE

HEAD = {"intercept": 0.0, "features": [{"feature": "tagger hallucination", "value": 0.5, "push": 0.0}]}


def verdict(evidence):
    return DetectorResult("stacked", 0.0, 0.0, {}, (), (), {}, {EVIDENCE.key: {"hallucination": evidence}})


def test_the_misstatement_joins_the_heads_score_by_noisy_or():
    # The head's log-odds are 0: P .5; joined with .8 at weight .5: 1 - .5 x (1 - .4) = .7.
    assert with_join(verdict(HEAD), 0.8, 0.5) == pytest.approx(0.7)
    assert with_join(verdict(HEAD), 0.8, 0.0) == pytest.approx(0.5)


def test_the_floor_stays_under_the_joined_score():
    floored = {**HEAD, "floor": {"misstated": 0.9, "argument": [0, 0], "by": "meaning"}}
    assert with_join(verdict(floored), 0.8, 0.5) == pytest.approx(0.9)


def test_only_the_adapters_files_are_read(tmp_path):
    for name in ("adapter_config.json", "adapter_model.safetensors", "optimizer.pt"):
        (tmp_path / name).write_text(name)
    assert sorted(p.name for p in adapter_only(tmp_path).iterdir()) == [
        "adapter_config.json",
        "adapter_model.safetensors",
    ]
