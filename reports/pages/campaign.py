"""Campaign page: clear rate by crew (with 95% Wilson intervals) and the lift of each reward card
when taken (clear rate and later fights' win rate, taken minus skipped, in points with 95%
Newcombe intervals, ranked by the lower bound), for the chosen campaign batches; both tables
download as CSV."""
from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from reports import db
from reports.campaign import __doc__ as ABOUT
from reports.pages.columns import unique_names
from reports.pages.common import (
    cached,
    count,
    db_path,
    one_connection_per_render,
    pct,
    percent,
    pts,
    rate_bars,
    run_scope,
    sidebar_choice,
    store_ready,
    table_with_download,
    with_pilots_subtitle,
)


@one_connection_per_render
def render() -> None:
    st.title("Campaign")
    path = db_path()
    st.caption(f"Store: `{path}`")
    if not store_ready(path):
        return
    try:
        ready = cached("has_tables", str(path), "campaign_runs")
    except db.StoreError as exc:
        st.warning(str(exc))
        return
    batches = cached("campaign_runs", str(path)) if ready else pl.DataFrame()
    if batches.is_empty():
        st.info("No campaign runs in this store yet. Play some with, for example:\n\n"
                "`workbench simulate-run frontier --crew all --runs 100`")
        return
    labels = batch_labels(batches.to_dicts())
    ids = list(labels)
    # kept across pages and in the URL under the page's own name: the duel pages' runs are other runs
    run_ids = sidebar_choice("campaign_runs", "Campaign batches", ids, ids[:1], many=True, format_func=labels.get,
                             help="the batches whose runs are counted; several are pooled within a rules version "
                                  "(never across two), and a run two of them hold is counted once")
    if not run_ids:
        st.info("Pick at least one campaign batch in the sidebar.")
        return
    with st.sidebar.expander("How to read this page"):
        st.markdown(ABOUT)
    clear = cached("clear_rates", str(path), run_ids)
    pilots = sorted(set(clear["fight_pilot"].drop_nulls())) if clear.height else []
    policies = sorted(set(clear["policy"].drop_nulls())) if clear.height else []
    # the enemies' pilot, as the batches' fights record it (reports/campaign.py): a column of both tables too
    enemies = sorted({p for names in clear["enemy_pilot"].drop_nulls() for p in names.split(",")}) \
        if clear.height else []
    st.caption(pilots_caption(pilots, policies, enemies))
    if note := repeats_note(clear):
        st.info(note)
    scope = run_scope(batches, run_ids, pilots)  # the downloads record these batches and their fight pilots
    st.subheader("Clear rate by crew")
    labels = clear_labels(clear)
    fig = rate_bars(clear["clear_rate"], (clear["clear_rate_lo"], clear["clear_rate_hi"]), labels,
                    "%{y}: %{x:.1f}% of runs cleared the stage<extra></extra>", "Stage clear rate (%)",
                    max(300, 40 * clear.height), title="Stage clear rate by crew (95% Wilson interval)")
    st.plotly_chart(with_pilots_subtitle(fig, chart_pilots(pilots, policies, enemies)), width="stretch")
    table_with_download(percent(clear, CLEAR_RATES), "campaign_clear_rates", CLEAR_CONFIG, download=clear,
                        column_order=list(CLEAR_CONFIG), scope=scope)

    lift = cached("reward_lift", str(path), run_ids)
    st.subheader("Reward cards: lift when taken")
    st.caption(LIFT_CAPTION)
    if lift.height:
        st.plotly_chart(with_pilots_subtitle(lift_chart(lift), chart_pilots(pilots, policies, enemies)), width="stretch")
    table_with_download(percent(lift, LIFT_RATES), "campaign_reward_lift", LIFT_CONFIG, download=lift,
                        column_order=list(LIFT_CONFIG), scope=scope)


def batch_labels(batches: list[dict]) -> dict[int, str]:
    """Each batch's label in the picker, by run id: its rules version first (batches of two versions
    are never pooled), with the card set's hash where the store holds one version name with two
    card sets (cards edited under the same name)."""
    hashes: dict[str, set] = {}
    for b in batches:
        hashes.setdefault(b["rules_version"], set()).add(b["rules_hash"])
    return {b["run_id"]: f"run {b['run_id']}: {b['rules_version']}"
                         + (f" (cards {b['rules_hash'][:8]})" if len(hashes[b["rules_version"]]) > 1 else "")
                         + f", {b['crews']} ({b['policy']}, {b['runs_done']} runs, {b['status']})" for b in batches}


def chart_pilots(pilots: list[str], policies: list[str], enemies: list[str]) -> list[str]:
    """What a chart names under its title (``with_pilots_subtitle``): the fights' pilots, the
    enemies' and the route and reward policy, as ``pilots_caption`` says them."""
    return [f"{', '.join(pilots) or 'none recorded'} (fights)", f"{', '.join(enemies) or 'none recorded'} (enemies)",
            f"{', '.join(policies) or 'unrecorded'} (policy)"]


