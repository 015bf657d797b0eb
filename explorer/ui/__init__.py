"""Streamlit glue shared by the pages: the only part of the package that imports Streamlit.

Pages lay out what these modules return; scoring, rendering and data logic stay in the rest of
the package. `state` holds session-state keys, cached resources and the sidebar; `editor` the
example editor; `results` the score and highlight views; `generate` Inspect's Generate button.
"""
