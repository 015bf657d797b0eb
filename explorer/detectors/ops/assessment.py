"""Reading an alignment (`explorer.detectors.ops.alignment`): verdicts, aggregation and flags.

`Assessment` (`assess`, plain numpy) reads an alignment with `Settings`: which claims only
frame the question, which part of the response each claim sits in, and which argument
sentence credits which claim. From that: per claim its support (best credited match over
arguments) and verdict, per argument its coverage (best credited match over claims), the
response-level verdict by RefChecker's aggregation rules (Hu et al. 2024,
`refchecker/aggregator.py`), and the matrix flags: an argument nobody covers (coverage
error), a claim nobody supports, an argument stated twice (repetition), and an argument voiced
in the other side's part (perspective confusion), each with its evidence.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.detectors.ops.alignment import DEFAULT_SETTINGS, Alignment, Settings

SUPPORTED, UNSUPPORTED, FRAMING, ABSTAIN = "supported", "unsupported", "framing", "abstain"
CONTRADICTED = "contradicted"  # only from the three-way claim check (`explorer.detectors.ops.claim_check`)
AGGREGATION_RULES = ("strict", "soft", "major")
COVERAGE_ERROR, UNSUPPORTED_CLAIM, REPETITION, PERSPECTIVE_CONFUSION = (
    "coverage_error",
    "unsupported_claim",
    "repetition",
    "perspective_confusion",
)
FLAG_TITLES = {
    COVERAGE_ERROR: "coverage error",
    UNSUPPORTED_CLAIM: "unsupported claim",
    REPETITION: "repetition",
    PERSPECTIVE_CONFUSION: "perspective confusion",
}

# A response reads as "parts" (one run of claims per perspective) when less than this share of
# its supported claims break the part order; point-counterpoint answers that alternate sides
# break it at least this often and get no perspective-confusion flags.
MAX_OUT_OF_PART_SHARE = 0.25


@dataclass(frozen=True, eq=False)
class Assessment:
    """An alignment read with `Settings` (see the module doc). Shapes:

    framing   (n_claims,) bool         the claim restates the question: not checked, not credited
    parts     (n_claims,) int          perspective whose part of the response holds the claim, -1 if none
    credited  (n_arguments, n_claims)  similarity where the argument may credit the claim, else -1
    support   (n_claims,)              best credited similarity of each claim (0 if nothing credits it)
    coverage  (n_arguments,)           best credited similarity of each argument over checked claims
    out_of_part                        claims voicing a perspective inside another one's part
    lost_to                            claim -> (claim, sentence unit) that took its best argument sentence
    """

    alignment: Alignment
    settings: Settings
    framing: np.ndarray
    parts: np.ndarray
    credited: np.ndarray
    out_of_part: tuple[int, ...]
    lost_to: Mapping[int, tuple[int, int]]

    @property
    def checked(self) -> np.ndarray:
        """Indices of the claims that are checked (not framing)."""
        return np.flatnonzero(~self.framing)

    @property
    def support(self) -> np.ndarray:
        if not self.alignment.arguments or not self.alignment.claims:
            return np.zeros(len(self.alignment.claims), dtype=np.float32)
        return np.maximum(self.credited.max(axis=0), 0.0)

    @property
    def coverage(self) -> np.ndarray:
        checked = self.checked
        if not len(checked):
            return np.zeros(len(self.alignment.arguments), dtype=np.float32)
        return np.maximum(self.credited[:, checked].max(axis=1), 0.0)

    def verdicts(self) -> list[str]:
        """Per claim: `framing`, or `supported` when its support reaches the match threshold, else `unsupported`."""
        return [
            FRAMING if framing else SUPPORTED if support >= self.settings.match else UNSUPPORTED
            for framing, support in zip(self.framing, self.support)
        ]

    def aggregate(self, rule: str) -> str | dict[str, float]:
        """The response's verdict from its checked claims (`aggregate`); framing claims are left out."""
        return aggregate([v for v in self.verdicts() if v != FRAMING], rule)

    def flags(self) -> list[Flag]:
        return flags(self)


