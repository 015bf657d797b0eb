"""Rule-built restatements: the same meaning said in other words, where the rule-built
distortions (`explorer.data.distortions`) change the same kind of words and turn it.

The meaning judge read "Legalising it would not end the violence" stated as "a legal framework
would do nothing to end the violence" as a misstatement: a "not" on one side and none on the
other looked to it like a turned argument. Rule-built distortions (`explorer.data.distortions`)
teach it that an added or dropped "not" turns the meaning; these teach it that a negation said
another way keeps it, by pairs labelled *states*:

- "does not / do not / did not V" <-> "fails / fail / failed to V";
- "would / will / could / can not V" <-> "would / will / could / can do nothing to V", for verbs of
  an effect sought (`_SOUGHT`: help, solve, end, reduce ...);
- "X, not Y" <-> "X rather than Y";
- "is not associated with / linked to / tied to" -> "has no link to";
- "is inconsistent with" <-> "does not square with".

Contracted forms count ("doesn't", "won't", "can't", "cannot"). Each rule returns the text with
the changed span, or None where it does not apply; none checks fluency beyond its pattern.

The judge also read every changed comparison or verb as a turn ("costs less than" for "is
cheaper than"), because the distortions' antonym rule is the only source that changes such a
word. `rewording` changes the same words and keeps the meaning, from `resources/restatements.txt`:
a word put for another of its group ("reduce" -> "lower", "harmful" -> "detrimental"), or a
comparison said from the scale's other end ("cheaper than" -> "less expensive than" / "not as
expensive as", "is cheaper than" -> "costs less than"). Each comes with its turned twin: the
same new words with the direction flipped ("lower" -> "raise", "less expensive" -> "more
expensive"), so that what tells the two apart is the direction, not which words changed. A verb's
base form is changed only where it reads as a verb (after "to", a modal or a negation: "harm" in
"more harm than good" is a noun), its -s form not after a determiner nor before "of", "in", "on" or
"for".
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from explorer.config import RESOURCES
from explorer.data.distortions import Distortion, cased
from explorer.text.polarity import opposites
from explorer.text.syntax import (
    DETERMINERS,
    FINITE_AUXILIARIES,
    Token,
    forms_of,
    tokens,
    verb_forms,
    verb_lexicon,
)

Span = tuple[int, int]
_SOUGHT = (
    "help|solve|end|ease|fix|stop|reduce|improve|address|prevent|change|resolve|curb|cure|protect|"
    "lower|raise|increase|decrease|boost|alleviate|eliminate|remove|tackle|deter"
)
_DO = {"does": "fails", "do": "fail", "did": "failed", "doesn't": "fails", "don't": "fail", "didn't": "failed"}
_FAIL = {"fails": "does not", "fail": "do not", "failed": "did not"}
_MODAL = {"won't": "will", "wouldn't": "would", "can't": "can", "cannot": "can", "couldn't": "could"}


@dataclass(frozen=True)
class Restatement:
    """`text` with a negation said another way; `changed` its span in `text`; `how` the rule."""

    text: str
    changed: Span
    how: str


@dataclass(frozen=True)
class Rule:
    """One restatement: the first match of `pattern` (any case) replaced by `make(match)`."""

    pattern: str
    make: Callable[[re.Match], str]
    how: str

    def __call__(self, text: str) -> Restatement | None:
        found = re.search(self.pattern, text, flags=re.IGNORECASE)
        if found is None:
            return None
        new = self.make(found)
        new = cased(new, found.group()) if found.start() == 0 else new
        start = found.start()
        return Restatement(text[:start] + new + text[found.end() :], (start, start + len(new)), self.how)


def _modal_nothing(m: re.Match) -> str:
    modal = m.group(1) or _MODAL[m.group(3).lower()]
    return f"{modal.lower()} do nothing to {m.group(2) or m.group(4)}"


do_not_as_fail = Rule(
    r"\b(does|do|did) not (\w+)|\b(doesn't|don't|didn't) (\w+)",
    lambda m: f"{_DO[(m.group(1) or m.group(3)).lower()]} to {m.group(2) or m.group(4)}",
    "do not / fail to",
)
fail_as_do_not = Rule(
    r"\b(fails|fail|failed) to (\w+)", lambda m: f"{_FAIL[m.group(1).lower()]} {m.group(2)}", "fail to / do not"
)
not_as_nothing = Rule(
    rf"\b(would|will|could|can) not ({_SOUGHT})\b|\b(won't|wouldn't|can't|cannot|couldn't) ({_SOUGHT})\b",
    _modal_nothing,
    "not / do nothing to",
)
nothing_as_not = Rule(
    rf"\b(would|will|could|can) do nothing to ({_SOUGHT})\b",
    lambda m: f"{m.group(1).lower()} not {m.group(2)}",
    "do nothing to / not",
)
not_as_rather = Rule(r", not (?=\w)", lambda m: " rather than ", "X, not Y / X rather than Y")
rather_as_not = Rule(r" rather than (?=\w)", lambda m: ", not ", "X rather than Y / X, not Y")
not_linked_as_no_link = Rule(
    r"\b(is|are) not (associated with|linked to|linked with|tied to|connected to|connected with)",
    lambda m: f"{'has' if m.group(1).lower() == 'is' else 'have'} no link to",
    "not linked / no link",
)
inconsistent_as_not_square = Rule(
    r"\b(is|are) inconsistent with\b",
    lambda m: f"{'does' if m.group(1).lower() == 'is' else 'do'} not square with",
    "inconsistent / does not square",
)
not_square_as_inconsistent = Rule(
    r"\b(?:(does|do) not|(doesn't|don't)) square with\b",
    lambda m: f"{'is' if (m.group(1) or m.group(2)).lower().startswith('does') else 'are'} inconsistent with",
    "does not square / inconsistent",
)

RULES: tuple[Rule, ...] = (
    do_not_as_fail,
    fail_as_do_not,
    not_as_nothing,
    nothing_as_not,
    not_as_rather,
    rather_as_not,
    not_linked_as_no_link,
    inconsistent_as_not_square,
    not_square_as_inconsistent,
)


def restatement(text: str, rng: random.Random) -> Restatement | None:
    """One of the restatements the rules make of `text`, drawn by `rng`; None when no rule applies."""
    made = [found for rule in RULES if (found := rule(text)) is not None]
    return rng.choice(made) if made else None


LEXICON = RESOURCES / "restatements.txt"
_VERB_BEFORE = FINITE_AUXILIARIES | {"to", "not", "n't", "cannot", "never"}
_NOUN_AFTER = frozenset("of in on for".split())


@dataclass(frozen=True)
class Scale:
    """The two ends of one scale with their comparatives (None: "more END")."""

    one: str
    one_er: str | None
    other: str
    other_er: str | None

    def more(self, end: str) -> str:
        return (self.one_er if end == self.one else self.other_er) or f"more {end}"

    def opposite(self, end: str) -> str:
        return self.other if end == self.one else self.one


@dataclass(frozen=True)
class Lexicon:
    verbs: dict[str, tuple[str, tuple[str, ...]]]  # a form -> its kind, the same form of its group's other verbs
    words: dict[str, tuple[str, ...]]
    scales: dict[str, tuple[Scale, str]]  # an end's comparative ("cheaper", "more effective") -> its scale and end
    ends: dict[str, Scale]


@cache
def lexicon() -> Lexicon:
    """`resources/restatements.txt` read (its header says what a line holds)."""
    verbs: dict[str, tuple[str, list[str]]] = {}
    words: dict[str, list[str]] = {}
    scales: dict[str, tuple[Scale, str]] = {}
    ends: dict[str, Scale] = {}
    known = verb_forms()
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        kind, *group = line.split() or ["#"]
        if kind == "verb":
            forms = [{"base": v, **known.get(v, forms_of(v))} for v in group]
            for form in ("base", "third", "past", "gerund"):
                for i, own in enumerate(forms):
                    entry = verbs.setdefault(own[form], (form, []))
                    entry[1].extend(f[form] for j, f in enumerate(forms) if j != i)
        elif kind == "word":
            for word in group:
                words.setdefault(word, []).extend(w for w in group if w != word)
        elif kind == "scale":
            scale = Scale(*(None if w == "-" else w for w in group))
            for end in (scale.one, scale.other):
                scales.setdefault(scale.more(end), (scale, end))
                ends.setdefault(end, scale)
    return Lexicon(
        {k: (form, tuple(dict.fromkeys(v))) for k, (form, v) in verbs.items()},
        {k: tuple(dict.fromkeys(v)) for k, v in words.items()},
        scales,
        ends,
    )


@dataclass(frozen=True)
class Rewording:
    """`kept`: the text said in other words; `turned`: the same new words with the meaning turned."""

    kept: Restatement
    turned: Distortion | None


def _reads_as_verb(found: list[Token], i: int, form: str) -> bool:
    before = found[i - 1].lower if i > 0 else ""
    if form == "base":
        return before in _VERB_BEFORE
    if form == "third":
        return before not in DETERMINERS and (found[i + 1].lower if i + 1 < len(found) else "") not in _NOUN_AFTER
    return True  # a past or -ing form read as an adjective keeps its meaning too ("reduced costs")


@cache
def _verb_forms_by_kind() -> dict[str, frozenset[str]]:
    forms = verb_lexicon()
    return {"base": forms.base, "third": forms.third_person, "past": forms.past, "gerund": forms.gerund}


def _put(text: str, start: int, end: int, new: str, how: str, made=Restatement):
    """`text` with `new` for its span `start`-`end`, as a `made` (a Restatement or a Distortion)."""
    new = cased(new, text[start:end])
    return made(text[:start] + new + text[end:], (start, start + len(new)), how)


def synonym(text: str, rng: random.Random) -> Rewording | None:
    """One word (chosen by `rng`) put for another of its group; turned: the new word's opposite."""
    table = lexicon()
    found = tokens(text)
    options = []
    for i, token in enumerate(found):
        if i > 0 and token.text[:1].isupper():
            continue  # a capitalized word inside a sentence is a name ("Harms", "Protect Act")
        if token.lower in table.verbs and _reads_as_verb(found, i, table.verbs[token.lower][0]):
            options.append((token, *table.verbs[token.lower]))
        elif token.lower in table.words:
            options.append((token, None, table.words[token.lower]))
    if not options:
        return None
    token, form, others = rng.choice(options)
    new = rng.choice(others)
    kept = _put(text, token.start, token.end, new, "synonym")
    # the opposite in the new word's form: "will hurt" turns to "will help", not "will helped"; a
    # word that is not read as a verb never turns to a verb ("more harm" is not "more improve")
    in_form = _verb_forms_by_kind()
    turns = [
        (w, how)
        for w, how in opposites().get(new) or opposites().get(token.lower, ())
        if (w in in_form[form] if form else w not in verb_lexicon().forms)
    ]
    if not turns:
        return Rewording(kept, None)
    opposite, how = rng.choice(turns)
    return Rewording(kept, _put(kept.text, *kept.changed, opposite, how, Distortion))


