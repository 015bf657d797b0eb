"""HTML for the claim view (after RefChecker): claims with verdicts, evidence and agreement.

Free of Streamlit, like `explorer.render.highlights`: the app and exported reports draw the same HTML.
All user text goes through `html.escape`; styles are inline.

- `response_claims_html`: the response with each claim tinted by its verdict and numbered;
- `claim_cards_html`: per claim, its verdict against the threshold, its best-supporting
  argument(s) with the evidence span marked inside the argument (and the words the two
  share in bold), notes on framing, parts and repetition, and the other detectors' agreement;
- `flags_html`: the matrix flags as sentences with their evidence;
- `claim_verdict_html`: one verdict for the claims (RefChecker's strict rule), soft and major as details;
- `trust_html`: the faithfulness and trust metrics (`explorer.evaluation.trust`) with the trust-trap rule.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from explorer.data.example import Example
from explorer.detectors.ops.assessment import (
    COVERAGE_ERROR,
    FLAG_TITLES,
    FRAMING,
    PERSPECTIVE_CONFUSION,
    REPETITION,
    SUPPORTED,
    UNSUPPORTED,
    Assessment,
    Flag,
)
from explorer.evaluation.trust import TrustMetrics
from explorer.render import markdown
from explorer.render.claim_figures import FLAG_COLORS, argument_label, claim_label
from explorer.render.findings import check_title, sureness
from explorer.render.highlights import score_color
from explorer.text.words import DEFAULT_SEGMENTER

# A detector "flags" a claim when the mean of its word scores in the claim reaches this.
AGREEMENT_CUT = 0.5
VERDICT_STYLES = {
    SUPPORTED: ("#166534", "rgba(34,197,94,0.16)", "supported"),
    UNSUPPORTED: ("#991b1b", "rgba(239,68,68,0.18)", "unsupported"),
    FRAMING: ("#374151", "rgba(156,163,175,0.18)", "framing (not checked)"),
}


def _pill(text: str, color: str, background: str) -> str:
    return (
        f'<span style="display:inline-block;padding:0 0.5em;border-radius:0.8em;font-size:0.8em;'
        f'color:{color};background:{background};border:1px solid {color}33">{html.escape(text)}</span>'
    )


def response_claims_html(example: Example, assessment: Assessment) -> str:
    """The response with every claim tinted by its verdict and labelled C1, C2, ... (drawn as
    markdown where the response is written in it, `explorer.render.markdown`)."""
    alignment, settings = assessment.alignment, assessment.settings
    verdicts, support = assessment.verdicts(), assessment.support
    response = example.response

    def stretch(start: int, end: int) -> str:
        parts, cursor = [], start
        for claim, verdict in zip(alignment.claims, verdicts):
            left, right = max(claim.start, start), min(claim.end, end)
            if left >= right:
                continue
            parts.append(html.escape(response[cursor:left]))
            color, background, _ = VERDICT_STYLES[verdict]
            tip = (
                f"{claim_label(claim.index)}: {verdict}"
                if verdict == FRAMING
                else f"{claim_label(claim.index)}: {verdict}, support {support[claim.index]:.2f} "
                f"(supported at \u2265 {settings.match:.2f})"
            )
            label = (
                f'<sup style="color:{color};font-weight:600">{claim_label(claim.index)}</sup>'
                if left == claim.start
                else ""
            )
            parts.append(
                f'<span style="background:{background};border-bottom:2px solid {color};border-radius:3px" '
                f'title="{html.escape(tip)}" data-claim="{claim.index}" data-verdict="{verdict}">'
                f"{label}{html.escape(response[left:right])}</span>"
            )
            cursor = right
        parts.append(html.escape(response[cursor:end]))
        return "".join(parts)

    if markdown.is_markdown(response):
        return f'<div data-markdown="1" style="line-height:2">{markdown.render(response, stretch)}</div>'
    return f'<div style="white-space:pre-wrap;line-height:2">{stretch(0, len(response))}</div>'


def argument_evidence_html(argument: str, start: int, end: int, claim_text: str) -> str:
    """`argument` with `[start, end)` marked as the evidence and the words shared with the claim in bold."""
    claim_stems = DEFAULT_SEGMENTER.content_stems(claim_text)
    shared = [(w.start, w.end) for w in DEFAULT_SEGMENTER.content_words(argument) if w.stem in claim_stems]
    return _mark(argument, start, end, shared)


def _mark(text: str, start: int, end: int, bold: Sequence[tuple[int, int]]) -> str:
    cuts = sorted({0, len(text), start, end, *[p for span in bold for p in span]})
    out = []
    for left, right in zip(cuts, cuts[1:]):
        piece = html.escape(text[left:right])
        if any(s <= left and right <= e for s, e in bold):
            piece = f"<b>{piece}</b>"
        if start <= left and right <= end:
            piece = f'<mark style="background:rgba(59,130,246,0.22);padding:0">{piece}</mark>'
        out.append(piece)
    return "".join(out)


def _supporting_rows(assessment: Assessment, claim: int, limit: int = 2) -> list[int]:
    """The claim's best argument, then any other argument that also supports it, best first."""
    alignment, settings = assessment.alignment, assessment.settings
    order = list(alignment.similarity[:, claim].argsort()[::-1])
    rows = [order[0]] if order else []
    rows += [row for row in order[1:] if assessment.credited[row, claim] >= settings.match]
    return [int(row) for row in rows[:limit]]