def assess(alignment: Alignment, settings: Settings = DEFAULT_SETTINGS) -> Assessment:
    """Read `alignment` with `settings`: framing claims, parts, credits (see `Settings`)."""
    n_arguments, n_claims = len(alignment.arguments), len(alignment.claims)
    framing = _framing(alignment) if settings.framing else np.zeros(n_claims, dtype=bool)
    if settings.parts:
        out_of_part, parts = _parts(alignment, framing, settings.match)
    else:
        out_of_part, parts = [], np.full(n_claims, -1, dtype=np.int64)
    perspective_of_row = np.array([p for p, _ in alignment.arguments], dtype=np.int64)
    allowed = np.ones((n_arguments, n_claims), dtype=bool)
    for c in range(n_claims):
        if parts[c] >= 0:
            allowed[:, c] = perspective_of_row == parts[c]
    allowed[:, framing] = False

    row_of = {key: row for row, key in enumerate(alignment.arguments)}
    sentence_units = [u for u, unit in enumerate(alignment.units) if unit.is_sentence]
    unit_rows = [row_of[(alignment.units[u].perspective, alignment.units[u].argument)] for u in sentence_units]
    # (n_sentence_units, n_claims): what each argument sentence may credit each claim with.
    unit_credit = np.where(allowed[unit_rows], alignment.unit_similarity[sentence_units], -1.0).astype(np.float32)
    lost_to: dict[int, tuple[int, int]] = {}
    if settings.exclusive and n_claims:
        for k, u in enumerate(sentence_units):
            winner = int(unit_credit[k].argmax())
            if unit_credit[k, winner] < settings.match:
                continue
            # Only a later claim restates; an earlier, weaker one previews the argument and keeps its credit.
            for c in np.flatnonzero(unit_credit[k] >= settings.match):
                if c > winner:
                    lost_to.setdefault(int(c), (winner, u))
                    unit_credit[k, c] = -1.0
    credited = np.full((n_arguments, n_claims), -1.0, dtype=np.float32)
    for k, row in enumerate(unit_rows):
        credited[row] = np.maximum(credited[row], unit_credit[k])
    # A claim that lost a sentence but is credited elsewhere at the match threshold did not
    # repeat anything: it voices another argument too.
    lost_to = {c: v for c, v in lost_to.items() if credited[:, c].max() < settings.match}
    return Assessment(alignment, settings, framing, parts, credited, tuple(out_of_part), lost_to)


def _framing(alignment: Alignment) -> np.ndarray:
    """The opening and closing claims that are closer to the query than to every argument.

    Framing is the run of such claims at the start of the answer and the run at its end; a
    claim in between is checked even when it echoes the question (an unprovided argument that
    repeats the question's words is the "trust trap" of `explorer.evaluation.trust`, not framing). An
    answer whose every claim is closer to the query frames nothing: all its claims are checked.
    """
    n_claims = len(alignment.claims)
    framing = np.zeros(n_claims, dtype=bool)
    if not alignment.arguments:
        return framing
    closer_to_query = alignment.query_similarity > alignment.raw_support
    if closer_to_query.all():
        return framing
    for order in (range(n_claims), range(n_claims - 1, -1, -1)):
        for c in order:
            if not closer_to_query[c]:
                break
            framing[c] = True
    return framing


