"""A stacked detector: a logistic regression over the example scores of twelve fast detectors.

Not in the paper. No single detector is best at both error types on answers written outside
the team: the token tagger (`tagger`) finds invented content inside fluent sentences; ROUGE-1,
the alignments (plain MiniLM `semantic`, the tuned matcher's `semantic_tuned` and the
classifier reading it, `alignment_classifier_tuned`) and the tagger's coverage build
(`tagger_coverage`) find dropped arguments, and the matching check (`matching`) those that only
resemble a piece of the answer another argument states better; the voice check (`voice`) finds given arguments stated in
the other side's voice and the qualifier check (`qualifiers`) given arguments stated with more
certainty, which every support detector passes; the polarity check (`polarity`) and the meaning
check's judge (`meaning`) read whether a given argument is stated with its meaning turned; the
invention check (`invention`) finds pieces that say something and state no argument faithfully
(a background fact, a rebuttal, a conclusion that takes a side). Stacking (Wolpert
1992) learns how much each signal counts from labelled examples instead of picking one.

Per error type, P(error) is the logistic function of standardized example-level features, each
component's hallucination and coverage scores (the feature set and C chosen on the foreign NPOV
dev set by `python -m explorer.cli.stacked`). The heads are fitted on the half of Perspectrum train's
claims (and of the team-written corpus's) that the taggers never trained on
(`explorer.training.data.claim_half`), so the head learns how far to trust the tagger on unseen
text; they learn from answers that carry both errors at once, so that one error type's signal
does not veto the other's. A perspective's coverage error is the coverage model applied with
that perspective's component scores in place of the example's. A misstatement the meaning check
is sure of (`SURE`) sets a floor under both P(error)s and its perspective's: a turned argument
keeps the argument's words, so the closeness signals the heads weigh most call it supported; and
its doubt that an argument is stated joins P(coverage error) (`DOUBT`), as does the likeliest
dropped argument's P(dropped) by a head that reads each argument's own word scores beside the
answer's size (`explorer.detectors.ops.argument_head`, `ARGUMENT_WEIGHT`); its misstatement
joins P(hallucination) (`MISSTATED_WEIGHT`).

Word scores are not learned: response words come from `RESPONSE_WORDS`, each raised to the
`RAISED_BY` components' scores of the same word where those are higher, argument words from `ARGUMENT_WORDS`
(chosen by word-level ROC AUC on the foreign dev set; see `explorer eval`);
the result keeps the tuned matcher's alignment (its claims) in `details` for the claim view, and
the `FINDINGS` component's findings (each argument stated, misstated or absent) where it is run,
for the cards under the verdict.
The taggers read at most 512 word pieces of arguments per window and refuse arguments longer
than that; without them the head still scores (its features at their training mean) and the
word scores come from `FALLBACK_WORDS`. `details.EVIDENCE` says what each component's score
added to the log-odds of each error type (`evidence`), which Inspect and the report show under
the verdict. The model is about a kilobyte of JSON per error type (`explorer/resources/stacked/<error type>/`), the
argument head a few more beside the coverage head.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from explorer.data.example import Example
from explorer.data.labels import ERROR_TYPES
from explorer.detectors import details
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.ops import argument_head
from explorer.detectors.ops.explained import at_least, joined
from explorer.detectors.ops.logistic_head import LogisticHead

COMPONENTS = (
    "rouge",
    "semantic",
    "semantic_tuned",
    "alignment_classifier_tuned",
    "tagger",
    "tagger_coverage",
    "matching",
    "voice",
    "qualifiers",
    "polarity",
    "meaning",
    "invention",
)
FEATURES = tuple(f"{component} {error_type}" for component in COMPONENTS for error_type in ERROR_TYPES)
# The components that check how a given argument is stated (by which side, how firmly) rather than
# whether it is: the coverage head (v7's, kept) reads every feature but theirs.
CHECKS = ("voice", "qualifiers", "polarity")
# Those that refuse an example they cannot read whole (arguments too long for their encoder's
# positions beside the response): the head scores without them.
OPTIONAL = ("tagger", "tagger_coverage", "meaning", "invention")
RESPONSE_WORDS = "tagger"
# A response word the voice check finds stated in the wrong camp's voice, or the polarity check
# finds turning a given argument, keeps the higher of the scores: the tagger finds its words
# given, and they are (by the other side, or with the opposite meaning).
RAISED_BY = ("voice", "polarity")
# Whose findings (each argument stated, misstated or absent) the verdict keeps, for the cards under
# it: the meaning check's, a card on a tenth of faithful dev.jsonl answers and none of dev_v3's; the
# polarity check's would show on a third or more (`bench/cards.py`).
FINDINGS = "meaning"
# A misstatement the meaning check is this sure of sets a floor under both P(error)s: a turned
# argument keeps the argument's words, so every closeness signal the heads weigh calls it
# supported and no head learns to trust the judge over them (v12's heads give it little weight).
# A misstated argument is both errors (a statement not provided, an argument not given). Chosen
# on the three selection sets' worst slices (`bench/floor.py`, docs/development/models.md, v13 and
# v17): with the rank-64 judge (v17) a floor at .85 costs dev.jsonl's hallucination 2.6 points on
# its paraphrased slice and Perspectrum dev 1.3 / 1.0, at .95 Perspectrum dev still .5 / .4; at .97
# no set loses (the judge's misstatement joins P(hallucination) instead, `MISSTATED_WEIGHT`).
SURE = 0.97
# The meaning check's doubt that an argument is stated (its coverage score) joins the coverage
# head's P(error) by noisy-or, `1 - (1 - P) (1 - DOUBT · doubt)`: in long answers over many
# arguments the closeness signals the head weighs most find every argument near some piece, and the
# head, fitted mostly on short answers, gives the judge little weight (.12 of 1.3). Chosen on the
# three selection sets' worst slices (docs/development/models.md, v15): at .25 each holds or gains
# (dev_v3's R 60.1 -> 68.6 before the floor), at .3 Perspectrum dev loses .3, at .15 dev_v3 gains less;
# beside the argument head (v16) .2, where each worst slice holds at `ARGUMENT_WEIGHT`.
DOUBT = 0.2
# The argument head's likeliest dropped argument's P(dropped) joins P(coverage error) the same way
# (`explorer.detectors.ops.argument_head`; a perspective's, its likeliest dropped argument's).
# Chosen with `DOUBT` on the three selection sets' worst slices (`bench/argument_head.py`,
# docs/development/models.md, v16): at .35 with the doubt at .2 each holds or gains and dev_v3's C
# gains 2.8; at .5 with the doubt at .25 dev.jsonl's full organic reaches 93.0 but Perspectrum dev
# loses .2.
ARGUMENT_WEIGHT = 0.35
# The meaning check's misstatement (its hallucination score) joins the hallucination head's P(error)
# the same way: the head, fitted where most hallucinations are invented content, gives the judge no
# weight. Chosen on the three selection sets' worst slices with the rank-64 judge (`bench/joins.py`,
# docs/development/models.md, v17): at .15 each holds or gains (dev_v3's R 65.8 -> 72.6), at .2
# dev_v3's S1 loses, at .3 Perspectrum dev loses .7.
MISSTATED_WEIGHT = 0.15
DOUBTED_BY = "meaning"
ARGUMENT_WORDS = "tagger"
FALLBACK_WORDS = "semantic_tuned"
ALIGNMENT = "semantic_tuned"  # whose claims the claim view reads


def feature_row(results: Mapping[str, DetectorResult], perspective: str | None = None) -> np.ndarray:
    """`FEATURES` of one example from its components' results; with `perspective`, the coverage
    features are that perspective's. A component without a result gives NaN features."""
    row = []
    for component in COMPONENTS:
        result = results.get(component)
        for error_type in ERROR_TYPES:
            if result is None:
                row.append(np.nan)
            elif error_type == "coverage" and perspective is not None:
                row.append(result.per_perspective[perspective])
            else:
                row.append(result.score(error_type))
    return np.asarray(row, dtype=np.float64)


