"""The adapter copy of bench/judge_swap.py."""

from bench.judge_swap import adapter_only


def test_only_the_adapters_files_are_read(tmp_path):
    checkpoint, into = tmp_path / "step-800", tmp_path / "into"
    checkpoint.mkdir()
    into.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors", "optimizer.pt"):
        (checkpoint / name).write_text(name)
    assert sorted(p.name for p in adapter_only(checkpoint, into).iterdir()) == [
        "adapter_config.json",
        "adapter_model.safetensors",
    ]
