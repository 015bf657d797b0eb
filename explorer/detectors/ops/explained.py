"""The verdict's score from its evidence record (`explorer.detectors.stacked.evidence`): the head's
log-odds, then each line that raises it, in the order the verdict applies them: the meaning
check's doubt and the likeliest dropped argument (coverage) or the meaning check's misstatement
(hallucination) join by noisy-or, a sure misstatement sets a floor. The stacked detector
computes its scores with these, and the evidence block
(`explorer.render.evidence`) and the benches read a record back with them, so what the block
explains is the score the verdict gave.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

# What joins the head's P(error) by noisy-or, in order: the record's key and the score under it
# (the meaning check's doubt; the argument head's likeliest dropped argument; the meaning check's
# misstatement, which joins P(hallucination)).
JOINS = (("doubt", "doubt"), ("argument", "dropped"), ("misstated", "misstated"))


def evidence_logit(evidence: Mapping) -> float:
    """The head's own log-odds on the row an `evidence` record explains, before any floor."""
    return evidence["intercept"] + sum(feature["push"] for feature in evidence["features"])


def joined(p: float, score: float, weight: float) -> float:
    """`p` joined by noisy-or with `weight` times `score`."""
    return 1 - (1 - p) * (1 - weight * score)


def evidence_p(evidence: Mapping) -> float:
    """The head's own P(error) on the row an `evidence` record explains: its log-odds' logistic."""
    return 1 / (1 + math.exp(-evidence_logit(evidence)))


def unfloored(evidence: Mapping, weights: Mapping[str, float] | None = None) -> float:
    """The P(error) an `evidence` record explains before any floor: the head's own, joined with each
    of `JOINS` the record has, at its recorded weight or at `weights[key]` where given (0 leaves it
    out, as a bench reading the record at other weights needs)."""
    p = evidence_p(evidence)
    for key, score in JOINS:
        if found := evidence.get(key):
            p = joined(p, found[score], (weights or {}).get(key, found["weight"]))
    return p


def doubted_evidence(evidence: Mapping) -> float:
    """The head's own P(error) an `evidence` record explains, joined with its doubt alone."""
    return unfloored(evidence, {"argument": 0.0})


def at_least(p: float, floor: Mapping | None) -> float:
    """`p`, raised to a floor's misstatement where there is a floor (`explorer.detectors.stacked.floored`)."""
    return max(p, floor["misstated"]) if floor else p


def explained_p(evidence: Mapping) -> float:
    """The detector's score an `evidence` record explains: `unfloored`, at least its floor."""
    return at_least(unfloored(evidence), evidence.get("floor"))
