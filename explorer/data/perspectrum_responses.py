"""Writing an NPOV response that states given arguments in other words, from templates: an intro
sentence bridging from the question, then each side's arguments with lead-ins ("Supporters argue
that ...", "They also ...", "Critics respond that ..."), now and then two arguments merged into
one sentence ("..., and they add that ..."). `compose` returns, with the response, the span that
states each argument, so synthetic errors (`explorer.data.synthetic`) get their spans.
Used by the Perspectrum builder (`explorer.data.perspectrum`).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

QUERIES = (
    "Is it true that {c}?",
    "Do you agree that {c}?",
    "What are the arguments for and against the claim that {c}?",
    "Should we accept that {c}?",
    "What do both sides say about whether {c}?",
)
INTROS = (
    "Whether {c} is a contested question, and people see it differently.",
    "People disagree about whether {c}.",
    "The claim that {c} divides opinion, with arguments on both sides.",
    "There is no consensus on whether {c}.",
    "Opinions differ on the claim that {c}.",
    "Many people have asked whether {c}, and the debate has two sides.",
)
INTROS_ONE_SIDE = (
    "Some people hold a firm view on whether {c}.",
    "The question of whether {c} has drawn clear arguments.",
    "Here is what has been said about whether {c}.",
)
FIRST = {
    "pro": (
        "Supporters argue that {x}.",
        "Those in favour point out that {x}.",
        "Proponents say that {x}.",
        "On one side, {x}.",
        "One argument for it is that {x}.",
        "Advocates contend that {x}.",
    ),
    "con": (
        "Critics respond that {x}.",
        "Opponents argue that {x}.",
        "On the other hand, {x}.",
        "Those against it say that {x}.",
        "One argument against it is that {x}.",
        "Sceptics counter that {x}.",
    ),
}
NEXT = {
    "pro": (
        "They also argue that {x}.",
        "In addition, {x}.",
        "Moreover, {x}.",
        "They add that {x}.",
        "Another point in its favour is that {x}.",
        "Furthermore, {x}.",
        "Supporters also note that {x}.",
    ),
    "con": (
        "They also warn that {x}.",
        "Critics further argue that {x}.",
        "In addition, {x}.",
        "They point out, too, that {x}.",
        "Another objection is that {x}.",
        "Moreover, {x}.",
        "Opponents also say that {x}.",
    ),
}
LAST = ("Finally, {x}.", "Lastly, {x}.")
JOINERS = (", and they add that {x}.", ", and {x}.", "; they also say that {x}.", ", while {x}.")
MERGE_CHANCE = 0.25


class Casing:
    """Whether a sentence's first word may be lower-cased mid-sentence: only words the texts also
    write in lower case mid-sentence (so "The" becomes "the", "China" and "US" stay)."""

    def __init__(self, texts: Iterable[str]):
        lower, upper = Counter(), Counter()
        for text in texts:
            for word in re.findall(r"[A-Za-z']+", text)[1:]:
                (lower if word[0].islower() else upper)[word.lower()] += 1
        self.lower_ok = {word for word, n in lower.items() if n > upper.get(word, 0)}

    def inner(self, text: str) -> str:
        """`text` to follow "that ...": first word lower-cased when allowed, final stop removed."""
        text = text.strip().rstrip(".!;:").rstrip()
        first = re.match(r"[A-Za-z']+", text)
        if first and first.group(0)[0].isupper() and first.group(0).lower() in self.lower_ok:
            if first.group(0)[1:].islower() or len(first.group(0)) == 1:
                text = text[0].lower() + text[1:]
        return text

    def sentence(self, text: str) -> str:
        text = text.strip()
        text = text[0].upper() + text[1:] if text else text
        return text if text.endswith((".", "!", "?")) else text + "."


@dataclass
class _Piece:
    text: str
    ref: tuple[int, int] | None  # (perspective, argument) it states; None for the intro


def _part_sentences(
    rng: random.Random, stance: str, refs: list[tuple[int, int]], texts: dict, casing: Casing
) -> list[list[_Piece]]:
    """Sentences of one part, each a list of pieces (two when two arguments are merged)."""
    sentences: list[list[_Piece]] = []
    i = 0
    while i < len(refs):
        x = casing.inner(texts[refs[i]])
        if i == 0:
            lead = rng.choice(FIRST[stance])
        elif i == len(refs) - 1 and len(refs) > 2 and rng.random() < 0.5:
            lead = rng.choice(LAST)
        else:
            lead = rng.choice(NEXT[stance])
        first = lead.format(x=x)
        first = first[0].upper() + first[1:]
        if i + 1 < len(refs) and rng.random() < MERGE_CHANCE:
            joined = rng.choice(JOINERS).format(x=casing.inner(texts[refs[i + 1]]))
            sentences.append([_Piece(first[:-1], refs[i]), _Piece(joined, refs[i + 1])])
            i += 2
        else:
            sentences.append([_Piece(first, refs[i])])
            i += 1
    return sentences


def compose(
    rng: random.Random,
    claim_text: str,
    parts: Sequence[tuple[str, list[tuple[int, int]]]],
    texts: dict,
    casing: Casing,
) -> tuple[str, dict[tuple[int, int], tuple[tuple[int, int], ...]]]:
    """The response and, per argument, the span(s) stating it."""
    c = casing.inner(claim_text)
    intro = rng.choice(INTROS if len(parts) > 1 else INTROS_ONE_SIDE).format(c=c)
    sentences = [[_Piece(intro[0].upper() + intro[1:], None)]]
    for stance, refs in parts:
        sentences.extend(_part_sentences(rng, stance, refs, texts, casing))
    response, spans = "", {}
    for sentence in sentences:
        if response:
            response += " "
        for piece in sentence:
            start = len(response)
            response += piece.text
            if piece.ref is not None:
                # A merged second piece starts at its joiner's first word, not at ", and".
                offset = len(piece.text) - len(piece.text.lstrip(",; "))
                spans[piece.ref] = ((start + offset, len(response)),)
    return response, spans
