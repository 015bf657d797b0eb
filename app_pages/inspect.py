"""Inspect one example: pick, paste or edit it; the verdict first, then every detector's scores and highlights."""

import streamlit as st

from explorer.ui import frame

frame.page_frame()
st.title(
    "Inspect an example",
    anchor=False,
    help="Pick a sample, paste a record, or edit the fields; the address bar then holds the example, so a reload "
    "or a shared link brings it back.",
)
st.caption(frame.WHAT_IT_DOES)
back_slot = st.container()  # "Back to the failures" when opened from them: known once the example is

with frame.loading():
    from explorer import detectors
    from explorer.data.example import Example, Perspective
    from explorer.ui import (
        claims,
        editor,
        generate,
        labelling,
        links,
        phenomena,
        results,
        state,
        trust,
        verdict,
        word_map,
    )
    from explorer.ui.text import literal

PREFIX = state.INSPECT_PREFIX
BLANK = Example(
    id="my-example",
    query="Should cities ban cars from their centres?",
    perspectives=(Perspective("pro", ("",)), Perspective("con", ("",))),
    response="",
)

links.apply_example_link()
backend, settings = generate.sidebar_settings()
generate.take_finished(PREFIX)  # before the editor: a finished answer becomes its response
current = st.session_state.get(state.CURRENT_EXAMPLE) or editor.first_sample(state.sample_examples()) or BLANK
# The picker and the download share a row; the paste box and the editor open below it, full
# width, so opening either moves nothing above it.
pick, download = st.columns([5, 2], vertical_alignment="bottom")
pick_slot, download_slot = pick.container(), download.container()
with st.expander("Paste JSON"):
    editor.paste_box(PREFIX)
with st.expander("Edit the example", expanded=False):
    example, problems = editor.example_editor(PREFIX, current)
with pick_slot:
    editor.sample_picker(PREFIX, example)  # after the editor: it names the example as edited
st.session_state[state.CURRENT_EXAMPLE] = example
in_link = links.sync_example_link(example)
with back_slot:
    links.back_to_dataset(example)

results.show_example_header(example, beside=lambda: generate.buttons(example, problems, backend, settings))
generate.show_progress()
if problems:
    st.error("Fix these fields to score the example:\n\n" + "\n".join(f"- {literal(str(p))}" for p in problems))
    st.stop()
detector_names = state.chosen_detectors()
if not detector_names:
    st.info("Choose at least one detector in the sidebar.")
    st.stop()

verdict_slot = verdict.verdict_placeholder(example)  # drawn before scoring: the old verdict goes at once
scored, pending = results.results_for(example, detector_names)
results.show_pending(pending)
with verdict_slot.container():
    found, read = verdict.show_verdict(example, scored)
verdict.show_scores(scored)
labelling.label_expander(example, found, key=f"{PREFIX}.labels")
with download_slot:
    verdict.report_button(example, scored, key=state.INSPECT_REPORT)
if not in_link:
    st.caption("This example is too long to travel in a link: share the HTML report or the JSON record instead.")

has_gold = not example.labels.is_empty()
show_gold = has_gold and st.toggle("Overlay gold labels", key=state.SHOW_GOLD, help=f"Gold: {example.labels.summary()}")
results.show_legend(with_gold=show_gold)
if scored or pending:
    # A detector still computing keeps its tab, so a tab the user opened stays open meanwhile.
    shown = [name for name in detector_names if name in scored or name in pending]
    titles = [detectors.spec(name).title for name in shown]
    default = detectors.spec(detectors.VERDICT_DETECTOR).title
    state.forget_unless(state.INSPECT_TAB, [*titles, "Side by side"])
    # The most reliable detector opens first; only the open tab runs, and the URL keeps which.
    tabs = st.tabs(
        titles + (["Side by side"] if len(scored) > 1 else []),
        default=default if default in titles else None,
        key=state.INSPECT_TAB,
        bind="query-params",
    )
    for tab, name in zip(tabs, shown):
        if tab.open:
            with tab:
                if name not in scored:
                    results.show_waiting(name, pending[name])
                    continue
                marks = verdict.marks_for(name, found)
                results.show_highlights(example, name, scored[name], show_gold=show_gold, marks=marks)
                word_map.show_word_map(example, name, scored[name], key=f"{PREFIX}.{name}")
    if len(scored) > 1 and tabs[-1].open:
        with tabs[-1]:
            results.show_side_by_side(example, scored, show_gold=show_gold)
claims.show_claim_view(example, scored, read)
trust.show_trust(example)
phenomena.show_phenomena(example)
generate.preload(backend)  # last: the page is drawn before the generator's load takes a core