def _notes(example: Example, assessment: Assessment, claim: int) -> list[str]:
    alignment, settings = assessment.alignment, assessment.settings
    names = alignment.perspective_names
    notes = []
    if assessment.framing[claim]:
        notes.append(
            f"closer to the question ({alignment.query_similarity[claim]:.2f}) than to any argument "
            f"({alignment.raw_support[claim]:.2f}): it frames the answer and is not checked"
        )
    if claim in assessment.out_of_part:
        row = int(alignment.raw_best_argument[claim])
        notes.append(
            f"voices {html.escape(argument_label(example, *alignment.arguments[row]))} inside the "
            f"{html.escape(names[int(assessment.parts[claim])])} part: only "
            f"{html.escape(names[int(assessment.parts[claim])])} arguments may support it"
        )
    if claim in assessment.lost_to:
        winner, unit = assessment.lost_to[claim]
        u = alignment.units[unit]
        notes.append(
            f"restates {claim_label(winner)}: the sentence of "
            f"{html.escape(argument_label(example, u.perspective, u.argument))} it matches "
            f"({alignment.unit_similarity[unit, claim]:.2f}) already supports {claim_label(winner)} "
            f"({alignment.unit_similarity[unit, winner]:.2f})"
        )
    for flag in assessment.flags():
        if flag.kind == REPETITION and flag.claims[-1] == claim and claim not in assessment.lost_to:
            notes.append(
                f"restates {claim_label(flag.claims[0])} (claims {flag.similarity:.2f} similar, "
                f"repetition at \u2265 {settings.repetition:.2f})"
            )
    return notes


def misstating_claims(assessment: Assessment, misstated: Sequence[Mapping]) -> dict[int, list[Mapping]]:
    """The checked claims a misstatement's piece overlaps (`explorer.render.findings.misstatements`),
    each with those findings: a claim can sit close to an argument, so supported here, and state
    it with its meaning turned."""
    found: dict[int, list[Mapping]] = {}
    for claim in assessment.alignment.claims:
        if assessment.framing[claim.index]:
            continue
        for finding in misstated:
            start, end = finding["piece"]
            if start < claim.end and claim.start < end:
                found.setdefault(claim.index, []).append(finding)
    return found


def _misstatement_notes(example: Example, findings: Sequence[Mapping]) -> list[str]:
    return [
        f"the {html.escape(check_title(f))} reads it as <b>misstating "
        f"{html.escape(argument_label(example, *f['argument']))}</b> ({html.escape(sureness(f))}): close to "
        "that argument, with its meaning turned"
        for f in findings
    ]


