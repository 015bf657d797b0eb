"""Finding a learned detector's trained weights: the user's own (trained with `explorer train`,
kept in the cache) first, else the ones shipped in the package for the same base model.

Each trained folder holds a `training.json` record naming the base model under `"model"`.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.config import cache_dir

TRAINING_FILE = "training.json"  # beside a trained classifier's weights: what it was trained on and how
ADAPTER_FILE = "adapter_model.safetensors"  # PEFT's adapter weights (LoRA, soft prompt) in a trained folder


class TrainedNotFoundError(LookupError):
    """No classifier of this detector was trained for this model and task."""


def user_trained_dir(detector_name: str, model_identity: str, task: str) -> Path:
    """Where `explorer train` puts a classifier by default: the cache, per detector (or `generator`) and model."""
    safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in model_identity)
    return cache_dir() / detector_name / safe / task


def find_trained(detector_name: str, model_identity: str, task: str, shipped: Path) -> Path:
    """The classifier trained for this model and task: one the user trained (in the cache)
    first, else the one shipped in the package when it was trained on this model. A folder
    counts when its `training.json` names the model under `"model"`."""
    looked = []
    for directory in (user_trained_dir(detector_name, model_identity, task), shipped / task):
        looked.append(str(directory))
        record = directory / TRAINING_FILE
        if record.is_file() and json.loads(record.read_text(encoding="utf-8")).get("model") == model_identity:
            return directory
    raise TrainedNotFoundError(
        f"no {task} {detector_name} was trained for the model {model_identity} (looked in {', '.join(looked)}); "
        f"train one with `explorer train --detector {detector_name} --task {task}` and the same model"
    )
