"""Browse a test set: every example's scores, ROC curves, thresholds, failures, summaries, exports."""

import dataclasses

import streamlit as st

from explorer.ui import frame, state

frame.page_frame(state.DATASET_PAGE)

st.title(
    "Browse a test set",
    anchor=False,
    help="Load a JSON Lines file of labelled examples to see how each detector separates errors from error-free "
    "responses, where it fails, and which topics and perspectives go wrong most. The view and the filters are "
    "kept in the address bar: a reload or a shared link shows the same.",
)

with frame.loading():
    from explorer.evaluation import table
    from explorer.scoring.dataset import fingerprint
    from explorer.ui import labelling, phenomena
    from explorer.ui.dataset import evaluation, examples, labels, rates, scores, scroll, source

chosen = source.choose_dataset()
if chosen is None:
    st.stop()
dataset_name, loaded = chosen
loaded = dataclasses.replace(loaded, examples=labelling.with_labels(loaded.examples))  # the user's labels shown
evaluation.restore_view(dataset_name)
source.scores_uploader(dataset_name)
detector_names = source.dataset_detectors(dataset_name, state.chosen_detectors())
if not detector_names:
    st.info("Choose at least one detector in the sidebar.")
    st.stop()

content_key = fingerprint(loaded.examples)
dataset_key = f"{dataset_name}@{content_key}"  # thresholds belong to this file and content
scored = scores.dataset_scores(dataset_name, loaded.examples, detector_names)
scores.show_scoring_status(scored, len(loaded.examples))
results = scored.results
full_frame = table.scores_frame(loaded.examples, results, detector_names).join(
    source.trust_columns(content_key, loaded.examples)
)
filters = evaluation.filter_sidebar(full_frame, detector_names)
frame = table.apply_filters(full_frame, filters)
kept = set(frame.index)
shown = [e for e in loaded.examples if e.id in kept]
st.caption(f"{len(shown)} of {len(loaded.examples)} examples match the filters.")

view = evaluation.choose_view(detector_names, shown, results, list(scored.jobs))
# Only the open tab runs (on_change="rerun"); which one is open is kept in the URL.
evaluate_tab, examples_tab, summaries_tab, export_tab, label_tab, rates_tab = st.tabs(
    ["Evaluation", "Examples", "Summaries", "Export", "Label", "Error rates"],
    key=state.DATASET_TAB,
    bind="query-params",
)
if evaluate_tab.open:
    with evaluate_tab:
        total = len(loaded.examples)
        progress = {m: (scores.scored_count(scored, m, total), total) for m in scored.jobs}
        evaluation.show_evaluation(dataset_name, dataset_key, shown, results, detector_names, view, progress)
if examples_tab.open:
    with examples_tab:
        examples.show_examples(dataset_name, dataset_key, loaded.examples, frame, shown, results, detector_names, view)
if summaries_tab.open:
    with summaries_tab:
        examples.show_summaries(shown, results, detector_names)
        phenomena.show_phenomena_table(fingerprint(shown), shown)
if export_tab.open:
    with export_tab:
        examples.show_export(dataset_name, frame, shown, results, detector_names)
if label_tab.open:
    with label_tab:
        labels.show_labelling(dataset_name, dataset_key, shown, results)
if rates_tab.open:
    with rates_tab:
        rates.show_rates(dataset_key, shown, results)
evaluation.remember_view(dataset_name)
scroll.return_to_place()
