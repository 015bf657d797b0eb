"""Rule-built distortions: a statement with its meaning turned, and the exact words that turn it.

A model that garbles a source keeps most of an argument's words and turns what they say: it
negates the claim ("would violate freedom of speech" -> "would not violate ..."), puts a word's
opposite in its place ("increasing voter engagement" -> "decreasing ..."), flips a comparison or
a quantity ("more" -> "less", "most" -> "few"), narrows or widens its scope ("all" -> "some",
"teachers" -> "students"), or swaps who does what to whom and what causes what ("social media
facilitates cyberbullying" -> "cyberbullying facilitates social media"). Each rule here makes one
such change to a text, by closed word lists and the finite-verb rules of `explorer.text.syntax`
(no parser installs from a package registry), and says which words it changed, so that training
data built from it carries exact spans: a judge of an argument against the words that state it
learns *misstates* from it, and the tagger learns which words to mark.

`resources/antonyms.txt` holds the opposite words (`explorer.text.polarity.opposites`), each line
with the kind of change it makes.
Rules that do not apply return None; none of them guarantees a fluent result, which is why the
hand-written distortions of the team-written corpus (`explorer.data.written`) come first.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from explorer.text.polarity import opposites
from explorer.text.syntax import (
    FINITE_AUXILIARIES,
    PRONOUNS,
    SUBORDINATORS,
    Token,
    finite_verbs,
    forms_of,
    main_clause_verbs,
    tokens,
    verb_forms,
    verb_lexicon,
)

Span = tuple[int, int]
# Auxiliaries a "not" follows, and the contracted negations that stand for one.
_NEGATABLE = frozenset("is are was were has have had will would shall should can could may might must".split())
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}
_CAUSES = (" because ", " since ", " so that ", " as a result of ", " due to ")
_ROLE_VERB_MAX_WORDS = 6  # a subject or object longer than this is not swapped


@dataclass(frozen=True)
class Distortion:
    """`text` with its meaning turned; `changed` the span of `text` that turns it; `how` the kind
    (one of `explorer.data.written.DISTORTIONS`)."""

    text: str
    changed: Span
    how: str


def cased(word: str, like: str) -> str:
    """`word` capitalized where `like` is (a replacement at the start of a sentence)."""
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _replace(text: str, start: int, end: int, new: str, how: str) -> Distortion:
    return Distortion(text[:start] + new + text[end:], (start, start + len(new)), how)


@cache
def _bases() -> dict[str, tuple[str, str]]:
    """Each inflected verb form -> (base, kind)."""
    found = {}
    for base, forms in verb_forms().items():
        for kind, form in forms.items():
            found.setdefault(form, (base, kind))
    return found


def antonym(text: str, rng: random.Random) -> Distortion | None:
    """One word (chosen by `rng`) replaced by an opposite; `how` is the lexicon line's kind."""
    table = opposites()
    found = [t for t in tokens(text) if t.lower in table]
    if not found:
        return None
    token = rng.choice(found)
    opposite, how = rng.choice(table[token.lower])
    return _replace(text, token.start, token.end, cased(opposite, token.text), how)


def _remove_negation(text: str, found: list[Token]) -> Distortion | None:
    for i, token in enumerate(found):
        word = token.lower
        if word == "cannot":
            return _replace(text, token.start, token.end, cased("can", token.text), "negation")
        if word == "never":
            return _replace(text, token.start, token.end, cased("always", token.text), "negation")
        if word == "no" and i + 1 < len(found) and found[i + 1].lower == "longer":
            return _replace(text, token.start, found[i + 1].end, cased("still", token.text), "negation")
        if word not in ("not", "n't") or i == 0:
            continue
        aux = found[i - 1]
        verb = found[i + 1] if i + 1 < len(found) else None
        if aux.lower in ("do", "does", "did") and verb is not None and verb.lower in verb_lexicon().base:
            kind = {"do": None, "does": "third", "did": "past"}[aux.lower]
            base = verb.lower
            new = base if kind is None else verb_forms().get(base, forms_of(base))[kind]
            return _replace(text, aux.start, verb.end, cased(new, aux.text), "negation")
        if aux.lower in _CONTRACTED:  # "can't" -> "can"
            return _replace(text, aux.start, token.end, cased(_CONTRACTED[aux.lower], aux.text), "negation")
        if aux.lower in _NEGATABLE or aux.lower in ("do", "does", "did", "am"):
            return _replace(text, aux.start, token.end, aux.text, "negation")
    return None


