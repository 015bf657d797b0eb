"""Certainty in a sentence: the words that make a claim absolute, and the hedges that soften one.

An answer can state a given argument and still say more than it: "may help" becomes "will help",
"provides reference points" becomes "provides the only reliable reference points", "has great
goals" becomes "guarantees". Chang et al. 2024 call such an error a partial hallucination; the
support detectors find the sentence supported, since every other word is the argument's.

`strengthened(claim, argument)` lists the certainty words of a claim that the argument it states
does not license, each with its span in the claim:

- an *absolute* (`ABSOLUTES`, in families: "always", "never", "only", "every"/"all", "guarantee",
  "certainly", "prove", "completely", "far more") whose family the argument does not use;
- a *hedge dropped*: the argument hedges (`HEDGES`: "may", "could", "likely", "some"...), the
  claim does not, and it says "will" or "would" where the argument does not.

A closed English word list, not a model: each family has a test.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from explorer.text.claims import Span

ABSOLUTES = {
    "always": r"always|invariably",
    "never": r"never|nobody|no\s+one",
    "every": r"every(?:one|body|thing)?|all",
    "only": r"only|solely|exclusively",
    "guarantee": r"guarantee[sd]?|guaranteeing",
    "certain": r"certainly|definitely|undeniabl[ey]|inevitabl[ey]|unquestionabl[ey]",
    "prove": r"prove[sdn]?|proving",
    "complete": r"completely|entirely|totally|absolutely|wholly",
    "far": r"far\s+(?:more|less|better|worse|greater|fewer)|vastly|dramatically",
}
HEDGES = r"may|might|could|can|possibly|perhaps|likely|probably|potentially|some|often|sometimes|tends?\s+to"
_FAMILIES = {family: regex.compile(rf"\b(?:{pattern})\b", regex.I) for family, pattern in ABSOLUTES.items()}
_HEDGE = regex.compile(rf"\b(?:{HEDGES})\b", regex.I)
_FIRM = regex.compile(r"\b(?:will|would)\b", regex.I)


@dataclass(frozen=True)
class Strengthening:
    """A certainty word of a claim its argument does not license: `span` in the claim, `family`
    the `ABSOLUTES` family it belongs to, or "hedge dropped"."""

    span: Span
    family: str


def strengthened(claim: str, argument: str) -> list[Strengthening]:
    """The certainty words of `claim` that `argument` does not license (see the module doc), in order."""
    found = [
        Strengthening(match.span(), family)
        for family, pattern in _FAMILIES.items()
        if not pattern.search(argument)
        for match in pattern.finditer(claim)
    ]
    if _HEDGE.search(argument) and not _HEDGE.search(claim) and not _FIRM.search(argument):
        found += [Strengthening(match.span(), "hedge dropped") for match in _FIRM.finditer(claim)]
    return sorted(found, key=lambda s: s.span)
