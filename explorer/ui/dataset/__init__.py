"""Streamlit glue of the Browse-a-test-set page, one module per job: `source` (which dataset,
precomputed scores), `scores` (what is scored now, background jobs, progress), `evaluation`
(filters, ROC curves, AUC table, thresholds, failures), `examples` (the examples table,
summaries, downloads) and `scroll` (back from Inspect to the place in the list).

Model-free detectors score the whole dataset at once (cached per dataset). Model-based ones
serve what the result cache and the shipped seed bundles hold, and score the rest in one
background job per detector and dataset (`explorer.scoring.dataset`), so the page is usable at
once and fills in as the job goes; a fragment polls the jobs and reruns the page when they finish.
"""
