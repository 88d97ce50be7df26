"""Version diff page: a stored rules-version diff (``workbench diff``: the same seeds, seats, decks
and pilots under two rules versions), read pair by pair. It leads with what the candidate changed,
field by field ("you changed X: atk 4 → 3"), that card's own effect, the decks it is in (with a
sequential diff's verdicts), the first seat and any other card that moved beyond its deck; then
per-deck and first-seat changes with paired and unpaired intervals, the game-length change, the cards that moved significantly after
Benjamini-Hochberg, the per-card table, the matches a diff needs, and the variance the pairing
saved. ``?diff=ID`` in the URL opens a given diff (the What-if does)."""
from __future__ import annotations

import math

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import db
from reports.card_fields import ARROW, change_text, field_changes, shown
from reports.diff import dose_words, pairing_effect, testable_words, untested_why
from reports.examples import key_text
from reports.pages.columns import unique_names
from reports.pages.common import (
    FACTION_COLUMN,
    FACTION_ID_COLUMN,
    cached,
    card_filters,
    count,
    distinct,
    example_buttons,
    glossary,
    one_connection_per_render,
    page_header,
    pct,
    percent,
    pts,
    store_state,
    table_with_download,
    with_pilots_subtitle,
    with_replay_links,
)
from reports.sequential import caveat, decision_words, overall_words
from reports.whatif import card_name, job_for_diff

HELP = {
    "twins": "matches (x seat) played on the same seed, seat and decks under both versions",
    "change": "candidate win rate minus base win rate over the twins, in points, with its paired 95% interval",
    "unpaired interval": "the 95% interval two independent runs of the same size would give (Newcombe): "
                         "how much wider the answer would be without common random numbers",
    "McNemar p": "McNemar's test on the discordant twins (won under one version only)",
    "excess change": "the change of the twins dealt the card in the opening hand minus its deck's other twins: "
                     "the shuffle deals it at random, so this is what moved with the card itself, not with its deck",
    "effect": "the attribution, in points at full dose (a twin where the card lay where cards always get played, "
              "against one where none do): the slope of the twins' paired change on how "
              "often a card lying where this card's first copy lay in the shuffled deck gets played (the base run, "
              "over its deck's other cards). The shuffle is the same in both runs and comes first, so where the card "
              "lay is random: a change that only made the deck stronger moves every twin alike, one that made this "
              "card stronger moves the twins that get it played more",
    "q (attribution)": "q-value of the effect within the card's family: the cards the candidate changed are "
                       "pre-declared hypotheses (their own family, Benjamini-Hochberg), every other card is exploratory "
                       "(Benjamini-Yekutieli, which holds whatever the tests' dependence)",
    "flagged": "q (attribution) below 0.05: the card's change differs from its deck's",
    "q (BH)": "Benjamini-Hochberg q-value of the paired change (McNemar) across the cards; significant when below 0.05",
    "excess q (BH)": "Benjamini-Hochberg q-value of the excess change across the cards",
    "variance saved": "share of the variance of a deck's win-rate change that the pairing removed; an unpaired "
                      "comparison would need about 1 / (1 - share) times the matches",
    "games needed": "a deck's games (its seat in one match each) for 80% power to see a change of that many points "
                    "at 5% two-sided",
    "field matches": "matches of this diff's whole field (every pairing together) that give each deck the change "
                     "touches that many paired games: what the run must play",
}
NO_DIFF = ("No version diff stored yet. A diff plays the same seeds under two rules versions and compares them "
           "pair by pair, for example:\n\n"
           "`workbench diff frontier --base base --candidate first-player-skips-draw --matches 400`")


