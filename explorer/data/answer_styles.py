"""Rendering an NPOV answer the way chat assistants write one, with exact character spans.

An answer is planned as parts (one per side, in either order) of `Statement`s, plus an opener and
a closer, then rendered in one of several styles: flowing prose, bullets under section headers,
markdown headers over paragraphs, a terse sentence per side, a restated question in bold, a TL;DR
line over bullets, a numbered list. Rendering writes the text segment by segment, so it knows
exactly which characters state which given argument (`verbalizations`, for the synthetic errors
of `explorer.data.synthetic`) and which characters are invented (`hallucinated_spans`). Nothing
here decides what is an error: `explorer.data.perspectrum_answers` marks statements and clauses
as errors and this module only keeps their spans exact through any style.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

from explorer.data import answer_pools as pools
from explorer.data.perspectrum_responses import Casing

Ref = tuple[int, int]
STYLES = ("prose", "bullets", "headers", "terse", "qa", "tldr", "numbered")
MERGE_CHANCE = 0.25


@dataclass(frozen=True)
class Statement:
    """One sentence (or bullet) of a part.

    `refs`/`texts`: the given arguments it states and the words it states them in (two or more
    are merged into one sentence). `literal`: a finished sentence written by the planner (invented
    content, a restatement), rendered as is. `error`: the whole statement is an error (a misplaced
    or repeated argument, an invented sentence). `clause`: invented words attached before the
    final stop, `(separator, words)`. `prefix`: an invented attribution before it.
    `strengthen`: `(word, stronger)`, a qualifier of the first text replaced (the new word is the
    error)."""

    side: str
    refs: tuple[Ref, ...] = ()
    texts: tuple[str, ...] = ()
    literal: str | None = None
    error: bool = False
    clause: tuple[str, str] | None = None
    prefix: str | None = None
    strengthen: tuple[str, str] | None = None


@dataclass
class Plan:
    query: str
    claim: str  # the claim as it follows "whether" (`Casing.inner`)
    parts: list[tuple[str, list[Statement]]]
    opener: Statement | None = None  # a literal; an error when it says something checkable
    closer: Statement | None = None
    style: str = "prose"


@dataclass
class Written:
    """The response being written, with the spans of each argument and of every invented piece."""

    text: str = ""
    verbalizations: dict[Ref, list[tuple[int, int]]] = field(default_factory=dict)
    invented: list[tuple[int, int]] = field(default_factory=list)

    def add(self, piece: str, ref: Ref | None = None, invented: bool = False) -> None:
        start = len(self.text)
        self.text += piece
        if not piece.strip(" ,;"):
            return
        # Spans never start or end on spaces or joining punctuation, so they name just the words.
        s = start + len(piece) - len(piece.lstrip(" ,;"))
        e = start + len(piece.rstrip(" ,;"))
        if ref is not None:
            self._extend(self.verbalizations.setdefault(ref, []), s, e)
        if invented:
            self._extend(self.invented, s, e)

    def _extend(self, spans: list[tuple[int, int]], s: int, e: int) -> None:
        """Adds [s, e), joined to the last span when only spaces and joining punctuation part them
        (the pieces of one statement, a replaced qualifier "always will")."""
        if spans and not self.text[spans[-1][1] : s].strip(" ,;"):
            spans[-1] = (spans[-1][0], e)
        else:
            spans.append((s, e))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _write_strengthened(out: Written, x: str, ref: Ref | None, change: tuple[str, str] | None, error: bool) -> None:
    """`x` written as the argument `ref`, with `change`'s qualifier replaced and marked invented."""
    match = re.search(rf"\b{re.escape(change[0])}\b", x) if change else None
    if match is None:
        out.add(x, ref, error)
        return
    out.add(x[: match.start()], ref, error)
    out.add(change[1], ref, True)
    out.add(x[match.end() :], ref, error)


def write_statement(out: Written, statement: Statement, lead: str, casing: Casing) -> None:
    """One statement with `lead` ("... {x}") around its first text; merged texts follow joiners."""
    error = statement.error
    ref0 = None if error else (statement.refs[0] if statement.refs else None)
    if statement.literal is not None:
        out.add(_capital(statement.literal), ref0, error)
        return
    if statement.prefix:
        out.add(statement.prefix, None, True)
        lead = "{x}"  # "According to ..., x." reads; "According to ..., supporters argue" would not
    before, after = lead.split("{x}")
    x = casing.inner(statement.texts[0])
    if not before and not statement.prefix:
        x = _capital(x)
    out.add(before, ref0, error)
    _write_strengthened(out, x, ref0, statement.strengthen, error)
    out.add(after, ref0, error)
    last = ref0
    for ref, text, joiner in zip(statement.refs[1:], statement.texts[1:], _joiners(statement)):
        head, rest = joiner[:2], joiner[2:]
        out.add(head)
        last = None if error else ref
        out.add(rest.format(x=casing.inner(text)), last, error)
    if statement.clause:
        separator, words = statement.clause
        out.add(separator)
        out.add(words, None, True)
        out.add(".")
    elif not out.text.endswith(("?", "!")):  # a perspective written as a question keeps its mark
        out.add(".", last, error)


