"""Browse a test set: every example's scores, ROC curves, thresholds, failures, summaries, exports."""

import streamlit as st

from explorer.evaluation import table
from explorer.ui import dataset, state

st.title("Browse a test set")
st.caption(
    "Load a JSON Lines file of labelled examples to see how each detector separates errors from "
    "error-free responses, where it fails, and which topics and perspectives go wrong most."
)

chosen = dataset.choose_dataset()
if chosen is None:
    st.stop()
source, loaded = chosen
dataset.scores_uploader(source)
methods = dataset.dataset_methods(source, state.chosen_methods())
if not methods:
    st.info("Choose at least one detector in the sidebar.")
    st.stop()

scores = dataset.dataset_scores(source, loaded.examples, methods)
dataset.show_scoring_status(scores, len(loaded.examples))
results = scores.results
full_frame = table.scores_frame(loaded.examples, results, methods).join(
    dataset.trust_columns(dataset.fingerprint(loaded.examples), loaded.examples)
)
filters = dataset.filter_sidebar(full_frame, methods)
frame = table.apply_filters(full_frame, filters)
kept = set(frame.index)
examples = [e for e in loaded.examples if e.id in kept]
st.caption(f"{len(examples)} of {len(loaded.examples)} examples match the filters.")

error_type, slice_name = dataset.choose_view()

evaluate_tab, examples_tab, summaries_tab, export_tab = st.tabs(["Evaluation", "Examples", "Summaries", "Export"])

with evaluate_tab:
    dataset.show_evaluation(source, examples, results, methods, error_type, slice_name)

with examples_tab:
    dataset.show_examples(source, loaded.examples, frame, examples, results, methods, error_type, slice_name)

with summaries_tab:
    dataset.show_summaries(examples, results, methods)

with export_tab:
    dataset.show_export(source, frame, examples, results, methods)
