"""Streamlit glue of the error-injection lab: load an example, edit it, compare the scores.

The edits themselves are `explorer.data.edits`'s pure functions; this module keeps the example before
and after them in session state, draws the edit controls, and shows every chosen detector's
scores and highlights on both sides. Model-based detectors read the result cache or compute in
the background, as on the Inspect page; a fragment polls their jobs and reruns the page when
they finish.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import streamlit as st

from explorer import detectors
from explorer.data import edits, synthetic
from explorer.data.example import Example
from explorer.data.jsonl import InvalidExample, parse_example
from explorer.data.samples import SAMPLE_DIR
from explorer.detectors import DetectorResult
from explorer.evaluation import injection, table
from explorer.render import highlights
from explorer.render.injection import choice_html
from explorer.scoring.jobs import Job
from explorer.ui import editor, results, state, verdict

SOURCES = ("Sample", "Inspect page's example", "Paste JSON")
# Choices that name an argument or perspective of the example: stale once it changes.
_CHOICES = (
    state.LAB_DROP_CHOICE,
    state.LAB_MOVE_CHOICE,
    state.LAB_MOVE_TO,
    state.LAB_EDIT_CHOICE,
    state.LAB_ADD_PERSPECTIVE,
)


@st.cache_data(show_spinner=False)
def addition_pool() -> dict[tuple[str, str], list[str]]:
    """Unused arguments per topic and perspective for synthetic coverage errors: the sample
    data's spare arguments, and the sample examples' arguments for topics without spares."""
    spare_path = SAMPLE_DIR / "spare_arguments.jsonl"
    spare = synthetic.read_spare_arguments(spare_path) if spare_path.is_file() else {}
    return synthetic.addition_pool(state.sample_examples(), spare)


# --- the example and its edits ------------------------------------------------------------


def load(example: Example) -> None:
    """Start the lab on `example`: before = after = it, no edits (call from a callback)."""
    session = st.session_state
    session[state.LAB_BEFORE] = session[state.LAB_AFTER] = example
    session[state.LAB_EDITS] = []
    session[state.LAB_PROBLEM] = None
    session[state.LAB_RESPONSE] = example.response
    _forget_choices()


def _forget_choices() -> None:
    for key in _CHOICES:
        st.session_state.pop(key, None)


def _apply(description: str, edit: Callable[[Example], Example], *, name_changes: bool = False) -> None:
    """Apply `edit` to the after example; `name_changes` adds which arguments it removed or added
    to the description (a random edit's choice is otherwise known only to the seed)."""
    session = st.session_state
    current = session[state.LAB_AFTER]
    try:
        edited = edit(current)
    except (ValueError, IndexError) as error:
        session[state.LAB_PROBLEM] = f"{description}: {error}"
        return
    if name_changes:
        removed, added = edits.argument_changes(current, edited)
        named = [f"removed {_argument_label(current, ref)}" for ref in sorted(removed)]
        named += [f"added {_argument_label(edited, ref)}" for ref in sorted(added)]
        description = ": ".join([description, "; ".join(named)]) if named else description
    session[state.LAB_AFTER] = edited
    session[state.LAB_EDITS] = [*session[state.LAB_EDITS], description]
    session[state.LAB_PROBLEM] = None
    session[state.LAB_RESPONSE] = edited.response
    _forget_choices()


RULES = ("The clearest demonstration", "At random (the paper's procedure)")


def _seed() -> int:
    return int(st.session_state.get(state.LAB_SEED, 0))


def _demonstration(example: Example, error_type: str) -> injection.Choice | None:
    return injection.removal(example) if error_type == "hallucination" else injection.addition(example, addition_pool())


def _synthetic(example: Example, error_type: str, at_random: bool) -> Example:
    """The synthetic error the button makes: the demonstration's choice (`explorer.evaluation.injection`),
    or the paper's seeded random one."""
    if at_random:
        return edits.apply_synthetic(example, error_type, addition_pool(), _seed())
    choice = _demonstration(example, error_type)
    if choice is None:  # apply_synthetic says why
        return edits.apply_synthetic(example, error_type, {})
    named = (choice.perspective, choice.argument if error_type == "hallucination" else choice.text)
    return edits.apply_synthetic(example, error_type, addition_pool(), choice=named)


def _preview(example: Example, error_type: str, at_random: bool) -> injection.Choice | None:
    """What the button will change, for the line under it."""
    if not at_random:
        return _demonstration(example, error_type)
    try:
        made = edits.apply_synthetic(example, error_type, addition_pool(), _seed())
    except ValueError:
        return None
    change = made.extra[synthetic.PROVENANCE]
    if error_type == "hallucination":
        removed = change["removed"]
        return injection.Choice(error_type, removed["perspective"], removed["text"], 0, 0, removed["argument"])
    return injection.Choice(error_type, change["added"]["perspective"], change["added"]["text"], 0, 0)


def choose_example() -> Example | None:
    """Source controls (a sample, the Inspect page's example, pasted JSON); the lab's example."""
    session = st.session_state
    source = st.radio("Start from", SOURCES, horizontal=True, key=state.LAB_SOURCE)
    samples = state.sample_examples()
    if state.LAB_BEFORE not in session and samples:
        load(samples[0])
    if source == SOURCES[0]:
        editor.sample_select(state.LAB_SAMPLE, load, session.get(state.LAB_BEFORE))
    elif source == SOURCES[1]:
        current = session.get(state.CURRENT_EXAMPLE)
        if current is None:
            st.info("Open an example on the Inspect page first.")
        else:
            st.button(
                f"Use `{current.id}` from the Inspect page", key=state.LAB_USE_CURRENT, on_click=load, args=(current,)
            )
    elif source == SOURCES[2]:
        st.text_area("One example as JSON", key=state.LAB_PASTE, height=120)

        def load_pasted() -> None:
            try:
                load(parse_example(json.loads(session[state.LAB_PASTE])))
            except json.JSONDecodeError as error:
                session[state.LAB_PROBLEM] = f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
            except InvalidExample as invalid:
                session[state.LAB_PROBLEM] = "; ".join(str(e) for e in invalid.errors)

        st.button("Load JSON", key=state.LAB_PASTE_LOAD, on_click=load_pasted)
    return session.get(state.LAB_AFTER)


def _argument_label(example: Example, ref: tuple[int, int]) -> str:
    p, a = ref
    text = example.perspectives[p].arguments[a]
    return f"{example.perspectives[p].name} {a + 1}: {text[:90]}{'…' if len(text) > 90 else ''}"


def edit_controls(example: Example) -> None:
    """One control per edit; each applies to the current (after) example."""
    session = st.session_state
    refs = [(p, a) for p, a, _ in example.arguments()]
    names = [p.name for p in example.perspectives]
    paper, drop, add, move, edit, respond = st.tabs(
        [
            "Paper's synthetic errors",
            "Drop an argument",
            "Add an argument",
            "Move an argument",
            "Edit an argument",
            "Edit the response",
        ]
    )
    with paper:
        rule, seed_column = st.columns([3, 1])
        chosen = rule.radio(
            "Which argument",
            RULES,
            horizontal=True,
            key=state.LAB_RULE,
            help="Chang et al. 2024, §4.2: a synthetic hallucination removes a given argument the response states; "
            "a synthetic coverage error adds an unused argument of the topic. The clearest demonstration removes the "
            "argument the response states most distinctly (the most words of its statement in no other argument) "
            "and adds the unused argument with the most content neither the response nor the arguments use; the "
            "paper takes one at random. The line under each button says what it will change.",
        )
        at_random = chosen == RULES[1]
        if at_random:
            seed_column.number_input("Seed", min_value=0, value=0, step=1, key=state.LAB_SEED)
        left, right = st.columns(2)
        for column, error_type, label, key in (
            (left, "hallucination", "Make a synthetic hallucination", state.LAB_SYNTHETIC_HALLUCINATION),
            (right, "coverage", "Make a synthetic coverage error", state.LAB_SYNTHETIC_COVERAGE),
        ):
            column.button(
                label,
                key=key,
                on_click=_apply,
                args=(
                    "synthetic hallucination" if error_type == "hallucination" else "synthetic coverage error",
                    lambda e, error_type=error_type: _synthetic(e, error_type, at_random),
                ),
                kwargs={"name_changes": True},
            )
            column.html(choice_html(example, _preview(example, error_type, at_random), random=at_random))
    with drop:
        st.selectbox("Argument", refs, format_func=lambda r: _argument_label(example, r), key=state.LAB_DROP_CHOICE)
        st.button(
            "Drop it",
            key=state.LAB_DROP,
            on_click=lambda: _apply(
                f"dropped {_argument_label(example, session['lab.drop_choice'])}",
                lambda e: edits.drop_argument(e, *session[state.LAB_DROP_CHOICE]),
            ),
        )
    with add:
        st.selectbox("Perspective", range(len(names)), format_func=names.__getitem__, key=state.LAB_ADD_PERSPECTIVE)
        st.text_area("New argument", key=state.LAB_ADD_TEXT, height=80)
        st.button(
            "Add it",
            key=state.LAB_ADD,
            on_click=lambda: _apply(
                f"added to {names[session['lab.add_perspective']]}: {session['lab.add_text'][:90]}",
                lambda e: edits.add_argument(e, session[state.LAB_ADD_PERSPECTIVE], session[state.LAB_ADD_TEXT]),
            ),
        )
    with move:
        st.selectbox("Argument", refs, format_func=lambda r: _argument_label(example, r), key=state.LAB_MOVE_CHOICE)
        st.selectbox("To perspective", range(len(names)), format_func=names.__getitem__, key=state.LAB_MOVE_TO)
        st.button(
            "Move it",
            key=state.LAB_MOVE,
            on_click=lambda: _apply(
                f"moved {_argument_label(example, session['lab.move_choice'])} to {names[session['lab.move_to']]}",
                lambda e: edits.move_argument(e, *session[state.LAB_MOVE_CHOICE], session[state.LAB_MOVE_TO]),
            ),
        )
    with edit:
        st.selectbox("Argument", refs, format_func=lambda r: _argument_label(example, r), key=state.LAB_EDIT_CHOICE)
        st.text_area("New text", key=state.LAB_EDIT_TEXT, height=80)
        st.button(
            "Replace it",
            key=state.LAB_EDIT,
            on_click=lambda: _apply(
                f"rewrote {_argument_label(example, session['lab.edit_choice'])}",
                lambda e: edits.edit_argument(e, *session[state.LAB_EDIT_CHOICE], session[state.LAB_EDIT_TEXT]),
            ),
        )
    with respond:
        st.text_area("Response", key=state.LAB_RESPONSE, height=200)
        st.button(
            "Apply the new response",
            key=state.LAB_RESPOND,
            on_click=lambda: _apply(
                "edited the response", lambda e: edits.edit_response(e, session[state.LAB_RESPONSE])
            ),
        )

    done = session.get(state.LAB_EDITS, [])
    if session.get(state.LAB_PROBLEM):
        st.error(session[state.LAB_PROBLEM])
    status, reset = st.columns([5, 1])
    status.markdown(
        "**Edits:** " + (" → ".join(done) if done else "none yet") + f" · gold now: **{example.labels.summary()}**"
    )
    reset.button("Reset", key=state.LAB_RESET, on_click=lambda: load(session[state.LAB_BEFORE]), disabled=not done)


# --- before and after ---------------------------------------------------------------------


def scores_for(before: Example, after: Example, detector_names: Sequence[str]):
    """Results on both sides, and what is still computing or failed (by side)."""
    old, old_pending = results.results_for(before, detector_names)
    new, new_pending = results.results_for(after, detector_names)
    return old, new, {"before": old_pending, "after": new_pending}


def show_pending(pending: dict[str, dict[str, Job | str]]) -> None:
    for side, waiting in pending.items():
        if waiting:
            st.caption(f"{side.capitalize()} the edits:")
            results.show_pending(waiting)
    jobs = [job for waiting in pending.values() for job in waiting.values() if isinstance(job, Job)]
    if jobs:
        _poll(jobs)


@st.fragment(run_every=2)
def _poll(jobs: list[Job]) -> None:
    if all(job.finished for job in jobs):
        st.rerun()


def show_changes(
    before: dict[str, DetectorResult], after: dict[str, DetectorResult], detector_names: Sequence[str]
) -> None:
    frame = table.score_changes(before, after, [m for m in detector_names if m in before or m in after])
    if frame.empty:
        return
    frame["detector"] = frame["detector"].map(lambda name: detectors.spec(name).title)
    st.dataframe(
        frame.style.format("{:+.3f}", subset=["change"], na_rep="")
        .format("{:.3f}", subset=["before", "after"], na_rep="")
        .map(lambda v: "" if v != v or v is None else f"color: {'#b91c1c' if v > 0 else '#15803d'}", subset=["change"]),
        hide_index=True,
        width="stretch",
    )
    st.caption("Error scores in [0, 1]; change = after - before (red: more likely an error after the edits).")


REMOVED, ADDED = ("removed", "#b91c1c"), ("added", "#15803d")


def show_highlights(
    before_example: Example,
    after_example: Example,
    before: dict[str, DetectorResult],
    after: dict[str, DetectorResult],
    detector_names: Sequence[str],
) -> None:
    """Per detector, before and after side by side (response over arguments on each side); an
    argument the edits removed is framed on the before side, one they added on the after side."""
    shown = [m for m in detector_names if m in before or m in after]
    if not shown:
        return
    show_gold = st.toggle("Overlay gold labels", key=state.LAB_SHOW_GOLD)
    st.html(highlights.legend_html(with_gold=show_gold))
    removed, added = edits.argument_changes(before_example, after_example)
    tags = {"Before": {ref: REMOVED for ref in removed}, "After": {ref: ADDED for ref in added}}
    titles = [detectors.spec(m).title for m in shown]
    verdict_title = detectors.spec(detectors.VERDICT_DETECTOR).title
    # The verdict's detector opens first, as on Inspect: its highlights are what the verdict reads.
    tabs = st.tabs(
        titles,
        default=verdict_title if verdict_title in titles else None,
        key=state.LAB_TAB,
        on_change="rerun",
    )
    for tab, name in zip(tabs, shown):
        if not tab.open:  # only the open tab is drawn
            continue
        meanings = detectors.spec(name)
        with tab:
            sides = (("Before", before_example, before), ("After", after_example, after))
            for column, (side, example, found) in zip(st.columns(2, gap="medium"), sides):
                with column:
                    st.markdown(f"**{side}** · {example.labels.summary()}")
                    result = found.get(name)
                    if result is None:
                        st.caption("not scored yet")
                        continue
                    st.markdown(f"Response · hallucination {result.hallucination:.2f}")
                    st.html(
                        highlights.response_html(example, result, meanings.response_word_meaning, show_gold=show_gold)
                    )
                    st.markdown(f"Arguments · coverage error {result.coverage:.2f}")
                    st.html(
                        highlights.arguments_html(
                            example, result, meanings.argument_word_meaning, show_gold=show_gold, tags=tags[side]
                        )
                    )


def report_button(before_example: Example, after_example: Example, after: dict[str, DetectorResult]) -> None:
    """The after example's HTML report, headed by what the lab changed."""
    done = st.session_state.get(state.LAB_EDITS, [])
    heading = f"Made in the error-injection lab from {before_example.id}" + (
        " by these edits:" if done else " (no edits)."
    )
    verdict.report_button(after_example, after, key=state.LAB_REPORT, changes=done, heading=heading)