def pick_diff(diffs: pl.DataFrame) -> dict:
    """The diff to show: the one the URL names (``?diff=3``, as the What-if opens it), else the
    sidebar's choice; the URL then names the diff shown, so it can be shared or reloaded."""
    asked = st.query_params.get("diff")
    wanted = diffs.filter(pl.col("diff_id") == int(asked)) if asked and asked.isdigit() else diffs.clear()
    if asked and wanted.is_empty():
        st.warning(f"There is no diff {asked} in this store; showing the newest.")
    games = sorted(diffs["game"].unique().to_list())
    game = st.sidebar.selectbox("Game", games, index=games.index(wanted["game"][0]) if wanted.height else 0,
                                help="which game's diffs to list")
    mine = diffs.filter(pl.col("game") == game)
    labels = {r["diff_id"]: f"diff {r['diff_id']}: {r['base_version']} → {r['candidate_version']} "
                            f"(runs {r['base_run']} and {r['candidate_run']}, {r['created_at']:%Y-%m-%d %H:%M})"
              for r in mine.iter_rows(named=True)}
    ids = list(labels)
    at = ids.index(wanted["diff_id"][0]) if wanted.height and wanted["diff_id"][0] in ids else 0
    chosen = st.sidebar.selectbox("Diff", ids, index=at, format_func=labels.get, help="stored by `workbench diff`")
    st.query_params["diff"] = str(chosen)
    return mine.filter(pl.col("diff_id") == chosen).row(0, named=True)


def interval_chart(rows: list[dict], labels: list[str], title: str, xtitle: str, second: tuple[str, str, str, str],
                   colors: list[str]) -> go.Figure:
    """Two intervals per row: the paired change (coloured) and a second one (grey) below it."""
    key, lo, hi, name = second
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=[r[key] * 100 for r in rows], y=labels, mode="markers", name=name, marker={"color": "#bbbbbb", "size": 7},
        error_x={"type": "data", "symmetric": False, "color": "#bbbbbb", "thickness": 6, "width": 0,
                 "array": [(r[hi] - r[key]) * 100 for r in rows], "arrayminus": [(r[key] - r[lo]) * 100 for r in rows]},
        hovertemplate="%{y}<br>" + name + ": %{x:+.1f} pts<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[r["change"] * 100 for r in rows], y=labels, mode="markers", name="paired change (95% CI)",
        marker={"color": colors, "size": 9},
        error_x={"type": "data", "symmetric": False, "color": "#333333",
                 "array": [(r["change_hi"] - r["change"]) * 100 for r in rows],
                 "arrayminus": [(r["change"] - r["change_lo"]) * 100 for r in rows]},
        customdata=[[r["wr_base"] * 100, r["wr_candidate"] * 100, r["mcnemar_p"]] for r in rows],
        hovertemplate="%{y}<br>paired change %{x:+.1f} pts (%{customdata[0]:.1f}% → %{customdata[1]:.1f}%), "
                      "McNemar p %{customdata[2]:.3g}<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title=title, xaxis_title=xtitle, yaxis_title="", height=max(300, 30 * len(rows) + 160),
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1},
                      margin={"t": 90},
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1]})
    return fig


