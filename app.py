"""Streamlit entry point: the router. Each page draws the shared frame itself
(`explorer.ui.frame.page_frame`), so a page opened by its direct URL looks the same."""

import streamlit as st

from explorer.ui.frame import ICON, TITLE

st.set_page_config(page_title=TITLE, page_icon=ICON, layout="wide")
navigation = st.navigation(
    [
        st.Page("app_pages/inspect.py", title="Inspect", icon="🔎", default=True),
        st.Page("app_pages/dataset.py", title="Browse a test set", icon="📊"),
        st.Page("app_pages/lab.py", title="Error-injection lab", icon="🧪"),
    ]
)
navigation.run()
