"""An argument stated word for word inside the frame an answer puts around it: who holds it, a
bold lead-in, a list item, a table row, a question and its answer.

The meaning check's judge read such statements as misstatements ("Critics also cite the
ever-present threat of terrorism or a crash as a drawback of rail travel" against "The
ever-present threat of terrorism or a crash": P(misstates) .83 with judge run seventeen), so the
judge's pairs hold them as *states* (`explorer.training.judge_data`, source 8). A frame adds who
says it and where it stands, never what the argument means: no frame negates, hedges, weighs or
answers it. Deterministic for a seeded `random.Random`.
"""

from __future__ import annotations

import random

from explorer.text.syntax import finite_verbs, tokens

# {a}: the argument inside a sentence (first letter lowered unless it starts an acronym or a
# name); {A}: as given. Each frame is whole: a piece of an answer as it would be cut. Any
# argument fits these:
FRAMES = (
    "One argument in favour is this: {a}.",
    "Opponents raise a further point: {a}.",
    "A second point made by proponents: {a}.",
    "**{A}.** This is one of the points its supporters make.",
    "- {A}",
    "{A}, according to those who hold this view.",
    "| Against | {A} |",
    "| For | {A} |",
    "Q: What do critics say? A: {A}.",
    "Another reason given is simple: {a}.",
    "{A} — that, at least, is how its advocates put it.",
)
# ... a clause ("taxes reduce sugar consumption") fits these:
CLAUSE_FRAMES = (
    "Supporters argue that {a}.",
    "Critics also point out that {a}.",
    "They add that {a}.",
    "Those on this side hold that {a}.",
)
# ... and a noun phrase ("the threat of a crash") these.
PHRASE_FRAMES = (
    "Critics also cite {a} as a drawback.",
    "Supporters point to {a}.",
    "They also raise {a}.",
    "Finally, some highlight {a}.",
)


def _inside(text: str) -> str:
    """`text` with its first letter lowered, unless the second is a capital too (an acronym) or
    not a letter ("I think")."""
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def framed(argument: str, rng: random.Random) -> str:
    """`argument` word for word inside one frame drawn by `rng`."""
    fitting = CLAUSE_FRAMES if finite_verbs(tokens(argument)) else PHRASE_FRAMES
    text = argument.strip().rstrip(".")
    return rng.choice(FRAMES + fitting).format(a=_inside(text), A=text)
