"""Polarity: the words of a claim that turn the meaning of the argument it states.

A garbled argument keeps most of its words and turns what they say: a negation added or dropped
("would violate" -> "would not violate"), a word replaced by its opposite ("increasing" ->
"decreasing", "more" -> "less", "most" -> "few"). A similarity finds the claim as close to the
argument as a faithful paraphrase is. Here the two are compared word for word:

- a **negation** (`NEGATIONS`, lexical ones such as "lack" and "fail" included) in one of the two
  and not the other, where the other states what it negates;
- an **opposite**: a word of the claim whose opposite (`opposites`, from `resources/antonyms.txt`,
  any inflection) the argument uses while the argument does not use the word itself.

Each of these turns the meaning once, and two turns cancel: "violates privacy" stated as "does
not respect privacy" (an opposite and a negation) keeps the argument's meaning. So a claim turns
its argument when the count is odd. `turned(claim, argument)` returns the turning words of the
claim in that case, none otherwise. Closed English word lists, not a model: a paraphrase by a
synonym of an opposite the list lacks is missed, and a turn by swapped roles is not seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from explorer.config import RESOURCES
from explorer.text.syntax import forms_of, tokens, verb_forms
from explorer.text.words import DEFAULT_SEGMENTER

Span = tuple[int, int]
ANTONYMS = RESOURCES / "antonyms.txt"
NEGATIONS = frozenset("not n't no never nothing none neither nor cannot".split())
# Verbs and a preposition that negate what follows ("lack an X" says "no X"): they count for the
# parity, so "lacks X" against "has no X" is no contradiction.
LEXICAL_NEGATIONS = frozenset(
    "lack lacks lacked lacking fail fails failed refuse refuses refused without unable".split()
)
_NEGATING = NEGATIONS | LEXICAL_NEGATIONS
SCOPE = 4  # content words after a negation that it may speak of


@cache
def opposites() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each word (verbs in every form) -> its opposites with the kind of change, both ways."""
    pairs: dict[str, list[tuple[str, str]]] = {}

    def add(one: str, other: str, how: str) -> None:
        pairs.setdefault(one, []).append((other, how))
        pairs.setdefault(other, []).append((one, how))

    known = verb_forms()
    for line in ANTONYMS.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) != 3 or fields[0].startswith("#"):
            continue
        how, one, other = fields
        if how.startswith("verb-"):
            how = how.removeprefix("verb-")
            add(one, other, how)
            one_forms, other_forms = known.get(one, forms_of(one)), known.get(other, forms_of(other))
            for kind in ("third", "past", "gerund"):
                add(one_forms[kind], other_forms[kind], how)
        else:
            add(one, other, how)
    return {word: tuple(dict.fromkeys(found)) for word, found in pairs.items()}


@dataclass(frozen=True)
class Turn:
    """A word of the claim that turns the argument: `span` in the claim, `kind` "negation" or
    the opposite's kind ("antonym", "comparative", "quantity", "scope")."""

    span: Span
    kind: str


def _negations(text: str) -> list[Span]:
    return [(t.start, t.end) for t in tokens(text) if t.lower in _NEGATING]


def _stems(text: str) -> set[str]:
    return {w.stem for w in DEFAULT_SEGMENTER.words(text)}


def _opposites(claim: str, argument: str) -> list[Turn]:
    """Words of the claim whose opposite the argument uses (compared by stem, so any inflection
    counts: "decreases" against "increasing") and whose own stem it does not."""
    table = opposites()
    argument_stems = _stems(argument)
    found = []
    for token in tokens(claim):
        if token.lower not in table or _stems(token.lower) & argument_stems:
            continue
        for opposite, kind in table[token.lower]:
            if _stems(opposite) & argument_stems:
                found.append(Turn((token.start, token.end), kind))
                break
    return found


def _negated(text: str, negations: list[Span]) -> set[str]:
    """The stem of the first content word after each negation: what it negates."""
    return {w.stem for _, end in negations for w in DEFAULT_SEGMENTER.content_words(text[end:])[:1]}


def _speaks_of(text: str, negation: Span, other: set[str], changed: set[str]) -> bool:
    """Whether the negation at `negation` negates what the other text says: the word it negates is
    there or was put in place of its opposite, or the words after it (up to `SCOPE` content words)
    share two with it ("would not infringe freedom of speech" against "would violate freedom of
    speech")."""
    after = {w.stem for w in DEFAULT_SEGMENTER.content_words(text[negation[1] :])[:SCOPE]}
    return bool(_negated(text, [negation]) & (other | changed)) or len(after & other) >= 2


def turned(claim: str, argument: str) -> list[Turn]:
    """The claim's words that turn the argument's meaning when they turn it an odd number of times
    (see the module docstring), else none; in order.

    A negation counts only where it speaks of what the other text says (`_speaks_of`): "uniforms
    do not save money" against "uniforms cut bullying" speaks of something else."""
    changes = _opposites(claim, argument)
    changed = {w.stem for t in changes for w in DEFAULT_SEGMENTER.words(claim[t.span[0] : t.span[1]])}
    claim_negations, argument_negations = _negations(claim), _negations(argument)
    counted_claim = [span for span in claim_negations if _speaks_of(claim, span, _stems(argument), changed)]
    counted_argument = [span for span in argument_negations if _speaks_of(argument, span, _stems(claim), set())]
    negation_turns = (len(counted_claim) + len(counted_argument)) % 2
    if (len(changes) + negation_turns) % 2 == 0:
        return []
    marks = changes + ([Turn(span, "negation") for span in counted_claim] if negation_turns else [])
    if not marks:  # the argument's negation dropped: mark the claim's word it negated
        negated = _negated(argument, counted_argument)
        marks = [
            Turn((w.start, w.end), "negation") for w in DEFAULT_SEGMENTER.content_words(claim) if w.stem in negated
        ]
    return sorted(marks, key=lambda t: t.span)