def pilot_words(r: dict) -> str:
    """A row's fight and enemy pilots, for a label where the chart holds rows of several."""
    return f"{r.get('fight_pilot') or '?'} vs {r.get('enemy_pilot') or '?'}, "


def clear_labels(clear: pl.DataFrame) -> list[str]:
    """The clear-rate chart's bar labels: crew, policy, the fight and enemy pilots where the table
    holds several (two pilots' bars never share a label), the rules version where it holds two,
    and the runs counted."""
    versions = clear["rules_version"].n_unique() > 1 or clear["rules_hash"].n_unique() > 1
    mixed = clear.select("fight_pilot", "enemy_pilot").unique().height > 1
    return [f"{r['crew']} ({r['policy']}, " + (pilot_words(r) if mixed else "")
            + (f"{r['rules_version']} {(r['rules_hash'] or '')[:8]}, " if versions else "") + f"n={r['runs']})"
            for r in clear.iter_rows(named=True)]


def repeats_note(clear: pl.DataFrame) -> str:
    """The chosen batches whose runs repeat runs of a newer chosen batch (reports/campaign.py:
    each run is counted once), named; empty when none do."""
    if not clear.height or not clear["repeats"].sum():
        return ""
    ids = sorted({int(i) for batches in clear["repeat_batches"].drop_nulls() for i in batches.split(",")})
    named = ", ".join(map(str, ids))
    return (f"{clear['repeats'].sum()} runs of batch{'es' if len(ids) > 1 else ''} {named} repeat runs of a newer "
            "chosen batch (the same rules, stage, crew, seed, policy and pilots): each run is counted once.")


def pilots_caption(pilots: list[str], policies: list[str], enemies: list[str]) -> str:
    """Which pilots produced the page's figures: the AI pilot that played the fights, the one that
    played the enemies, and the policy that chose the routes and rewards."""
    return (f"Pilots: {', '.join(pilots) or 'none recorded'} played the fights against enemies played by "
            f"{', '.join(enemies) or 'no recorded pilot'}; the {', '.join(policies) or 'unrecorded'} policy chose "
            "the routes and rewards. Every clear rate and lift on this page is a fact about their play.")


CLEAR_CONFIG = {
    "crew": st.column_config.TextColumn("crew", pinned=True),
    "stage": st.column_config.TextColumn("stage"),
    "policy": st.column_config.TextColumn("route and reward policy", help="how the campaign's choices were made"),
    "fight_pilot": st.column_config.TextColumn("fight pilot", help="the AI pilot that played the fights"),
    "enemy_pilot": st.column_config.TextColumn("enemy pilot", help="the AI pilot that played the enemies (the "
                                               "stage's enemy_pilot, as the fights record it)"),
    "rules_version": st.column_config.TextColumn("rules version", help="the card set the runs played (two are "
                                                 "never pooled)"),
    "rules_hash": st.column_config.TextColumn("card set", help="the card set's content hash: a version whose cards were "
                                              "edited under the same name is another row"),
    "runs": count("runs", "campaign runs of this crew, stage, policy, pilots and rules version that cleared or were "
                  "defeated, each counted once (a run two batches hold, once); not those that ended in an error"),
    "cleared": count("cleared", "runs that cleared the stage"),
    "clear_rate": pct("clear rate", "cleared / runs (runs that ended in an error are in neither)"),
    "clear_rate_lo": pct("lo", "95% Wilson lower bound"), "clear_rate_hi": pct("hi", "95% Wilson upper bound"),
    "avg_hp_left_cleared": st.column_config.NumberColumn("HP left when cleared", format="%.1f",
                                                         help="mean trail HP left, over the runs that cleared"),
    "avg_floor": st.column_config.NumberColumn("floor reached", format="%.1f",
                                               help="mean floor reached, over the runs"),
    "avg_fights": st.column_config.NumberColumn("fights", format="%.1f", help="mean fights fought, over the runs"),
    "avg_deck_size": st.column_config.NumberColumn("deck size", format="%.1f",
                                                   help="mean deck size at the end, over the runs"),
    "errors": count("errors", "runs that ended in an engine error (in no other column)"),
    "repeats": count("repeats", "runs of the chosen batches left out as repeats of a run counted here (the same "
                     "rules, stage, crew, seed, policy and pilots), counted once from the newest batch"),
    "repeat_batches": st.column_config.TextColumn("repeats from", help="the batches those repeats came from"),
}
CLEAR_RATES = ("clear_rate", "clear_rate_lo", "clear_rate_hi")
# "skipped": an offer not taken of a card the run had not taken before (reports/campaign.py)
SKIPPED = ("offers where it was not taken and the run had not taken it before (an offer of a card already in the "
           "deck is on neither side)")