def headline(d: dict, r: dict) -> None:
    first, length = r["first_seat"], r["length"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("First-seat win rate", f"{first['wr_base']:.1%} → {first['wr_candidate']:.1%}",
              f"{first['change'] * 100:+.1f} pts", delta_color="off",
              help="share of matches won by the seat that acts first, over the twins")
    c1.caption(f"paired 95% CI {first['change_lo'] * 100:+.1f} to {first['change_hi'] * 100:+.1f} pts; unpaired "
               f"{first['unpaired_lo'] * 100:+.1f} to {first['unpaired_hi'] * 100:+.1f}; McNemar p {first['mcnemar_p']:.3g}; "
               f"n = {first['twins']:,} matches")
    c2.metric("Game length (player-turns)", f"{length['turns_base']:.1f} → {length['turns_candidate']:.1f}",
              f"{length['change']:+.2f} turns", delta_color="off", help="mean turns per match, paired over the twins")
    c2.caption(f"paired 95% CI {length['change_lo']:+.2f} to {length['change_hi']:+.2f}; n = {length['matches']:,} matches")
    saved = r["variance_saved"]
    if saved == saved:
        # a share at or below zero is noise (pairing cannot add variance): none, as the CLI says
        c3.metric("Variance the pairing saved", f"{saved:.0%}" if saved > 0 else "none", help=HELP["variance saved"])
        c3.caption(pairing_effect(saved) + (f"; an unpaired comparison would need about {1 / (1 - saved):.1f}× the "
                                            "matches" if 0 < saved < 1 else ""))
    sig, beyond = r["significant_cards"], r["attributed_cards"]
    c4.metric("Cards whose win rate moved", f"{sig.height}", help=HELP["q (BH)"])
    c4.caption(f"of {r['cards'].height} cards (in hand, BH at FDR 5%; deck strength moves them all); "
               f"{beyond.height} flagged by the attribution")


def deck_section(path, d: dict, r: dict, scope: dict[str, str] | None = None) -> None:
    st.subheader("Decks and seat order")
    decks = r["decks"]
    twins = cached("twins", str(path), d["base_run"], d["candidate_run"])
    flips = (twins.with_columns(pl.when(pl.col("seat") == 0).then(pl.lit("(first seat)")).otherwise(None).alias("first"))
             .with_columns((pl.col("win_candidate") - pl.col("win_base")).alias("d")))
    keys = []
    for row in decks.iter_rows(named=True):
        part = flips.filter(pl.col("first") == row["deck"]) if row["deck"] == "(first seat)" else \
            flips.filter(pl.col("deck") == row["deck"])
        up, down = part.filter(pl.col("d") > 0).head(1), part.filter(pl.col("d") < 0).head(1)
        keys.append({"deck": row["deck"],
                     "example_up": key_text(d["candidate_run"], up["match_no"][0], up["seat"][0]) if up.height else None,
                     "example_down": key_text(d["base_run"], down["match_no"][0], down["seat"][0]) if down.height else None})
    raw = decks.join(pl.DataFrame(keys), on="deck", how="left")
    rows = raw.to_dicts()
    colors = ["#d62728" if r_["change_lo"] > 0 else "#1f77b4" if r_["change_hi"] < 0 else "#7f7f7f" for r_ in rows]
    st.plotly_chart(with_pilots_subtitle(interval_chart(
        rows, [f"{x['deck']} (n={x['twins']:,})" for x in rows],
        "Win-rate change per deck and for the first seat: paired against unpaired interval",
        "Change in win rate (points)", ("change", "unpaired_lo", "unpaired_hi", "unpaired 95% CI (same size)"), colors),
        distinct(r["pilots"])), width="stretch")
    config = deck_config()
    shown = with_replay_links(percent(raw, RATE_COLS), {"example_up": "won only under candidate",
                                                        "example_down": "won only under base"}, config)
    picked = table_with_download(shown, "diff_decks", config, download=raw, select_key="diff_decks_table",
                                 scope=scope)
    row = raw.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"example_up": "Replay a twin won only under the candidate",
                          "example_down": "Replay a twin won only under the base"}, "diff-deck",
                    f"{row['deck']} in {d['base_version']} → {d['candidate_version']}" if row else "")


RATE_COLS = ["wr_base", "wr_candidate", "change", "change_lo", "change_hi", "unpaired_lo", "unpaired_hi",
             "play_rate_base", "play_rate_candidate", "opening_change", "other_change", "excess_change", "excess_lo", "excess_hi"]


def deck_config() -> dict:
    return {"twins": count("twins", HELP["twins"]), "wr_base": pct("WR base", "win rate under the base version"),
            "wr_candidate": pct("WR candidate", "win rate under the candidate version"),
            "change": pts("change", HELP["change"]), "change_lo": pts("paired lo", "paired 95% lower bound"),
            "change_hi": pts("paired hi", "paired 95% upper bound"),
            "unpaired_lo": pts("unpaired lo", HELP["unpaired interval"]),
            "unpaired_hi": pts("unpaired hi", HELP["unpaired interval"]),
            "only_base_won": count("won only in base", "twins won under the base version only"),
            "only_candidate_won": count("won only in candidate", "twins won under the candidate version only"),
            "mcnemar_p": st.column_config.NumberColumn("McNemar p", help=HELP["McNemar p"], format="%.3g"),
            "var_paired": st.column_config.NumberColumn("var paired", help="variance of the paired differences", format="%.3f"),
            "var_unpaired": st.column_config.NumberColumn("var unpaired", help="variance an unpaired difference would have",
                                                          format="%.3f")}


