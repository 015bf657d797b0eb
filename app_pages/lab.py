"""Error-injection lab: edit an example and see how every chosen detector's scores move."""

import streamlit as st

from explorer.ui import frame

frame.page_frame()

st.title("Error-injection lab")
st.caption(
    "Take an example, inject an error (drop, add, move or rewrite an argument, edit the response, or apply "
    "the paper's synthetic procedure) and compare each detector's scores and highlights before and after."
)

with frame.loading():
    from explorer.ui import lab, results, state, verdict

example = lab.choose_example()
if example is None:
    st.info("Choose or paste an example to start.")
    st.stop()
before = st.session_state[state.LAB_BEFORE]
results.show_example_header(example)
lab.edit_controls(example)

detector_names = state.chosen_detectors()
if not detector_names:
    st.info("Choose at least one detector in the sidebar.")
    st.stop()
old, new, pending = lab.scores_for(before, example, detector_names)
lab.show_pending(pending)
heading, download = st.columns([3, 1], vertical_alignment="bottom")
heading.subheader("Scores before and after", anchor=False)
with download:
    lab.report_button(before, example, new)
verdict.show_verdict_change(before, example, old, new, edited=bool(st.session_state[state.LAB_EDITS]))
lab.show_changes(old, new, detector_names)
st.subheader("Highlights", anchor=False)
lab.show_highlights(before, example, old, new, detector_names)
