"""Keywords page: what each keyword does to winning (the causal estimate first: a logistic model
on keyword cards dealt in the opening hand, deck, cost and seat held fixed; then the same model
per card played and the plain with/without difference, with a warning where the two models
disagree in sign) and what the designers have been charging for it (the price list: cost
regressed on stats and keywords)."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st
from plotly.subplots import make_subplots

from reports.keywords import keyword_name, with_keyword_names
from reports.pages.common import (
    cached,
    count,
    example_buttons,
    filtered_page,
    one_connection_per_render,
    pct,
    percent,
    pilots_line,
    pilots_of,
    pooled_versions_note,
    pts,
    table_with_download,
    with_pilots_subtitle,
    with_replay_links,
)

HELP = {
    "seats exposed": "match seats that played at least one card carrying the keyword (the sample size of 'with')",
    "WR with / without": "win rate of seats that played the keyword at least once / never",
    "plain difference": "WR with minus WR without, in points, 95% Newcombe interval; it carries every confounder "
                        "(a seat that survives longer plays more cards, and more expensive ones)",
    "odds ratio": "the logistic model's effect of one more card played with the keyword on the odds of winning, "
                  "with the deck, the cost of all cards played and the seat order held fixed; 1 = no effect; 95% "
                  "interval. Cards played are an outcome of the game (a seat that is winning plays more)",
    "p": "the model coefficient's p-value (Wald test), one keyword alone: read significance from q",
    "q": "Benjamini-Hochberg q-value of p across the keywords of the same model: below 0.05, the keyword's effect "
         "is significant at a 5% false discovery rate (with twenty keywords, one p below 0.05 comes by chance)",
    "dealt odds ratio": "the causal estimate: the same model on the keyword cards in the opening hand as the shuffle "
                        "dealt it (before any redraw: AlleyWay's kept hand carries the pilot's judgement), with the "
                        "deck, the dealt hand's cost and the seat order held fixed; the shuffle deals them at random "
                        "within a deck, so this is what being dealt one more such card does to winning (in AlleyWay, "
                        "redraw allowed), not a correlation with how the game went",
    "seats dealt": "match seats dealt at least one card carrying the keyword in the opening hand, before any redraw "
                   "(the causal estimate's sample)",
    "signs disagree": "the causal (opening-hand) and the per-card-played estimates point in opposite directions: "
                      "read the causal one",
    "price": "cost units a keyword adds to a card of the same type and stats (an OLS fit of budget cost on attack, "
             "defense and keyword flags over the cards of a rules version); attack and defense are per point",
    "R²": "how much of the cards' cost the fit explains",
}


P = "%.3f"  # p-values: three decimals read against 0.05 (the CSV keeps them exact)
STAT_TERMS = ("attack", "defense")


def impact_chart(impact: pl.DataFrame) -> go.Figure:
    """``impact``: the keyword table with each model's odds-ratio bounds (``odds_ratio_lo`` ...)."""
    rows = impact.to_dicts()
    labels = [f"{keyword_name(r['keyword'])} (n={r['seats_exposed']})" for r in rows]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=("Plain difference: win rate with minus without (points)",
                                        "Model: odds ratio dealt in the opening hand (blue, causal) or per card "
                                        "played (red)"))
    fig.add_trace(go.Scatter(
        x=[r["plain_diff"] * 100 for r in rows], y=labels, mode="markers", name="plain difference",
        marker={"color": "#7f7f7f", "size": 9},
        error_x={"type": "data", "symmetric": False, "array": [(r["plain_diff_hi"] - r["plain_diff"]) * 100 for r in rows],
                 "arrayminus": [(r["plain_diff"] - r["plain_diff_lo"]) * 100 for r in rows]},
        customdata=[[r["wr_with"] * 100, r["wr_without"] * 100, r["seats_unexposed"]] for r in rows],
        hovertemplate="%{y}<br>%{x:+.1f} pts (with %{customdata[0]:.1f}%, without %{customdata[1]:.1f}%, "
                      "n without = %{customdata[2]})<extra></extra>"), row=1, col=1)
    for prefix, name, marker, what in (
            ("oh_", "dealt in the opening hand", {"color": "#1f77b4", "size": 9}, "dealt in the opening hand: "),
            ("", "model effect per card played", {"color": "#d62728", "size": 8, "symbol": "diamond"},
             "per card played: ")):
        trace = odds_trace(rows, labels, prefix, name, marker, what)
        if trace is not None:
            fig.add_trace(trace, row=1, col=2)
    fig.add_vline(x=0, line_dash="dot", line_color="gray", row=1, col=1)
    fig.add_vline(x=1, line_dash="dot", line_color="gray", row=1, col=2)
    fig.update_xaxes(title_text="Difference in win rate (points)", row=1, col=1)
    fig.update_xaxes(title_text="Odds ratio (log scale)", type="log", row=1, col=2,
                     tickvals=[0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10])
    fig.update_layout(title="Keyword impact on winning (95% intervals)", showlegend=False,
                      height=max(360, 34 * len(rows) + 160), margin={"t": 90},
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "automargin": True})
    return fig


