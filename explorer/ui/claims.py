"""The claim view on the Inspect page: verdicts, coverage matrix, flags, claim cards."""

from __future__ import annotations

import html

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.detectors.ops.assessment import Assessment, assess
from explorer.detectors.semantic import alignment_of
from explorer.render import claim_figures, claims
from explorer.scoring.runner import score_example
from explorer.text.claims import mean_word_scores
from explorer.ui import state
from explorer.ui.state import get_detector

SEMANTIC = "semantic"


def claim_assessment(example: Example, results: dict[str, DetectorResult]) -> Assessment | str:
    """The semantic detector's reading of `example`, reusing its result when already scored."""
    detector = get_detector(SEMANTIC)
    result = results.get(SEMANTIC)
    if result is None:
        scored = score_example(example, [detector])
        if SEMANTIC in scored.errors:
            return scored.errors[SEMANTIC]
        result = scored.results[SEMANTIC]
    return assess(alignment_of(result, example), detector.settings)


def show_claim_view(example: Example, results: dict[str, DetectorResult]) -> None:
    st.subheader("Claims", anchor=False)
    assessment = claim_assessment(example, results)
    if isinstance(assessment, str):
        st.warning(f"The claim view needs the semantic alignment, which failed: {assessment}")
        return
    settings = assessment.settings
    st.caption(
        f"After RefChecker: each claim (a sentence, or a clause where a sentence joins several arguments) "
        f"against the arguments' sentences by {detectors.spec(SEMANTIC).title} (all-MiniLM-L6-v2 cosine). "
        f"A claim is supported when an argument sentence matches it at \u2265 {settings.match:.2f}; "
        f"repetition at \u2265 {settings.repetition:.2f} between claims. Both thresholds were chosen on the "
        "sample data's train split."
    )
    st.html(claims.claim_verdict_html(assessment))
    matrix, findings = st.columns([3, 2])
    with matrix:
        st.plotly_chart(claim_figures.coverage_matrix(example, assessment), width="stretch", key=state.CLAIMS_MATRIX)
        legend = " ".join(
            f'<span style="border:2px solid {color};padding:0 0.3em;margin-right:0.4em">{html.escape(meaning)}</span>'
            for color, meaning in claim_figures.flag_legend()
        )
        st.html(
            f'<div style="font-size:0.8em">{claim_figures.CHECK} counts as a match \u00b7 '
            f"{claim_figures.RING} matches but does not count (other part, or restated) \u00b7 "
            f"F\u00b7 framing claim<br>{legend}</div>"
        )
    with findings:
        st.markdown("**Flags**")
        st.html(claims.flags_html(example, assessment))
        st.markdown("**Response by claim**")
        st.html(claims.response_claims_html(example, assessment))
    others = {
        detectors.spec(name).title: mean_word_scores(
            assessment.alignment.claims, [(w.start, w.end, w.score) for w in result.response_words]
        )
        for name, result in results.items()
        if name != SEMANTIC
    }
    cards = st.expander("Claim by claim: evidence and agreement", key=state.CLAIMS_CARDS, on_change="rerun")
    if cards.open:  # built only when opened
        with cards:
            st.html(claims.claim_cards_html(example, assessment, others))
