"""Readable tables and charts (issue 18, item 3): every column a human label with its internal
name in the help and a width that fits its numbers; names before ids; legends off the axis
titles; the turn chart's sample sizes where the error bars cannot hide them; cost-curve labels on
off-budget cards only; the campaign's reward lift in points with intervals, ranked by the lower
bound; the HTML report leading with the version diff, its changes in points."""
from __future__ import annotations

import json
import re

import duckdb
import polars as pl
import pytest

from reports.pages.columns import fitted_width
from tests.test_dashboard import page_app, plotly_specs, runs_multiselect, select_row, table_labelled

pytestmark = pytest.mark.usefixtures("fresh_cache")


def column_configs(frame) -> dict[str, dict]:
    """What the page told Streamlit about each column of one table."""
    return json.loads(frame.proto.columns)


def assert_readable(at) -> int:
    """Every column of every table has a human label (no internal underscores), its internal
    name in the help and a width; returns the number of columns checked."""
    checked = 0
    for frame in at.dataframe:
        configs = column_configs(frame)
        for column in frame.value.columns:
            spec = configs.get(column)
            assert spec is not None, column
            if spec.get("hidden"):
                continue
            assert spec.get("label") and "_" not in spec["label"], (column, spec.get("label"))
            assert f"`{column}`" in spec.get("help", ""), (column, spec.get("help"))
            assert isinstance(spec.get("width"), int) and spec["width"] >= 56, (column, spec.get("width"))
            checked += 1
    return checked


