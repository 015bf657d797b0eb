"""Streamlit entry point: the router and the frame shared by every page."""

import streamlit as st

from explorer.ui import state

st.set_page_config(page_title="RAG Error Explorer", page_icon="🔎", layout="wide")

navigation = st.navigation(
    [
        st.Page("views/inspect.py", title="Inspect", icon="🔎", default=True),
        st.Page("views/dataset.py", title="Browse a test set", icon="📊"),
        st.Page("views/lab.py", title="Error-injection lab", icon="🧪"),
    ]
)
state.sidebar()
navigation.run()
