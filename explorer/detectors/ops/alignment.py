"""The argument x claim alignment: claims, evidence units and their cosine similarities.

`Alignment` (raw, from the encoder) holds one example's claims (`explorer.text.claims`), the
arguments' evidence units (their sentences, and the clauses of those) and cosine similarities:

    unit_similarity   (n_units, n_claims)      every evidence unit against every claim
    similarity        (n_arguments, n_claims)  best *sentence* of each argument per claim
    evidence          (n_arguments, n_claims)  index into `units` of that sentence
    claim_similarity  (n_claims, n_claims)     claims against each other
    query_similarity  (n_claims,)              claims against the query

Reading it (support, coverage, verdicts, flags) is `explorer.detectors.ops.assessment`.

A pair (argument, claim) *matches* when its similarity reaches `Settings.match`. An
`Alignment` serializes to JSON (`to_dict`), so the claim view is drawn from a cached detector
result without the model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy.optimize import linear_sum_assignment

from explorer.data.example import Example
from explorer.text.claims import Claim, Span, clause_spans, is_heading, sentence_spans


class Encoder(Protocol):
    max_tokens: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def fit(self, text: str, span: Span) -> list[Span]: ...

    def token_count(self, text: str) -> int: ...


# A claim this close to an argument sentence states that argument, loosely: well below `Settings.match`,
# since the voice and qualifier checks look for arguments stated in other words, by the wrong
# side or with a stronger claim. Read off the team-written corpus (Perspectrum train claims).
STATES = 0.5

# The claim x claim similarities grow with the square of the claims; at 1,000 claims they are
# still a small part of an alignment's memory (`bench/example_size.py`).
MAX_CLAIMS = 1_000


class TooLongError(ValueError):
    """A piece of text the encoder cannot read whole even after cutting at word boundaries, or
    a response of more than `MAX_CLAIMS` claims."""


def _check_claims(count: int) -> None:
    if count > MAX_CLAIMS:
        raise TooLongError(
            f"the response makes {count:,} claims (sentences or clauses); the alignment reads at most "
            f"{MAX_CLAIMS:,}: split it into several examples"
        )


@dataclass(frozen=True)
class Unit:
    """An evidence unit: a sentence of an argument (`clause is None`) or a clause of that sentence."""

    perspective: int
    argument: int
    start: int
    end: int
    sentence: int
    clause: int | None = None

    @property
    def is_sentence(self) -> bool:
        return self.clause is None


@dataclass(frozen=True)
class Settings:
    """How an alignment is read; the values were chosen on the sample data's train split
    (`bench/tune_semantic.py` prints the search).

    match: cosine at which a claim and an argument sentence say the same thing.
    repetition: cosine at which two claims voicing the same argument restate each other.
    framing: an opening or closing claim closer to the query than to every argument (the
        sentence that restates the question) frames the answer; it is neither checked nor credited.
    parts: when the response reads as one part per perspective, a claim is credited only by
        the arguments of the part it sits in (a pro argument voiced among the con arguments
        supports nothing and covers nothing).
    exclusive: an argument sentence that matches several claims credits none of those after
        the one it matches best, so a restatement is not supported by it again.
    """

    match: float = 0.67
    repetition: float = 0.69
    framing: bool = True
    parts: bool = True
    exclusive: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True, eq=False)
class Alignment:
    """Claims x evidence units of one example, with their cosine similarities (see module doc)."""

    claims: tuple[Claim, ...]
    arguments: tuple[tuple[int, int], ...]
    perspective_names: tuple[str, ...]
    units: tuple[Unit, ...]
    unit_similarity: np.ndarray
    claim_similarity: np.ndarray
    query_similarity: np.ndarray
    sentence_units: np.ndarray = field(init=False, repr=False, compare=False)
    similarity: np.ndarray = field(init=False, repr=False, compare=False)
    evidence: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n_arguments, n_claims = len(self.arguments), len(self.claims)
        similarity = np.full((n_arguments, n_claims), -1.0, dtype=np.float32)
        evidence = np.full((n_arguments, n_claims), -1, dtype=np.int64)
        row_of = {key: row for row, key in enumerate(self.arguments)}
        for u, unit in enumerate(self.units):
            if not unit.is_sentence or n_claims == 0:
                continue
            row = row_of[(unit.perspective, unit.argument)]
            better = self.unit_similarity[u] > similarity[row]
            similarity[row, better] = self.unit_similarity[u, better]
            evidence[row, better] = u
        object.__setattr__(self, "similarity", similarity)
        object.__setattr__(self, "evidence", evidence)

    # Best raw matches (before `Settings` decide what credits what) -------------------------

    @property
    def raw_support(self) -> np.ndarray:
        """Per claim, the best similarity over all arguments; shape `(n_claims,)`."""
        if not self.arguments or not self.claims:
            return np.zeros(len(self.claims), dtype=np.float32)
        return self.similarity.max(axis=0)

    @property
    def raw_best_argument(self) -> np.ndarray:
        """Per claim, the row (into `arguments`) of its best-matching argument; shape `(n_claims,)`."""
        if not self.arguments or not self.claims:
            return np.zeros(len(self.claims), dtype=np.int64)
        return self.similarity.argmax(axis=0)

    def localize(self, row: int, claim: int) -> Unit:
        """The span of argument `row` closest to `claim`: its best sentence, or a clause of it.

        Evidence localization (after RefChecker's localizer): the sentence that matches the
        claim best, narrowed to one of its clauses when that clause alone matches at least
        as well, e.g. a claim that voices only the second half of an argument.
        """
        perspective, argument = self.arguments[row]
        best = int(self.evidence[row, claim])
        for u, unit in enumerate(self.units):
            if (
                not unit.is_sentence
                and (unit.perspective, unit.argument) == (perspective, argument)
                and self.unit_similarity[u, claim] >= self.unit_similarity[best, claim]
            ):
                best = u
        return self.units[best]

    def units_of(self, perspective: int, argument: int) -> list[int]:
        return [u for u, unit in enumerate(self.units) if (unit.perspective, unit.argument) == (perspective, argument)]

    # Serialization --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "claims": [[c.start, c.end, c.sentence, c.clause] for c in self.claims],
            "arguments": [list(key) for key in self.arguments],
            "perspective_names": list(self.perspective_names),
            "units": [[u.perspective, u.argument, u.start, u.end, u.sentence, u.clause] for u in self.units],
            "unit_similarity": _rounded(self.unit_similarity),
            "claim_similarity": _rounded(self.claim_similarity),
            "query_similarity": _rounded(self.query_similarity),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], response: str) -> Alignment:
        claims = tuple(
            Claim(index=i, start=s, end=e, text=response[s:e], sentence=sentence, clause=clause)
            for i, (s, e, sentence, clause) in enumerate(data["claims"])
        )
        units = tuple(Unit(*row) for row in data["units"])
        return cls(
            claims=claims,
            arguments=tuple(tuple(key) for key in data["arguments"]),
            perspective_names=tuple(data["perspective_names"]),
            units=units,
            unit_similarity=np.asarray(data["unit_similarity"], dtype=np.float32).reshape(len(units), len(claims)),
            claim_similarity=np.asarray(data["claim_similarity"], dtype=np.float32).reshape(len(claims), len(claims)),
            query_similarity=np.asarray(data["query_similarity"], dtype=np.float32).reshape(len(claims)),
        )


def _rounded(matrix: np.ndarray) -> list:
    # Six decimals keep JSON small and round-trip every verdict: thresholds have two.
    return np.round(matrix.astype(np.float64), 6).tolist()


# Building an alignment ----------------------------------------------------------------------


def fitted(encoder: Encoder, text: str, spans: Sequence[Span]) -> list[Span]:
    """`spans` of `text`, each cut at word boundaries to what `encoder` reads whole; `TooLongError`
    where even one word does not fit."""
    pieces: list[Span] = []
    for span in spans:
        for piece in encoder.fit(text, span):
            if encoder.token_count(text[piece[0] : piece[1]]) > encoder.max_tokens:
                raise TooLongError(
                    f"the text at characters {piece[0]}-{piece[1]} is longer than the "
                    f"{encoder.max_tokens} word pieces the sentence encoder reads, even cut at word boundaries"
                )
            pieces.append(piece)
    return pieces


def argument_units(example: Example, encoder: Encoder) -> tuple[Unit, ...]:
    """Each argument's sentences, then the clauses of each sentence that has several."""
    units: list[Unit] = []
    for p, a, text in example.arguments():
        for s, sentence in enumerate(fitted(encoder, text, sentence_spans(text) or ((0, len(text)),))):
            units.append(Unit(p, a, *sentence, sentence=s))
            clauses = clause_spans(text, sentence)
            if len(clauses) > 1:
                units.extend(Unit(p, a, *clause, sentence=s, clause=c) for c, clause in enumerate(clauses))
    return tuple(units)


def texts_of_units(example: Example, units: Sequence[Unit]) -> list[str]:
    """The argument text each evidence unit spans."""
    texts = {(p, a): text for p, a, text in example.arguments()}
    return [texts[(u.perspective, u.argument)][u.start : u.end] for u in units]


def pair(similarity: np.ndarray) -> np.ndarray:
    """Per row of `similarity` (rows x columns: arguments x pieces, camps x perspectives), the
    column it is paired with under the one-to-one pairing of largest total similarity (the
    assignment problem, scipy's `linear_sum_assignment`); -1 where no column is left for it."""
    columns = np.full(similarity.shape[0], -1)
    rows, chosen = linear_sum_assignment(similarity, maximize=True)
    columns[rows] = chosen
    return columns


def _group_clauses(clause_rows: np.ndarray, clause_scores: np.ndarray, match: float) -> list[list[int]]:
    """Groups of consecutive clauses that voice one argument each.

    A clause that matches no argument stays with the clause before it (a trailing
    "which ..." belongs to what it qualifies); neighbours that match the same argument merge.
    """
    groups: list[list[int]] = []
    group_rows: list[int | None] = []
    for c, (row, score) in enumerate(zip(clause_rows, clause_scores)):
        row = int(row) if score >= match else None
        if groups and (row is None or group_rows[-1] in (None, row)):
            groups[-1].append(c)
            if group_rows[-1] is None:
                group_rows[-1] = row
        else:
            groups.append([c])
            group_rows.append(row)
    return groups


def _pieces(
    example: Example, encoder: Encoder
) -> tuple[tuple[Unit, ...], list[Span], list[list[Span]], list[str], list[str]]:
    """Evidence units, response sentences, each sentence's candidate clauses, and the texts of
    the units and of the clauses of sentences that have several."""
    response = example.response
    # A markdown heading ("### Arguments for") states nothing: no claim (`claims.is_heading`),
    # unless the response is nothing but headings.
    every = sentence_spans(response)
    sentences = tuple(span for span in every if not is_heading(response, span)) or every
    _check_claims(len(sentences))  # at least one claim a sentence: refuse before encoding anything
    units = argument_units(example, encoder)
    sentences = fitted(encoder, response, sentences)
    candidates = [clause_spans(response, sentence) for sentence in sentences]
    unit_texts = texts_of_units(example, units)
    clause_texts = [response[s:e] for clauses in candidates if len(clauses) > 1 for s, e in clauses]
    return units, sentences, candidates, unit_texts, clause_texts


def texts_to_encode(example: Example, encoder: Encoder) -> list[str]:
    """The texts `align` will encode for `example`, as far as they are known before encoding:
    evidence units, candidate clauses, the query and the response's sentences (a claim is a
    whole sentence unless its clauses voice different arguments). Encoding many examples'
    texts in one call (`SemanticDetector.prepare`) is several times faster than one example
    at a time. Raises `TooLongError` like `align`."""
    response = example.response
    _, sentences, _, unit_texts, clause_texts = _pieces(example, encoder)
    return [*unit_texts, *clause_texts, example.query, *(response[s:e] for s, e in sentences)]


def encode_ahead(examples: Sequence[Example], encoder: Encoder) -> None:
    """Encode the texts of many examples in one call, so that `align` finds them in the
    encoder's cache. An example too long to align is skipped here and refused by `align`."""
    texts: list[str] = []
    for example in examples:
        try:
            texts.extend(texts_to_encode(example, encoder))
        except TooLongError:
            continue
    encoder.encode(texts)


def align(example: Example, encoder: Encoder, settings: Settings = DEFAULT_SETTINGS) -> Alignment:
    """Claims of `example.response` aligned with every argument sentence (one batch per step).

    A sentence becomes several claims when its candidate clauses (`claims.clause_spans`)
    match different arguments, each at the match threshold: the issue's "clauses where a
    sentence joins several arguments". Otherwise the whole sentence is one claim.
    """
    response = example.response
    units, sentences, candidates, unit_texts, clause_texts = _pieces(example, encoder)
    arguments = tuple((p, a) for p, a, _ in example.arguments())
    vectors = encoder.encode([*unit_texts, *clause_texts, example.query])
    unit_vectors, clause_vectors, query_vector = (
        vectors[: len(units)],
        vectors[len(units) : len(units) + len(clause_texts)],
        vectors[-1],
    )
    sentence_rows = np.array([u.is_sentence for u in units], dtype=bool)
    row_of = {key: row for row, key in enumerate(arguments)}
    unit_row = np.array([row_of[(u.perspective, u.argument)] for u in units], dtype=np.int64)

    claim_spans: list[tuple[Span, int, int | None]] = []
    offset = 0
    for s, (sentence, clauses) in enumerate(zip(sentences, candidates)):
        if len(clauses) == 1 or not sentence_rows.any():
            claim_spans.append((sentence, s, None))
            continue
        similarity = clause_vectors[offset : offset + len(clauses)] @ unit_vectors[sentence_rows].T
        offset += len(clauses)
        best = similarity.argmax(axis=1)
        groups = _group_clauses(unit_row[sentence_rows][best], similarity.max(axis=1), settings.match)
        if len(groups) == 1:
            claim_spans.append((sentence, s, None))
        else:
            for c, group in enumerate(groups):
                claim_spans.append(((clauses[group[0]][0], clauses[group[-1]][1]), s, c))

    _check_claims(len(claim_spans))
    claims = tuple(
        Claim(index=i, start=start, end=end, text=response[start:end], sentence=s, clause=c)
        for i, ((start, end), s, c) in enumerate(claim_spans)
    )
    claim_vectors = encoder.encode([c.text for c in claims])
    return Alignment(
        claims=claims,
        arguments=arguments,
        perspective_names=tuple(p.name for p in example.perspectives),
        units=units,
        unit_similarity=(unit_vectors @ claim_vectors.T).astype(np.float32),
        claim_similarity=(claim_vectors @ claim_vectors.T).astype(np.float32),
        query_similarity=(claim_vectors @ query_vector).astype(np.float32),
    )


# RefChecker's aggregation ---------------------------------------------------------------------
