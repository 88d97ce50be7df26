"""Turf Defense page: for the chosen Turf Defense runs, each boss's clear rate with its 95%
interval (the band a boss should sit in: 20% to 80%), the phase it reached and the Morale it
kept, the clear rate by partner pair, and which partner falls first. Every table splits by the
pilots that played (reports/turf.py), and downloads."""
from __future__ import annotations

import streamlit as st

from reports import turf as metrics
from reports.pages.common import (
    count,
    mode_page,
    one_connection_per_render,
    pct,
    percent,
    rate_bars,
    run_scope,
    store_reads,
    table_with_download,
)

NO_RUNS = ("No Turf Defense runs in this store yet. Play some with, for example:\n\n"
           "`workbench simulate alleyway --mode turf --matches 20`  (every pair of starter decks against every boss)")
BAND = (0.20, 0.80)  # a boss nobody beats, or everybody beats, tells a designer nothing
HELP = {
    "clear rate": "share of the boss's matches the partners won (the boss went out); 95% Wilson interval. "
                  "Dotted lines: the 20% to 80% band a tuned boss sits in",
    "phase": "the boss's phase at the end of the match (1 = its first; a new phase starts at each mark on "
             "its Morale bar)",
    "life left": "the boss's life at the end (in AlleyWay, its Morale), as a share of its life at the start",
    "falls first": "in matches where a partner went out, how often this deck's partner went out first",
}
# the pilots of a row (every table splits by them)
PILOT_CONFIG = {
    "partner_pilots": st.column_config.TextColumn("partner pilots", help="the pilots of the two partners"),
    "boss_pilot": st.column_config.TextColumn("boss pilot", help="the pilot that played the boss")}
# a boss by its name where a table reads it, its id (the boss file's) kept last
BOSS_CONFIG = {"boss_name": st.column_config.TextColumn("boss", help="the boss's name", pinned=True),
               "boss": st.column_config.TextColumn("boss id", help="the boss's id: cardsdb/alleyway/bosses/<id>.yaml")}


_read = store_reads("turf", runs=metrics.turf_runs, bosses=metrics.turf_bosses, pairs=metrics.turf_pairs,
                     falls=metrics.turf_first_falls)


@one_connection_per_render
def render() -> None:
    start = mode_page("Turf Defense", lambda p: _read("runs", p), lambda r: (
        f"run {r['run_id']}: {r['game']} ({r['rules_version']}, partners {r['pilots']}, boss {r['boss_pilot']}, "
        f"{r['matches_done']} matches, {r['status']})"), NO_RUNS, HELP, "turf_runs")
    if start is None:
        return
    path, runs, run_ids = start
    bosses = _read("bosses", str(path), run_ids)
    st.subheader("Bosses: clear rate")
    if bosses.is_empty():
        st.info("These runs hold no finished matches yet.")
        return
    partners = sorted({p for pair in bosses["partner_pilots"] for p in pair.split(",")})
    boss = sorted(set(bosses["boss_pilot"]))
    # the downloads record these runs and their pilots (partners', then the boss's), not the duel pages' kept runs
    scope = run_scope(runs, run_ids, list(dict.fromkeys(partners + boss)))
    several = bosses.select("partner_pilots", "boss_pilot").n_unique() > 1
    st.caption("Pilots: partners " + ", ".join(sorted(set(bosses["partner_pilots"]))) + "; boss "
               + ", ".join(boss) + ". Every figure here is a fact about these pilots."
               + (" Every table below splits by them: a row counts one set of pilots' matches, never several "
                  "pooled." if several else ""))
    labels = [f"{b} ({p} v {q}, n={n})" for b, p, q, n in
              zip(bosses["boss_name"], bosses["partner_pilots"], bosses["boss_pilot"], bosses["matches"])]
    fig = rate_bars(bosses["clear_rate"], (bosses["clear_rate_lo"], bosses["clear_rate_hi"]), labels,
                    "%{y}<br>boss id %{customdata}: the partners won %{x:.1f}% of its matches<extra></extra>",
                    "Clear rate (%)", max(300, 45 * bosses.height))
    fig.update_traces(customdata=bosses["boss"].to_list())
    for x in BAND:
        fig.add_vline(x=x * 100, line_dash="dot")
    st.plotly_chart(fig, width="stretch")
    number = st.column_config.NumberColumn
    outside = bosses.filter((bosses["clear_rate_hi"] < BAND[0]) | (bosses["clear_rate_lo"] > BAND[1]))
    if outside.height:
        st.warning("Outside the 20%-80% band with 95% confidence: " + ", ".join(outside["boss_name"].to_list()))
    table_with_download(percent(bosses, ("clear_rate", "clear_rate_lo", "clear_rate_hi", "life_left")),
                        "turf_bosses", {
        **BOSS_CONFIG, **PILOT_CONFIG, "matches": count("matches", "matches against the boss"), "clears": count("clears", "matches the partners won"),
        "clear_rate": pct("clear rate", HELP["clear rate"]), "clear_rate_lo": pct("lo", "95% Wilson lower bound"),
        "clear_rate_hi": pct("hi", "95% Wilson upper bound"),
        "mean_phase": number("mean phase", help=HELP["phase"], format="%.2f"),
        "max_phase": count("max phase", HELP["phase"]), "life_left": pct("life left", HELP["life left"]),
        "turns": number("turns", help="mean player-turns per match", format="%.1f"),
        "prizes": st.column_config.TextColumn("prizes", help="the prize cards (ids) its clears paid")},
        download=bosses, column_order=[
            "boss_name", "partner_pilots", "boss_pilot", "matches", "clears", "clear_rate", "clear_rate_lo",
            "clear_rate_hi", "mean_phase", "max_phase", "life_left", "turns", "prizes", "boss"], scope=scope)
    st.subheader("Clear rate by partner pair")
    pairs = _read("pairs", str(path), run_ids)
    table_with_download(percent(pairs, ("clear_rate", "clear_rate_lo", "clear_rate_hi")), "turf_pairs", {
        **BOSS_CONFIG, **PILOT_CONFIG, "pair": st.column_config.TextColumn("partners", help="the two partner decks"),
        "matches": count("matches", "matches of the pair against the boss"),
        "clears": count("clears", "matches the partners won"), "clear_rate": pct("clear rate", HELP["clear rate"]), "clear_rate_lo": pct("lo", "95% Wilson lower bound"),
        "clear_rate_hi": pct("hi", "95% Wilson upper bound")}, download=pairs, column_order=boss_id_last(pairs),
        scope=scope)
    st.subheader("Which partner falls first")
    falls = _read("falls", str(path), run_ids)
    table_with_download(percent(falls, ("falls_first_rate", "falls_first_rate_lo", "falls_first_rate_hi")),
                        "turf_first_falls", {
        **BOSS_CONFIG, **PILOT_CONFIG,
        "pilot": st.column_config.TextColumn("pilot", help="the pilot that played this partner deck"),
        "partner_outs": count("matches with a partner out", "matches where at least one partner went out"),
        "falls_first": count("fell first", HELP["falls first"]),
        "fell_and_won": count("fell, then won", "this deck's partner went out, and the other beat the boss"),
        "falls_first_rate": pct("falls first", HELP["falls first"]),
        "falls_first_rate_lo": pct("lo", "95% Wilson lower bound"),
        "falls_first_rate_hi": pct("hi", "95% Wilson upper bound")}, download=falls, column_order=boss_id_last(falls),
        scope=scope)


def boss_id_last(frame) -> list[str]:
    """A table's columns with the boss's id moved last: its name (the column after it) leads."""
    return [c for c in frame.columns if c != "boss"] + ["boss"]
