"""Meaning check: each argument judged, by meaning, against the pieces of the answer that may state it.

Similarity cannot tell "this system increases voter engagement" from "this system decreases
voter engagement": both are close to the argument "Increasing voter engagement", and every
detector built on closeness calls both supported. Here a judge reads each argument beside a
piece of the answer and says whether the piece *states* it, *misstates* it (its meaning turned)
or leaves it *absent* (`explorer.detectors.ops.judge`). Not in the paper; RefChecker's three
verdicts, per argument.

1. The pieces are the answer's `explorer.text.claims.candidate_spans` (its clauses cut at
   commas, semicolons and colons, and its sentences); each argument is shown its `SHORTLIST`
   closest pieces by the tuned matcher.
2. An argument is stated to the degree the best of its `COVERING` closest pieces states it:
   `stated(a) = max_c P(states | a, c)`; its coverage error is `1 - stated(a)`. An argument they
   state less than `FURTHER` is read beside every other piece (`piece_spans`) too, and the best
   of those counts as well: in a long answer over many arguments the piece that states one is
   often not among its closest (a table cell, a lead-in list's item), and the argument read as
   dropped is the one a reader finds stated. Only the statement goes further, not the test of a
   misstatement (3): a far piece read as stating an argument its close piece turns is more often
   a neighbour misread than a second, faithful statement.
3. A piece of the whole shortlist misstates an argument when the judge says so, no piece of the
   shortlist states the argument, and the piece does not faithfully state another argument (an
   answer that gives both "X raises costs" and "X does not raise costs", each a given argument,
   misstates neither):
   `misstated(a) = (1 - max_c P(states | a, c)) · max_c P(misstates | a, c) · (1 - max_{b != a} P(states | b, c))`.
   Misstatements are looked for further than statements: a turned clause is often not among an
   argument's four closest pieces (its sentence or a topical neighbour is), while a statement
   found further away is mostly a neighbour misread as stating it, which hides dropped arguments
   (`bench/turned_losses.py`; docs/development/models.md, meaning v3).
4. Each argument's finding is the largest of stated, misstated and absent (`1 - stated -
   misstated`), with its piece; a misstatement's turning words come from the judge by occlusion.
5. A piece found misstating two arguments or more is read again, each of its conjuncts joined
   by "and" (`explorer.text.claims.conjunct_spans`) beside each argument it misstated, and the
   findings are drawn again: read whole, "X cuts A and gives B a voice" misstates both arguments
   when one is turned, and its conjuncts tell which. A piece misstating one argument is not
   read again: a negation's scope spans its conjuncts ("X does not raise A and cut B"), and a
   conjunct read alone would clear a turned argument (tried: dev_v3 hallucination R 78.1 -> 76.4,
   coverage R 71.2 -> 68.2).

Scores: hallucination is the most misstated argument's `misstated`, coverage per perspective its
worst argument's coverage error. A response word inside a misstating piece scores `misstated`
times its turning score; an argument word its argument's coverage error. `details.FINDINGS` keeps
every argument's finding for Inspect and the claim view.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from explorer.data.example import Example
from explorer.detectors import details
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.ops.alignment import TooLongError, argument_units, fitted, texts_of_units
from explorer.detectors.ops.judge import MISSTATES, STATES, Judge, PairTooLongError, judge_identity, shipped_judge
from explorer.detectors.ops.recent import RecentResults
from explorer.detectors.semantic_tuned import tuned_encoder
from explorer.models.encoder import SentenceEncoder
from explorer.models.trained import TrainedNotFoundError
from explorer.text.claims import Span, candidate_spans, conjunct_spans, piece_spans
from explorer.text.words import DEFAULT_SEGMENTER

SHORTLIST = 8  # pieces the judge reads per argument, closest first (module docstring, 1 and 3)
COVERING = 4  # of them, the closest ones whose statement covers the argument (module docstring, 2)
FURTHER = 0.3  # an argument they state less is read beside every piece (module docstring, 2)
TURNING = 0.3  # a misstatement at least this likely gets its turning words


def _findings(
    example: Example, pieces: Sequence[Span], shortlist: dict, covering: dict, probabilities: dict
) -> list[dict]:
    """Every argument's finding (module docstring, 2-4), without turning words; `covering` holds,
    per argument, the columns of its shortlist whose statement covers it."""
    states_of_piece: dict[tuple[int, tuple[int, int]], float] = {
        (c, key): probabilities[(key, c)][STATES] for key, columns in shortlist.items() for c in columns
    }
    found = []
    for p, a, _ in example.arguments():
        key = (p, a)
        columns = shortlist[key]
        if not columns:
            found.append({"argument": [p, a], "finding": "absent", "stated": 0.0, "misstated": 0.0, "piece": None})
            continue
        stated_by = max(covering[key], key=lambda c: probabilities[(key, c)][STATES])
        stated = float(probabilities[(key, stated_by)][STATES])
        stated_anywhere = max(float(probabilities[(key, c)][STATES]) for c in columns)

        def misstating(c: int, key: tuple[int, int] = key) -> float:
            others = [v for (column, other), v in states_of_piece.items() if column == c and other != key]
            return float(probabilities[(key, c)][MISSTATES]) * (1 - max(others, default=0.0))

        misstated_by = max(columns, key=misstating)
        misstated = (1 - stated_anywhere) * misstating(misstated_by)
        scores = {"states": stated, "misstates": misstated, "absent": max(0.0, 1 - stated - misstated)}
        finding = max(scores, key=scores.get)
        piece = {"states": stated_by, "misstates": misstated_by, "absent": stated_by}[finding]
        found.append(
            {
                "argument": [p, a],
                "finding": finding,
                "stated": round(stated, 6),
                "misstated": round(misstated, 6),
                "piece": list(pieces[piece]),
                "probabilities": [round(float(v), 6) for v in probabilities[(key, piece)]],
            }
        )
    return found


def _with_conjuncts(response: str, pieces: Sequence[Span], shortlist: dict, covering: dict, misstated: list[dict]):
    """`pieces`, `shortlist` and `covering` with each misstating piece's conjuncts
    (`conjunct_spans`) added, for the argument it misstates only: a conjunct covers the argument
    as a shortlisted piece does."""
    pieces = list(pieces)
    shortlist = {key: list(columns) for key, columns in shortlist.items()}
    covering = {key: list(columns) for key, columns in covering.items()}
    for finding in misstated:
        key = tuple(finding["argument"])
        for conjunct in conjunct_spans(response, tuple(finding["piece"])):
            if conjunct not in pieces:
                pieces.append(conjunct)
            if (column := pieces.index(conjunct)) not in shortlist[key]:
                shortlist[key].append(column)
                covering[key].append(column)
    return pieces, shortlist, covering


class MeaningDetector(Detector):
    name = "meaning"
    title = "Meaning check (judge)"
    # 2: a misstating piece read again conjunct by conjunct; 3: eight pieces an argument;
    # 4: an argument its closest pieces do not state read beside every piece
    version = "4"
    kept = (details.FINDINGS.key,)
    remembered = 256

    def __init__(
        self,
        *,
        encoder: SentenceEncoder | None = None,
        judge: Judge | None = None,
        adapter_dir: str | Path | None = None,
    ):
        self.encoder = encoder or tuned_encoder(adapter_dir)
        if judge is None:
            try:
                judge = shipped_judge()
            except TrainedNotFoundError as error:
                raise DetectorError(str(error)) from error
        self.judge = judge
        self._recent = RecentResults(self.remembered)

    def model_identity(self) -> str:
        return f"{judge_identity(self.judge)}; matcher {self.encoder.identity()}"

    def prepare(self, examples: Sequence[Example]) -> None:
        texts: list[str] = []
        for example in examples:
            try:
                pieces, units = self._units(example)
            except DetectorError:
                continue  # refused again, with its reason, when scored
            texts += [example.response[s:e] for s, e in pieces] + texts_of_units(example, units)
        self.encoder.encode(texts)

    def _units(self, example: Example):
        try:
            pieces = fitted(self.encoder, example.response, candidate_spans(example.response))
            units = [u for u in argument_units(example, self.encoder) if u.is_sentence]
        except TooLongError as error:
            raise DetectorError(str(error)) from error
        return pieces, units

    def shortlist(self, example: Example, pieces: Sequence[Span], units) -> dict[tuple[int, int], list[int]]:
        """Per argument, the indices of the `SHORTLIST` pieces the tuned matcher finds closest."""
        arguments = [(p, a) for p, a, _ in example.arguments()]
        if not pieces or not units:
            return {key: [] for key in arguments}
        similarity = np.full((len(arguments), len(pieces)), -1.0)
        row_of = {key: r for r, key in enumerate(arguments)}
        unit_vectors = self.encoder.encode(texts_of_units(example, units))
        piece_vectors = self.encoder.encode([example.response[s:e] for s, e in pieces])
        for unit, row in zip(units, unit_vectors @ piece_vectors.T):
            r = row_of[(unit.perspective, unit.argument)]
            similarity[r] = np.maximum(similarity[r], row)
        return {key: [int(c) for c in np.argsort(-similarity[r])[:SHORTLIST]] for key, r in row_of.items()}

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        return self._recent.get(example, self._score)

    def _score(self, example: Example) -> DetectorResult:
        pieces, units = self._units(example)
        shortlist = self.shortlist(example, pieces, units)
        texts = {(p, a): text for p, a, text in example.arguments()}
        probabilities = self._judged(example, texts, pieces, shortlist)
        covering = {key: columns[:COVERING] for key, columns in shortlist.items()}
        findings = _findings(example, pieces, shortlist, covering, probabilities)
        misstated = [f for f in findings if f["finding"] == "misstates"]
        shared = Counter(tuple(f["piece"]) for f in misstated)
        misstated = [f for f in misstated if shared[tuple(f["piece"])] > 1]
        if misstated:  # read again conjunct by conjunct (module docstring, 5)
            pieces, shortlist, covering = _with_conjuncts(example.response, pieces, shortlist, covering, misstated)
            probabilities = self._judged(example, texts, pieces, shortlist, probabilities)
            findings = _findings(example, pieces, shortlist, covering, probabilities)
        unstated = [tuple(f["argument"]) for f in findings if f["piece"] is not None and f["stated"] < FURTHER]
        if unstated:  # read beside every piece (module docstring, 2)
            every = set(fitted(self.encoder, example.response, piece_spans(example.response)))
            further = [c for c, span in enumerate(pieces) if span in every]
            for key in unstated:
                covering[key] = covering[key] + [c for c in further if c not in covering[key]]
            probabilities = self._judged(example, texts, pieces, covering, probabilities)
            findings = _findings(example, pieces, shortlist, covering, probabilities)
        response_words: dict[tuple[int, int], float] = {}
        for finding in findings:
            if finding["finding"] != "misstates" or finding["misstated"] < TURNING:
                continue
            p, a = finding["argument"]
            start, end = finding["piece"]
            in_argument, in_piece = self.judge.turning_words(texts[(p, a)], example.response[start:end])
            finding["turning"] = {
                "response": [[start + s, start + e, round(v, 6)] for s, e, v in in_piece if v > 0],
                "argument": [[s, e, round(v, 6)] for s, e, v in in_argument if v > 0],
            }
            for s, e, v in in_piece:
                word = (start + s, start + e)
                response_words[word] = max(response_words.get(word, 0.0), finding["misstated"] * v)
        return self._result(example, findings, response_words)

    def _judged(
        self, example: Example, texts: dict, pieces: Sequence[Span], shortlist: dict, known: dict | None = None
    ) -> dict:
        """The judge's probabilities of every (argument, piece) `shortlist` pairs, `known` ones kept."""
        known = known or {}
        asked = [(key, c) for key, columns in shortlist.items() for c in columns if (key, c) not in known]
        try:
            found = self.judge.probabilities([(texts[key], example.response[slice(*pieces[c])]) for key, c in asked])
        except PairTooLongError as error:
            raise DetectorError(str(error)) from error
        return {**known, **dict(zip(asked, found))}

    def _result(self, example: Example, findings: list[dict], response_words: dict) -> DetectorResult:
        errors = {tuple(f["argument"]): 1 - f["stated"] for f in findings}
        per_perspective = {
            perspective.name: max((errors[(p, a)] for a in range(len(perspective.arguments))), default=0.0)
            for p, perspective in enumerate(example.perspectives)
        }
        return DetectorResult(
            detector=self.name,
            hallucination=max((f["misstated"] for f in findings), default=0.0),
            coverage=max(per_perspective.values(), default=0.0),
            per_perspective=per_perspective,
            response_words=tuple(
                ResponseWordScore(w.start, w.end, response_words.get((w.start, w.end), 0.0))
                for w in DEFAULT_SEGMENTER.content_words(example.response)
            ),
            argument_words=tuple(
                ArgumentWordScore(p, a, w.start, w.end, errors[(p, a)])
                for p, a, text in example.arguments()
                for w in DEFAULT_SEGMENTER.content_words(text)
            ),
            info=self.info(),
            details={details.FINDINGS.key: findings},
        )
