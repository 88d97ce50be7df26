"""The dashboard: ``streamlit run streamlit_app.py`` (or ``workbench dashboard``).

A thin entry: it builds the navigation over the pages in reports/pages/. The store path comes
from the WORKBENCH_DB environment variable (default workbench.duckdb)."""
import streamlit as st

from reports.pages import campaign, cards, overview

st.set_page_config(page_title="Card balance workbench", layout="wide")
pages = [
    st.Page(overview.render, title="Overview", url_path="overview", default=True),
    st.Page(cards.render, title="Cards", url_path="cards"),
    st.Page(campaign.render, title="Campaign", url_path="campaign"),
]
st.navigation(pages).run()