def _joiners(statement: Statement) -> list[str]:
    # Seeded by the texts, so the clean answer and its erroneous twins merge with the same words.
    rng = random.Random("\n".join(statement.texts))
    return [rng.choice(pools.JOINERS) for _ in statement.texts[1:]]


def merge(rng: random.Random, statements: list[Statement], chance: float = MERGE_CHANCE) -> list[Statement]:
    """Now and then two adjacent statements of given arguments become one sentence. One draw per
    statement whatever it holds, so an answer and its erroneous twin merge the same sentences."""
    merged: list[Statement] = []
    for statement in statements:
        draw = rng.random()
        previous = merged[-1] if merged else None
        joinable = (
            previous is not None
            and all(s.literal is None and not s.error and s.prefix is None for s in (previous, statement))
            and not (previous.clause and statement.clause)
            and statement.strengthen is None
            and len(previous.refs) == 1
        )
        if joinable and draw < chance:
            merged[-1] = replace(
                previous,
                refs=previous.refs + statement.refs,
                texts=previous.texts + statement.texts,
                clause=previous.clause or statement.clause,
            )
        else:
            merged.append(statement)
    return merged


def _lead(rng: random.Random, side: str, index: int, style: str) -> str:
    if style in ("bullets", "tldr", "numbered"):
        return "{x}" if rng.random() < 0.75 else rng.choice(pools.FIRST[side])
    return rng.choice(pools.FIRST[side] if index == 0 else pools.NEXT[side])


def _paragraph(out: Written, rng: random.Random, side: str, statements: list[Statement], style: str, casing) -> None:
    for i, statement in enumerate(statements):
        if i:
            out.add(" ")
        write_statement(out, statement, _lead(rng, side, i, style), casing)


def _list(
    out: Written, rng: random.Random, side: str, statements: list[Statement], style: str, casing, n: list[int]
) -> None:
    marker = rng.choice(pools.BULLETS)
    for i, statement in enumerate(statements):
        if i:
            out.add("\n")
        n[0] += 1
        out.add(f"{n[0]}. " if style == "numbered" else marker)
        write_statement(out, statement, _lead(rng, side, i, style), casing)


def render(rng: random.Random, plan: Plan, casing: Casing) -> Written:
    """The plan written in its style."""
    out, style = Written(), plan.style
    if style == "qa":
        out.add(f"**{plan.query}**\n\n")
    if style == "tldr":
        out.add(rng.choice(pools.TLDR) + "\n\n")
    if plan.opener is not None:
        write_statement(out, plan.opener, "{x}", casing)
        out.add("\n\n" if style in ("bullets", "headers", "numbered", "tldr") or rng.random() < 0.4 else " ")
    one_paragraph = style == "terse" or (style in ("prose", "qa") and rng.random() < 0.35)
    counter = [0]
    for side, statements in plan.parts:
        if not statements:
            continue
        if out.text and not out.text.endswith((" ", "\n")):
            out.add(" " if one_paragraph else "\n\n")
        if style in ("bullets", "tldr", "numbered", "headers") and (style == "headers" or rng.random() < 0.85):
            out.add(rng.choice(pools.HEADERS[side]) + ("\n\n" if style == "headers" else "\n"))
        if style in ("bullets", "tldr", "numbered"):
            _list(out, rng, side, statements, style, casing, counter)
        else:
            _paragraph(out, rng, side, statements, style, casing)
    if plan.closer is not None:
        out.add(" " if one_paragraph and rng.random() < 0.6 else "\n\n")
        write_statement(out, plan.closer, "{x}", casing)
    return out


def choose_style(rng: random.Random) -> str:
    return rng.choice(STYLES)


def frame_line(rng: random.Random, templates, claim: str) -> Statement:
    """A framing line with no checkable content (an opener or closer), never an error."""
    return Statement(side="", literal=rng.choice(templates).format(c=claim))
