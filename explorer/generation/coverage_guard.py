"""Decoding that does not close a side's section while one of that side's arguments is unstated.

The packaged generator restates its arguments nearly word for word, and its misses are almost
all dropped arguments: it writes two arguments of a side, then a blank line and the other side
(`docs/generator-eval.md`). The guard is a logits processor: while the section being written (the
text since the last blank line) states arguments of one side only and another argument of that
side is stated nowhere yet, a blank line, the end of the turn and (after a line break) a second
line break are not allowed (nor a markup tag, its way around them), so the model writes its next
most likely continuation: usually another "They also argue that ..." sentence or bullet. Held,
the model sometimes repeats an argument it has stated instead, so at the start of a line or a
sentence the first token of each of the side's unstated arguments gets `NUDGE` added to its
logit, and, while the line or sentence copies one of them, its next token too. And once every
argument of the section's side is stated, a list there gets no further item: the model, in the
habit of listing, would repeat one; and while a held side's line starts both an argument already
stated and one still owed ("No," before "No, the schools have phones" once more), the stated
one's next token loses `NUDGE`; and the answer may not end while a side has no argument stated
(a side is held only once one of its arguments is). Everything else is the model's own choice: greedy decoding
stays greedy among the tokens left, and a section stating both sides at once (one paragraph for
the whole answer) is never held.

An argument counts as stated when most of the content stems it adds to the query occur in one
sentence of the text (`STATED`): the adapter copies, so a looser match would let another
argument pass for it. Once `PATIENCE` tokens pass without a new argument stated, the guard lets go for good, so it never
makes the model loop to the token limit. It runs in this process only (a server's decoding is
its own); `explorer.generation.backends` turns it on with an adapter, since the base model
paraphrases and its arguments would rarely count as stated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from explorer.data.example import Example
from explorer.text.claims import sentence_spans
from explorer.text.words import DEFAULT_SEGMENTER

STATED = 0.7  # share of an argument's content stems that must occur for it to count as stated
TIE = 0.1  # a sentence states every argument whose share is this close to its best one's
PATIENCE = 40  # tokens the model gets to state a new argument while the guard holds
NUDGE = 4.0  # added to the logit of an unstated argument's next token where one may start or goes on
_BULLET = r"(?:[-*\u2022]|\d+[.)])"  # a bullet or an item's number
_ITEM = re.compile(rf"\s*{_BULLET}\s")  # a line that is a list item
_MARKER = re.compile(rf"\s*(?:{_BULLET}(?:\s+|$))?")  # a list item's marker, also one just written
_SENTENCE_END = re.compile(r".*[.!?](?:\s|$)")


def _unit(text: str) -> str:
    """The text after the last line break or sentence end, less a list marker: the start of
    whatever the model writes next ("" where a sentence, line or list item may begin)."""
    line = text[text.rfind("\n") + 1 :]
    ended = _SENTENCE_END.match(line)
    rest = line[ended.end() :] if ended else line
    return rest[_MARKER.match(rest).end() :].lstrip()


def _shares(text: str, arguments: Sequence[frozenset[str]]) -> list[float]:
    """The share of each argument's content stems that occur in `text`."""
    present = set(DEFAULT_SEGMENTER.content_stems(text))
    return [len(stems & present) / len(stems) if stems else 1.0 for stems in arguments]


@lru_cache(maxsize=4)
def _line_tokens(tokenizer) -> tuple[list[int], list[int], list[int], list[int]]:
    """The ids of the tokens that hold a blank line, of those that start a line, of those that
    start a list item (a bullet or an item's number), and of those that start a markup tag."""
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    texts = [tokenizer.convert_tokens_to_string([piece]) if piece else "" for piece in pieces]
    return (
        [i for i, t in enumerate(texts) if "\n\n" in t],
        [i for i, t in enumerate(texts) if t.startswith("\n")],
        [i for i, t in enumerate(texts) if t.strip() in ("-", "*", "\u2022") or (t.isdigit() and t.isascii())],
        [i for i, t in enumerate(texts) if t.lstrip().startswith("<")],
    )