def claim_cards_html(
    example: Example,
    assessment: Assessment,
    detector_scores: Mapping[str, Sequence[float | None]] | None = None,
    misstated: Sequence[Mapping] = (),
) -> str:
    """One card per claim: verdict, evidence in the best-supporting argument(s), notes, agreement.

    `detector_scores` maps another detector's title to its claim-level error scores (mean word
    score per claim, `claims.mean_word_scores`); a detector agrees with an unsupported verdict
    when its score reaches `AGREEMENT_CUT`, with a supported one when it stays below. `misstated`
    are the meaning and polarity checks' misstatements (`misstating_claims`), noted on the claims they overlap.
    """
    alignment, settings = assessment.alignment, assessment.settings
    turned = misstating_claims(assessment, misstated)
    verdicts, support = assessment.verdicts(), assessment.support
    cards = []
    for claim, verdict in zip(alignment.claims, verdicts):
        color, background, title = VERDICT_STYLES[verdict]
        c = claim.index
        header = [f'<b style="color:{color}">{claim_label(c)}</b>', _pill(title, color, background)]
        if verdict != FRAMING:
            relation = "\u2265" if verdict == SUPPORTED else "<"
            raw = float(alignment.raw_support[c])
            uncounted = f" (best match {raw:.2f} not counted)" if raw >= settings.match > support[c] else ""
            header.append(
                f'<span style="opacity:0.8;font-size:0.85em">support {support[c]:.2f} {relation} '
                f"threshold {settings.match:.2f}{uncounted}</span>"
            )
        if assessment.parts[c] >= 0:
            part = alignment.perspective_names[int(assessment.parts[c])]
            header.append(f'<span style="opacity:0.65;font-size:0.85em">in the {html.escape(part)} part</span>')
        evidence = []
        for row in _supporting_rows(assessment, c) if alignment.arguments else []:
            p, a = alignment.arguments[row]
            argument = example.perspectives[p].arguments[a]
            unit = alignment.localize(row, c)
            status = "supports" if assessment.credited[row, c] >= settings.match else "closest, does not support"
            narrowed = (
                ""
                if unit.is_sentence
                else f" (closest part {alignment.unit_similarity[alignment.units.index(unit), c]:.2f})"
            )
            evidence.append(
                f'<div style="margin:0.25em 0 0 1em;font-size:0.92em">'
                f'<span style="opacity:0.75">{html.escape(argument_label(example, p, a))} \u00b7 {status} \u00b7 '
                f"{float(alignment.similarity[row, c]):.2f}{narrowed}</span><br>"
                f"{argument_evidence_html(argument, unit.start, unit.end, claim.text)}</div>"
            )
        notes = "".join(
            f'<div style="margin:0.2em 0 0 1em;font-size:0.88em;color:#6b21a8">\u2192 {note}</div>'
            for note in _notes(example, assessment, c) + _misstatement_notes(example, turned.get(c, []))
        )
        agreement = _agreement_html(verdict, c, detector_scores or {})
        cards.append(
            f'<div style="border:1px solid rgba(128,128,128,0.3);border-left:4px solid {color};'
            f'border-radius:6px;padding:0.45em 0.7em;margin-bottom:0.5em" data-claim-card="{c}">'
            f'<div style="display:flex;gap:0.6em;align-items:center;flex-wrap:wrap">{"".join(header)}</div>'
            f'<div style="margin-top:0.25em">{html.escape(claim.text)}</div>{"".join(evidence)}{notes}{agreement}</div>'
        )
    return "".join(cards) or "<p>The response has no claims.</p>"


