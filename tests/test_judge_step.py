"""bench/judge_step.py times real training steps of the judge: LoRA adapters train a small share
of the weights, every weight is all of them, and each way prints its median step."""

import re

import pytest

from bench.judge_step import main
from explorer.detectors.ops.judge import ABSENT, MISSTATES, STATES
from explorer.training.judge_data import Pair, write_pairs


@pytest.mark.slow
def test_each_way_prints_its_trainable_weights_and_median_step(tmp_path, capsys):
    argument = "School uniforms reduce bullying."
    pairs = [
        Pair(argument, "Uniforms cut bullying at school.", STATES, "test", "uniforms"),
        Pair(argument, "Uniforms increase bullying at school.", MISSTATES, "test", "uniforms"),
        Pair(argument, "Lunch starts at noon.", ABSENT, "test", "uniforms"),
    ]
    path = tmp_path / "pairs.jsonl"
    write_pairs(pairs, path)
    assert main(["--pairs", str(path), "--ranks", "4", "--full", "--steps", "3", "--batch-size", "2"]) == 0
    lines = re.findall(r"^(.+): ([\d.]+)M trainable, median step ([\d.]+) s", capsys.readouterr().out, re.M)
    assert [name for name, _, _ in lines] == ["LoRA rank 4", "every weight"]
    lora, full = (float(trainable) for _, trainable, _ in lines)
    assert 0 < lora < 1 < 20 < full  # MiniLM-L6 holds about 22.7M weights
    assert all(float(seconds) > 0 for _, _, seconds in lines)
