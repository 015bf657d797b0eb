"""Inspect one example: pick, paste or edit it; see every detector's scores and highlights."""

import streamlit as st

from explorer import detectors
from explorer.data.example import Example, Perspective
from explorer.ui import claims, editor, links, phenomena, results, state, trust, word_map
from explorer.ui.frame import page_frame
from explorer.ui.text import literal

page_frame()

PREFIX = state.INSPECT_PREFIX
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
    editor.sample_picker(PREFIX)
with paste, st.expander("Paste JSON"):
    editor.paste_box(PREFIX)

links.apply_example_link()
results_area = st.container()
samples = state.sample_examples()
current = st.session_state.get(state.CURRENT_EXAMPLE) or (samples[0] if samples else BLANK)
with st.expander("Edit the example", expanded=False):
    example, problems = editor.example_editor(PREFIX, current)
st.session_state[state.CURRENT_EXAMPLE] = example
links.sync_example_link(example)

with results_area:
    results.show_example_header(example)
    if problems:
        st.error("Fix these fields to score the example:\n\n" + "\n".join(f"- {literal(str(p))}" for p in problems))
        st.stop()
    methods = state.chosen_methods()
    if not methods:
        st.info("Choose at least one detector in the sidebar.")
        st.stop()

    scored, pending = results.results_for(example, methods)
    results.show_pending(pending)
    results.show_scores(example, scored)

    has_gold = not example.labels.is_empty()
    show_gold = has_gold and st.toggle(
        "Overlay gold labels", key=state.SHOW_GOLD, help=f"Gold: {example.labels.summary()}"
    )
    results.show_legend(with_gold=show_gold)
    if scored:
        titles = [detectors.spec(name).title for name in scored]
        tabs = st.tabs(titles + (["Side by side"] if len(scored) > 1 else []))
        for tab, (name, result) in zip(tabs, scored.items()):
            with tab:
                results.show_highlights(example, name, result, show_gold=show_gold)
                word_map.show_word_map(example, name, result, key=f"{PREFIX}.{name}")
        if len(scored) > 1:
            with tabs[-1]:
                results.show_side_by_side(example, scored, show_gold=show_gold)
    claims.show_claim_view(example, scored)
    trust.show_trust(example)
    phenomena.show_phenomena(example)