def card_section(path, d: dict, r: dict, scope: dict[str, str] | None = None) -> None:
    st.subheader("Cards")
    cards = r["cards"]
    if cards.is_empty():
        st.info("No card was in hand in both runs of any twin.")
        return
    flagged, sig = r["flagged_cards"], r["significant_cards"]
    if flagged.height:
        st.warning("Other cards whose change differs from their deck's (attribution, Benjamini-Yekutieli at FDR 5%): "
                   + ", ".join(f"{names_of(path, d).get(c['card']) or c['card']} {c['effect_points']:+.1f} pts"
                               for c in flagged.iter_rows(named=True)) + f" ({testable_words(cards)})")
    else:
        st.caption("No card the candidate left alone changed differently from its deck (attribution, Benjamini-Yekutieli "
                   f"at FDR 5%): none {testable_words(cards)}. "
                   "A deck-wide move shows in every card of the deck, the attribution singles out a card that moved "
                   "by itself.")
    st.caption(f"For reference: {sig.height} cards' win rate moved over twins with the card in hand (McNemar, BH); "
               "a deck that got stronger moves all its cards, and its opponents' the other way, so that is not a finding "
               "about the card.")
    names = cached("card_names", str(path), (d["base_run"], d["candidate_run"])).unique("card", keep="first")
    raw = names.join(cards, on="card", how="right")
    view, _ = card_filters(raw)
    min_twins = st.sidebar.slider("Minimum twins per card", 0, int(max(1, raw["twins"].max())), 0,
                                  help="hide cards in hand in both runs in fewer twins than this")
    view = view.filter(pl.col("twins") >= min_twins).sort(["changed", "effect_points"], descending=True, nulls_last=True)
    rows = [x for x in unique_names(view).to_dicts() if x["effect_points"] is not None and not math.isnan(x["effect_points"])
            and x["effect_lo"] is not None and not math.isnan(x["effect_lo"])]
    if rows:
        colors = ["#d62728" if x["flagged"] else "#7f7f7f" for x in rows]
        labels = [f"{'★ ' if x['changed'] else ''}{x['name'] or x['card']} (n={x['dosed_twins']:,})"
                  for x in rows]
        st.plotly_chart(with_pilots_subtitle(_card_chart(rows, labels, colors), distinct(r["pilots"])), width="stretch")
    config = deck_config() | {
        "card": st.column_config.TextColumn("card id", help="the card's stable id in the data files"),
        "name": st.column_config.TextColumn("card", help="the card's name", pinned=True),
        "faction_name": FACTION_COLUMN, "faction": FACTION_ID_COLUMN,
        "cost": st.column_config.NumberColumn("cost", help="budget cost: the one number the cost curve uses",
                                              format="%g"),
        "change": pts("change in hand", "win-rate change over twins where the card was in hand in both runs (paired)"),
        "play_rate_base": pct("play rate base", "share of those twins where it was played, base"),
        "play_rate_candidate": pct("play rate candidate", "share of those twins where it was played, candidate"),
        "opening_twins": count("twins dealt it", "twins dealt the card in the opening hand (the same in both runs)"),
        "opening_change": pts("change dealt", "the change over the twins dealt the card in the opening hand"),
        "other_twins": count("other twins", "the deck's twins not dealt the card in the opening hand"),
        "other_change": pts("change others", "the deck's change over those twins"),
        "changed": st.column_config.CheckboxColumn("changed", help="the candidate version defines this card differently"),
        "effect_points": pts("effect", HELP["effect"]), "effect_lo": pts("effect lo", "95% lower bound (cluster-robust over seeds; under 60 twins, from the same permutations as p)"),
        "effect_hi": pts("effect hi", "95% upper bound (as effect lo)"),
        "per_play_points": pts("a game played", "the effect scaled to a game in which the card is played: the effect "
                               "over how much the card's own play rises with its dose (an instrumental-variable reading; "
                               "empty where its play barely follows where it lay). The test is the effect's"),
        "per_play_lo": pts("played lo", "95% lower bound of the figure a game played (cluster-robust, delta method)"),
        "per_play_hi": pts("played hi", "95% upper bound (as played lo)"),
        "p_value": st.column_config.NumberColumn("p (attribution)", help="two-sided p of the effect: a cluster-robust t test, or a permutation test (4,000 random "
                                                 "relabellings) under 60 twins; for a card the candidate left alone "
                                                 "with under 30 changed twins, the larger of the two", format="%.3g"),
        "q_value": st.column_config.NumberColumn("q (attribution)", help=HELP["q (attribution)"], format="%.3g"),
        "flagged": st.column_config.CheckboxColumn("flagged", help=HELP["flagged"]),
        "dosed_twins": count("twins read", "twins the effect reads: the deck holds the card in both runs and a card of "
                                       "the deck lay where its first copy lay"),
        "dose_mean": pct("played at its places", "how often, on average over its twins, a card lying where this card's "
                         "first copy lay gets played (base run)"),
        "played_share": pct("played", "how often the card itself was played over its twins (base run): well under "
                            "'played at its places' (a reactive card, a late finisher), the twins show less of it than "
                            "the effect's unit, full dose, says"),
        "top_twins": count("twins near the top", "twins where the card's first copy lay within the cards a typical seat sees"),
        "deep_twins": count("twins deep", "twins where the card's first copy lay beyond what nine seats in ten see"),
        "top_change": pts("change near the top", "the paired change of the twins near the top (for reference: the effect "
                          "reads every twin, by its dose)"),
        "deep_change": pts("change deep", "the paired change of the twins deep in the deck (for reference)"),
        "moved_q": st.column_config.NumberColumn("q (moved in hand)", help=HELP["q (BH)"], format="%.3g"),
        "excess_change": pts("excess change", HELP["excess change"]),
        "excess_lo": pts("excess lo", "95% lower bound"), "excess_hi": pts("excess hi", "95% upper bound"),
        "excess_p": st.column_config.NumberColumn("excess p", help="two-sided p of the excess change", format="%.3g"),
        "significant": st.column_config.CheckboxColumn("moved in hand", help=HELP["q (BH)"]),
        "excess_q": st.column_config.NumberColumn("excess q", help=HELP["excess q (BH)"], format="%.3g"),
        "excess_significant": st.column_config.CheckboxColumn("beyond deck", help=HELP["excess q (BH)"])}
    order = [c for c in ("name", "type", "faction_name", "cost", "changed", "effect_points", "effect_lo",
                         "effect_hi", "p_value", "q_value", "flagged", "per_play_points", "per_play_lo", "per_play_hi", "dosed_twins", "dose_mean", "played_share", "top_twins", "deep_twins", "top_change",
                         "deep_change", "twins", "wr_base",
                         "wr_candidate", "change", "change_lo", "change_hi", "unpaired_lo", "unpaired_hi", "mcnemar_p",
                         "moved_q", "significant", "opening_twins", "opening_change", "other_twins", "other_change",
                         "excess_change", "excess_lo", "excess_hi", "excess_p", "excess_q", "excess_significant",
                         "play_rate_base", "play_rate_candidate", "flip_up", "flip_down", "faction", "card")
             if c in view.columns]
    shown = with_replay_links(percent(view, RATE_COLS), {"flip_up": "won only under candidate",
                                                         "flip_down": "won only under base"}, config)
    picked = table_with_download(shown, "diff_cards", config, download=view, select_key="diff_cards_table",
                                 column_order=order, scope=scope)
    row = view.row(picked, named=True) if picked is not None else None
    example_buttons(row, {"flip_up": "Replay a twin won only under the candidate",
                          "flip_down": "Replay a twin won only under the base"}, "diff-card",
                    f"{row['name'] or row['card']} in hand in {d['base_version']} → {d['candidate_version']}" if row else "")