def odds_trace(rows: list[dict], labels: list[str], prefix: str, name: str, marker: dict,
               what: str) -> go.Scatter | None:
    """One model's odds ratios with their 95% intervals (columns ``{prefix}odds_ratio``, ``_lo``,
    ``_hi``), for the keywords it could estimate; None when it estimated none."""
    est = [(r, lab) for r, lab in zip(rows, labels) if r.get(f"{prefix}odds_ratio") is not None]
    if not est:
        return None
    mid, lo, hi = (f"{prefix}odds_ratio{s}" for s in ("", "_lo", "_hi"))
    return go.Scatter(
        x=[r[mid] for r, _ in est], y=[lab for _, lab in est], mode="markers", name=name, marker=marker,
        error_x={"type": "data", "symmetric": False, "array": [r[hi] - r[mid] for r, _ in est],
                 "arrayminus": [r[mid] - r[lo] for r, _ in est]},
        customdata=[[r[lo], r[hi], r[f"{prefix}q_value"]] for r, _ in est],
        hovertemplate=f"%{{y}}<br>{what}odds ratio %{{x:.2f}} (95% CI %{{customdata[0]:.2f}} to "
                      "%{customdata[1]:.2f}), q (BH) = %{customdata[2]:.3g}<extra></extra>")


def price_chart(prices: pl.DataFrame, title: str) -> go.Figure:
    rows = prices.to_dicts()
    labels = [f"{keyword_name(r['term'])} (per point)" if r["term"] in STAT_TERMS
              else f"{keyword_name(r['term'])} ({r['cards_with']} cards)" for r in rows]
    fig = go.Figure(go.Scatter(
        x=[r["cost"] for r in rows], y=labels, mode="markers", marker={"size": 9, "color": "#1f77b4"},
        error_x={"type": "data", "symmetric": False, "array": [r["cost_hi"] - r["cost"] for r in rows],
                 "arrayminus": [r["cost"] - r["cost_lo"] for r in rows]},
        customdata=[[r["cost_lo"], r["cost_hi"]] for r in rows],
        hovertemplate="%{y}: %{x:.2f} cost (95% CI %{customdata[0]:.2f} to %{customdata[1]:.2f})<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title=title, xaxis_title="Cost units", yaxis_title="", height=max(320, 34 * len(rows) + 120),
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "automargin": True})
    return fig