def _head_row(head: LogisticHead, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The head's own columns of a row of all `FEATURES` (by name), as given and with each missing
    (NaN) feature at its training mean, so that it moves the logit neither way."""
    chosen = row[[FEATURES.index(name) for name in head.features]]
    return chosen, np.where(np.isnan(chosen), head.mean, chosen)


def p_error(head: LogisticHead, row: np.ndarray) -> float:
    """P(error) of one row of all `FEATURES`; a missing feature takes its training mean."""
    return float(head.p_error(_head_row(head, row)[1]))


def evidence(head: LogisticHead, row: np.ndarray) -> dict:
    """What each feature adds to the head's log-odds on `row` (`LogisticHead.pushes`; a missing
    feature adds 0), largest first: the pushes plus `intercept` are the logit of P(error)."""
    chosen, filled = _head_row(head, row)
    features = [
        {"feature": name, "value": None if np.isnan(value) else float(value), "push": float(push)}
        for name, value, push in zip(head.features, chosen, head.pushes(filled))
    ]
    return {"intercept": head.intercept, "features": sorted(features, key=lambda f: -abs(f["push"]))}


def raised(
    words: Sequence[ResponseWordScore], by: Iterable[Iterable[ResponseWordScore]]
) -> tuple[ResponseWordScore, ...]:
    """`words`, each at the highest of its score and `by`'s scores of the same word."""
    higher: dict[tuple[int, int], float] = {}
    for scored in by:
        for w in scored:
            higher[(w.start, w.end)] = max(w.score, higher.get((w.start, w.end), 0.0))
    return tuple(ResponseWordScore(w.start, w.end, max(w.score, higher.get((w.start, w.end), 0.0))) for w in words)