def _parts(alignment: Alignment, framing: np.ndarray, match: float) -> tuple[list[int], np.ndarray]:
    """Claims out of their part, and each claim's part (-1 for none); see `Settings.parts`.

    Each checked claim that matches an argument voices that argument's perspective. The parts
    are the longest sequence of those claims whose perspectives come in one order, one run
    each (for two perspectives: pro then con, or con then pro); claims outside it are out of
    their part, except those before its first claim (an opening sentence is inside no part).
    A claim's part is its own perspective when it is in the sequence (or opens the answer),
    else that of the nearest claim of the sequence before it.
    No parts when fewer than two perspectives are voiced, or when at least
    `MAX_OUT_OF_PART_SHARE` of the voicing claims break the order (an answer that alternates
    sides has no parts).
    """
    n_claims = len(alignment.claims)
    none: tuple[list[int], np.ndarray] = ([], np.full(n_claims, -1, dtype=np.int64))
    support, best = alignment.raw_support, alignment.raw_best_argument
    voiced = [
        (c, alignment.arguments[int(best[c])][0]) for c in range(n_claims) if not framing[c] and support[c] >= match
    ]
    present = sorted({p for _, p in voiced})
    if not 2 <= len(present) <= 6:
        return none
    kept: list[int] = []
    for order in itertools.permutations(present):
        candidate = _longest_ordered_subsequence([order.index(p) for _, p in voiced])
        if len(candidate) > len(kept):
            kept = candidate
    # An out-of-order claim before the first part (an opening that already names the other
    # side) sits inside no part: it keeps its own perspective.
    opening = [k for k in range(kept[0])]
    kept_set = set(kept) | set(opening)
    out = [voiced[k][0] for k in range(len(voiced)) if k not in kept_set]
    if len(out) >= MAX_OUT_OF_PART_SHARE * len(voiced):
        return none
    in_order = {voiced[k][0]: voiced[k][1] for k in sorted(kept_set)}
    parts = np.full(n_claims, -1, dtype=np.int64)
    current = voiced[min(kept_set)][1]
    for c in range(n_claims):
        current = in_order.get(c, current)
        if not framing[c]:
            parts[c] = current
    return out, parts


def _longest_ordered_subsequence(ranks: Sequence[int]) -> list[int]:
    """Indices of a longest non-decreasing subsequence of `ranks` (the earliest on ties)."""
    n = len(ranks)
    if not n:
        return []
    length, previous = [1] * n, [-1] * n
    for j in range(n):
        for i in range(j):
            if ranks[i] <= ranks[j] and length[i] + 1 > length[j]:
                length[j], previous[j] = length[i] + 1, i
    end = max(range(n), key=lambda j: (length[j], -j))
    kept = []
    while end != -1:
        kept.append(end)
        end = previous[end]
    return kept[::-1]


def aggregate(claim_verdicts: Sequence[str], rule: str, *, three_way: bool = False) -> str | dict[str, float]:
    """One verdict for the response from its claims' verdicts, by RefChecker's rules.

    RefChecker (`refchecker/aggregator.py`) labels claims Entailment / Neutral / Contradiction.
    Here `supported` plays Entailment and `unsupported` Neutral; a similarity alone cannot tell
    a contradiction from unrelated text, so the alignment's claims are never Contradiction.
    `three_way=True` (the claim check's verdicts) admits `contradicted` as Contradiction.
    - strict: zero tolerance: `contradicted` when any claim is, else `unsupported` when any
      claim is, else `supported`;
    - soft: the share of claims with each verdict, e.g. `{"supported": 0.75, "unsupported": 0.25, "abstain": 0.0}`
      (with `"contradicted"` too when three-way);
    - major: the most frequent verdict; a tie goes to the verdict met first, as
      `collections.Counter.most_common` breaks ties in RefChecker.
    No claims: `abstain` (soft: every share 0 but `abstain` 1), as in RefChecker.
    """
    if rule not in AGGREGATION_RULES:
        raise ValueError(f"unknown aggregation rule {rule!r}; choose one of {', '.join(AGGREGATION_RULES)}")
    labels = (SUPPORTED, UNSUPPORTED, CONTRADICTED) if three_way else (SUPPORTED, UNSUPPORTED)
    unknown = set(claim_verdicts) - set(labels)
    if unknown:
        named = ", ".join(map(repr, labels[:-1])) + f" or {labels[-1]!r}"
        raise ValueError(f"claim verdicts must be {named}, got {sorted(unknown)}")
    if rule == "soft":
        counts, total = Counter(claim_verdicts), len(claim_verdicts)
        shares = {label: counts[label] / total if total else 0.0 for label in labels}
        return {**shares, ABSTAIN: 0.0 if total else 1.0}
    if not claim_verdicts:
        return ABSTAIN
    if rule == "strict":
        return next(label for label in (CONTRADICTED, UNSUPPORTED, SUPPORTED) if label in claim_verdicts)
    return Counter(claim_verdicts).most_common(1)[0][0]


