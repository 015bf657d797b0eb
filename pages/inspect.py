"""Inspect one example: pick, paste or edit it; see every detector's scores and highlights."""

import streamlit as st

from explorer import detectors, ui
from explorer.example import Example, Perspective

PREFIX = "inspect"
BLANK = Example(
    id="my-example",
    query="Should cities ban cars from their centres?",
    perspectives=(Perspective("pro", ("",)), Perspective("con", ("",))),
    response="",
)

st.title("Inspect an example")
st.caption(
    "A faithful answer states every given argument (no coverage error) and nothing else "
    "(no hallucination). Pick a sample, paste a record, or edit the fields below."
)

pick, paste = st.columns(2)
with pick:
    ui.sample_picker(PREFIX)
with paste, st.expander("Paste JSON"):
    ui.paste_box(PREFIX)

results_area = st.container()
samples = ui.sample_examples()
current = st.session_state.get(ui.CURRENT_EXAMPLE) or (samples[0] if samples else BLANK)
with st.expander("Edit the example", expanded=False):
    example, problems = ui.example_editor(PREFIX, current)
st.session_state[ui.CURRENT_EXAMPLE] = example

with results_area:
    ui.show_example_header(example)
    if problems:
        st.error("Fix these fields to score the example:\n\n" + "\n".join(f"- {p}" for p in problems))
        st.stop()
    methods = ui.chosen_methods()
    if not methods:
        st.info("Choose at least one detector in the sidebar.")
        st.stop()

    results, pending = ui.results_for(example, methods)
    ui.show_pending(pending)
    ui.show_scores(example, results)

    has_gold = not example.labels.is_empty()
    show_gold = has_gold and st.toggle(
        "Overlay gold labels", key=ui.SHOW_GOLD, help=f"Gold: {example.labels.summary()}"
    )
    ui.show_legend(with_gold=show_gold)
    if results:
        tabs = st.tabs([detectors.spec(name).title for name in results])
        for tab, (name, result) in zip(tabs, results.items()):
            with tab:
                ui.show_highlights(example, name, result, show_gold=show_gold)
