"""A logistic regression on the semantic alignment, trained on synthetic errors: the learned
classifier that works where the paper's prompt-tuned one (Chang et al. 2024, §3.3) does not.

Not in the paper. The paper's classifier learns the whole task from 117 training examples;
on SmolLM2-135M with a 5-token prompt it stays at chance, and a MiniLM cross-encoder
fine-tuned with LoRA (`explorer.cross_encoder`) overfits its 39 positive units. Here the
representation is frozen, the alignment of `explorer.alignment` (all-MiniLM-L6-v2 cosine
similarities between the response's claims and the argument sentences) plus word overlap,
and only a few weights are learned from the synthetic errors (§4.2), which that data can fit:

- hallucination, one unit per claim: its best similarity to an argument sentence, its
  similarity to the query, the share of its content stems found in any argument and in its
  best single argument, log(1 + its content words), and whether it opens or closes the
  response (where framing sits). Gold: the claim overlaps a `hallucinated_spans` span.
- coverage, one unit per argument: its best similarity to a claim, the share of its content
  stems found in the response and in its best single claim, log(1 + its content words).
  Gold: `uncovered` names it.

The example scores take the worst unit, as the other detectors do. Each feature is
standardized and scikit-learn's `LogisticRegression` (class-balanced) is fitted for a few
regularization strengths; the one with the best example-level dev ROC AUC is kept. The model
is saved as JSON (means, scales, weights, intercept: a few hundred bytes, no pickle) and
scored as the logistic function of the standardized features, which a test checks against
scikit-learn's `predict_proba`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.alignment import Alignment, align
from explorer.embeddings import SentenceEncoder
from explorer.evaluation import overlaps, roc_auc
from explorer.example import Example
from explorer.training_data import find_trained, target, training_record, write_record
from explorer.words import DEFAULT_SEGMENTER

METHOD = "alignment_classifier"
SHIPPED_MODELS = Path(__file__).resolve().parent / "resources" / METHOD
MODEL_FILE = "model.json"
FEATURES = {
    "hallucination": (
        "best argument similarity",
        "query similarity",
        "stems in the arguments",
        "stems in the best argument",
        "log content words",
        "opens or closes the response",
    ),
    "coverage": (
        "best claim similarity",
        "stems in the response",
        "stems in the best claim",
        "log content words",
    ),
}
REGULARIZATION = (0.01, 0.1, 1.0, 10.0)  # LogisticRegression's C, chosen on dev
UNTUNED_REGULARIZATION = 1.0  # scikit-learn's default, when dev is trained on too


def _stems(text: str) -> frozenset[str]:
    return frozenset(word.stem for word in DEFAULT_SEGMENTER.content_words(text))


def _share(stems: frozenset[str], found_in: frozenset[str]) -> float:
    """Share of `stems` in `found_in`; a unit without content words counts as found."""
    return len(stems & found_in) / len(stems) if stems else 1.0


def features(example: Example, alignment: Alignment, task: str) -> np.ndarray:
    """One row per unit (claims for hallucination, arguments for coverage), columns `FEATURES[task]`."""
    arguments = [_stems(text) for _, _, text in example.arguments()]
    claims = [_stems(claim.text) for claim in alignment.claims]
    if task == "hallucination":
        everything = frozenset().union(*arguments)
        last = len(claims) - 1
        rows = [
            [
                alignment.raw_support[c],
                alignment.query_similarity[c],
                _share(stems, everything),
                max((_share(stems, argument) for argument in arguments), default=0.0),
                np.log1p(len(stems)),
                float(c in (0, last)),
            ]
            for c, stems in enumerate(claims)
        ]
    else:
        response = _stems(example.response)
        rows = [
            [
                alignment.similarity[row].max() if claims else -1.0,
                _share(stems, response),
                max((_share(stems, claim) for claim in claims), default=0.0),
                np.log1p(len(stems)),
            ]
            for row, stems in enumerate(arguments)
        ]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES[task]))


def unit_targets(example: Example, alignment: Alignment, task: str) -> list[int]:
    """Gold per unit: a claim overlapping a hallucinated span; an argument named uncovered."""
    if task == "hallucination":
        return [int(overlaps(claim.span, example.labels.hallucinated_spans)) for claim in alignment.claims]
    uncovered = {(u.perspective, u.argument) for u in example.labels.uncovered}
    return [int(key in uncovered) for key in alignment.arguments]


@dataclass(frozen=True)
class UnitModel:
    """A fitted logistic regression on standardized features: P(error) of each unit."""

    task: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    def p_error(self, rows: np.ndarray) -> np.ndarray:
        logits = ((rows - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.weights) + self.intercept
        return 1.0 / (1.0 + np.exp(-logits))

    @classmethod
    def from_pipeline(cls, task: str, pipeline) -> UnitModel:
        scaler, regression = pipeline[0], pipeline[-1]
        return cls(
            task=task,
            features=FEATURES[task],
            mean=tuple(float(v) for v in scaler.mean_),
            scale=tuple(float(v) for v in scaler.scale_),
            weights=tuple(float(v) for v in regression.coef_[0]),
            intercept=float(regression.intercept_[0]),
        )


def find_model(encoder_identity: str, task: str) -> Path:
    """The model for this encoder and task (`training_data.find_trained`)."""
    return find_trained(METHOD, encoder_identity, task, SHIPPED_MODELS)


def load(directory: Path) -> UnitModel:
    data = json.loads((Path(directory) / MODEL_FILE).read_text(encoding="utf-8"))
    model = UnitModel(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})
    if model.features != FEATURES[model.task]:
        raise ValueError(f"{directory} was trained on other features ({', '.join(model.features)}); retrain it")
    return model


def save(model: UnitModel, record: dict[str, Any], out: Path) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MODEL_FILE).write_text(json.dumps(asdict(model), indent=1) + "\n", encoding="utf-8")
    write_record(record, out)


def train(
    task: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    encoder: SentenceEncoder,
    *,
    dev_is_held_out: bool = True,
    log: Callable[[str], None] = print,
) -> tuple[UnitModel, dict[str, Any]]:
    """Fit the unit model for `task` for each strength in `REGULARIZATION` and keep the best on dev."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    started = time.monotonic()
    rows, gold = [], []
    for example in train_set:
        alignment = align(example, encoder)
        rows.append(features(example, alignment, task))
        gold.extend(unit_targets(example, alignment, task))
    positives = sum(gold)
    if not 0 < positives < len(gold):
        raise ValueError(f"the training data needs {task} units with and without an error")
    dev_rows = [features(example, align(example, encoder), task) for example in dev_set]
    dev_targets = [bool(target(example, task)) for example in dev_set]
    log(f"features of {len(train_set)} train and {len(dev_set)} dev examples ({time.monotonic() - started:.0f} s)")

    fits: list[tuple[float, float | None, UnitModel]] = []
    for strength in REGULARIZATION:
        pipeline = make_pipeline(
            StandardScaler(), LogisticRegression(C=strength, class_weight="balanced", max_iter=1000)
        ).fit(np.vstack(rows), gold)
        model = UnitModel.from_pipeline(task, pipeline)
        auc = None
        if len(set(dev_targets)) == 2:
            auc = roc_auc(dev_targets, [float(model.p_error(r).max()) if len(r) else 0.0 for r in dev_rows])
        fits.append((strength, auc, model))
        log(f"C={strength}: dev ROC AUC {'n/a' if auc is None else f'{auc:.3f}'}")
    scored = [fit for fit in fits if fit[1] is not None]
    if dev_is_held_out and scored:
        kept = max(scored, key=lambda fit: fit[1])  # ties go to the stronger regularization, listed first
    else:
        kept = next(fit for fit in fits if fit[0] == UNTUNED_REGULARIZATION)
    record = training_record(
        task,
        encoder.identity(),
        train_set,
        dev_set,
        dev_is_held_out=dev_is_held_out,
        dev_roc_auc=[[strength, auc] for strength, auc, _ in fits],
        started=started,
        features=list(FEATURES[task]),
        train_units=len(gold),
        train_positive_units=positives,
        kept_C=kept[0],
    )
    return kept[2], record
