"""The registry: every detector, listed explicitly, loaded by name.

Heavy detectors import torch and load models, so a registry entry names its class by import
path and the class is imported only when asked for; `rouge` alone never imports torch.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)

if TYPE_CHECKING:
    from explorer.training import Trainer

__all__ = [
    "ArgumentWordScore",
    "Detector",
    "DetectorError",
    "DetectorResult",
    "DetectorSpec",
    "Progress",
    "ResponseWordScore",
    "UnknownDetectorError",
    "create",
    "detector_class",
    "names",
    "spec",
    "trainable",
    "trainer",
]


@dataclass(frozen=True)
class DetectorSpec:
    name: str
    title: str
    import_path: str
    uses_model: bool
    summary: str
    trainer: str | None = None  # "module:Class" of its `explorer.training.Trainer`, for learned detectors


_SPECS = (
    DetectorSpec(
        "rouge",
        "ROUGE-1",
        "explorer.detectors.rouge:RougeDetector",
        uses_model=False,
        summary="Word overlap: response words found in no argument; argument words absent from the response.",
    ),
    DetectorSpec(
        "semantic",
        "Semantic alignment",
        "explorer.detectors.semantic:SemanticDetector",
        uses_model=False,
        summary="Meaning match (all-MiniLM-L6-v2): claims no argument sentence supports; arguments no claim covers.",
    ),
    DetectorSpec(
        "salience",
        "Salience",
        "explorer.detectors.salience:SalienceDetector",
        uses_model=True,
        summary="Gradient x input of a local LM (default SmolLM2-135M): response words that draw on no argument "
        "word; argument words no response word draws on. Minutes per example on a CPU.",
    ),
    DetectorSpec(
        "classifier",
        "Prompt-tuned classifier",
        "explorer.detectors.classifier:ClassifierDetector",
        uses_model=True,
        trainer="explorer.training.soft_prompt:SoftPromptTrainer",
        summary="Soft prompts on the language model, trained on synthetic errors: P(No) to "
        "'only the given arguments?' and 'every given argument?'. No word scores.",
    ),
    DetectorSpec(
        "alignment_classifier",
        "Alignment classifier",
        "explorer.detectors.alignment_classifier:AlignmentClassifierDetector",
        uses_model=False,
        trainer="explorer.training.logistic:LogisticTrainer",
        summary="Logistic regression trained on synthetic errors, reading the semantic alignment (MiniLM "
        "similarities) and word overlap: P(a claim is unsupported), P(an argument is dropped).",
    ),
    DetectorSpec(
        "cross_encoder",
        "Cross-encoder (MiniLM)",
        "explorer.detectors.cross_encoder:CrossEncoderDetector",
        uses_model=False,
        trainer="explorer.training.cross_encoder:CrossEncoderTrainer",
        summary="all-MiniLM-L6-v2 with LoRA adapters trained on synthetic errors: P(a response sentence is not "
        "backed by the arguments), P(an argument is not in the response). Near chance on the sample test split.",
    ),
)
_BY_NAME = {s.name: s for s in _SPECS}


class UnknownDetectorError(KeyError):
    def __init__(self, name: str, available: list[str] | None = None):
        super().__init__(name)
        self.name = name
        self.available = available

    def __str__(self) -> str:
        return f"unknown detector {self.name!r}; available: {', '.join(self.available or names())}"


def names() -> list[str]:
    return [s.name for s in _SPECS]


def spec(name: str) -> DetectorSpec:
    if name not in _BY_NAME:
        raise UnknownDetectorError(name)
    return _BY_NAME[name]


def _load(import_path: str):
    module_name, class_name = import_path.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def detector_class(name: str) -> type[Detector]:
    return _load(spec(name).import_path)


def trainable() -> list[str]:
    """The learned detectors: those `explorer train` can train."""
    return [s.name for s in _SPECS if s.trainer]


def trainer(name: str) -> Trainer:
    """A new trainer for learned detector `name`."""
    if not spec(name).trainer:
        raise UnknownDetectorError(name, trainable())
    return _load(spec(name).trainer)()


def create(name: str, **options) -> Detector:
    """Instantiate detector `name`; `options` (e.g. `model=`) go to its constructor."""
    return detector_class(name)(**options)
