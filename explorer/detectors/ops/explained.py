"""The verdict's score from its evidence record (`explorer.detectors.stacked.evidence`): the head's
log-odds, then each line that raises it, in the order the verdict applies them: the meaning
check's doubt and the likeliest dropped argument join by noisy-or, a sure misstatement sets a
floor. The stacked detector computes its scores with these, and the evidence block
(`explorer.render.evidence`) and the benches read a record back with them, so what the block
explains is the score the verdict gave.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def evidence_logit(evidence: Mapping) -> float:
    """The head's own log-odds on the row an `evidence` record explains, before any floor."""
    return evidence["intercept"] + sum(feature["push"] for feature in evidence["features"])


def joined(p: float, doubt: float, weight: float) -> float:
    """`p` joined by noisy-or with `weight` times `doubt`."""
    return 1 - (1 - p) * (1 - weight * doubt)


def evidence_p(evidence: Mapping) -> float:
    """The head's own P(error) on the row an `evidence` record explains: its log-odds' logistic."""
    return 1 / (1 + math.exp(-evidence_logit(evidence)))


def unfloored(evidence: Mapping) -> float:
    """The P(error) an `evidence` record explains before any floor: the head's own, joined with
    the doubt and the likeliest dropped argument where the record has them."""
    return argued(doubted_evidence(evidence), evidence)


def doubted_evidence(evidence: Mapping) -> float:
    """The head's own P(error) an `evidence` record explains, joined with its doubt where it has one."""
    p = evidence_p(evidence)
    doubt = evidence.get("doubt")
    return joined(p, doubt["doubt"], doubt["weight"]) if doubt else p


def argued(p: float, evidence: Mapping) -> float:
    """`p` joined with the likeliest dropped argument's P where the `evidence` record has one."""
    argument = evidence.get("argument")
    return joined(p, argument["dropped"], argument["weight"]) if argument else p


def at_least(p: float, floor: Mapping | None) -> float:
    """`p`, raised to a floor's misstatement where there is a floor (`explorer.detectors.stacked.floored`)."""
    return max(p, floor["misstated"]) if floor else p


def explained_p(evidence: Mapping) -> float:
    """The detector's score an `evidence` record explains: `unfloored`, at least its floor."""
    return at_least(unfloored(evidence), evidence.get("floor"))
