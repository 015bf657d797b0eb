"""A model folder whose weights transformers refuses is a usage error with the reason, found
when the first uncached example needs the model; nothing in it runs, nothing is written
(issue 14, problem 4)."""

import json
import os
import threading
import time

import pytest
import torch

from explorer.cli import main
from explorer.models.language_model import load_tokenizer
from tests.bad_inputs.builders import good
from tests.helpers import jsonl


class Payload:
    """Unpickling this would run a shell command: torch's `weights_only` loader must refuse it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.mark.slow
def test_a_pickle_in_the_weights_is_refused_with_exit_2_and_nothing_written(tmp_path, capsys):
    folder = tmp_path / "pickled-model"
    load_tokenizer().save_pretrained(folder)  # a real tokenizer, so that loading reaches the weights
    config = {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 8,
        "intermediate_size": 16,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "vocab_size": 49152,
        "max_position_embeddings": 512,
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    marker = tmp_path / "pwned"
    torch.save({"model.embed_tokens.weight": Payload(marker)}, folder / "pytorch_model.bin")
    data = tmp_path / "in.jsonl"
    data.write_text(jsonl(good("a")), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    command = ["score", str(data), "--detectors", "salience", "--model", str(folder), "--out", str(out)]
    assert main([*command, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"cannot load the model at {folder}: UnpicklingError" in err and "nothing was written" in err
    assert not out.exists() and not marker.exists()


@pytest.mark.parametrize("second_load", ["language model", "pair classifier", "token classifier"])
def test_models_load_one_at_a_time(second_load):
    # transformers patches classes while it loads and puts them back after; two loads at once
    # once left `tie_weights` patched for good, and every later load with a meta-device output
    # embedding. A load waits while another holds the lock.
    from explorer.detectors.tagger import load_token_classifier
    from explorer.models.encoder import default_model_path, load_pair_classifier
    from explorer.models.language_model import LOADING, load_language_model

    loads = {
        "language model": load_language_model,
        "pair classifier": lambda: load_pair_classifier(default_model_path()),
        "token classifier": lambda: load_token_classifier(default_model_path()),
    }
    started = time.monotonic()
    loads[second_load]()  # imports done, files cached: how long a load takes here
    took = time.monotonic() - started
    done = threading.Event()
    with LOADING:
        thread = threading.Thread(target=lambda: (loads[second_load](), done.set()), daemon=True)
        thread.start()
        assert not done.wait(3 * took + 1)
    thread.join(120)
    assert done.is_set()
