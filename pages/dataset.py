"""Browse a test set: every example's scores, ROC curves, thresholds, failures, summaries, exports."""

import streamlit as st

from explorer.evaluation import table
from explorer.scoring.dataset import fingerprint
from explorer.ui import phenomena, state
from explorer.ui.dataset import evaluation, examples, scores, source
from explorer.ui.frame import page_frame

page_frame()

st.title("Browse a test set")
st.caption(
    "Load a JSON Lines file of labelled examples to see how each detector separates errors from "
    "error-free responses, where it fails, and which topics and perspectives go wrong most."
)

chosen = source.choose_dataset()
if chosen is None:
    st.stop()
dataset_name, loaded = chosen
source.scores_uploader(dataset_name)
methods = source.dataset_methods(dataset_name, state.chosen_methods())
if not methods:
    st.info("Choose at least one detector in the sidebar.")
    st.stop()

scored = scores.dataset_scores(dataset_name, loaded.examples, methods)
scores.show_scoring_status(scored, len(loaded.examples))
results = scored.results
full_frame = table.scores_frame(loaded.examples, results, methods).join(
    source.trust_columns(fingerprint(loaded.examples), loaded.examples)
)
filters = evaluation.filter_sidebar(full_frame, methods)
frame = table.apply_filters(full_frame, filters)
kept = set(frame.index)
shown = [e for e in loaded.examples if e.id in kept]
st.caption(f"{len(shown)} of {len(loaded.examples)} examples match the filters.")

error_type, slice_name = evaluation.choose_view()

evaluate_tab, examples_tab, summaries_tab, export_tab = st.tabs(["Evaluation", "Examples", "Summaries", "Export"])

with evaluate_tab:
    evaluation.show_evaluation(dataset_name, shown, results, methods, error_type, slice_name)

with examples_tab:
    examples.show_examples(dataset_name, loaded.examples, frame, shown, results, methods, error_type, slice_name)

with summaries_tab:
    examples.show_summaries(shown, results, methods)
    phenomena.show_phenomena_table(fingerprint(shown), shown)

with export_tab:
    examples.show_export(dataset_name, frame, shown, results, methods)
