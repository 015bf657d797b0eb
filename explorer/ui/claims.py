"""The claim view on the Inspect page: verdicts, coverage matrix, flags, claim cards."""

from __future__ import annotations

import html
from collections.abc import Mapping

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.detectors.ops.assessment import Assessment
from explorer.evaluation.accounts import Account
from explorer.evaluation.claim_level import aligned_by, claim_view_assessment, claim_view_choice
from explorer.render import claim_figures, claims
from explorer.render.accounts import accounts_html
from explorer.render.findings import misstatements_among
from explorer.scoring.runner import score_example
from explorer.text.claims import mean_word_scores
from explorer.ui import state
from explorer.ui.state import get_detector, get_result_cache


def claim_assessment(example: Example, results: dict[str, DetectorResult]) -> Assessment | str:
    """The claim view's reading of `example`: from a shown result that keeps the chosen detector's
    alignment (the stacked detector keeps the tuned matcher's), else that detector is run (cached)."""
    found = claim_view_assessment(example, results)
    if found is not None:
        return found
    name = claim_view_choice().detector
    scored = score_example(example, [get_detector(name)], get_result_cache())
    if name in scored.errors:
        return scored.errors[name]
    return claim_view_assessment(example, scored.results)


MATRIX_TITLE = "Coverage matrix: arguments \u00d7 claims (hover a cell for its evidence)"


def show_matrix(example: Example, assessment: Assessment) -> None:
    """The argument x claim heatmap (`claim_figures.coverage_matrix`) with its legend."""
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


def show_claim_view(
    example: Example, results: dict[str, DetectorResult], read: Mapping[str, Account] | None = None
) -> None:
    """The claim view, headed by where it and the verdict differ on the same text (`read`)."""
    st.subheader("Claims", anchor=False)
    choice = claim_view_choice()
    title = detectors.spec(choice.detector).title
    assessment = claim_assessment(example, results)
    if isinstance(assessment, str):
        st.warning(f"The claim view needs the {title}, which failed: {assessment}")
        return
    settings = assessment.settings
    st.caption(
        "After RefChecker: each claim (a sentence, or a clause where a sentence joins several arguments) "
        f"against the arguments' sentences by cosine similarity, as in the {title}. A claim is supported "
        f"when an argument sentence matches it at \u2265 {settings.match:.2f}: that encoder and threshold "
        f"found hallucinated claims and dropped arguments best on {choice.data} (claim-level ROC AUC "
        f"{choice.evidence['claim ROC AUC']:.2f} / {choice.evidence['argument ROC AUC']:.2f}). Repetition at "
        f"\u2265 {settings.repetition:.2f} between claims, chosen on the sample data's train split "
        "(the Perspectrum set has no restatements)."
    )
    if read and (differ := accounts_html(example, read, detectors.spec(detectors.VERDICT_DETECTOR).title)):
        st.html(differ)
    misstated = misstatements_among(results)
    st.html(claims.claim_verdict_html(assessment, misstated))
    # Right under the claim verdict, full width, and built only when opened: the matrix is the only
    # plotly figure Inspect draws with the default detectors, and plotly's 4.7 MB script (fetched and
    # run by each new browser session) held back the verdict at the top of the page by a second or
    # more and the whole page by two (bench/page_timing.py).
    matrix = st.expander(MATRIX_TITLE, key=state.CLAIMS_MATRIX_OPEN, on_change="rerun")
    if matrix.open:
        with matrix:
            show_matrix(example, assessment)
    flags, by_claim = st.columns(2)
    with flags:
        st.markdown("**Flags**")
        st.html(claims.flags_html(example, assessment))
    with by_claim:
        st.markdown("**Response by claim**")
        st.html(claims.response_claims_html(example, assessment))
    others = {
        detectors.spec(name).title: mean_word_scores(
            assessment.alignment.claims, [(w.start, w.end, w.score) for w in result.response_words]
        )
        for name, result in results.items()
        if aligned_by(result) != choice.detector
    }
    cards = st.expander("Claim by claim: evidence and agreement", key=state.CLAIMS_CARDS, on_change="rerun")
    if cards.open:  # built only when opened
        with cards:
            st.html(claims.claim_cards_html(example, assessment, others, misstated))