LIFT_CONFIG = {
    "name": st.column_config.TextColumn("card", pinned=True, help="the reward card offered"),
    "offers": count("offers", "times the card was offered after a battle, an elite or on a shop shelf"),
    "taken": count("taken n", "offers where it was taken"),
    "take_rate": pct("take rate", "taken / offers"),
    "clear_lift": pts("clear-rate lift", "clear rate taken minus clear rate skipped: the runs' clear rate over the "
                      "offers where it was taken against the offers where it was skipped; 95% Newcombe interval "
                      "beside it; the table is ranked by its lower bound"),
    "clear_lift_lo": pts("lift lo", "95% Newcombe lower bound of the clear-rate lift (the ranking)"),
    "clear_lift_hi": pts("lift hi", "95% Newcombe upper bound of the clear-rate lift"),
    "clear_taken_n": count("runs taken n", "offers where it was taken, each counted with its run's result (runs that "
                           "ended in an error left out)"),
    "clear_rate_taken": pct("clear rate taken", "share of those offers whose run cleared the stage"),
    "clear_skipped_n": count("runs skipped n", f"{SKIPPED}, each counted with its run's result (runs that ended in "
                             "an error left out)"),
    "clear_rate_skipped": pct("clear rate skipped", "share of those offers whose run cleared the stage"),
    "lift": pts("fight win lift", "fight WR taken minus fight WR skipped; 95% Newcombe interval beside it (the "
                "fights of a run are not independent: somewhat narrow)"),
    "lift_lo": pts("fight lift lo", "95% Newcombe lower bound of the fight win lift"),
    "lift_hi": pts("fight lift hi", "95% Newcombe upper bound of the fight win lift"),
    "fights_taken": count("fights taken n", "fights after offers where it was taken"),
    "wr_taken": pct("fight WR taken", "share of those fights won"),
    "fights_skipped": count("fights skipped n", f"fights after {SKIPPED}, up to the run's first take of it (that "
                            "node's fight included: the take follows it), so none with the card in the deck"),
    "wr_skipped": pct("fight WR skipped", "share of those fights won"),
    "rules_version": st.column_config.TextColumn("rules version", help="the card set the runs played"),
    "rules_hash": st.column_config.TextColumn("card set", help="the card set's content hash"),
    "card": st.column_config.TextColumn("card id", help="the card's stable id in the data files"),
}
LIFT_RATES = ("take_rate", "clear_lift", "clear_lift_lo", "clear_lift_hi", "clear_rate_taken", "clear_rate_skipped",
              "lift", "lift_lo", "lift_hi", "wr_taken", "wr_skipped")
LIFT_CAPTION = ("Lifts are in points: the clear rate (or later fights' win rate) after offers where the card was "
                "taken minus after offers where it was skipped (not taken, and not taken earlier in the run; a "
                "skip's fights stop at the run's first take of it), with a 95% Newcombe interval. Cards are ranked "
                "by the interval's lower bound, so a card taken once in a run that cleared does not top the list; n "
                "says how many offers each side has. An observational comparison: with the greedy policy the takes "
                "follow its ratings; the random policy's coin-flip takes give the cleanest estimate.")


def lift_chart(lift: pl.DataFrame) -> go.Figure:
    """The clear-rate lift per card with its interval, in the table's order (by the lower bound)."""
    rows = unique_names(lift).filter(pl.col("clear_lift").is_not_null()).to_dicts()  # "Kade (kade-2)"
    # a card of two rules versions is two points: each named with its version
    versions = len({(r["rules_version"], r["rules_hash"]) for r in rows}) > 1
    # and a card of two policies or pilot pairs is a point each, named with them
    mixed = len({(r.get("policy"), r.get("fight_pilot"), r.get("enemy_pilot")) for r in rows}) > 1
    labels = [f"{r['name'] or r['card']} ("
              + (f"{r['policy']}, {pilot_words(r)}" if mixed else "")
              + (f"{r['rules_version']} {(r['rules_hash'] or '')[:8]}, " if versions else "")
              + f"n={r['clear_taken_n']}/{r['clear_skipped_n']})" for r in rows]
    fig = go.Figure(go.Scatter(
        x=[r["clear_lift"] * 100 for r in rows], y=labels, mode="markers", marker={"size": 9, "color": "#1f77b4"},
        error_x={"type": "data", "symmetric": False, "array": [(r["clear_lift_hi"] - r["clear_lift"]) * 100 for r in rows],
                 "arrayminus": [(r["clear_lift"] - r["clear_lift_lo"]) * 100 for r in rows]},
        customdata=[[r["clear_lift_lo"] * 100, r["clear_lift_hi"] * 100] for r in rows],
        hovertemplate="%{y}: %{x:+.1f} pts (95% CI %{customdata[0]:+.1f} to %{customdata[1]:+.1f})<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title="Clear-rate lift when taken (points, 95% Newcombe interval; n = taken/skipped)",
                      xaxis_title="Clear rate taken minus skipped (points)", yaxis_title="",
                      height=max(300, 26 * len(rows) + 140),
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "automargin": True})
    return fig