def names_of(path, d: dict) -> dict[str, str]:
    """Card id -> name in the diff's rules versions (what its sentences call a card)."""
    return dict(cached("card_names", str(path), (d["base_run"], d["candidate_run"])).select("card", "name").iter_rows())


def changed_fields(path, d: dict, r: dict) -> pl.DataFrame:
    """One row per field the candidate changed, card by card (added and removed cards as one row)."""
    names = names_of(path, d)
    rows = []
    for c in r["changed_cards"].iter_rows(named=True):
        fields = field_changes(c["base"], c["candidate"]) if c["change"] == "changed" else \
            [{"field": "(the card)", "base": None if c["change"] == "added" else "in the pool",
              "candidate": "in the pool" if c["change"] == "added" else None}]
        rows += [{"card": c["card"], "name": names.get(c["card"]), "change": c["change"], "field": f["field"],
                  "base": shown(f["base"]), "candidate": shown(f["candidate"])} for f in fields]
    return pl.DataFrame(rows, schema={k: pl.Utf8 for k in ("card", "name", "change", "field", "base", "candidate")})


SHOWN_CHANGES = 5  # changed cards named one by one above the table


def changed_cards_summary(path, d: dict, r: dict, scope: dict[str, str] | None = None) -> None:
    """The pre-declared hypotheses first: what the designer changed, field by field, and what each
    changed card did within its deck."""
    if r["changed_cards"].is_empty():
        st.info("The candidate changes no card (a rules change): every card is exploratory.")
        return
    fields = changed_fields(path, d, r)
    measured = {c["card"]: c for c in r["primary_cards"].iter_rows(named=True)}
    cards = r["changed_cards"]["card"].to_list()
    for card in cards[:SHOWN_CHANGES]:
        mine = fields.filter(pl.col("card") == card)
        name = mine["name"][0] or card
        what = change_text(mine.to_dicts(), ARROW)
        c = measured.get(card)
        if c is None:
            st.info(f"You changed **{name}**: {what}. No deck of this diff holds it.")
            continue
        if untested_why(c):
            st.info(untested_text(name, what, c))
        else:
            (st.error if c["flagged"] else st.info)(tested_text(name, what, c))
    if len(cards) > SHOWN_CHANGES:
        st.caption(f"... and {len(cards) - SHOWN_CHANGES} more changed cards, in the table below.")
    table_with_download(fields, "diff_changed_fields", {
        "name": st.column_config.TextColumn("card", help="the card's name"),
        "change": st.column_config.TextColumn("change", help="changed, added or removed by the candidate"),
        "field": st.column_config.TextColumn("field", help="the card's field (a keyword by its name)"),
        "base": st.column_config.TextColumn("base", help="its value under the base version"),
        "candidate": st.column_config.TextColumn("candidate", help="its value under the candidate version")},
        column_order=["name", "change", "field", "base", "candidate", "card"], scope=scope)


