"""HTML for the verdict and the claim view read side by side (`explorer.evaluation.accounts`).

`account_line_html` is the line under each verdict row: what the claim view says about the same
piece, the arguments the meaning check finds misstated, and whether they bear the verdict out.
`accounts_html` heads the claim view: where they differ, what each reads there, in numbers. Free
of Streamlit: the app and the exported report draw the same HTML; user text goes through
`html.escape`, styles are inline.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from explorer.data.example import Example
from explorer.evaluation.accounts import Account, ArgumentReading, ClaimReading
from explorer.evaluation.verdict import Piece
from explorer.render.claim_figures import argument_label, claim_label
from explorer.render.findings import check_title, sureness

ANCHOR = "claims-account"  # the id of `accounts_html`, where a verdict line's "why" links to
_QUOTE = 90


def _quote(text: str) -> str:
    return html.escape(text if len(text) <= _QUOTE else text[: _QUOTE - 1].rsplit(" ", 1)[0] + "…")


def _quote_piece(piece: Piece) -> str:
    """A long sentence by its least supported clause (the verdict's `focus`), else whole."""
    if len(piece.text) <= _QUOTE or piece.focus is None:
        return _quote(piece.text)
    left, right = piece.focus[0] - piece.start, piece.focus[1] - piece.start
    return ("…" if left else "") + _quote(piece.text[left:right]) + ("…" if right < len(piece.text) else "")


def _claim(example: Example, reading: ClaimReading, match: float) -> str:
    """E.g. "C3 supported (pro 1, 0.78 ≥ 0.63)"."""
    closest = ""
    if reading.argument is not None:
        relation = "\u2265" if reading.similarity >= match else "&lt;"
        name = html.escape(argument_label(example, *reading.argument))
        closest = f" ({name}, {reading.similarity:.2f} {relation} {match:.2f})"
    return f"<b>{claim_label(reading.claim)}</b> {html.escape(reading.verdict)}{closest}"


def _argument(example: Example, reading: ArgumentReading, match: float) -> str:
    """E.g. "pro 2 covered by C3 (0.71 ≥ 0.63)" or "con 1 covered by no claim (best 0.42 < 0.63)"."""
    name = f"<b>{html.escape(argument_label(example, *reading.argument))}</b>"
    if reading.flagged or reading.claim is None:
        return f"{name} covered by no claim (best {reading.similarity:.2f} &lt; {match:.2f})"
    return f"{name} covered by {claim_label(reading.claim)} ({reading.similarity:.2f} \u2265 {match:.2f})"


def _reading(example: Example, account: Account) -> str:
    """What the claim view says about the verdict's piece, and what else it flags."""
    if account.error_type == "hallucination":
        said = ", ".join(_claim(example, reading, account.match) for reading in account.claims) or "no claim here"
        others = [_claim(example, reading, account.match) for reading in account.elsewhere]
    else:
        said = _argument(example, account.argument, account.match) if account.argument else "not read"
        others = [_argument(example, reading, account.match) for reading in account.elsewhere]
    if others:
        said += "; flags " + ", ".join(others)
    return said + "".join(f" · {_misstated(example, finding)}" for finding in account.misstated)


def _misstated(example: Example, finding: Mapping) -> str:
    """E.g. "pro 1 misstated (0.65, card below)": short, the card names the check and the words."""
    name = html.escape(argument_label(example, *finding["argument"]))
    return f"<b>{name}</b> misstated ({finding['misstated']:.2f}, card below)"


def account_line_html(example: Example, account: Account) -> str:
    """One line: the claim view's reading of the verdict's piece, and agree / differ (a link to why)."""
    agrees = account.agrees
    if agrees is None:
        verdict = ""
    elif agrees:
        verdict = '<span style="color:#166534">agrees</span>'
    else:
        verdict = f'<a href="#{ANCHOR}" style="color:#b45309;font-weight:600">differs: why</a>'
    joined = f" · {verdict}" if verdict else ""
    return (
        f'<span data-account="{account.error_type}" data-agrees="{"" if agrees is None else str(agrees).lower()}" '
        f'style="opacity:0.85;font-size:0.85em">claim view: {_reading(example, account)}{joined}</span>'
    )


def _at_most(title: str, score: float | None) -> str:
    return f", whose words {title} scores at most {score:.2f}" if score is not None else ""


def _words(words: tuple[tuple[str, float], ...]) -> str:
    return ", ".join(f"\u201c{html.escape(text)}\u201d {score:.2f}" for text, score in words)


def _why_misstated(example: Example, account: Account, verdict_title: str, again: bool = False) -> str:
    """An "unlikely" verdict beside a misstated argument: what the meaning check reads, and why
    the closeness readings miss it; `again`: the same misstatements were told just before."""
    error = "a hallucination" if account.error_type == "hallucination" else "a coverage error"
    parts = []
    for finding in () if again else account.misstated:
        start, end = finding["piece"]
        name = html.escape(argument_label(example, *finding["argument"]))
        parts.append(
            f"{html.escape(check_title(finding))} reads \u201c{_quote(example.response[start:end])}\u201d as "
            f"misstating <b>{name}</b> ({html.escape(sureness(finding))}): it keeps the argument's words and turns "
            "what they say."
        )
    if account.error_type == "hallucination":
        said = "; ".join(_claim(example, reading, account.match) for reading in account.claims)
    else:
        said = _argument(example, account.argument, account.match) if account.argument else ""
    if again:
        parts.append(f"The verdict calls {error} unlikely for the same reason" + (f" ({said})." if said else "."))
    else:
        parts.append(
            f"The verdict calls {error} unlikely: {html.escape(verdict_title)} weighs mostly how close the "
            "response's words are to the arguments', and a turned argument stays close"
            + (f" (the claim view, which reads closeness too: {said})." if said else ".")
            + " Read the argument beside the statement in the card under the verdict."
        )
    return " ".join(parts)


def _why(example: Example, account: Account, verdict_title: str, told: bool = False) -> str:
    """The facts behind a disagreement, in sentences; `told`: a misstatement's reading was just told."""
    title, match = html.escape(verdict_title), account.match
    band = html.escape(account.verdict.verdict or "")
    if account.closeness_misses_misstatement:
        return _why_misstated(example, account, verdict_title, again=told)
    if account.error_type == "hallucination":
        piece = account.verdict.piece
        if account.verdict.verdict == "likely" and piece is not None:
            parts = [
                f"The verdict calls a hallucination {band} in \u201c{_quote_piece(piece)}\u201d: {title} scores its "
                f"words one by one, highest {_words(account.words)}."
            ]
            if account.new_words:
                shown = ", ".join(f"\u201c{html.escape(word)}\u201d" for word in account.new_words[:6])
                parts.append(f"No argument contains {shown}.")
            if account.claims:
                parts.append(
                    "The claim view reads each claim whole against the arguments' sentences: "
                    + "; ".join(_claim(example, reading, match) for reading in account.claims)
                    + ". A sentence can restate an argument and still add a detail no argument gives: "
                    "the shaded words in the highlights are where to look."
                )
            if account.elsewhere:
                parts.append(
                    "The claim view flags instead: "
                    + "; ".join(
                        f"{_claim(example, reading, match)} \u201c{_quote(reading.text)}\u201d"
                        for reading in account.elsewhere
                    )
                    + "."
                )
            return " ".join(parts)
        flagged = [reading for reading in (*account.claims, *account.elsewhere) if reading.flagged]
        claims = "; ".join(
            f"{_claim(example, reading, match)} \u201c{_quote(reading.text)}\u201d"
            + (
                f", whose words {title} scores at most {reading.word_score:.2f}"
                if reading.word_score is not None
                else ""
            )
            for reading in flagged
        )
        return (
            f"The claim view flags {claims}. The verdict calls a hallucination {band}: {title} scores the "
            f"response's words one by one and finds none of them unsupported enough. Read the flagged claim "
            "against its closest argument in the claim cards below."
        )
    piece = account.verdict.piece
    if account.verdict.verdict == "likely" and piece is not None:
        name = html.escape(argument_label(example, piece.perspective, piece.argument))
        parts = [
            f"The verdict calls a coverage error {band} for {name}: {title} scores its words {_words(account.words)}."
        ]
        if account.new_words:
            shown = ", ".join(f"\u201c{html.escape(word)}\u201d" for word in account.new_words[:6])
            parts.append(f"The response never uses {shown}.")
        if account.argument is not None:
            parts.append(
                f"The claim view reads it against the claims whole: {_argument(example, account.argument, match)}. "
                "An answer can touch an argument's topic and still leave out what it says."
            )
        if account.elsewhere:
            parts.append(
                "The claim view flags instead: "
                + "; ".join(_argument(example, reading, match) for reading in account.elsewhere)
                + "."
            )
        return " ".join(parts)
    flagged = [reading for reading in (account.argument, *account.elsewhere) if reading is not None and reading.flagged]
    arguments = "; ".join(
        _argument(example, reading, match) + _at_most(title, reading.word_score) for reading in flagged
    )
    return (
        f"The claim view flags {arguments}. The verdict calls a coverage error {band}: {title} finds every "
        "argument's words in the response. Compare the flagged argument with the claims in the matrix."
    )


def accounts_html(example: Example, accounts: Mapping[str, Account], verdict_title: str) -> str:
    """Where the verdict and the claim view differ, why, one paragraph per error type ("" where they do not)."""
    differing = {error_type: account for error_type, account in accounts.items() if account.agrees is False}
    turned = any(account.closeness_misses_misstatement for account in differing.values())
    paragraphs, told = [], False
    for error_type, account in differing.items():
        why = _why(example, account, verdict_title, told)
        told = told or account.closeness_misses_misstatement
        paragraphs.append(f'<p data-differs="{error_type}" style="margin:0.3em 0">{why}</p>')
    if not paragraphs:
        return ""
    heading = "The verdict and the meaning check differ" if turned else "The verdict and the claim view differ"
    return (
        f'<div id="{ANCHOR}" data-accounts style="border-left:4px solid #f59e0b;background:rgba(245,158,11,0.08);'
        'padding:0.4em 0.8em;margin:0.3em 0 0.6em;scroll-margin-top:5rem">'
        f"<b>{heading}</b>{''.join(paragraphs)}</div>"
    )
