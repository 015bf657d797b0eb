"""HTML for the lab's synthetic errors: what a button will change, and whether the verdict caught it
(`explorer.evaluation.injection`). Free of Streamlit: the lab and its HTML report draw the same;
user text goes through `html.escape`, styles are inline.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from explorer.data.example import Example
from explorer.data.labels import ERROR_TITLES
from explorer.evaluation.accounts import MARKED
from explorer.evaluation.calibration import LIKELY_FROM
from explorer.evaluation.injection import CAUGHT, ELSEWHERE, MISSED, Catch, Choice

_QUOTE = 110
_CHOICE_QUOTE = 50  # the line under a button: what it changes, in two lines of a half-width column
_MARKS = {CAUGHT: ("\u2713", "#166534"), ELSEWHERE: ("\u25d0", "#92400e"), MISSED: ("\u2717", "#991b1b")}
_UNSURE = ("\u25d0", "#92400e")


def _quote(text: str, keep: int = _QUOTE) -> str:
    short = text if len(text) <= keep else text[: keep - 1].rsplit(" ", 1)[0] + "\u2026"
    return f"\u201c{html.escape(short)}\u201d"


def choice_html(example: Example, choice: Choice | None, *, random: bool = False) -> str:
    """What a synthetic-error button will change, and by which rule (in a line, under the button)."""
    if choice is None:
        return '<span style="opacity:0.75">Nothing to change here: the error shows once pressed.</span>'
    name = html.escape(example.perspectives[choice.perspective].name)
    if choice.error_type == "hallucination":
        what = f"Removes <b>{name} {choice.argument + 1}</b>"
        why = (
            "a random one (the seed's)"
            if random
            else f"stated most distinctly: {choice.distinct} of {choice.words} words of its statement its own"
        )
    else:
        what = f"Adds to <b>{name}</b>"
        why = (
            "a random unused one (the seed's)"
            if random
            else f"most content of its own: {choice.distinct} of {choice.words} words new to the example"
        )
    return (
        f'<div data-choice="{choice.error_type}" style="font-size:0.85em;line-height:1.4">{what}: '
        f'{_quote(choice.text, _CHOICE_QUOTE)} <span style="opacity:0.7">({why})</span></div>'
    )


def _probability(catch: Catch) -> str:
    after = catch.verdict.probability
    if after is None:
        return "no calibrated P(error)"
    before = catch.before.probability if catch.before is not None else None
    moved = f"{before:.2f} \u2192 {after:.2f}" if before is not None else f"{after:.2f}"
    return f"P(error) {moved}"


def _pushes(evidence: Mapping | None, error_type: str, titles: Mapping[str, str]) -> str:
    """The two components that pushed the verdict furthest from an error, if it rests on any."""
    if not evidence or error_type not in evidence:
        return ""
    away = sorted((f for f in evidence[error_type]["features"] if f["push"] < 0), key=lambda f: f["push"])[:2]
    if not away:
        return ""
    named = []
    for feature in away:
        component, _, score_of = feature["feature"].rpartition(" ")
        named.append(
            f"{html.escape(titles.get(component, component))}'s {ERROR_TITLES.get(score_of, score_of).lower()} "
            f"score ({feature['push']:+.2f})"
        )
    return " What pushed the verdict away from an error most: " + " and ".join(named) + "."


def catch_html(
    catches: Sequence[Catch],
    detector_title: str,
    evidence: Mapping | None = None,
    titles: Mapping[str, str] | None = None,
) -> str:
    """For each error the edits made, whether the verdict caught it, in a sentence with its numbers;
    where it did not, the facts for why (the detector's word scores in the gold text, and what
    pushed its verdict away from an error)."""
    rows = []
    title, titles = html.escape(detector_title), titles or {}
    for catch in catches:
        error = ERROR_TITLES[catch.error_type].lower()
        gold = (
            "the sentence stating the removed argument" if catch.error_type == "hallucination" else "the added argument"
        )
        words = (
            f" Its word scores in {gold} reach {catch.gold_words:.2f} (a word is marked from {MARKED:.1f})."
            if catch.gold_words is not None
            else ""
        )
        probability = _probability(catch)
        if catch.outcome == CAUGHT:
            text = f"The verdict caught this synthetic {error}: likely, {probability}, pointing at {gold}."
        elif catch.outcome == ELSEWHERE:
            piece = catch.verdict.piece
            text = (
                f"The verdict calls a {error} likely ({probability}) but points at other text"
                f"{': ' + _quote(piece.text) if piece is not None else ''}, not at {gold}."
            )
        elif catch.outcome == MISSED:
            text = (
                f"{title} missed its own synthetic {error}: {probability}, "
                f"{catch.verdict.verdict or 'no verdict'}.{words}{_pushes(evidence, catch.error_type, titles)}"
            )
        else:
            text = (
                f"The verdict is unsure of this synthetic {error}: {probability}, under the {LIKELY_FROM:.2f} "
                f"of \u201clikely\u201d.{words}{_pushes(evidence, catch.error_type, titles)}"
            )
        mark, color = _MARKS.get(catch.outcome, _UNSURE)
        rows.append(
            f'<div data-catch="{catch.error_type}" data-outcome="{catch.outcome}" style="margin:0.2em 0">'
            f'<b style="color:{color}">{mark}</b> {text}</div>'
        )
    return f'<div data-catches style="line-height:1.5">{"".join(rows)}</div>' if rows else ""
