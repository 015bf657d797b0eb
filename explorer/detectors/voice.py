"""Voice check: a given argument stated in the other camp's voice (perspective confusion).

Chang et al. 2024 count *perspective confusion* among the ambiguous errors: every word of
the argument is given, but the answer puts it in the mouth of the side that does not hold it
("Proponents also acknowledge that the measure does not address the underlying issues", a con
argument). Support detectors (the tagger, the alignments) find those words supported; the error
is in who says them. Not in the paper as a detector.

1. Each sentence's camp (`explorer.text.camps`: headers, subjects, pronouns carrying a subject on,
   turns to the other side).
2. The tuned matcher's alignment (`semantic_tuned`'s claims and argument sentences) gives each
   checked claim its best similarity to each perspective's arguments.
3. Camps are matched to perspectives one to one so that the claims' similarities to their camp's
   perspective add up to the most: what a camp mostly states decides whose voice it is, so
   "critics of bottled water" and "opponents of the curriculum" land on the right side whatever
   the claim's wording.
4. A claim is confused by `margin = best similarity to another perspective - best similarity to
   its camp's`, when that other similarity reaches `explorer.detectors.ops.alignment.STATES` (it
   states an argument at all) and the margin is positive (its own camp has no closer argument).

Scores: `hallucination` is the largest margin; a perspective's coverage error the largest margin
of a confused claim stating one of its arguments (the argument is given, but as the other side's);
response words carry their claim's margin, argument words the margin of the confusion stating
their argument. An answer with no camp cues (or one camp's arguments only) scores 0: no
confusion can be read from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import DetectorResult, Progress
from explorer.detectors.ops.alignment import STATES, pair
from explorer.detectors.ops.assessment import Assessment
from explorer.detectors.semantic_tuned import SemanticTunedDetector
from explorer.text.camps import camps


@dataclass(frozen=True)
class Confusion:
    """A claim voiced by `camp_perspective`'s camp that states `argument` (a row of the
    alignment) of another perspective, by `margin` over the closest argument of its own."""

    claim: int
    argument: int
    camp_perspective: int
    margin: float


def claim_camps(assessment: Assessment, response: str) -> dict[int, str]:
    """The camp of each checked claim whose sentence has one."""
    spoken = camps(response)
    found = {}
    for c in assessment.checked:
        claim = assessment.alignment.claims[int(c)]
        camp = next((side for (start, end), side in spoken if start <= claim.start < end), None)
        if camp is not None:
            found[int(c)] = camp
    return found


def camp_perspectives(best: Sequence[np.ndarray], camp_of: Sequence[str], n_perspectives: int) -> dict[str, int]:
    """Camps to distinct perspectives, the assignment under which the claims' similarities to their
    camp's perspective sum highest (`best[i][p]`: claim i's best similarity to perspective p): `pair`,
    as the matching check pairs arguments with pieces."""
    names = sorted(set(camp_of))
    totals = np.zeros((len(names), n_perspectives))
    for row, camp in zip(best, camp_of):
        totals[names.index(camp)] += row
    return {name: int(p) for name, p in zip(names, pair(totals)) if p >= 0}


def confusions(assessment: Assessment, example: Example) -> list[Confusion]:
    """Every confused claim of the example (see the module doc), in claim order."""
    alignment = assessment.alignment
    n_perspectives = len(example.perspectives)
    camp_of = claim_camps(assessment, example.response)
    if n_perspectives < 2 or not camp_of:
        return []
    rows_of = [[r for r, (p, _) in enumerate(alignment.arguments) if p == q] for q in range(n_perspectives)]
    claims = sorted(camp_of)
    best = [np.array([alignment.similarity[rows, c].max() if rows else -1.0 for rows in rows_of]) for c in claims]
    mapping = camp_perspectives(best, [camp_of[c] for c in claims], n_perspectives)
    found = []
    for c, row in zip(claims, best):
        own = mapping[camp_of[c]]
        other = max((q for q in range(n_perspectives) if q != own), key=lambda q: row[q])
        margin = float(min(1.0, row[other] - row[own]))
        if row[other] >= STATES and margin > 0:
            argument = max(rows_of[other], key=lambda r: alignment.similarity[r, c])
            found.append(Confusion(c, argument, own, margin))
    return found


class VoiceDetector(SemanticTunedDetector):
    name = "voice"
    title = "Voice check (tuned matcher)"
    # 2: a sentence whose subject names no camp speaks for its header's section only, not for the
    # sentence before; a restated question is no header; "yes side", "no side", "who back"
    version = "2"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        assessment = self.assess(example)
        alignment = assessment.alignment
        found = confusions(assessment, example)
        by_claim = {f.claim: f.margin for f in found}
        by_argument = dict.fromkeys(alignment.arguments, 0.0)
        for f in found:
            key = alignment.arguments[f.argument]
            by_argument[key] = max(by_argument[key], f.margin)
        claims = (alignment.claims[int(c)] for c in assessment.checked)
        units = [(claim.start, claim.end, by_claim.get(claim.index, 0.0)) for claim in claims]
        return DetectorResult.from_units(
            self, example, units, by_argument, details={details.ALIGNMENT.key: alignment.to_dict()}
        )
