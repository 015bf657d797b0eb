"""The meaning judge's trainer through `explorer train`'s protocol, on a few claims and steps: it
records what it trained on and was chosen by, and the adapter it saves reads back the same."""

import dataclasses
import random
from collections import Counter

import pytest

from explorer.data.labels import JUDGE_TASK
from explorer.data.perspectrum_claims import load_claims
from explorer.detectors.ops.judge import ABSENT, LABELS, MISSTATES, STATES, Judge
from explorer.training import TrainingRequest, judge
from explorer.training.data import topic_half
from explorer.training.judge_data import Pair


@pytest.mark.slow
def test_the_trainer_records_its_data_and_its_saved_adapter_scores_as_trained(tmp_path, monkeypatch):
    import torch

    train_claims = [c for c in load_claims(["train"]) if topic_half(c.text) == "components"][:3]
    dev_claims = load_claims(["dev"])[:2]
    monkeypatch.setattr(judge, "load_claims", lambda splits: train_claims if splits == ["train"] else dev_claims)
    request = TrainingRequest(
        task=None,
        train_set=[],
        dev_set=[],
        dev_is_held_out=True,
        steps={"steps": 2, "eval_every": 2, "batch_size": 3},
        work=tmp_path / "work",
        log=lambda _: None,
    )
    trainer = judge.JudgeTrainer()
    model, record = trainer.train(request)
    [kept] = (tmp_path / "work").glob("pairs-*.jsonl")
    assert record["task"] == JUDGE_TASK and record["dev_is_held_out"] is True
    assert record["train_examples"] == 0 and record["dev_data"] == ["perspectrum dev"]
    assert set(record["train_pairs"]) == {"states", "twin states", "absent", "written misstates", "rule misstates"}
    assert record["train_pairs"]["states"] and record["train_pairs"]["rule misstates"]
    assert [step for step, _ in record["loss"]] == [1, 2] and record["kept_step"] == 2
    trainer.save(model, record, tmp_path / "out")

    argument, text = train_claims[0].clusters[0].members[0][1], "Nothing in this sentence is about it."
    saved = Judge(tmp_path / "out")
    reloaded = saved.probabilities([(argument, text)])
    tokenizer, limit = saved.tokenizer, int(model.config.max_position_embeddings)
    with torch.no_grad():
        logits = judge.pair_logits(model.eval(), tokenizer, [judge.encode_pair(tokenizer, argument, text, limit)])
    assert reloaded.shape == (1, len(LABELS))
    assert reloaded == pytest.approx(torch.softmax(logits, -1).numpy(), abs=1e-5)

    # A rerun in the same folder reads the pairs it built (a full build takes most of an hour).
    lines = []
    _, again = trainer.train(dataclasses.replace(request, log=lines.append))
    assert f"training pairs read from {kept}" in lines and again["train_pairs"] == record["train_pairs"]


def _pair(label: int, source: str) -> Pair:
    return Pair("An argument.", f"A piece {label} {source}.", label, source, "a topic")


@pytest.mark.parametrize("share", [0.0, 0.2, 1 / 3])
def test_a_draw_takes_absent_pairs_at_the_given_share_and_states_and_misstates_alike(share):
    pools = judge.pools_of(
        [
            _pair(STATES, "written-2"),
            _pair(ABSENT, "written-2"),
            _pair(MISSTATES, "written-2"),
            _pair(MISSTATES, "x+negated"),
        ]
    )
    draw, rng = judge.drawer(pools, share), random.Random(0)
    labels = Counter(draw(rng).label for _ in range(6000))
    assert labels[ABSENT] / 6000 == pytest.approx(share, abs=0.02)
    assert labels[STATES] / 6000 == pytest.approx((1 - share) / 2, abs=0.02)
    assert labels[MISSTATES] / 6000 == pytest.approx((1 - share) / 2, abs=0.02)


def test_a_draw_needs_every_label():
    with pytest.raises(ValueError, match="every label"):
        judge.drawer(judge.pools_of([_pair(STATES, "written-2"), _pair(MISSTATES, "written-2")]), 0.2)
