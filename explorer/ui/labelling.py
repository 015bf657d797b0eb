"""Labelling in the app: mark an answer's errors, accept or reject the verdict's findings, keep
the labels in a labels file; and the calibration in force when the user calibrated on them.

The view of the words is a Streamlit inline component (`st.components.v2`, `labeller.js`: no
JavaScript build, nothing fetched, so it works offline): select words of the response to mark
them hallucinated, select words of an argument to mark them lost or press "uncovered" for the
whole argument, click a marked word to take its mark back. Each move reaches Python as a trigger
value and becomes new labels through `explorer.data.labelling`; the component draws only what
Python holds. Keys (on the view's page, not while typing): 0 no errors, 1 / 2 accept / reject
the hallucination finding, 3 / 4 the coverage one, n / p (or the arrows) the next / previous
answer of the queue.

Labels live in the session (`state.LABELS`, by what the detectors read, `Example.content_hash`),
are written after every move to the labels file the user names (never the input: see
`labelling.open_labels_file`), and can be downloaded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import streamlit as st

from explorer.data import labelling
from explorer.data.example import Example, Labels
from explorer.data.jsonl import dumps
from explorer.data.labels import ERROR_TITLES, overlaps
from explorer.evaluation import calibration, refit
from explorer.evaluation.calibration import LIKELY, UNCLEAR
from explorer.evaluation.verdict import Verdict
from explorer.files import WriteError
from explorer.render.verdict import quote_html
from explorer.text.words import DEFAULT_SEGMENTER
from explorer.ui import state
from explorer.ui.text import literal

SHORTCUTS = (
    "Keys: **0** no errors · **1** / **2** accept / reject the hallucination finding · **3** / **4** the coverage one"
)
QUEUE_SHORTCUTS = " · **n** / **p** (or → / ←) next / previous"
TITLES = {
    "response": "Response: select words to mark them hallucinated; click a marked word to unmark it",
    "arguments": "Arguments: select the words an argument loses, or mark it uncovered whole",
    "uncovered": "uncovered",
    "covered": "covered again",
    "uncovered_help": "The response leaves this argument out",
    "covered_help": "Take back: the response states this argument",
}
CSS = """
.rx-labeller { line-height: 1.9; }
.rx-title { font-size: 0.8rem; opacity: 0.7; margin: 0.4rem 0 0.1rem; }
.rx-response, .rx-argument { padding: 0.3rem 0.5rem; border: 1px solid rgba(128,128,128,0.3); border-radius: 0.4rem; }
.rx-response { user-select: text; white-space: pre-wrap; }
.rx-argument { margin: 0.25rem 0; display: flex; gap: 0.5rem; align-items: baseline; }
.rx-name { font-weight: 600; opacity: 0.75; }
.rx-w { cursor: pointer; border-radius: 0.2rem; }
.rx-w:hover { outline: 1px dashed rgba(128,128,128,0.6); }
.rx-marked { background: rgba(239,68,68,0.35); }
.rx-lost { background: rgba(59,130,246,0.35); }
.rx-whole .rx-text { background: rgba(59,130,246,0.25); text-decoration: line-through; }
.rx-toggle { font-size: 0.75rem; border: 1px solid rgba(128,128,128,0.5); border-radius: 0.3rem;
  background: transparent; color: inherit; cursor: pointer; white-space: nowrap; }