def _agreement_html(verdict: str, claim: int, detector_scores: Mapping[str, Sequence[float | None]]) -> str:
    if verdict == FRAMING or not detector_scores:
        return ""
    chips, agree, voters = [], 0, 0
    for title, scores in detector_scores.items():
        score = scores[claim] if claim < len(scores) else None
        if score is None:
            chips.append(_pill(f"{title}: not scored", "#6b7280", "transparent"))
            continue
        voters += 1
        flags_it = score >= AGREEMENT_CUT
        agree += flags_it == (verdict == UNSUPPORTED)
        chips.append(
            f'<span style="display:inline-block;padding:0 0.45em;border-radius:0.8em;font-size:0.8em;'
            f'background:{score_color(score)};border:1px solid rgba(128,128,128,0.4)" '
            f'title="{html.escape(title)}: mean word error {score:.2f}; flags the claim at \u2265 {AGREEMENT_CUT}">'
            f"{html.escape(title)} {score:.2f}</span>"
        )
    summary = f"{agree} of {voters} other detectors agree" if voters else "no other detector scored it"
    return (
        f'<div style="margin:0.3em 0 0 1em;font-size:0.85em;display:flex;gap:0.4em;flex-wrap:wrap;'
        f'align-items:center"><span style="opacity:0.75">{summary}:</span>{"".join(chips)}</div>'
    )


def flag_sentence(example: Example, assessment: Assessment, flag: Flag) -> str:
    """One flag as an escaped sentence naming its evidence."""
    alignment, settings = assessment.alignment, assessment.settings
    argument = (
        html.escape(argument_label(example, *alignment.arguments[flag.argument])) if flag.argument is not None else ""
    )
    claims = ", ".join(claim_label(c) for c in flag.claims)
    if flag.kind == COVERAGE_ERROR:
        closest = ""
        if flag.claims:
            c = flag.claims[0]
            raw = float(alignment.similarity[flag.argument, c])
            why = " (not counted)" if raw >= settings.match else ""
            closest = f"; closest claim {claims} ({raw:.2f}{why})"
        return (
            f"<b>{argument}</b> is covered by no claim: best counted match {flag.similarity:.2f} "
            f"&lt; {settings.match:.2f}{closest}"
        )
    if flag.kind == REPETITION:
        first, second = (claim_label(c) for c in flag.claims)
        return f"<b>{second}</b> restates <b>{first}</b> on {argument} (similarity {flag.similarity:.2f})"
    if flag.kind == PERSPECTIVE_CONFUSION:
        part = html.escape(alignment.perspective_names[flag.part])
        own = html.escape(alignment.perspective_names[alignment.arguments[flag.argument][0]])
        return (
            f"<b>{claims}</b> voices the {own} argument <b>{argument}</b> ({flag.similarity:.2f}) "
            f"inside the {part} part"
        )
    raw = float(alignment.similarity[flag.argument, flag.claims[0]]) if alignment.arguments else 0.0
    return (
        f"<b>{claims}</b> is supported by no argument: counted support {flag.similarity:.2f} &lt; "
        f"{settings.match:.2f}; closest {argument} ({raw:.2f})"
    )


def flags_html(example: Example, assessment: Assessment) -> str:
    found = assessment.flags()
    if not found:
        return (
            '<p style="opacity:0.8">No flags: every argument is covered once, in its own part, '
            "and every claim is supported.</p>"
        )
    items = "".join(
        f'<li><span style="color:{FLAG_COLORS[f.kind]};font-weight:600">{FLAG_TITLES[f.kind]}</span>: '
        f"{flag_sentence(example, assessment, f)}</li>"
        for f in found
    )
    return f'<ul style="margin:0;padding-left:1.2em">{items}</ul>'