def tested_text(name: str, what: str, c: dict) -> str:
    text = (f"You changed **{name}**: {what}. Its own effect within its deck: **{c['effect_points']:+.1f} pts** "
            f"at full dose [{c['effect_lo']:+.1f}, {c['effect_hi']:+.1f}], p {c['p_value']:.3g}, "
            f"q {c['q_value']:.3g} ({dose_words(c)}).")
    return text + (" Flagged." if c["flagged"] else " Not flagged.")


def untested_text(name: str, what: str, c: dict) -> str:
    """A changed card that got no test: its estimate, if it has one, and why there is no test,
    never an interval of NaNs followed by "Not flagged"."""
    estimate = c["effect_points"]
    seen = f"{estimate:+.1f} pts, " if estimate is not None and estimate == estimate else ""
    return (f"You changed **{name}**: {what}. Its own effect within its deck: {seen}**{untested_why(c)}** "
            ".")


def _interval(row: dict) -> str:
    return (f"{row['wr_base']:.1%} → {row['wr_candidate']:.1%}, **{row['change'] * 100:+.1f} pts** (paired 95% "
            f"{row['change_lo'] * 100:+.1f} to {row['change_hi'] * 100:+.1f}, McNemar p {row['mcnemar_p']:.3g}, "
            f"n = {row['twins']:,})")