@pytest.mark.parametrize("page", ["overview", "cards", "keywords", "costs", "matchups"])
def test_every_column_has_a_label_its_name_and_a_width(page, small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.dataframe and assert_readable(at) > 5


def test_the_cards_table_leads_with_names_and_fits_its_numbers(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    frame = at.dataframe[0]
    order = list(frame.proto.column_order)
    assert order[0] == "name" and order[-1] == "card", "the card's name first, its id last"
    configs = column_configs(frame)
    assert configs["name"]["label"] == "card" and configs["name"]["pinned"]
    assert configs["card"]["label"] == "card id" and not configs["card"].get("pinned")
    # the q column (it was clipped): three decimals, and wide enough for its label and every value
    q = configs["oh_excess_q"]
    assert q["type_config"]["format"] == "%.3f"
    values = frame.value["oh_excess_q"].dropna()
    widest = max(len(f"{v:.3f}") for v in values)
    assert q["width"] >= 8 * max(widest, len(q["label"])), q
    assert q["width"] == fitted_width(pl.Series(values.tolist()), q)


def test_keywords_read_as_names(small_store, monkeypatch):
    from reports.keywords import keyword_name

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("keywords").run()
    impact = table_labelled(at, "keyword", "keyword_name")
    assert all(keyword_name(k) == n for k, n in zip(impact["keyword"], impact["keyword_name"]))
    assert keyword_name("double_barrel") == "Double Barrel" and keyword_name("flip_charged") == "Flip Charged"
    frame = next(f for f in at.dataframe if "keyword_name" in f.value.columns)
    assert list(frame.proto.column_order)[0] == "keyword_name"
    chart = plotly_specs(at)[0]
    labels = [y for trace in chart["data"] for y in trace["y"]]
    assert labels and not any("_" in y for y in labels), "the chart names keywords, not their ids"
    assert chart["layout"]["yaxis"]["automargin"], "long names push the margin instead of being cut"


def test_the_cards_chart_legend_sits_above_the_plot(small_store, monkeypatch):
    from reports.pages.cards import POOLED

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    for view in (None, POOLED.label):
        if view:
            at.radio(key="cards_view").set_value(view).run()
        legend = plotly_specs(at)[-1]["layout"]["legend"]
        assert legend["orientation"] == "h" and legend["yanchor"] == "bottom" and legend["y"] > 1, legend


def test_the_turn_chart_puts_its_sample_sizes_under_the_axis(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    select_row(at, "cards_table", 0)
    turns = table_labelled(at, "turn")
    [chart] = [s for s in plotly_specs(at) if s["layout"]["xaxis"]["title"]["text"] == "Seat's own turn when first played"]
    assert all("text" not in trace for trace in chart["data"]), "no n= text on the bars, under the error bars"
    ticks = dict(zip(chart["layout"]["xaxis"]["tickvals"], chart["layout"]["xaxis"]["ticktext"]))
    for turn, games in turns.groupby("turn")["games"].sum().items():
        assert ticks[turn] == f"{turn}<br>n={games}"


@pytest.fixture
def planted_store(tmp_path):
    """A store of Wild Frontier's card tables under every rules version and the planted one (one
    card off budget), the data it came from, and the validate notes on it."""
    from cardsdb.calibration import planted_data
    from cardsdb.loader import load_game
    from tests.test_off_budget import store_of_versions, validate_notes

    data_dir = planted_data("frontier", tmp_path / "data")
    store = tmp_path / "planted.duckdb"
    store_of_versions(store, load_game("frontier", data_dir))
    return store, validate_notes("frontier", data_dir)


def test_the_cost_curve_names_only_off_budget_cards_and_agrees_with_validate(planted_store, monkeypatch):
    from cardsdb.calibration import PLANTED_VERSION
    from reports.pages.costs import LABELS_MAX

    store, notes = planted_store
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = page_app("costs").run()
    [(run_id,)] = duckdb.connect(str(store), read_only=True).execute(
        "SELECT run_id FROM runs WHERE rules_version = ?", [PLANTED_VERSION]).fetchall()
    runs_multiselect(at).set_value([run_id]).run()
    assert not at.exception, [e.value for e in at.exception]
    chart = plotly_specs(at)[0]
    labelled = [t for t in chart["data"] if t.get("text") is not None]
    assert [t["name"] for t in labelled] == ["off budget (more than 1 stat point from its budget)"]
    names = [x for x in labelled[0]["text"] if x]
    assert 0 < len(names) <= LABELS_MAX
    assert chart["layout"]["legend"]["x"] > 1, "the legend beside the plot, off the x-axis title"
    assert any("A bubble's size is how many cards share that cost and stat points" in c.value for c in at.caption)
    off = table_labelled(at, "surplus", "off_budget")
    assert off["off_budget"].all() and set(off["card"]) == set(notes[PLANTED_VERSION])
    assert dict(zip(off["card"], off["surplus"])) == pytest.approx(notes[PLANTED_VERSION], abs=0.05)


# --- the campaign's reward lift -----------------------------------------------------------------

def campaign_tables(path, offers: list[tuple[str, bool, bool]]) -> None:
    """Hand-made campaign tables: one campaign run per (card offered, taken, cleared)."""
    from workbench.store import SCHEMA

    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    for run_no, (card, taken, cleared) in enumerate(offers):
        con.execute("INSERT INTO campaign_runs VALUES (1, ?, 0, 'frontier', 's', 'crew', ?, 'random', 'greedy', ?, ?, "
                    "10, 150, 8, 0, 53, 3, 3, 1.0, NULL)", [run_no, run_no, "cleared" if cleared else "defeated",
                                                            cleared])
        con.execute("INSERT INTO campaign_rewards VALUES (1, ?, 1, 'battle', ?, 0, ?)", [run_no, card, taken])
    con.close()


def test_reward_lift_is_in_points_with_intervals_and_ranked_by_the_lower_bound(tmp_path):
    """A card taken once, in a run that cleared, at +75 points (1 of 1 against 1 of 4) must not
    top a card at +50 points seen over 80 runs (30 of 40 against 10 of 40)."""
    from reports.campaign import reward_lift
    from reports.stats import diff_interval

    once = [("once", True, True)] + [("once", False, i == 0) for i in range(4)]
    steady = [("steady", True, i < 30) for i in range(40)] + [("steady", False, i < 10) for i in range(40)]
    path = tmp_path / "c.duckdb"
    campaign_tables(path, once + steady)
    lift = reward_lift(path)
    assert lift["card"].to_list() == ["steady", "once"]
    rows = {r["card"]: r for r in lift.iter_rows(named=True)}
    assert rows["once"]["clear_lift"] == pytest.approx(0.75) and rows["steady"]["clear_lift"] == pytest.approx(0.5)
    for card, (k1, n1, k0, n0) in {"once": (1, 1, 1, 4), "steady": (30, 40, 10, 40)}.items():
        lo, hi = diff_interval([k1], [n1], [k0], [n0])
        r = rows[card]
        assert (r["clear_taken_n"], r["clear_skipped_n"]) == (n1, n0)
        assert (r["clear_lift_lo"], r["clear_lift_hi"]) == pytest.approx((lo[0], hi[0]))
        assert r["clear_lift_lo"] < r["clear_lift"] < r["clear_lift_hi"]
    assert rows["once"]["clear_lift_lo"] < 0 < rows["steady"]["clear_lift_lo"]
    assert rows["once"]["lift_lo"] is None, "no later fights: no interval, not nan"


def test_the_campaign_page_shows_lift_in_points(campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = page_app("campaign").run()
    assert not at.exception, [e.value for e in at.exception]
    assert assert_readable(at) > 10
    lift = next(f for f in at.dataframe if "clear_lift" in f.value.columns)
    configs = column_configs(lift)
    for column in ("clear_lift", "clear_lift_lo", "clear_lift_hi", "lift", "lift_lo", "lift_hi"):
        assert configs[column]["type_config"]["format"] == "%+.1f pts", column
    order = list(lift.proto.column_order)
    assert order[0] == "name" and order.index("taken") < order.index("clear_lift"), "the card's name, then n"
    shown = lift.value
    ranked = shown["clear_lift_lo"].dropna().tolist()
    assert ranked == sorted(ranked, reverse=True)
    chart = plotly_specs(at)[1]
    assert chart["layout"]["xaxis"]["title"]["text"] == "Clear rate taken minus skipped (points)"
    assert all(re.search(r"\(n=\d+/\d+\)$", y) for y in chart["data"][0]["y"])


# --- the HTML report --------------------------------------------------------------------------------

def test_the_html_report_leads_with_the_version_diff_in_points(diff_store):
    from reports.html import build

    base, candidate = sorted(r[0] for r in duckdb.connect(str(diff_store), read_only=True).execute(
        "SELECT run_id FROM runs").fetchall())
    text = build(diff_store, [candidate], diff_base=base)
    diff_at = text.index("<h2>Version diff")
    assert diff_at < text.index("<h2>Cards that over- and under-perform"), "the diff leads"
    decks = text[diff_at:text.index("</table>", diff_at)]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", decks)
    rows = [cells[i:i + 7] for i in range(0, len(cells), 7)]  # deck, twins, WR base, WR candidate, change, 95%, p
    assert rows and all(re.fullmatch(r"[+-]\d+\.\d pts", r[4]) for r in rows), rows
    assert all(re.fullmatch(r"[+-]\d+\.\d to [+-]\d+\.\d pts", r[5]) for r in rows), rows
    assert all(r[2].endswith("%") for r in rows), "win rates stay percentages; changes are points"
    assert "OH excess" in text and re.search(r"<td[^>]*>[+-]\d+\.\d pts</td>", text[text.index("Most over-performing"):])
    assert "Version diff" not in build(diff_store, [candidate])
