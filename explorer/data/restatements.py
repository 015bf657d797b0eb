"""Rule-built restatements of a negation: the same meaning said with another negating construction.

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
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

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


def _cased(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


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
        new = _cased(new, found.group()) if found.start() == 0 else new
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
