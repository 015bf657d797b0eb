"""Claim level: how well an alignment's matches find the gold error spans, and the claim view's
reading chosen from that on foreign data.

A claim is a positive when it overlaps a `hallucinated_spans` span (it states what no argument
gave); an argument is a positive when the response drops it whole (`uncovered` without spans).
Framing claims (they restate the question) are neither. A claim's score is its best raw match
over the arguments, an argument's its best match over the checked claims (`Settings` with
`parts` and `exclusive` off, so the numbers do not depend on the threshold being chosen).

`bench/tune_claims.py` picks, on a dev split of third-party text (Perspectrum dev), the encoder
whose matches separate both kinds best and its match threshold, and writes
`resources/claim_view.json`; the Inspect page's claim view reads that file (`claim_view_choice`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.config import RESOURCES
from explorer.data.example import Example
from explorer.data.labels import overlaps
from explorer.detectors.base import DetectorResult
from explorer.detectors.details import ALIGNMENT
from explorer.detectors.ops.alignment import Alignment, Settings
from explorer.detectors.ops.assessment import Assessment, assess
from explorer.detectors.semantic import alignment_of
from explorer.training.data import roc_auc

CLAIM_VIEW_FILE = RESOURCES / "claim_view.json"
GRID = np.round(np.arange(0.30, 0.95, 0.01), 2)


@dataclass
class ClaimPoints:
    """Best-match cosines of the positive and the other claims and arguments of some examples."""

    hallucinated: list[float] = field(default_factory=list)
    other_claims: list[float] = field(default_factory=list)
    dropped: list[float] = field(default_factory=list)
    other_arguments: list[float] = field(default_factory=list)

    def add(self, example: Example, alignment: Alignment) -> None:
        framing = assess(alignment, Settings(parts=False, exclusive=False)).framing
        for claim in alignment.claims:
            if framing[claim.index]:
                continue
            hallucinated = overlaps(claim.span, example.labels.hallucinated_spans)
            (self.hallucinated if hallucinated else self.other_claims).append(float(alignment.raw_support[claim.index]))
        dropped = {(u.perspective, u.argument) for u in example.labels.uncovered if u.spans is None}
        checked = np.flatnonzero(~framing)
        for row, key in enumerate(alignment.arguments):
            best = float(alignment.similarity[row, checked].max()) if len(checked) else 0.0
            (self.dropped if key in dropped else self.other_arguments).append(best)

    def roc_aucs(self) -> tuple[float, float]:
        """ROC AUC of a low best match, for hallucinated claims and for dropped arguments."""
        return _low_auc(self.hallucinated, self.other_claims), _low_auc(self.dropped, self.other_arguments)

    def youden(self, cut: float) -> tuple[float, float]:
        """Youden's J of "error when the best match is below `cut`", for claims and for arguments."""
        return _j(self.hallucinated, self.other_claims, cut), _j(self.dropped, self.other_arguments, cut)

    def best_cut(self) -> tuple[float, float]:
        """The cut on `GRID` with the best mean J over claims and arguments, and that mean."""
        means = [float(np.mean(self.youden(cut))) for cut in GRID]
        best = int(np.argmax(means))
        return float(GRID[best]), means[best]


def best_cut(positives: Sequence[float], negatives: Sequence[float], below: bool) -> tuple[float, float]:
    """The cut on `GRID` with the best Youden's J for "positive when score < cut" (`below`) or
    ">= cut", and that J."""
    js = [_j(positives, negatives, cut) if below else -_j(positives, negatives, cut) for cut in GRID]
    best = int(np.argmax(js))
    return float(GRID[best]), float(js[best])


def _low_auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    return roc_auc([True] * len(positives) + [False] * len(negatives), [-s for s in [*positives, *negatives]])


def _j(positives: Sequence[float], negatives: Sequence[float], cut: float) -> float:
    if not len(positives) or not len(negatives):
        return 0.0
    return float(np.mean(np.asarray(positives) < cut) - np.mean(np.asarray(negatives) < cut))


@dataclass(frozen=True)
class ClaimViewChoice:
    """The detector whose alignment the claim view reads, its match threshold, and the evidence."""

    detector: str
    match: float
    data: str
    evidence: dict = field(default_factory=dict, compare=False)

    def settings(self, detector_settings: Settings) -> Settings:
        """The detector's reading rules with the claim view's match threshold."""
        return dataclasses.replace(detector_settings, match=self.match)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"


def read_choice(path: Path) -> ClaimViewChoice:
    return ClaimViewChoice(**json.loads(path.read_text(encoding="utf-8")))


@functools.cache
def claim_view_choice() -> ClaimViewChoice:
    """The shipped claim view choice (`bench/tune_claims.py` writes it)."""
    return read_choice(CLAIM_VIEW_FILE)


def aligned_by(result: DetectorResult) -> str | None:
    """The detector whose alignment `result` keeps (a stacked result names the component's)."""
    if ALIGNMENT.of(result) is None:
        return None
    return result.info.get("config", {}).get("alignment", result.detector)


def claim_view_assessment(example: Example, results: Mapping[str, DetectorResult]) -> Assessment | None:
    """The claim view's reading of `example` from the first of `results` that keeps the chosen
    detector's alignment, with the chosen match threshold; None when no result keeps it."""
    choice = claim_view_choice()
    for result in results.values():
        if aligned_by(result) == choice.detector:
            recorded = Settings(**result.info["config"]["settings"])
            return assess(alignment_of(result, example), choice.settings(recorded))
    return None