@st.cache_data(max_entries=64, show_spinner=False)
def _verdicts(path: str, state: tuple, diff_id: int) -> pl.DataFrame:
    if not db.has_tables(path, "diff_verdicts"):
        return pl.DataFrame()
    return db.query(path, "SELECT * FROM diff_verdicts WHERE diff_id = ? ORDER BY deck", [diff_id])


def verdict_text(d: dict, v: dict, row: dict) -> str:
    """A deck's sequential verdict as what the test decided (reports/sequential.decision_words),
    with what its plain interval adds. The verdict row keeps points, ``caveat`` reads shares; the
    deck row's paired interval stands in where the verdict has none (fewer than two seeds)."""
    delta1, delta0 = d["delta_points"], d["delta0_points"] or 0
    found = [v.get(k) for k in ("change_points", "change_lo", "change_hi")]
    if any(x is None or x != x for x in found):
        change, lo, hi = row["change"], row["change_lo"], row["change_hi"]
    else:
        change, lo, hi = (x / 100 for x in found)
    note = caveat(v["decision"], change, lo, hi, delta1 / 100)
    return f"**{decision_words(v['decision'], delta1, delta0, points=True)}**" + (f" ({note})" if note else "")


def focus(path, d: dict, r: dict) -> None:
    """After what changed: the decks it touches (with a sequential diff's verdicts), the first
    seat, and any other card that moved beyond its deck."""
    verdicts = {v["deck"]: v for v in _verdicts(str(path), store_state(path), d["diff_id"]).iter_rows(named=True)}
    if d.get("decision"):
        delta1, delta0 = d["delta_points"], d["delta0_points"] or 0
        st.markdown(f"**Sequential diff: {overall_words(d['decision'], delta1, delta0, points=True)}** after "
                    f"{d['matches_used']:,} matches per version (tested: a change of {delta1:g} pts against one of "
                    f"{delta0:g}; pilots {', '.join(distinct(r['pilots']))})")
    decks = r["decks"].filter(pl.col("deck").is_in(r["touched_decks"]))
    lines = []
    for row in decks.iter_rows(named=True):
        v = verdicts.get(row["deck"])
        lines.append(f"- **{row['deck']}**: {_interval(row)}" + (f"; the sequential test: {verdict_text(d, v, row)}"
                                                                 if v else ""))
    st.markdown(("The decks it is in:\n" if r["changed_cards"].height else "Every deck (a rules change):\n")
                + "\n".join(lines))
    st.markdown(f"- **The first seat**: {_interval(r['first_seat'])}")
    flagged = r["flagged_cards"]
    st.markdown("- **Other cards that moved beyond their deck**: " + (
        ", ".join(f"{names_of(path, d).get(c['card']) or c['card']} {c['effect_points']:+.1f} pts (q {c['q_value']:.3g})"
                  for c in flagged.iter_rows(named=True))
        if flagged.height else f"none {testable_words(r['cards'])} (attribution, Benjamini-Yekutieli at FDR 5%)"))
    job = job_for_diff(path, d["diff_id"])
    if job is not None:
        st.caption(f"Started from the dashboard (What-if job {job.id}): {card_name(job)} {job.meta.get('change')}; "
                   f"the version is `{job.meta.get('candidate')}.yaml` in `{job.meta.get('data_dir')}`.")


def _card_chart(rows: list[dict], labels: list[str], colors: list[str]) -> go.Figure:
    fig = go.Figure(go.Scatter(
        x=[x["effect_points"] for x in rows], y=labels, mode="markers", marker={"color": colors, "size": 9},
        error_x={"type": "data", "symmetric": False, "color": "#555555",
                 "array": [x["effect_hi"] - x["effect_points"] for x in rows],
                 "arrayminus": [x["effect_points"] - x["effect_lo"] for x in rows]},
        customdata=[[x["change"] * 100, x["q_value"]] for x in rows],
        hovertemplate="%{y}<br>effect %{x:+.1f} pts (in hand: %{customdata[0]:+.1f} pts), "
                      "q = %{customdata[1]:.3g}<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title="Per card: the change that moved with the card (95% interval; red = flagged; ★ = changed)",
                      xaxis_title="Win-rate change at full dose: where cards always get played against where none do (points)", yaxis_title="",
                      height=max(360, 20 * len(rows) + 140),
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1]})
    return fig