def claim_verdict_html(assessment: Assessment, misstated: Sequence[Mapping] = ()) -> str:
    """One verdict for the response's claims (supported only when every checked claim is:
    RefChecker's strict rule), with the soft and major rules' figures as details; claims the
    meaning or polarity check reads as misstating an argument (`misstated`) are counted beside it, so "all
    supported" never stands alone over a turned argument."""
    verdicts = [v for v in assessment.verdicts() if v != FRAMING]
    unsupported = verdicts.count(UNSUPPORTED)
    soft, major = assessment.aggregate("soft"), assessment.aggregate("major")
    framing = int(assessment.framing.sum())
    left_out = f", {framing} framing claim{'s' if framing != 1 else ''} not checked" if framing else ""
    if not verdicts:
        color, background, _ = VERDICT_STYLES[FRAMING]
        headline = "no claim to check"
    elif unsupported:
        color, background, _ = VERDICT_STYLES[UNSUPPORTED]
        headline = f"{unsupported} of {len(verdicts)} claims unsupported"
    else:
        color, background, _ = VERDICT_STYLES[SUPPORTED]
        headline = f"all {len(verdicts)} claims supported"
    details = (
        f"supported at \u2265 {assessment.settings.match:.2f}{left_out}. RefChecker's aggregation: strict "
        f"{assessment.aggregate('strict')} \u00b7 soft {soft['supported']:.0%} supported \u00b7 major {major}"
    )
    turned = len(misstating_claims(assessment, misstated))
    if turned:
        red, pink, _ = VERDICT_STYLES[UNSUPPORTED]
        checks = ", ".join(dict.fromkeys(check_title(f) for f in misstated))
        headline_pill = (
            _pill(headline, color, background)
            + " "
            + _pill(f"{turned} misstate{'s' if turned == 1 else ''} an argument ({html.escape(checks)})", red, pink)
        )
    else:
        headline_pill = _pill(headline, color, background)
    return (
        f'<div data-claim-verdict="{"unsupported" if unsupported else "supported"}">'
        f"{headline_pill} "
        f'<span style="opacity:0.7;font-size:0.85em">{html.escape(details)}</span></div>'
    )


def trust_html(metrics: TrustMetrics) -> str:
    """The trust metrics in one compact row, the trust-trap rule with its thresholds under it."""
    thresholds, query = metrics.thresholds, metrics.query_alignment
    cells = (
        (
            "query P / R / F1",
            f"{query.precision:.2f} / {query.recall:.2f} / {query.f1:.2f}",
            "share of the response's content words found in the query / share of the query's words the response "
            "repeats / their F1",
        ),
        ("K-F1", f"{metrics.knowledge_f1:.2f}", "unigram F1 between the response and all arguments"),
        ("K-F1++", f"{metrics.knowledge_f1_plus:.2f}", "K-F1 after removing the query's words from the response"),
    )
    trap_color, trap_background = (
        ("#991b1b", "rgba(239,68,68,0.18)")
        if metrics.trust_trap
        else (
            "#166534",
            "rgba(34,197,94,0.16)",
        )
    )
    row = "".join(
        f'<span title="{html.escape(tip)}"><span style="opacity:0.7">{label}</span> <b>{value}</b></span>'
        for label, value, tip in cells
    )
    aligned = "\u2265" if query.recall >= thresholds.query_recall else "<"
    grounded = "<" if metrics.knowledge_f1_plus < thresholds.kf1_plus else "\u2265"
    trap = _pill("trust trap" if metrics.trust_trap else "no trust trap", trap_color, trap_background)
    return (
        f'<div style="display:flex;gap:1.6em;flex-wrap:wrap;align-items:center">{row}{trap}</div>'
        f'<div style="font-size:0.82em;opacity:0.75;margin-top:0.3em">Trust trap: query recall \u2265 '
        f"{thresholds.query_recall:.2f} (repeats the question) and K-F1++ &lt; {thresholds.kf1_plus:.2f} "
        f"(poorly grounded); here {query.recall:.2f} {aligned} {thresholds.query_recall:.2f} and "
        f"{metrics.knowledge_f1_plus:.2f} {html.escape(grounded)} {thresholds.kf1_plus:.2f}. Thresholds from "
        "faithful answers written outside the team (Perspectrum dev: 2.7% of them are flagged, 6.1% of the "
        "hallucinations); words are content-word stems, so a faithful paraphrase also scores low.</div>"
    )
