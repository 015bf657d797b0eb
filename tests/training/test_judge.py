"""The meaning judge's trainer through `explorer train`'s protocol, on a few claims and steps: it
records what it trained on and was chosen by, and the adapter it saves reads back the same."""

import dataclasses

import pytest

from explorer.data.labels import JUDGE_TASK
from explorer.data.perspectrum_claims import load_claims
from explorer.detectors.ops.judge import LABELS, Judge
from explorer.training import TrainingRequest, judge
from explorer.training.data import topic_half


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
