"""Test-only detectors with scores chosen by the test, and a way to register them for a test.

`ScriptedDetector` reads its scores from the example itself: `extra["scripted"][<name>]` holds
`{"hallucination": float, "coverage": float}`; response and argument words score 1 where they
overlap a gold span and `word_noise` elsewhere. The evaluation, the tables and the page must
treat a registered detector like any other, so these stand in for detectors merged later.
"""

from __future__ import annotations

import threading
import time

import pytest

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import ArgumentWordScore, Detector, DetectorError, DetectorResult, ResponseWordScore
from explorer.evaluation.word_level import argument_word_labels, response_word_labels


class ScriptedDetector(Detector):
    name = "scripted"
    version = "1"
    word_noise = 0.0
    seconds_per_example = 0.0
    # Scores come from `extra`, which the result cache's key does not cover.
    cache_results = False

    def __init__(self, model: str | None = None):
        self.model = model

    def score(self, example: Example, progress=None) -> DetectorResult:
        time.sleep(self.seconds_per_example)
        scripted = example.extra.get("scripted", {}).get(self.name)
        if scripted is None:
            raise DetectorError(f"no scripted score for {example.id}")
        return DetectorResult(
            detector=self.name,
            hallucination=scripted["hallucination"],
            coverage=scripted["coverage"],
            per_perspective={p.name: scripted["coverage"] for p in example.perspectives},
            response_words=tuple(
                ResponseWordScore(w.start, w.end, 1.0 if gold else self.word_noise)
                for w, gold in response_word_labels(example)
            ),
            argument_words=tuple(
                ArgumentWordScore(p, a, w.start, w.end, 1.0 if gold else self.word_noise)
                for p, a, w, gold in argument_word_labels(example)
            ),
            info=self.info(),
        )


class OtherScriptedDetector(ScriptedDetector):
    name = "other"
    word_noise = 0.5


class SlowScriptedDetector(ScriptedDetector):
    """Stands in for a model-based detector: slow, and scored in the background by the app.

    Scoring waits for `gate`, so a test can look at the page while the job is surely running
    (a timed sleep races with how long a busy machine takes to render the page)."""

    name = "slow"
    seconds_per_example = 0.05
    cache_results = True  # as model-based detectors do; its tests give each example its own text
    gate = threading.Event()

    def score(self, example: Example, progress=None) -> DetectorResult:
        if not self.gate.wait(timeout=120):
            raise DetectorError("the test never opened the gate")
        return super().score(example, progress)

    def model_identity(self) -> str:
        return "scripted-model"


SPECS = {
    cls.name: detectors.DetectorSpec(
        cls.name,
        title,
        f"tests.scripted:{cls.__name__}",
        summary="test",
        response_word_meaning="1 = scripted",
        argument_word_meaning="1 = scripted",
        cost=cost,
        uses_model=cls is SlowScriptedDetector,
    )
    for cls, title, cost in (
        (ScriptedDetector, "Scripted", detectors.INSTANT),
        (OtherScriptedDetector, "Other scripted", detectors.INSTANT),
        (SlowScriptedDetector, "Slow scripted", detectors.SLOW),
    )
}


def register(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Add scripted detectors to the registry for one test."""
    monkeypatch.setattr(detectors, "_SPECS", detectors._SPECS + tuple(SPECS[n] for n in names))
    monkeypatch.setattr(detectors, "_BY_NAME", {s.name: s for s in detectors._SPECS})


def scripted(**scores: tuple[float, float]) -> dict:
    """`extra` for an example: `scripted(scripted=(h, c), other=(h, c))`."""
    return {"scripted": {name: {"hallucination": h, "coverage": c} for name, (h, c) in scores.items()}}
