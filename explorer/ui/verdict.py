"""The verdict at the top of Inspect, the scores against their thresholds, and the report download."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from explorer import detectors
from explorer.data.example import Example
from explorer.detectors import DetectorResult
from explorer.detectors.details import EVIDENCE, LEFT_OUT
from explorer.evaluation import accounts, injection, verdict
from explorer.render import export
from explorer.render.evidence import EXPLANATION, verdict_evidence_html
from explorer.render.findings import misstatements_among, misstatements_html
from explorer.render.injection import catch_html
from explorer.render.verdict import (
    highlight_marks,
    pending_verdict_html,
    scores_html,
    verdict_change_html,
    verdict_html,
)
from explorer.scoring.runner import score_example
from explorer.ui.claims import claim_assessment
from explorer.ui.state import VERDICT_SHOWN_FOR, get_detector, get_result_cache
from explorer.ui.text import literal


def verdict_placeholder(example: Example):
    """The slot the verdict is drawn into. For an example whose verdict is not on the page yet
    it says "scoring…" at once, so the previous example's verdict never sits under the new
    question (on a fresh server the detectors load first, for seconds); for the same example
    it keeps the verdict shown until the new one replaces it, so a rerun does not flicker."""
    slot = st.empty()
    if st.session_state.get(VERDICT_SHOWN_FOR) != example.content_hash():
        slot.html(pending_verdict_html("scoring this example; right after the app starts, the detectors load first"))
    return slot


def verdict_result(example: Example, results: Mapping[str, DetectorResult]) -> DetectorResult | str:
    """The verdict detector's result: from `results`, else computed now (it is a fast one);
    a message when it cannot score the example."""
    name = detectors.VERDICT_DETECTOR
    if name in results:
        return results[name]
    scored = score_example(example, [get_detector(name)], get_result_cache())
    return scored.errors[name] if name in scored.errors else scored.results[name]


def account_for(
    example: Example, results: Mapping[str, DetectorResult], judge: DetectorResult, found: Mapping[str, verdict.Verdict]
) -> dict[str, accounts.Account] | None:
    """The verdict beside the claim view's reading of the same text (None when the claim view cannot read it)."""
    assessment = claim_assessment(example, {**results, judge.detector: judge})
    return None if isinstance(assessment, str) else accounts.account(example, found, judge, assessment)


def show_verdict(
    example: Example, results: Mapping[str, DetectorResult]
) -> tuple[dict[str, verdict.Verdict] | None, dict[str, accounts.Account] | None]:
    """One line per error type with the piece responsible, and what the claim view says of it; its
    links land in the verdict detector's highlights when that detector has a tab (it is in
    `results`). Returns the verdicts and the accounts (the claim view draws the same)."""
    judge = verdict_result(example, results)
    title = detectors.spec(detectors.VERDICT_DETECTOR).title
    if isinstance(judge, str):
        st.warning(f"No verdict: {title} cannot score this example ({judge}).")
        return None, None
    found = verdict.verdicts(example, judge)
    links = detectors.VERDICT_DETECTOR in results
    # Drawn at once, then again with the claim view's reading: where that needs its detector run
    # (no result keeps its alignment), the verdict does not wait for it.
    line = st.empty()
    line.html(verdict_html(example, found, title, links=links))
    if (read := account_for(example, results, judge, found)) is not None:
        line.html(verdict_html(example, found, title, links=links, accounts=read))
    st.session_state[VERDICT_SHOWN_FOR] = example.content_hash()
    if cards := misstatements_html(example, misstatements_among(results)):
        st.html(cards)
    for component, reason in (LEFT_OUT.of(judge) or {}).items():
        st.caption(
            f"{literal(detectors.spec(component).title)} could not read this example ({literal(reason)}); "
            f"{literal(title)} scored it without that signal (its features at their training mean)."
        )
    if (evidence := EVIDENCE.of(judge)) is not None:
        with st.expander("What the verdict rests on"):
            st.caption(EXPLANATION)
            titles = {name: detectors.spec(name).title for name in detectors.names()}
            st.html(verdict_evidence_html(evidence, titles, {t: v.probability for t, v in found.items()}))
    return found, read


def show_verdict_change(
    before_example: Example,
    after_example: Example,
    before: Mapping[str, DetectorResult],
    after: Mapping[str, DetectorResult],
    *,
    edited: bool = False,
) -> None:
    """The lab's verdicts before and after its edits, side by side (`verdict_change_html`); once
    `edited`, whether the verdict caught each error the edited example's gold labels record."""
    judges = [verdict_result(before_example, before), verdict_result(after_example, after)]
    title = detectors.spec(detectors.VERDICT_DETECTOR).title
    problems = [judge for judge in judges if isinstance(judge, str)]
    if problems:
        st.warning(f"No verdict: {title} cannot score this example ({problems[0]}).")
        return
    found = [verdict.verdicts(example, judge) for example, judge in zip((before_example, after_example), judges)]
    st.html(verdict_change_html(*found, title))
    if edited:
        catches = injection.caught(after_example, found[1], judges[1], found[0]).values()
        titles = {name: detectors.spec(name).title for name in detectors.names()}
        if report := catch_html(list(catches), title, EVIDENCE.of(judges[1]), titles):
            st.html(report)


def show_scores(results: Mapping[str, DetectorResult]) -> None:
    if not results:
        return
    titles = {name: detectors.spec(name).title for name in results}
    st.html(scores_html(results, verdict.thresholds(results), titles))


def marks_for(name: str, found: Mapping[str, verdict.Verdict] | None):
    """(response mark, argument mark) for detector `name`'s highlights: where the verdict's links land."""
    return highlight_marks(found) if name == detectors.VERDICT_DETECTOR else (None, None)


def report_button(
    example: Example, results: Mapping[str, DetectorResult], *, key: str, changes: Sequence[str] = (), heading: str = ""
) -> None:
    """ "Download HTML report": the example, verdict, scores, claims and highlights in one offline page."""
    st.download_button(
        "Download HTML report",
        data=lambda: export.example_html(example, dict(results), changes=changes, heading=heading),
        file_name=export.file_name(example),
        mime="text/html",
        key=key,
        on_click="ignore",  # building the page on click; a rerun would only redraw the page
        icon=":material/download:",
        help="One self-contained page (verdict, scores against thresholds, claims, every detector's highlights, "
        "models and settings) that opens offline.",
    )
