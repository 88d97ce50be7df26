"""The dashboard: ``streamlit run streamlit_app.py`` (or ``workbench dashboard``).

A thin entry: it builds the navigation over the pages in reports/pages/. The store path comes
from the WORKBENCH_DB environment variable (default workbench.duckdb). The Match replay page is
the one view that needs the simulator; ``reports`` imports no ``sim``, so the replay function is
handed to the page from here."""
import streamlit as st

from reports.db import StoreError
from reports.pages import (
    campaign,
    card,
    cards,
    costs,
    deck,
    diff,
    ffa,
    keywords,
    matchups,
    overview,
    pilots,
    replay,
    series,
    tune,
    turf,
    value,
    whatif,
)
from reports.pages.common import PAGES_KEY
from workbench.replay import replay_match


def match_replay() -> None:
    replay.render(replay_match)


def start() -> None:
    """The app's root (/): the Overview, at its own path, so that every page, the Overview
    included, answers at its url (/overview). The default page of Streamlit's navigation is
    served at the root only; this one just moves on, keeping the link's filters."""
    st.switch_page(st.session_state[PAGES_KEY]["overview"], query_params=dict(st.query_params))


st.set_page_config(page_title="Card balance workbench", layout="wide")
pages = [
    st.Page(overview.render, title="Overview", url_path="overview"),
    st.Page(cards.render, title="Cards", url_path="cards"),
    st.Page(keywords.render, title="Keywords", url_path="keywords"),
    st.Page(costs.render, title="Cost curves", url_path="costs"),
    st.Page(matchups.render, title="Matchups", url_path="matchups"),
    st.Page(diff.render, title="Version diff", url_path="diff"),
    st.Page(whatif.render, title="What-if", url_path="whatif"),
    st.Page(value.render, title="Card value", url_path="value"),
    st.Page(match_replay, title="Match replay", url_path="replay"),
    st.Page(ffa.render, title="Free-for-all", url_path="ffa"),
    st.Page(series.render, title="Series", url_path="series"),
    st.Page(turf.render, title="Turf Defense", url_path="turf"),
    st.Page(campaign.render, title="Campaign", url_path="campaign"),
    st.Page(pilots.render, title="Pilots", url_path="pilots"),
    st.Page(tune.render, title="Rebalancing", url_path="tune"),
]
# one card's or one deck's page (?card=ID, ?deck=ID): opened from a search box or a link, not in the menu
item_pages = [st.Page(card.render, title="Card", url_path="card"), st.Page(deck.render, title="Deck", url_path="deck")]
# pages switch to one another (an example row opens the replay) through the session
st.session_state[PAGES_KEY] = {page.url_path: page for page in pages + item_pages}
# the menu is drawn here, not by the navigation, so the root page stays out of it
navigation = st.navigation([st.Page(start, title="Overview", url_path="start", default=True), *pages, *item_pages],
                           position="hidden")
for page in pages:
    st.sidebar.page_link(page)
try:
    navigation.run()
except StoreError as exc:  # a damaged store, or one held too long: its one line, not a traceback
    st.error(str(exc))