def power_section(r: dict, scope: dict[str, str] | None = None) -> None:
    st.subheader("Matches a diff needs")
    st.caption("To see a change of 1, 2 or 5 points in a deck's win rate with 80% power at 5% two-sided: paired "
               "(this diff's own spread of twin differences) against two independent runs. A deck's games: its seat "
               "in one match each; a deck's seeds = its games / 2, each seed played from both seats. Paired matches "
               "of this field: the matches of the whole field (every pairing together) that give each of those decks "
               "that many games, the run's size: a field of more than two decks seats a deck in only some of its "
               "matches. Computed over the decks the change touches (those holding a changed card; every "
               f"deck for a rules change): {', '.join(r['touched_decks'])}.")
    table_with_download(r["power"], "diff_power", {
        "change_points": st.column_config.NumberColumn("change to detect", format="%d pts",
                                                       help="a change of a deck's win rate of this many points"),
        "paired_matches": count("a deck's paired games", HELP["games needed"]),
        "paired_seeds": count("a deck's paired seeds", "a deck's games / 2: seeds, each played from both seats"),
        "paired_field_matches": count("paired matches of this field", HELP["field matches"]),
        "unpaired_matches_per_version": count("a deck's unpaired games / version", HELP["games needed"]),
        "unpaired_seeds_per_version": count("a deck's unpaired seeds / version",
                                            "a deck's games / 2 per version: seeds, each played from both seats"),
        "decks": st.column_config.TextColumn("decks", help="the decks the change touches, whose twins these figures use")},
        column_order=["change_points", "paired_matches", "paired_seeds", "paired_field_matches",
                      "unpaired_matches_per_version", "unpaired_seeds_per_version", "decks"], scope=scope)


@one_connection_per_render
def render() -> None:
    path = page_header("Version diff")
    if path is None:
        return
    diffs = cached("diffs", str(path))
    if diffs.is_empty():
        st.info(NO_DIFF)
        return
    d = pick_diff(diffs)
    glossary(HELP)
    try:
        # a sequential diff's tables read the matches its test looked at (diff.stored_limit)
        r = cached("version_diff", str(path), d["base_run"], d["candidate_run"], 0.05,
                   cached("stored_limit", str(path), d["diff_id"]))
    except ValueError as exc:
        st.warning(f"{exc}. The runs may still be running: try again when they are done.")
        return
    st.subheader(f"{d['base_version']} → {d['candidate_version']}")
    st.caption(f"Base run {d['base_run']} and candidate run {d['candidate_run']}: {r['twins'] // 2:,} matches "
               "played on the same seeds, seats, decks and pilots under both rules versions (common random numbers); "
               f"pilots: **{r['pilots']}**, and every figure below is about matches they played.")
    if r.get("code_note"):  # the twins differ by the code as well: every figure below credits it to the rules
        st.warning(r["code_note"])
    scope = diff_scope(d, r)
    changed_cards_summary(path, d, r, scope)  # the pre-declared hypotheses lead, before any deck figure
    focus(path, d, r)
    headline(d, r)
    deck_section(path, d, r, scope)
    card_section(path, d, r, scope)
    power_section(r, scope)


def diff_scope(d: dict, r: dict) -> dict[str, str]:
    """What the page's downloads record (``table_with_download``'s ``scope``): the diff's game, its
    two runs and the pilots that played them, not the runs the duel pages keep."""
    return {"game": d["game"], "runs": f"{d['base_run']},{d['candidate_run']}", "pilots": ",".join(distinct(r["pilots"]))}