def sure_misstatements(results: Mapping[str, DetectorResult]) -> list[Mapping]:
    """The `FINDINGS` component's misstatements of at least `SURE` P(misstated), surest first."""
    found = details.misstatements(results.get(FINDINGS))
    return [f for f in found if f["misstated"] >= SURE]


def doubted(p: float, result: DetectorResult | None, perspective: str | None = None) -> float:
    """`p` joined with the `DOUBTED_BY` result's coverage score (its `perspective`'s, where
    named); `p` where that component did not read the example."""
    if result is None:
        return p
    return joined(p, result.coverage if perspective is None else result.per_perspective[perspective], DOUBT)


def misstated(p: float, result: DetectorResult | None) -> float:
    """`p` joined with the `DOUBTED_BY` result's hallucination score (its misstatement); `p` where
    that component did not read the example."""
    return p if result is None else joined(p, result.hallucination, MISSTATED_WEIGHT)


def _floor(finding: Mapping) -> dict:
    return {"misstated": finding["misstated"], "argument": list(finding["argument"]), "by": FINDINGS}


def floored(
    example: Example, results: Mapping[str, DetectorResult], argument_words: Sequence[ArgumentWordScore]
) -> tuple[dict, dict, tuple[ResponseWordScore, ...], tuple[ArgumentWordScore, ...]]:
    """What the sure misstatements (`SURE`) set: the floor per error type and per perspective (the
    surest one's P(misstated) and argument), the `FINDINGS` component's scores of the words of
    their pieces, and each misstated argument's words at least at its P(misstated), so that the
    verdict points at the statement and the argument it turns."""
    sure = sure_misstatements(results)
    if not sure:
        return {}, {}, (), tuple(argument_words)
    floors = {error_type: _floor(sure[0]) for error_type in ERROR_TYPES}
    by_perspective: dict[str, dict] = {}
    level: dict[tuple[int, int], float] = {}
    for f in sure:  # surest first: each key keeps its surest
        by_perspective.setdefault(example.perspectives[f["argument"][0]].name, _floor(f))
        level.setdefault(tuple(f["argument"]), f["misstated"])
    pieces = [f["piece"] for f in sure]
    words = tuple(w for w in results[FINDINGS].response_words if any(s <= w.start and w.end <= e for s, e in pieces))
    arguments = tuple(
        dataclasses.replace(w, score=max(w.score, level.get((w.perspective, w.argument), 0.0))) for w in argument_words
    )
    return floors, by_perspective, words, arguments


