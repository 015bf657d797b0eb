"""Finding a learned detector's trained weights: the user's own (trained with `explorer train`,
kept in the cache) first, else the ones shipped in the package for the same base model.

A learned detector declares where its weights live once, as the `Weights` of its
`explorer.detectors.DetectorSpec`; `Weights.find` is the one lookup. Each trained folder holds a
`training.json` record naming the base model under `"model"`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from explorer.config import cache_dir, shipped_weights
from explorer.data.labels import ERROR_TYPES

TRAINING_FILE = "training.json"  # beside a trained classifier's weights: what it was trained on and how
ADAPTER_FILE = "adapter_model.safetensors"  # PEFT's adapter weights (LoRA, soft prompt) in a trained folder


class TrainedNotFoundError(LookupError):
    """No classifier of this detector was trained for this model and task."""


@dataclass(frozen=True)
class Weights:
    """Where a learned detector's weights live: `folder` names them in the package's resources
    (shipped) and in the cache (the user's, from `explorer train --detector`), one subfolder per
    task of `tasks` (each error type, or the one task of a model that answers both). No tasks:
    the folder itself holds one PEFT adapter, for the packaged encoder only (the tuned matcher)."""

    folder: str
    tasks: tuple[str, ...] = ERROR_TYPES

    @property
    def shipped(self) -> Path:
        return shipped_weights(self.folder)

    def user_dir(self, model_identity: str, task: str | None) -> Path:
        """Where `explorer train` writes by default."""
        return cache_dir() / self.folder if not self.tasks else user_trained_dir(self.folder, model_identity, task)

    def find(self, model_identity: str | None = None, task: str | None = None) -> Path:
        """The folder of `task`'s weights for this base model (`find_trained`); without tasks, the
        user's adapter when there is one, else the shipped one."""
        if not self.tasks:
            user = cache_dir() / self.folder
            return user if (user / ADAPTER_FILE).is_file() else self.shipped
        return find_trained(self.folder, model_identity, task, self.shipped)


# The tuned argument matcher (`explorer.models.matcher`): a model several detectors read, so its
# weights are declared here, below the registry, and its spec (`semantic_tuned`) names this one.
MATCHER = Weights("matcher", tasks=())


# A folder name's most characters, well under the 255 bytes file systems allow: the stacked
# detector's model names its five components (over 300 characters), and a name that long could
# be neither written nor looked up (a lookup raised instead of missing).
MAX_FOLDER_NAME = 120


def user_trained_dir(detector_name: str, model_identity: str, task: str) -> Path:
    """Where `explorer train` puts a classifier by default: the cache, per detector (or `generator`) and model.
    A longer model name is cut and ends in its digest, so two models never share a folder."""
    safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in model_identity)
    if len(safe) > MAX_FOLDER_NAME:
        digest = hashlib.sha256(model_identity.encode()).hexdigest()[:16]
        safe = f"{safe[: MAX_FOLDER_NAME - len(digest) - 1]}-{digest}"
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