class CoverageGuard:
    """A `transformers` logits processor for one prompt (batch of one) of `example`."""

    def __init__(self, tokenizer, example: Example, prompt_length: int, stop_ids: Sequence[int]):
        self.tokenizer, self.prompt_length, self.stop_ids = tokenizer, prompt_length, list(stop_ids)
        # A restated question ("Is rail travel the best mode of transport?") must not pass for an
        # argument built on its words ("Bicycles are the best mode of transport"): only the words
        # an argument adds to the query show that it is stated.
        query = frozenset(DEFAULT_SEGMENTER.content_stems(example.query))
        self.arguments, self.side, self.texts = [], [], []
        for p, perspective in enumerate(example.perspectives):
            for argument in perspective.arguments:
                stems = frozenset(DEFAULT_SEGMENTER.content_stems(argument))
                self.arguments.append(stems - query or stems)
                self.side.append(p)
                self.texts.append(argument.strip())
        self.breaks, self.newlines, self.items, self.tags = _line_tokens(tokenizer)
        self.stated, self.since = 0, 0  # how many arguments were stated, since which token

    def sides_stated(self, sentences: Sequence[Sequence[float]]) -> set[int]:
        """The sides of the arguments these sentences state (each sentence's shares): in each, the
        best matches only (within `TIE`), since the two sides' arguments often share most of their
        words ("a vegetarian diet can help alleviate world hunger" / "... will not help ...")."""
        sides = set()
        for shares in sentences:
            best = max(shares, default=0.0)
            sides |= {self.side[i] for i, share in enumerate(shares) if share >= max(STATED, best - TIE)}
        return sides

    def __call__(self, input_ids, scores):
        written = input_ids.shape[1] - self.prompt_length
        text = self.tokenizer.decode(input_ids[0, self.prompt_length :], skip_special_tokens=True)
        spans = sentence_spans(text)
        shares = [_shares(text[start:end], self.arguments) for start, end in spans]
        # Within one sentence: words an argument shares with others, scattered over the answer
        # ("research", "use", "methods"), must not pass for it.
        best = [max(column, default=0.0) for column in zip(*shares)] if shares else [0.0] * len(self.arguments)
        unstated = {i for i, share in enumerate(best) if share < STATED}
        if len(self.arguments) - len(unstated) > self.stated:
            self.stated, self.since = len(self.arguments) - len(unstated), written
        # The section: the text since the last blank line (its sentences, as the whole text's).
        section = text.rfind("\n\n") + 1
        sides = self.sides_stated([row for (start, _), row in zip(spans, shares, strict=True) if start >= section])
        listing = text.endswith("\n") and _ITEM.match(text[text.rstrip("\n").rfind("\n") + 1 :])
        if listing and sides and all(self.side[i] not in sides for i in unstated):
            scores[:, self.items] = float("-inf")
        if not unstated or written - self.since > PATIENCE:
            return scores
        if len(sides) == 1 and any(self.side[i] in sides for i in unstated):
            # A tag ("</p>") is what the model writes when a blank line is not allowed.
            scores[:, self.breaks + self.stop_ids + self.tags] = float("-inf")
            if text.endswith("\n"):
                scores[:, self.newlines] = float("-inf")
            held = [i for i in range(len(self.arguments)) if self.side[i] in sides]
            owed = [i for i in held if i in unstated]
            raised, lowered = self.next_tokens(text, owed, [i for i in held if i not in unstated])
            scores[:, raised] += NUDGE
            scores[:, lowered] -= NUDGE
        elif {self.side[i] for i in unstated} - {self.side[i] for i in range(len(self.arguments)) if i not in unstated}:
            # A side none of whose arguments is stated yet: the answer may not end before it.
            scores[:, self.stop_ids] = float("-inf")
        return scores

    def next_tokens(self, text: str, unstated: Sequence[int], stated: Sequence[int]) -> tuple[list[int], list[int]]:
        """The token that would start, or go on copying, each unstated argument after `text` (at
        the start of a sentence, line or list item: after a space or line break the word's own
        token, else the one with a leading space; or where the unit so far starts the argument),
        and the token that would go on copying a stated one that the unit so far starts as well
        ("No, the schools have phones" once more where "No, because ..." is unstated)."""
        unit = _unit(text)
        raised, lowered = set(), set()
        for i in unstated:
            argument = self.texts[i]
            if not unit:
                piece = argument if not text or text[-1].isspace() else " " + argument
            elif argument.lower().startswith(unit.lower()) and len(unit) < len(argument):
                piece = argument[len(unit) :]
            else:
                continue
            raised |= set(self.tokenizer(piece, add_special_tokens=False)["input_ids"][:1])
        for i in stated if raised and unit else ():
            argument = self.texts[i]
            if argument.lower().startswith(unit.lower()) and len(unit) < len(argument):
                lowered |= set(self.tokenizer(argument[len(unit) :], add_special_tokens=False)["input_ids"][:1])
        return sorted(raised), sorted(lowered - raised)