def read_components(heads: Iterable[LogisticHead]) -> tuple[str, ...]:
    """The components a stacked result reads: its heads' features and the sources of its words and
    claims. A component neither head kept is not run: its features would carry no weight, and the
    plain alignment alone, which v11's heads do not read, was 13% of a 300-word answer's time."""
    used = {feature.split()[0] for head in heads for feature in head.features}
    used.update((RESPONSE_WORDS, ARGUMENT_WORDS, FALLBACK_WORDS, ALIGNMENT, *RAISED_BY))
    return tuple(name for name in COMPONENTS if name in used)


def load(directory: Path) -> LogisticHead:
    head = LogisticHead.load(directory)
    unknown = [name for name in head.features if name not in FEATURES]
    if unknown:
        raise ValueError(f"{directory} was trained on features this version does not compute ({', '.join(unknown)})")
    return head


def components_identity(components: Mapping[str, Detector]) -> str:
    """What a stacked model was trained on: each component's name, version and model."""
    return "; ".join(
        f"{name} v{components[name].version}" + (f" ({m})" if (m := components[name].model_identity()) else "")
        for name in COMPONENTS
    )


def create_components() -> dict[str, Detector]:
    from explorer import detectors

    return {name: detectors.create(name) for name in COMPONENTS}


class StackedDetector(Detector):
    name = "stacked"
    # 2: the Perspectrum-trained cross-encoder joins the components; 3: the tuned alignment classifier;
    # 4: the token tagger replaces the cross-encoder, heads fitted on the team-written corpus too;
    # 5: the tagger's coverage build joins the components; 6: which reads both argument orders (v2);
    # 7: the tagger does too (v2); 8: the voice check joins the components and raises response words;
    # 9: the qualifier check joins them; 10: the matching check; 11: the polarity check, the heads fitted
    # on both recipes of the team-written corpus and chosen on both foreign dev sets and Perspectrum dev;
    # 12: the meaning check joins the components; 13: its sure misstatements set a floor (`SURE`);
    # 14: the invention check joins the components; 15: the meaning check's doubt joins P(coverage error) (`DOUBT`);
    # 16: so does the argument head's likeliest dropped argument (`ARGUMENT_WEIGHT`); 17: the rank-64
    # judge, the heads refitted on its scores, its misstatement joins P(hallucination) (`MISSTATED_WEIGHT`)
    version = "17"

    def __init__(
        self,
        *,
        components: Mapping[str, Detector] | None = None,
        models: Mapping[str, LogisticHead] | None = None,
        arguments: LogisticHead | None = None,
    ):
        """`models`: the heads by error type, the shipped (or the user's) where not given; `arguments`:
        the argument head, the one beside the coverage head loaded where that is not given."""
        from explorer.detectors import weights
        from explorer.models.trained import TrainedNotFoundError

        try:
            self.components = dict(components or create_components())
            self.models = dict(models or {})
            for error_type in ERROR_TYPES:
                if error_type not in self.models:
                    folder = weights(self.name).find(self.model_identity(), error_type)
                    self.models[error_type] = load(folder)
                    if error_type == "coverage" and arguments is None:
                        arguments = argument_head.load(folder)
        except TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.arguments = arguments
        self.read = read_components([*self.models.values(), *([arguments] if arguments else [])])

    def config(self) -> dict:
        # The weights' digest: results and calibrations of a retrained model are not mixed up.
        heads = {error_type: model.to_dict() for error_type, model in sorted(self.models.items())}
        if self.arguments is not None:
            heads["arguments"] = self.arguments.to_dict()
        weights = json.dumps(heads, sort_keys=True)
        return {
            "weights": hashlib.sha256(weights.encode()).hexdigest()[:16],
            "response_words": RESPONSE_WORDS,
            "raised_by": list(RAISED_BY),
            "argument_words": ARGUMENT_WORDS,
            "alignment": ALIGNMENT,
            "sure": SURE,
            "doubt": DOUBT,
            "argument_weight": ARGUMENT_WEIGHT if self.arguments is not None else None,
            "misstated_weight": MISSTATED_WEIGHT,
            # The alignment kept in `details` was read with these (`explorer.detectors.semantic.assessment_of`).
            "settings": self.components[ALIGNMENT].config().get("settings", {}),
        }

    def model_identity(self) -> str:
        return components_identity(self.components)

    def parts(self) -> Mapping[str, Detector]:
        # `model_identity` names each component's version and model, not its settings or a
        # learned head's weights (the tuned alignment classifier's), which change its scores too.
        return self.components

    def prepare(self, examples: Sequence[Example]) -> None:
        for name in self.read:
            self.components[name].prepare(examples)

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        results, missing = {}, {}
        for name in self.read:
            try:
                results[name] = self.components[name].score(example)
            except DetectorError as error:
                if name not in OPTIONAL:
                    raise
                missing[name] = str(error)
        return self.combine(example, results, missing)

    def combine(
        self, example: Example, results: Mapping[str, DetectorResult], missing: Mapping[str, str] | None = None
    ) -> DetectorResult:
        """The stacked result from the components' results on `example`; `missing` names the
        optional components that could not read it (their features take the training mean)."""
        row = feature_row(results)
        coverage = self.models["coverage"]
        alignment = details.ALIGNMENT.of(results[ALIGNMENT])
        floors, perspective_floors, sure_words, argument_words = floored(
            example, results, results.get(ARGUMENT_WORDS, results[FALLBACK_WORDS]).argument_words
        )
        response_words = raised(
            results.get(RESPONSE_WORDS, results[FALLBACK_WORDS]).response_words,
            [*(results[name].response_words for name in RAISED_BY), sure_words],
        )
        findings = details.FINDINGS.of(results[FINDINGS]) if FINDINGS in results else None

        evidence_of = {error_type: evidence(self.models[error_type], row) for error_type in ERROR_TYPES}
        for error_type, floor in floors.items():
            evidence_of[error_type]["floor"] = floor
        doubter = results.get(DOUBTED_BY)
        if doubter is not None:
            evidence_of["coverage"]["doubt"] = {"by": DOUBTED_BY, "doubt": doubter.coverage, "weight": DOUBT}
            evidence_of["hallucination"]["misstated"] = {
                "by": DOUBTED_BY,
                "misstated": doubter.hallucination,
                "weight": MISSTATED_WEIGHT,
            }
        dropped = argument_head.dropped(self.arguments, example, results) if self.arguments is not None else {}
        if dropped:
            (p, a), likeliest = max(dropped.items(), key=lambda item: item[1])
            evidence_of["coverage"]["argument"] = {
                "argument": [p, a],
                "name": example.argument_name(p, a),
                "dropped": likeliest,
                "weight": ARGUMENT_WEIGHT,
            }

        def argued_in(p: float, perspective: int | None = None) -> float:
            found = [v for (q, _), v in dropped.items() if perspective is None or q == perspective]
            return joined(p, max(found), ARGUMENT_WEIGHT) if found else p

        return DetectorResult(
            detector=self.name,
            hallucination=at_least(
                misstated(p_error(self.models["hallucination"], row), doubter), floors.get("hallucination")
            ),
            coverage=at_least(argued_in(doubted(p_error(coverage, row), doubter)), floors.get("coverage")),
            per_perspective={
                p.name: at_least(
                    argued_in(doubted(p_error(coverage, feature_row(results, p.name)), doubter, p.name), i),
                    perspective_floors.get(p.name),
                )
                for i, p in enumerate(example.perspectives)
            },
            response_words=response_words,
            argument_words=argument_words,
            info=self.info(),
            # The claims behind the claim view, for it and for reports.
            details={
                **({details.ALIGNMENT.key: alignment} if alignment is not None else {}),
                **({details.LEFT_OUT.key: dict(missing)} if missing else {}),
                **({details.FINDINGS.key: findings} if findings is not None else {}),
                # Why the example scores as it does, for the verdict's explanation.
                details.EVIDENCE.key: evidence_of,
            },
        )
