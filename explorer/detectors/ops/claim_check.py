"""Three-way verdicts on claims (triplets or sentences) against the given arguments, after
RefChecker (Hu et al. 2024): entailment, neutral or contradiction, each with its evidence.

A claim is read against every evidence unit of the arguments (their sentences and clauses,
`explorer.detectors.ops.alignment.argument_units`) with the sentence encoder; the unit it
matches best (cosine at least `Settings.match`) is its evidence. Then:

- **contradiction** when the claim negates its evidence (one of the two holds a negation,
  "not", "n't", "no", "never", ..., the other does not, and the words it negates are in the
  other), or when the response voices the
  claim for one perspective ("Supporters say ...") and its evidence is an argument of another
  perspective: the perspective confusion of Chang et al. 2024, stated as this side's;
- **entailment** when its evidence is an argument of the perspective the response voices it
  for, or of any perspective when the response names none;
- **neutral** when it matches no argument (an invented claim: a hallucination).

The perspective a sentence voices comes from its cue words among its first `CUE_WINDOW` words:
the perspective's own name ("pro", "con", or any other), or for perspectives named pro / con,
their usual speakers ("supporters", "proponents", ... / "critics", "opponents", ...). A sentence without a cue
continues the previous one's ("They also point out ..."); one with cues of several
perspectives voices none.

The project's verdict names are kept (`supported`, `unsupported`, `contradicted`); RefChecker's
labels are `REFCHECKER_LABELS[verdict]`. A similarity cannot tell entailment from a close
paraphrase that reverses a quantity ("more" / "fewer"): only explicit negation is caught.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.data.example import Example
from explorer.detectors.ops.alignment import DEFAULT_SETTINGS, Encoder, Settings, argument_units
from explorer.detectors.ops.assessment import ABSTAIN, CONTRADICTED, SUPPORTED, UNSUPPORTED
from explorer.text.claims import sentence_spans
from explorer.text.polarity import LEXICAL_NEGATIONS, NEGATIONS
from explorer.text.syntax import tokens
from explorer.text.words import DEFAULT_SEGMENTER

REFCHECKER_LABELS = {
    SUPPORTED: "Entailment",
    UNSUPPORTED: "Neutral",
    CONTRADICTED: "Contradiction",
    ABSTAIN: "Abstain",
}
# A speaker cue names the perspective only near the start of its sentence ("Critics, however,
# say ..."); "... divides conservationists, animal welfare advocates and the public" names none.
CUE_WINDOW = 6
SPEAKERS = {
    "pro": frozenset("pro supporters supporter proponents proponent advocates advocate defenders backers".split()),
    "con": frozenset("con critics critic opponents opponent detractors sceptics skeptics".split()),
}


@dataclass(frozen=True)
class CheckedClaim:
    """One claim's verdict. `argument` is the (perspective, argument) of the evidence and
    `evidence` its character span in that argument (None for a neutral claim with no match);
    `attributed_to` the perspective the response voices the claim for (None when it names none)."""

    text: str
    sentence: int
    verdict: str
    similarity: float
    argument: tuple[int, int] | None
    evidence: tuple[int, int] | None
    attributed_to: int | None
    reason: str


def _cue_words(example: Example) -> list[frozenset[str]]:
    cues = []
    for perspective in example.perspectives:
        name = perspective.name.strip().lower()
        cues.append(SPEAKERS.get(name, frozenset()) | {name})
    return cues


def attributions(example: Example) -> list[int | None]:
    """Per sentence of the response, the perspective it voices (see the module docstring)."""
    cues = _cue_words(example)
    voiced: list[int | None] = []
    current: int | None = None
    for start, end in sentence_spans(example.response):
        opening = [token for token in tokens(example.response[start:end]) if token.is_word][:CUE_WINDOW]
        words = {token.lower for token in opening}
        named = [p for p, cue in enumerate(cues) if words & cue]
        if len(named) == 1:
            current = named[0]
        elif len(named) > 1:
            current = None
        voiced.append(current)
    return voiced


def is_negated(text: str) -> bool:
    """Whether `text` holds an odd number of negations ("not only not" cancels out), the
    lexical ones ("lack", "without") included."""
    return sum(token.lower in NEGATIONS | LEXICAL_NEGATIONS for token in tokens(text)) % 2 == 1


def negated_stems(text: str) -> frozenset[str]:
    """The stem of the first content word after each negation: what is negated ("have no
    realistic choice" negates "realistic")."""
    found: set[str] = set()
    words = DEFAULT_SEGMENTER.words(text)
    for token in tokens(text):
        if token.lower in NEGATIONS | LEXICAL_NEGATIONS:
            after = [w for w in words if w.start >= token.end and not w.is_stop][:1]
            found.update(w.stem for w in after)
    return frozenset(found)


def negates(claim: str, evidence: str) -> bool:
    """The claim negates the evidence, or the evidence negates what the claim states: one of
    the two is negated, and what it negates is said in the other ("uniforms do not limit
    self-expression" against "uniforms limit self-expression"; not "buses are infrequent"
    against "where buses are infrequent, people have no realistic choice")."""
    if is_negated(claim) == is_negated(evidence):
        return False
    negated, other = (claim, evidence) if is_negated(claim) else (evidence, claim)
    return bool(negated_stems(negated) & DEFAULT_SEGMENTER.content_stems(other).keys())


def check_claims(
    example: Example, claims: Sequence[tuple[str, int]], encoder: Encoder, settings: Settings = DEFAULT_SETTINGS
) -> list[CheckedClaim]:
    """Verdicts for `claims`, each `(text, index of the response sentence that holds it)`;
    `settings.match` is the cosine at which a claim matches a unit."""
    units = argument_units(example, encoder)
    texts = {(p, a): text for p, a, text in example.arguments()}
    unit_texts = [texts[(u.perspective, u.argument)][u.start : u.end] for u in units]
    vectors = encoder.encode([*unit_texts, *(text for text, _ in claims)])
    similarity = vectors[len(units) :] @ vectors[: len(units)].T  # (n_claims, n_units)
    voiced = attributions(example)
    checked = []
    for c, (text, sentence) in enumerate(claims):
        attributed = voiced[sentence] if 0 <= sentence < len(voiced) else None
        if not len(units):
            checked.append(CheckedClaim(text, sentence, UNSUPPORTED, 0.0, None, None, attributed, "no arguments"))
            continue
        row = similarity[c]
        best = int(row.argmax())
        unit = units[best]
        score = float(row[best])
        key, span = (unit.perspective, unit.argument), (unit.start, unit.end)
        name = example.perspectives[unit.perspective].name
        if score < settings.match:
            verdict, reason, key, span = UNSUPPORTED, "matches no argument", None, None
        elif negates(text, unit_texts[best]):
            verdict, reason = CONTRADICTED, f"negates a {name} argument"
        elif attributed is not None and unit.perspective != attributed:
            said_for = example.perspectives[attributed].name
            verdict, reason = CONTRADICTED, f"states a {name} argument as {said_for}'s"
        else:
            verdict, reason = SUPPORTED, f"states a {name} argument"
        checked.append(CheckedClaim(text, sentence, verdict, score, key, span, attributed, reason))
    return checked