def impact_section(path, filters) -> None:
    st.subheader("Keyword impact on winning")
    impact = cached("keyword_impact", str(path), filters)
    if impact.is_empty():
        st.info("No keyword was played in these matches.")
        return
    note = pooled_versions_note(path, filters, "The keyword figures")
    if note:
        st.warning(note)
    st.caption("The causal estimate comes first (blue, 'dealt OR'): a logistic model (statsmodels) of winning on the "
               "keyword cards dealt in the opening hand, with the other keywords, the deck, the dealt hand's cost and "
               "the seat order held fixed; the shuffle deals them at random within a deck. The hand read is the one "
               "dealt, before any redraw: AlleyWay lets a seat redraw, and the hand it keeps carries the pilot's "
               "judgement (runs stored before the dealt hand was recorded read the kept hand). The same model on the "
               "cards played (red) is a correlation: cards played are an outcome of the game. The plain difference "
               "compares seats that played the keyword with seats that did not, and carries every confounder, the "
               "deck's strength first. Keywords seen by fewer than 10 seats get no model estimate, nor do keywords the "
               "data cannot price (separation: in a small run, say, every seat that played it won, and the estimate "
               "runs off to infinity). n = seats exposed (played). " + significance(impact))
    disagree = [keyword_name(k) for k in impact.filter(pl.col("signs_disagree"))["keyword"].to_list()]
    if disagree:
        st.warning(f"The causal (opening-hand) and the per-card-played estimates point in opposite directions for "
                   f"{', '.join(disagree)}: read the opening-hand one. Cards played follow how the game went (a seat "
                   f"that is winning plays more, and plays its expensive cards), the opening hand does not.")
    raw = impact.with_columns(
        pl.col("log_odds_lo").exp().alias("odds_ratio_lo"), pl.col("log_odds_hi").exp().alias("odds_ratio_hi"),
        pl.col("oh_log_odds_lo").exp().alias("oh_odds_ratio_lo"), pl.col("oh_log_odds_hi").exp().alias("oh_odds_ratio_hi"),
    ).sort("oh_odds_ratio", descending=True, nulls_last=True)
    st.plotly_chart(with_pilots_subtitle(impact_chart(raw), pilots_of(path, filters)), width="stretch")
    config = {"keyword_name": st.column_config.TextColumn("keyword", help="the keyword as the rules name it",
                                                          pinned=True),
              "keyword": st.column_config.TextColumn("keyword id", help="the keyword's name in the card data"),
              "seats_dealt": count("seats dealt", HELP["seats dealt"]),
              "signs_disagree": st.column_config.CheckboxColumn("signs disagree", help=HELP["signs disagree"]),
              "seats_exposed": count("seats exposed", HELP["seats exposed"]),
              "seats_unexposed": count("seats not exposed", "match seats that never played the keyword"),
              "wr_with": pct("WR with", HELP["WR with / without"]), "wr_without": pct("WR without", HELP["WR with / without"]),
              "plain_diff": pts("plain difference", HELP["plain difference"]),
              "plain_diff_lo": pts("plain lo", "95% Newcombe lower bound"),
              "plain_diff_hi": pts("plain hi", "95% Newcombe upper bound"),
              "odds_ratio": st.column_config.NumberColumn("odds ratio", help=HELP["odds ratio"], format="%.2f"),
              "odds_ratio_lo": st.column_config.NumberColumn("OR lo", help="95% lower bound", format="%.2f"),
              "odds_ratio_hi": st.column_config.NumberColumn("OR hi", help="95% upper bound", format="%.2f"),
              "log_odds": st.column_config.NumberColumn("log-odds", help="the model coefficient (log of the odds ratio)",
                                                        format="%+.3f"),
              "log_odds_lo": None, "log_odds_hi": None,
              "p_value": st.column_config.NumberColumn("p", help=HELP["p"], format=P),
              "q_value": st.column_config.NumberColumn("q", help=HELP["q"], format=P),
              "oh_q_value": st.column_config.NumberColumn("dealt q", help=HELP["q"], format=P),
              "oh_odds_ratio": st.column_config.NumberColumn("dealt OR", help=HELP["dealt odds ratio"], format="%.2f"),
              "oh_odds_ratio_lo": st.column_config.NumberColumn("dealt lo", help="95% lower bound", format="%.2f"),
              "oh_odds_ratio_hi": st.column_config.NumberColumn("dealt hi", help="95% upper bound", format="%.2f"),
              "oh_p_value": st.column_config.NumberColumn("dealt p", help=HELP["p"], format=P)}
    order = ["keyword_name", "seats_dealt", "oh_odds_ratio", "oh_odds_ratio_lo", "oh_odds_ratio_hi", "oh_q_value",
             "oh_p_value", "signs_disagree", "seats_exposed", "odds_ratio", "odds_ratio_lo", "odds_ratio_hi", "log_odds",
             "q_value", "p_value", "seats_unexposed", "wr_with", "wr_without", "plain_diff", "plain_diff_lo", "plain_diff_hi",
             "example_win", "example_loss", "keyword"]
    shown = with_replay_links(with_keyword_names(percent(raw, ["wr_with", "wr_without", "plain_diff", "plain_diff_lo",
                                                       "plain_diff_hi"]), "keyword"),
                              {"example_win": "example win", "example_loss": "example loss"}, config)
    picked = table_with_download(shown, "keyword_impact", config, download=raw, select_key="keywords_table",
                                 column_order=order)
    row = raw.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"example_win": "Replay a win with it", "example_loss": "Replay a loss with it"}, "keyword",
                    f"keyword {keyword_name(row['keyword'])}" if row else "")