@dataclass(frozen=True)
class Flag:
    """One finding on the matrix with its evidence.

    `argument`: the argument row concerned (for an unsupported claim, its closest argument);
    `claims`: the claims concerned (a repetition names the claim credited with the argument,
    then the repeat); `similarity`: the cosine that decided it; `part`: for a perspective
    confusion, the perspective whose part holds the claim.
    """

    kind: str
    argument: int | None
    claims: tuple[int, ...]
    similarity: float
    part: int | None = None


def flags(assessment: Assessment) -> list[Flag]:
    """Coverage errors, unsupported claims, repetitions, perspective confusions, in that order."""
    alignment, settings = assessment.alignment, assessment.settings
    if not alignment.arguments:
        return []
    found: list[Flag] = []
    coverage = assessment.coverage
    checked = assessment.checked
    for row in range(len(alignment.arguments)):
        if coverage[row] < settings.match:
            # The evidence is the closest checked claim, credited or not (e.g. voiced in the wrong part).
            closest = (int(checked[alignment.similarity[row, checked].argmax()]),) if len(checked) else ()
            found.append(Flag(COVERAGE_ERROR, row, closest, float(coverage[row])))
    support, raw_best = assessment.support, alignment.raw_best_argument
    confused = set(assessment.out_of_part)
    repeated = _repetitions(assessment)
    explained = confused | {f.claims[-1] for f in repeated}
    for c in checked:
        if support[c] < settings.match and int(c) not in explained:
            found.append(Flag(UNSUPPORTED_CLAIM, int(raw_best[c]), (int(c),), float(support[c])))
    found.extend(repeated)
    for c in assessment.out_of_part:
        found.append(
            Flag(
                PERSPECTIVE_CONFUSION,
                int(raw_best[c]),
                (c,),
                float(alignment.raw_support[c]),
                part=int(assessment.parts[c]),
            )
        )
    return found


def _repetitions(assessment: Assessment) -> list[Flag]:
    """Claims that restate another claim voicing the same argument.

    Claim j repeats claim i when i took the argument sentence that j also matches
    (`Settings.exclusive`), or when both match the same argument best, i is supported, and the
    two claims are at least `Settings.repetition` similar: a restatement in new words often
    matches the argument itself below the match threshold, but still matches the claim it repeats.
    """
    alignment, settings = assessment.alignment, assessment.settings
    support, raw_best = assessment.support, alignment.raw_best_argument
    row_of = {key: row for row, key in enumerate(alignment.arguments)}
    out_of_part = set(assessment.out_of_part)
    checked = assessment.checked
    found = []
    for j in (int(c) for c in checked):
        if j in out_of_part:
            continue
        if j in assessment.lost_to:
            i, unit = assessment.lost_to[j]
            row = row_of[(alignment.units[unit].perspective, alignment.units[unit].argument)]
            found.append(Flag(REPETITION, row, (i, j), float(alignment.unit_similarity[unit, j])))
            continue
        for i in (int(c) for c in checked if c < j):
            if (
                raw_best[i] == raw_best[j]
                and support[i] >= settings.match
                and support[j] < settings.match
                and alignment.claims[i].sentence != alignment.claims[j].sentence
                and alignment.claim_similarity[i, j] >= settings.repetition
            ):
                found.append(Flag(REPETITION, int(raw_best[j]), (i, j), float(alignment.claim_similarity[i, j])))
                break
    return found
