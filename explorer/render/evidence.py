"""HTML for what the stacked detector's verdict rests on: each component's score and how far it
moves the log-odds of an error, as a bar left (toward no error) or right (toward an error) of
the centre. Free of Streamlit: the app and the exported report draw the same HTML; every name
goes through `html.escape`, styles are inline, no script.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from explorer.data.labels import ERROR_TITLES, ERROR_TYPES
from explorer.detectors.ops.explained import doubted_evidence, evidence_logit, evidence_p, explained_p, unfloored
from explorer.detectors.stacked import SURE

TOWARD_ERROR = "rgba(220,38,38,0.75)"
TOWARD_NO_ERROR = "rgba(22,163,74,0.75)"
EXPLANATION = (
    "Each bar is how far one component's score moves the stacked detector's log-odds of an error: "
    "right (red) toward an error, left (green) away from it, measured from that score's average on "
    "the training data. The pushes and a constant add up to the log-odds of the head's score; the lines under "
    "the bars say what raised that score, and the last line gives the verdict's P(error): the raised score read "
    "through its calibration."
)


def _push_bar(push: float, widest: float) -> str:
    half = 50 * min(abs(push) / widest, 1.0) if widest > 0 else 0.0
    left = 50.0 if push >= 0 else 50.0 - half
    color = TOWARD_ERROR if push >= 0 else TOWARD_NO_ERROR
    return (
        '<span style="position:relative;display:inline-block;width:12em;height:0.8em;vertical-align:middle;'
        'background:rgba(128,128,128,0.10);border-radius:2px">'
        '<span style="position:absolute;left:calc(50% - 1px);top:-2px;bottom:-2px;width:1px;background:#6b7280">'
        "</span>"
        f'<span style="position:absolute;left:{left:.1f}%;width:{half:.1f}%;top:0;bottom:0;background:{color}">'
        "</span></span>"
    )


def _raised(kind: str, error_type: str, to: float, check: str, why: str) -> str:
    """A line under an error type's bars: what raised the score to `to`, and why."""
    return (
        f'<div data-{kind}="{error_type}" style="opacity:0.75">raised to {to:.2f}: '
        f"{html.escape(check)} {html.escape(why)}</div>"
    )


def verdict_evidence_html(
    evidence: Mapping[str, Mapping],
    titles: Mapping[str, str],
    probabilities: Mapping[str, float | None] | None = None,
) -> str:
    """One block per error type: a row per feature (component title, which of its scores, its
    value, its push as a bar and a signed number), largest push first. `titles` names the
    components; `probabilities` are the verdict's calibrated P(error) per error type, named under
    the score they come from (the score is the head's own logistic output, not a second P(error))."""
    pushes = [
        abs(f["push"]) for error_type in ERROR_TYPES if error_type in evidence for f in evidence[error_type]["features"]
    ]
    widest = max(pushes, default=0.0)
    blocks = []
    for error_type in ERROR_TYPES:
        if error_type not in evidence:
            continue
        rows = []
        for feature in evidence[error_type]["features"]:
            component, _, score_of = feature["feature"].rpartition(" ")
            name = f"{titles.get(component, component)} · {ERROR_TITLES.get(score_of, score_of).lower()} score"
            value = "not read" if feature["value"] is None else f"{feature['value']:.2f}"
            rows.append(
                f'<div data-feature="{html.escape(feature["feature"])}" style="display:grid;'
                'grid-template-columns:minmax(12em,22em) 3.5em 12em 3.5em;gap:0.6em;align-items:center">'
                f'<span>{html.escape(name)}</span><span style="text-align:right">{value}</span>'
                f"{_push_bar(feature['push'], widest)}"
                f'<span style="text-align:right">{feature["push"]:+.2f}</span></div>'
            )
        logit = evidence_logit(evidence[error_type])
        rows.append(
            f'<div style="opacity:0.75">constant {evidence[error_type]["intercept"]:+.2f}; log-odds {logit:+.2f}, '
            f"score {evidence_p(evidence[error_type]):.2f}</div>"
        )
        # What lifts the score after the head: the meaning check's doubt, the likeliest dropped argument,
        # its misstatement, then a sure misstatement; each line names the score it raises to.
        found = evidence[error_type]
        lines = []
        if doubt := found.get("doubt"):
            why = (
                f"doubts an argument is stated ({ERROR_TITLES[error_type].lower()} score {doubt['doubt']:.2f}), "
                f"which joins the score at weight {doubt['weight']:.2f}: 1 - (1 - score) (1 - weight x doubt)"
            )
            lines.append(("doubt", doubted_evidence(found), titles.get(doubt["by"], doubt["by"]), why))
        if argument := found.get("argument"):
            why = (
                f"reads {argument['name']} as the likeliest dropped (P(dropped) {argument['dropped']:.2f}, from "
                f"its words' scores and the answer's size), which joins the score at weight {argument['weight']:.2f}"
            )
            lines.append(("argument", unfloored(found), "The argument head", why))
        if misstatement := found.get("misstated"):
            why = (
                f"reads an argument as misstated ({ERROR_TITLES[error_type].lower()} score "
                f"{misstatement['misstated']:.2f}), which joins the score at weight {misstatement['weight']:.2f}"
            )
            lines.append(("misstated", unfloored(found), titles.get(misstatement["by"], misstatement["by"]), why))
        if floor := found.get("floor"):
            why = (
                f"reads an argument as misstated with P(misstated) {floor['misstated']:.2f} (its card above), "
                f"and one of at least {SURE:.2f} sets the least score the verdict gives"
            )
            lines.append(("floor", floor["misstated"], titles.get(floor["by"], floor["by"]), why))
        rows += [_raised(kind, error_type, to, check, why) for kind, to, check, why in lines]
        # Last, since the calibration reads the score after every line above has raised it.
        if (calibrated := (probabilities or {}).get(error_type)) is not None:
            rows.append(
                f'<div data-verdict-p="{error_type}" style="opacity:0.75">the verdict\'s P(error) {calibrated:.2f}: '
                f"the score {explained_p(evidence[error_type]):.2f} read through its calibration</div>"
            )
        heading = f"<b>{ERROR_TITLES[error_type]}</b>"
        blocks.append(
            f'<div data-evidence-for="{error_type}" style="margin:0.3em 0 0.6em">{heading}{"".join(rows)}</div>'
        )
    return f'<div style="line-height:1.6;font-size:0.9em">{"".join(blocks)}</div>'