def significance(impact: pl.DataFrame) -> str:
    """The caption's count of keywords significant in each model, read from the q-values."""
    def named(column: str) -> str:
        found = [keyword_name(k) for k in impact.filter(pl.col(column) < 0.05)["keyword"].to_list()]
        return ", ".join(found) if found else "none"
    return (f"Significance is read from q, Benjamini-Hochberg across each model's keywords (FDR 5%), not from p: "
            f"dealt {named('oh_q_value')}; played {named('q_value')}.")


def fit_quality(r_squared: float | None) -> str:
    """The fit's R², or why it has none: R² is the share of the spread in cost the fit explains, and
    cards that all cost the same (AlleyWay's leaders) have no spread to explain."""
    if r_squared is None or r_squared != r_squared:
        return "no R², as every one of these cards costs the same (no spread in cost to explain)"
    return f"R² = {r_squared:.2f}"


def prices_section(path, filters) -> None:
    st.subheader("Keyword price list")
    prices = cached("keyword_prices", str(path), filters)
    if prices.is_empty():
        st.info("Too few cards of any one type to fit a price list (it needs more cards than terms).")
        return
    prices = prices.with_columns(pl.col("r_squared").fill_nan(None))  # no R² (fit_quality): a blank, not "nan"
    # per card set: a version's name may hold two (name@hash), whose cards must not pool in one fit
    groups = prices.select("card_set", "type").unique(maintain_order=True).rows()
    choice = st.selectbox("Rules version and card type", groups, format_func=lambda g: f"{g[1]} cards, {g[0]}",
                          help="the price list is fitted per rules version and card type; name@hash where two runs' "
                               "card data share one name (the hash of the card data)")
    part = prices.filter((pl.col("card_set") == choice[0]) & (pl.col("type") == choice[1]))
    first = part.row(0, named=True)
    st.caption(f"Fitted over {first['cards']} {choice[1]} cards of {choice[0]}: {fit_quality(first['r_squared'])}. "
               "Keywords on fewer than two cards of the type get no price.")
    st.plotly_chart(price_chart(part, f"What each term costs: {choice[1]} cards, {choice[0]} (95% intervals)"),
                    width="stretch")
    config = {"term_name": st.column_config.TextColumn("term", help="attack, defense (per point) or a keyword (flag)",
                                                       pinned=True),
              "term": st.column_config.TextColumn("term id", help="the term's name in the card data"),
              "type": st.column_config.TextColumn("card type"),
              "cost": st.column_config.NumberColumn("price (cost)", help=HELP["price"], format="%.2f"),
              "cost_lo": st.column_config.NumberColumn("lo", help="95% lower bound", format="%.2f"),
              "cost_hi": st.column_config.NumberColumn("hi", help="95% upper bound", format="%.2f"),
              "cards_with": count("cards with it", "cards of this type carrying the term"),
              "cards": count("cards fitted", "cards of this type in the rules version"),
              "r_squared": st.column_config.NumberColumn("R²", help=HELP["R²"], format="%.2f"),
              "card_set": st.column_config.TextColumn("rules version", help="name@hash where two card sets share "
                                                      "the name")}
    table_with_download(with_keyword_names(prices, "term"), "keyword_prices", config, download=prices,
                        column_order=["term_name", "cost", "cost_lo", "cost_hi", "cards_with", "cards", "r_squared",
                                      "card_set", "type", "game", "term"], played=False)


@one_connection_per_render
def render() -> None:
    start = filtered_page("Keywords", HELP)
    if start is None:
        return
    path, filters = start
    st.caption(pilots_line(path, filters, PLAY))
    impact_section(path, filters)
    prices_section(path, filters)


# what the pilots line says of this page's figures (reports/pages/common.py pilots_line)
PLAY = ("The keyword impact figures (win rates, differences, odds ratios) are facts about these pilots' play; the "
        "price list is the cards' own, fitted over their costs and stats (no play).")
