"""Streamlit entry point: the router and the frame shared by every page."""

import streamlit as st

from explorer.ui import state

st.set_page_config(page_title="RAG Error Explorer", page_icon="🔎", layout="wide")

navigation = st.navigation(
    [
        st.Page("pages/inspect.py", title="Inspect", icon="🔎", default=True),
        st.Page("pages/dataset.py", title="Browse a test set", icon="📊"),
        st.Page("pages/lab.py", title="Error-injection lab", icon="🧪"),
    ]
)
state.sidebar()
navigation.run()