def _insert_negation(text: str, found: list[Token]) -> Distortion | None:
    finite = finite_verbs(found)
    main = main_clause_verbs(found, finite) or finite
    for i in main:
        token = found[i]
        word = token.lower
        if i > 0 and token.text[:1].isupper():
            continue  # a capitalized word inside a title ("The Jobs Act Is ...") is a name, not a verb
        if word == "can":
            return _replace(text, token.start, token.end, cased("cannot", token.text), "negation")
        after = found[i + 1].lower if i + 1 < len(found) else ""
        if word in ("has", "have", "had") and after not in verb_lexicon().past:  # "has a duty": possession
            helper = {"has": "does", "have": "do", "had": "did"}[word]
            return _replace(text, token.start, token.end, cased(f"{helper} not have", token.text), "negation")
        if word in _NEGATABLE or word in ("am", "do", "does", "did"):
            return _replace(text, token.start, token.end, token.text + " not", "negation")
        if word in FINITE_AUXILIARIES:
            continue
        base, kind = _bases().get(word, (word, "base"))
        helper = {"third": "does", "past": "did"}.get(kind, "do")
        if kind == "gerund" or base not in verb_lexicon().base:
            continue
        return _replace(text, token.start, token.end, cased(f"{helper} not {base}", token.text), "negation")
    return None


def negation(text: str, rng: random.Random | None = None) -> Distortion | None:
    """A negation dropped where the text has one ("does not cause" -> "causes", "cannot" ->
    "can"), else one added to its first main-clause finite verb ("can" -> "cannot", "causes" ->
    "does not cause")."""
    found = tokens(text)
    return _remove_negation(text, found) or _insert_negation(text, found)


def _phrase_end(found: list[Token], start: int) -> int:
    """Index after the noun phrase starting at `found[start]`: up to punctuation, a subordinator,
    "and" / "or" / "but" or a finite verb."""
    j = start
    while j < len(found) and found[j].is_word and found[j].lower not in SUBORDINATORS | {"and", "or", "but", "that"}:
        j += 1
    return j


def role_swap(text: str, rng: random.Random | None = None) -> Distortion | None:
    """Subject and object of the first main-clause verb swapped ("social media facilitates
    cyberbullying" -> "cyberbullying facilitates social media"), when both are short noun
    phrases that are not pronouns."""
    found = tokens(text)
    finite = finite_verbs(found)
    for v in main_clause_verbs(found, finite):
        if found[v].lower in FINITE_AUXILIARIES:
            continue
        subject_start = v
        while subject_start > 0 and found[subject_start - 1].is_word and found[subject_start - 1].lower != "that":
            subject_start -= 1
        object_start = v + 1
        object_end = _phrase_end(found, object_start)
        subject, obj = found[subject_start:v], found[object_start:object_end]
        if not (1 <= len(subject) <= _ROLE_VERB_MAX_WORDS and 1 <= len(obj) <= _ROLE_VERB_MAX_WORDS):
            continue
        if {t.lower for t in subject} <= PRONOUNS or {t.lower for t in obj} <= PRONOUNS:
            continue
        s0, s1, o0, o1 = subject[0].start, subject[-1].end, obj[0].start, obj[-1].end
        new_subject = cased(text[o0:o1], text[s0:s1])
        old_subject = text[s0:s1]
        new_object = old_subject[:1].lower() + old_subject[1:] if not old_subject[:2].isupper() else old_subject
        new = new_subject + text[s1:o0] + new_object
        return _replace(text, s0, o1, new, "role")
    return None


def cause_swap(text: str, rng: random.Random | None = None) -> Distortion | None:
    """Cause and effect swapped around "because", "since", "due to" ...: "A because B" -> "B because A"."""
    lowered = text.lower()
    for marker in _CAUSES:
        at = lowered.find(marker)
        if at <= 0:
            continue
        head, tail = text[:at].strip(), text[at + len(marker) :].rstrip()
        end = len(tail) - len(tail.rstrip(".;!"))
        tail, stop = tail[: len(tail) - end], tail[len(tail) - end :]
        if len(head.split()) < 2 or len(tail.split()) < 2:
            continue
        start = len(text) - len(text.lstrip())
        new = cased(tail, head) + text[at : at + len(marker)] + head[:1].lower() + head[1:]
        return Distortion(text[:start] + new + stop, (start, start + len(new)), "cause")
    return None


RULES: dict[str, Callable[[str, random.Random], Distortion | None]] = {
    "negation": negation,
    "antonym": antonym,
    "role": role_swap,
    "cause": cause_swap,
}


def distortions(text: str, rng: random.Random) -> list[Distortion]:
    """Every rule's distortion of `text` that applies (antonyms: one word, chosen by `rng`)."""
    return [d for rule in RULES.values() if (d := rule(text, rng)) is not None and d.text != text]