_MORE_THAN = re.compile(r"\b(?:(more|less) (\w+)|(\w+er)) than\b", re.IGNORECASE)
_COSTS = re.compile(r"\b(is|are) (cheaper|more expensive) than\b", re.IGNORECASE)


def comparison(text: str, rng: random.Random) -> Rewording | None:
    """A comparison of the lexicon's scales said from the other end ("cheaper than" -> "less
    expensive than" or "not as expensive as"; "less expensive than" -> "cheaper than"; "is
    cheaper than" -> "costs less than"); turned: the new words' direction flipped."""
    costs = _COSTS.search(text)
    if costs and rng.random() < 0.5:
        verb = "costs" if costs.group(1).lower() == "is" else "cost"
        direction = "less" if costs.group(2).lower() == "cheaper" else "more"
        kept = _put(text, costs.start(), costs.end(), f"{verb} {direction} than", "comparison")
        flipped = f"{verb} {'more' if direction == 'less' else 'less'} than"
        return Rewording(kept, _put(kept.text, *kept.changed, flipped, "comparative", Distortion))
    found = lexicon()
    for match in _MORE_THAN.finditer(text):
        direction, adjective, er = match.groups()
        if direction and direction.lower() == "less":
            if (scale := found.ends.get(adjective.lower())) is None:
                continue
            other = scale.opposite(adjective.lower())
            kept_words, turned_words = f"{scale.more(other)} than", f"less {other} than"
        elif (said := (er or f"more {adjective}").lower()) in found.scales:
            scale, end = found.scales[said]
            other = scale.opposite(end)
            if scale.more(other).startswith("more ") and rng.random() < 0.5:
                kept_words, turned_words = f"less {other} than", f"more {other} than"
            else:  # "less low than" is not English: "not as low as"
                kept_words, turned_words = f"not as {other} as", f"{scale.more(other)} than"
        else:
            continue
        kept = _put(text, match.start(), match.end(), kept_words, "comparison")
        return Rewording(kept, _put(kept.text, *kept.changed, turned_words, "comparative", Distortion))
    return None


REWORDINGS = (synonym, comparison)


def rewording(text: str, rng: random.Random) -> Rewording | None:
    """One of the rewordings the lexicon makes of `text`, drawn by `rng`; None when none applies."""
    made = [found for rule in REWORDINGS if (found := rule(text, rng)) is not None]
    return rng.choice(made) if made else None