"""


@lru_cache(maxsize=1)
def _component():
    """The labelling view, registered once per process (the name is the app's)."""
    script = (Path(__file__).with_name("labeller.js")).read_text(encoding="utf-8")
    # Not isolated in a shadow root: a mouse selection inside one is not the page's selection.
    return st.components.v2.component("rag_error_explorer.labeller", js=script, isolate_styles=False)


def store() -> dict[str, Example]:
    """The labelled examples of this session, by `Example.content_hash`."""
    return st.session_state.setdefault(state.LABELS, {})


def current(example: Example) -> Example:
    """`example` with the labels the user gave it, if any."""
    return store().get(example.content_hash(), example)


def is_labelled(example: Example) -> bool:
    return example.content_hash() in store()


def with_labels(examples: Sequence[Example]) -> list[Example]:
    """`examples`, each with the labels the user gave it (a dataset reopened shows them)."""
    return labelling.apply(examples, store())


def _save(example: Example, labels: Labels) -> None:
    store()[example.content_hash()] = example.replace(labels=labels)
    _write_file()


def _write_file() -> None:
    path = st.session_state.get(state.LABELS_FILE)
    if not path:
        return
    try:
        labelling.write_labels(Path(path), store().values())
        st.session_state.pop(state.LABELS_PROBLEM, None)
    except WriteError as error:
        st.session_state[state.LABELS_PROBLEM] = f"{error}: your labels are kept in this session; download them"


def finding_span(found: Verdict) -> tuple[int, int] | None:
    """What accepting the hallucination finding marks: the piece's least supported clause."""
    piece = found.piece
    if piece is None or piece.perspective is not None:
        return None
    return piece.focus or (piece.start, piece.end)


def shown_findings(found: Mapping[str, Verdict] | None) -> dict[str, Verdict]:
    """The verdict's findings a user can accept or reject: error types it calls likely or unclear, with a piece."""
    return {
        t: v
        for t, v in (found or {}).items()
        if v.piece is not None and v.probability is not None and v.verdict in (LIKELY, UNCLEAR)
    }


def finding_state(example: Example, error_type: str, found: Verdict) -> str | None:
    """ "accepted" when the labels hold the finding, "rejected" when they are the user's and do
    not, None before the user labelled the answer."""
    labels = current(example).labels
    piece = found.piece
    if error_type == "hallucination":
        held = overlaps(finding_span(found), labels.hallucinated_spans)
    else:
        held = any((u.perspective, u.argument) == (piece.perspective, piece.argument) for u in labels.uncovered)
    return "accepted" if held else "rejected" if is_labelled(example) else None


def move(example: Example, found: Mapping[str, Verdict] | None, name: str) -> None:
    """One labelling move on `example` by name: a finding accepted or rejected, or no errors."""
    shown = current(example)
    if name == "no_errors":
        return _save(example, labelling.no_errors(shown))
    verb, _, error_type = name.partition("_")
    finding = shown_findings(found).get(error_type)
    if finding is None:
        return None
    piece = finding.piece
    if error_type == "hallucination":
        start, end = finding_span(finding)
        change = labelling.mark_words if verb == "accept" else labelling.unmark_words
        return _save(example, change(shown, start, end))
    change = labelling.mark_uncovered if verb == "accept" else labelling.unmark_uncovered
    return _save(example, change(shown, piece.perspective, piece.argument))


def _on_key(key: str, example: Example, found, navigate: Callable[[int], None] | None) -> None:
    """A key pressed on the view, applied before the page is drawn again."""
    name = ((st.session_state.get(key) or {}).get("key") or {}).get("move")
    if name in ("next", "previous"):
        if navigate is not None:
            navigate(1 if name == "next" else -1)
    elif name:
        move(example, found, name)


def _on_action(key: str, example: Example) -> None:
    """Words or an argument marked in the view with the mouse, applied before the page is drawn again."""
    action = (st.session_state.get(key) or {}).get("action")
    if not action:
        return
    shown = current(example)
    kind, perspective, argument = action.get("move"), action.get("p"), action.get("a")
    span = (int(action["start"]), int(action["end"])) if "start" in action else None
    if perspective is None:
        change = labelling.mark_words if kind == "mark" else labelling.unmark_words
        _save(example, change(shown, *span))
    elif kind == "whole":
        whole = any(
            (u.perspective, u.argument) == (perspective, argument) and u.spans is None for u in shown.labels.uncovered
        )
        change = labelling.unmark_uncovered if whole else labelling.mark_uncovered
        _save(example, change(shown, perspective, argument))
    else:
        change = labelling.mark_uncovered if kind == "mark" else labelling.unmark_uncovered
        _save(example, change(shown, perspective, argument, span))


def _view_data(example: Example, queue: bool) -> dict:
    labels = current(example).labels
    lost = {(u.perspective, u.argument): u.spans for u in labels.uncovered}
    arguments = []
    for p, a, text in example.arguments():
        spans = lost.get((p, a), ())
        arguments.append(
            {
                "p": p,
                "a": a,
                "name": example.perspectives[p].name,
                "text": text,
                "words": [[w.start, w.end] for w in DEFAULT_SEGMENTER.words(text)],
                "whole": (p, a) in lost and spans is None,
                "lost": [list(s) for s in spans or ()],
            }
        )
    return {
        "example": example.content_hash(),
        "css": CSS,
        "queue": queue,
        "titles": TITLES,
        "response": {
            "text": example.response,
            "words": [[w.start, w.end] for w in DEFAULT_SEGMENTER.words(example.response)],
            "marks": [list(s) for s in labels.hallucinated_spans],
        },
        "arguments": arguments,
    }


def label_view(
    example: Example,
    found: Mapping[str, Verdict] | None,
    *,
    key: str,
    navigate: Callable[[int], None] | None = None,
) -> None:
    """The labelling view of `example`: its words, the verdict's findings to accept or reject,
    "No errors", and what the labels say now. `navigate(step)` moves along a queue (n / p)."""
    view_key = f"{key}.view"
    _component()(
        key=view_key,
        data=_view_data(example, navigate is not None),
        on_action_change=lambda: _on_action(view_key, example),
        on_key_change=lambda: _on_key(view_key, example, found, navigate),
    )
    for error_type, finding in shown_findings(found).items():
        show_finding(example, found, error_type, finding, key)
    status, clear = st.columns([4, 1], vertical_alignment="center")
    labels = current(example).labels
    summary = labels.summary() if is_labelled(example) else "not labelled yet"
    status.caption(f"Your labels: **{literal(summary)}**. " + SHORTCUTS + (QUEUE_SHORTCUTS if navigate else ""))
    clear.button(
        "No errors",
        key=f"{key}.no_errors",
        on_click=move,
        args=(example, found, "no_errors"),
        help="Label this answer error-free (key 0): every mark is taken back.",
        width="stretch",
    )


def show_finding(example: Example, found, error_type: str, finding: Verdict, key: str) -> None:
    """One finding of the verdict, what became of it, and its two buttons."""
    number = 1 if error_type == "hallucination" else 3
    where, accept, reject = st.columns([6, 1, 1], vertical_alignment="center")
    outcome = finding_state(example, error_type, finding)
    where.html(
        f'<div data-finding="{error_type}" data-outcome="{outcome or "open"}"><b>{ERROR_TITLES[error_type]}</b> '
        f"{finding.verdict} (P {finding.probability:.2f}): “{quote_html(finding.piece)}”"
        + (f" · <i>{outcome}</i>" if outcome else "")
        + "</div>"
    )
    accept.button(
        "Accept",
        key=f"{key}.accept.{error_type}",
        on_click=move,
        args=(example, found, f"accept_{error_type}"),
        help=f"The verdict is right: mark it (key {number})",
        width="stretch",
    )
    reject.button(
        "Reject",
        key=f"{key}.reject.{error_type}",
        on_click=move,
        args=(example, found, f"reject_{error_type}"),
        help=f"The verdict is wrong: take it back (key {number + 1})",
        width="stretch",
    )


def labels_file_controls(key: str) -> None:
    """Name the labels file (read back when it exists, written after every move), or download the labels."""
    session = st.session_state

    def named() -> None:
        given = session[f"{key}.path"].strip()
        session.pop(state.LABELS_PROBLEM, None)
        if not given:
            session.pop(state.LABELS_FILE, None)
            return
        path = Path(given).expanduser()
        try:
            found = labelling.open_labels_file(path)
        except (labelling.NotALabelsFile, OSError) as error:
            session[state.LABELS_PROBLEM] = str(error)
            session.pop(state.LABELS_FILE, None)
            return
        store().update(labelling.by_content(found))
        session[state.LABELS_FILE] = str(path)
        _write_file()

    path_column, download_column = st.columns([3, 1], vertical_alignment="bottom")
    path_column.text_input(
        "Labels file",
        value=session.get(state.LABELS_FILE, ""),
        key=f"{key}.path",
        on_change=named,
        placeholder="a path on this computer, e.g. ~/labels.jsonl",
        help="Your labels are written there after every move, as labelled examples in the explorer's format "
        "(never into the input file). A file that exists is read first, so naming it again shows your labels.",
    )
    labelled = list(store().values())
    download_column.download_button(
        f"Download labels ({len(labelled)})",
        data="".join(dumps(example) + "\n" for example in labelled),
        file_name="labels.jsonl",
        mime="application/jsonl",
        key=f"{key}.download",
        disabled=not labelled,
        on_click="ignore",
        width="stretch",
    )
    if problem := session.get(state.LABELS_PROBLEM):
        st.error(literal(problem))
    elif path := session.get(state.LABELS_FILE):
        st.caption(f"Writing {len(labelled)} labelled answer(s) to {literal(path)} after every move.")


def own_calibration() -> refit.Refit | None:
    return st.session_state.get(state.OWN_CALIBRATION)


def use_calibration() -> None:
    """Put this session's calibration in force for the run (every page calls it, `frame`)."""
    own = own_calibration()
    calibration.use(refit.merged(calibration.shipped(), own.calibrations) if own else None)


def calibration_note() -> None:
    """Say in the sidebar what the verdicts are calibrated on when it is the user's labels."""
    own = own_calibration()
    if own is None:
        return
    with st.sidebar:
        st.info(f"Verdicts calibrated on {literal(own.name)}.", icon=":material/tune:")
        st.button(
            "Use the shipped calibration",
            key="sidebar.shipped_calibration",
            on_click=lambda: st.session_state.pop(state.OWN_CALIBRATION, None),
        )


def label_expander(example: Example, found: Mapping[str, Verdict] | None, *, key: str) -> None:
    """Inspect's "Label this answer": the labels file and the labelling view, closed until opened
    (a fixed title: a title that changed with the labels would close it at the first move)."""
    with st.expander("Label this answer", key=f"{key}.open", icon=":material/edit_note:"):
        labels_file_controls(f"{key}.file")
        label_view(example, found, key=key)
