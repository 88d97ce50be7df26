"""Readable tables and charts (issue 18, item 3): every column a human label with its internal
name in the help and a width that fits its numbers; names before ids; legends off the axis
titles; the turn chart's sample sizes where the error bars cannot hide them; cost-curve labels on
off-budget cards only; the campaign's reward lift in points with intervals, ranked by the lower
bound; the HTML report leading with the version diff, its changes in points; factions and clans
by name (factions.yaml) on every page and export, their ids beside them; the Version diff, Match
replay, Rebalancing, What-if, Free-for-all, Series and Turf Defense pages labelled the same way,
changes in points written as points."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil

import duckdb
import polars as pl
import pytest

from reports.pages.columns import CHAR_PX, _printf, fitted_width
from tests.conftest import cli_here
from tests.test_dashboard import page_app, plotly_specs, runs_multiselect, select_row, store_sql, table_labelled
from tests.test_ffa_reports import ffa_store  # noqa: F401 (module fixtures, for the mode pages)
from tests.test_series import series_store  # noqa: F401
from tests.test_turf_reports import turf_store  # noqa: F401
from tests.test_whatif import change_store  # noqa: F401

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


# --- factions and clans by name ----------------------------------------------------------------------

def frontier_factions() -> dict[str, str]:
    from cardsdb.loader import load_game

    return load_game("frontier").factions


def assert_names_beside_ids(frame, names: dict[str, str]) -> None:
    """A table's faction column reads as the name, with the id beside it, after it."""
    shown = frame.value
    assert len(shown) and (shown["faction_name"] == shown["faction"].map(names)).all(), shown[["faction", "faction_name"]]
    order = list(frame.proto.column_order) or list(shown.columns)
    assert order.index("faction_name") < order.index("faction")
    configs = column_configs(frame)
    assert (configs["faction_name"]["label"], configs["faction"]["label"]) == ("faction / clan", "faction / clan id")


def test_the_store_keeps_each_faction_s_name(small_store):
    names = frontier_factions()
    stored = dict(store_sql(small_store, "SELECT DISTINCT faction, faction_name FROM cards"))
    assert stored == {f: names[f] for f in stored} and stored["desert_devils"] == "Desert Devils"


def test_the_cards_and_cost_pages_name_factions_and_filter_by_name(small_store, monkeypatch):
    names = frontier_factions()
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    assert_names_beside_ids(at.dataframe[0], names)
    [choice] = [w for w in at.sidebar.multiselect if w.label == "Faction / clan"]
    shown_ids = set(at.dataframe[0].value["faction"])
    assert list(choice.options) == sorted((names[f] for f in shown_ids), key=str.lower), "offered by name"
    at = page_app("costs").run()
    assert_names_beside_ids(next(f for f in at.dataframe if "surplus" in f.value.columns), names)


def test_the_deck_card_and_diff_pages_name_factions(small_store, diff_store, monkeypatch):
    from tests.test_card_deck_pages import card_page, deck_page, most_played_card

    names = frontier_factions()
    at = deck_page(small_store, monkeypatch, "lawmen-posse")
    assert_names_beside_ids(next(f for f in at.dataframe if "copies" in f.value.columns), names)
    card, _name = most_played_card(small_store)
    [(faction,)] = store_sql(small_store, "SELECT DISTINCT faction FROM cards WHERE card = ?", [card])
    at = card_page(small_store, monkeypatch, card)
    assert f"{names[faction]} (`{faction}`)" in " ".join(m.value for m in at.markdown)
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = page_app("diff").run()
    assert_names_beside_ids(next(f for f in at.dataframe if "effect_points" in f.value.columns), names)


def test_exports_write_the_name_beside_the_id(small_store, tmp_path):
    names = frontier_factions()
    out = tmp_path / "cards.csv"
    assert cli_here("export", "cards", "--run", "1", "--csv", str(out), "--db", str(small_store)).returncode == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows and all(r["faction_name"] == names[r["faction"]] for r in rows)
    sheet = tmp_path / "sheet.csv"
    assert cli_here("cards", "export", "frontier", "--rules", "base", "--csv", str(sheet)).returncode == 0
    header = sheet.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[header.index("faction") + 1] == "faction_name", "the name beside the id"
    assert all(r["faction_name"] == names[r["faction"]] for r in csv.DictReader(sheet.open(encoding="utf-8")))


def test_a_store_from_before_the_names_shows_the_ids_and_opens_for_writing(small_store, tmp_path, monkeypatch):
    from workbench.store import Store

    old = tmp_path / "old.duckdb"
    shutil.copy(small_store, old)
    shutil.copytree(f"{small_store}.events", f"{old}.events")
    with duckdb.connect(str(old)) as con:
        con.execute("ALTER TABLE cards DROP COLUMN faction_name")
    monkeypatch.setenv("WORKBENCH_DB", str(old))
    for migrated in (False, True):
        if migrated:
            Store(old).init()  # what any workbench command does to an older store
            assert store_sql(old, "SELECT count(faction_name), count(*) FROM cards")[0][0] == 0, "NULL: not known"
        at = page_app("cards").run()
        assert not at.exception, [e.value for e in at.exception]
        shown = at.dataframe[0].value
        assert (shown["faction_name"] == shown["faction"]).all(), "the id where no name is stored"


# --- the Version diff, Match replay, Rebalancing, What-if and the mode pages ------------------------

# columns that are changes of a win rate in points: "+2.4 pts" in their cells, under a plain header
POINT_COLUMNS = {"change", "change_lo", "change_hi", "unpaired_lo", "unpaired_hi", "effect_points", "effect_lo",
                 "effect_hi", "opening_change", "other_change", "excess_change", "excess_lo", "excess_hi",
                 "value_points", "value_lo", "value_hi", "lo", "hi"}


def assert_points_read_as_points(at) -> None:
    for frame in at.dataframe:
        for column, spec in column_configs(frame).items():
            if spec.get("hidden") or column not in frame.value.columns:
                continue
            fmt = (spec.get("type_config") or {}).get("format") or ""
            assert "pts" not in spec["label"], (column, spec["label"])  # the cells say it, not the header
            if column in POINT_COLUMNS and frame.value[column].dtype.kind == "f":
                assert fmt == "%+.1f pts", (column, fmt)


def assert_names_first(at) -> None:
    """Where a table shows a name and its id, the name comes first."""
    for frame in at.dataframe:
        order = list(frame.proto.column_order) or list(frame.value.columns)
        for name, ident in (("name", "card"), ("faction_name", "faction"), ("boss_name", "boss")):
            if name in order and ident in order:
                assert order.index(name) < order.index(ident), (name, order)


def assert_bounds_beside_values(at) -> None:
    """An interval's "lo" and "hi" stand right after the value they bound, never columns away."""
    for frame in at.dataframe:
        order = list(frame.proto.column_order) or list(frame.value.columns)
        for i, column in enumerate(order):
            for end, before in (("_lo", ""), ("_hi", "_lo")):
                base = column.removesuffix(end)
                if column.endswith(end) and base in order:
                    assert i and order[i - 1] == base + before, (column, order)


def assert_not_clipped(at) -> None:
    """Every formatted number fits its column: the widest value as shown, in the table's font."""
    for frame in at.dataframe:
        for column, spec in column_configs(frame).items():
            fmt = (spec.get("type_config") or {}).get("format")
            if spec.get("hidden") or not fmt or column not in frame.value.columns:
                continue
            values = frame.value[column].dropna().tolist()
            widest = max((len(_printf(fmt, v)) for v in values), default=0)
            assert spec["width"] >= CHAR_PX * widest, (column, fmt, spec["width"], widest)


def whatif_store(small_store, tmp_path, monkeypatch):
    """A copy of the small store with one decided What-if job on it (its diff faked)."""
    from reports import jobs, whatif
    from tests.test_whatif import python, wait_for

    store = tmp_path / "store.duckdb"
    shutil.copy(small_store, store)
    status = ("{'state': 'decided', 'matches': 200, 'max_matches': 1000, 'diff_id': 7, 'decks': [{'deck': "
              "'lawmen-posse', 'seeds': 100, 'change': -3.5, 'lo': -6.0, 'hi': -1.0, 'decision': 'weaker'}], "
              "'updated_at': '2026-01-01T00:00:00+0000'}")
    monkeypatch.setattr(whatif, "diff_command", lambda *a, **k: python(f"import json, sys\njson.dump({status}, "
                                                                        "open(sys.argv[1], 'w'))"))
    job = whatif.start_diff(store, "frontier", "base", "try-x", "iron-horse-cavalry", [{"field": "atk", "base": 4,
                            "candidate": 3}], ["lawmen-posse"], tmp_path, name="Iron Horse Cavalry")
    wait_for(lambda: jobs.job_state(job)["state"] == "decided")
    return store


# (page, store fixture, query parameters)
REVIEWED = [("diff", "diff_store", {}), ("diff", "change_store", {}), ("replay", "small_store", {"run": "1", "match": "0"}),
            ("tune", "tune_store", {}), ("whatif", "whatif_job_store", {}), ("ffa", "ffa_store", {}),
            ("series", "series_store", {}), ("turf", "turf_store", {})]


@pytest.fixture
def tune_store(tmp_path):
    from tests.test_tune import hand_made_proposals

    return hand_made_proposals(tmp_path / "hand.duckdb")


@pytest.fixture
def whatif_job_store(small_store, tmp_path, monkeypatch):
    return whatif_store(small_store, tmp_path, monkeypatch)


@pytest.mark.parametrize("page,store,params", REVIEWED, ids=[f"{p}-{s}" for p, s, _ in REVIEWED])
def test_the_reviewed_pages_label_every_column_and_write_points_as_points(page, store, params, request, monkeypatch):
    path = request.getfixturevalue(store)
    monkeypatch.setenv("WORKBENCH_DB", str(path[0] if isinstance(path, tuple) else path))
    at = page_app(page)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page == "tune":  # the field proposal too: changes, decks and the search's candidates
        assert assert_readable(at) >= 5
        at.sidebar.selectbox[0].set_value(1).run()
    assert at.dataframe and assert_readable(at) >= 5
    assert_points_read_as_points(at)
    assert_names_first(at)
    assert_bounds_beside_values(at)
    assert_not_clipped(at)


def test_the_whatif_verdicts_read_in_points_and_the_jobs_by_card_name(small_store, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(whatif_store(small_store, tmp_path, monkeypatch)))
    at = page_app("whatif").run()
    verdicts = next(f for f in at.dataframe if "decision" in f.value.columns)
    configs = column_configs(verdicts)
    assert [configs[c]["label"] for c in ("change", "lo", "hi")] == ["change", "95% lo", "95% hi"]
    assert _printf(configs["change"]["type_config"]["format"], -3.5) == "-3.5 pts"
    assert any("lawmen-posse weaker: nearer a loss of 5 points than of 0 (-3.5 pts" in s.value for s in at.success)
    listed = next(f for f in at.dataframe if "log" in f.value.columns)
    assert listed.value["name"].tolist() == ["Iron Horse Cavalry"] and listed.value["card"].tolist() == [
        "iron-horse-cavalry"]
    assert column_configs(listed)["name"]["label"] == "card"
    # the job's panel and the jobs table write the change alike (whatif.job_change)
    assert listed.value["change"].tolist() == ["atk 4 → 3"]
    assert any(m.value.startswith("**What-if job 1**: Iron Horse Cavalry atk 4 → 3 (") for m in at.markdown), \
        [m.value for m in at.markdown]


def test_the_diff_page_leads_its_card_tables_with_names(change_store, monkeypatch):  # noqa: F811
    store, diff_id = change_store
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = page_app("diff")
    at.query_params["diff"] = str(diff_id)
    at.run()
    fields = next(f for f in at.dataframe if "field" in f.value.columns)
    assert list(fields.proto.column_order)[0] == "name" and fields.value["name"].tolist() == ["Iron Horse Cavalry"]
    cards = next(f for f in at.dataframe if "effect_points" in f.value.columns)
    order = list(cards.proto.column_order)
    assert order[0] == "name" and order[-1] == "card"
    assert column_configs(cards)["effect_points"]["label"] == "effect"


def test_the_replay_tables_name_cards_and_show_whole_numbers(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("replay")
    at.query_params.update(run="1", match="0")
    at.run()
    board = next(f for f in at.dataframe if "lane" in f.value.columns and "turn" in f.value.columns)
    configs = column_configs(board)
    assert configs["card"]["label"] == "card", "the board shows a card's name, not its id"
    gaps = [c for c in ("atk", "def") if c in board.value.columns and board.value[c].isna().any()]
    assert gaps and all(configs[c]["type_config"]["format"] == "%d" for c in gaps), "1000, not 1000.0"
    events = next(f for f in at.dataframe if "engine_log" in f.value.columns)
    assert column_configs(events)["n"]["label"] == "#"


def test_a_name_several_cards_share_reads_with_its_id():
    from reports.pages.columns import unique_names

    frame = pl.DataFrame({"card": ["kade-1", "kade-2", "kade-3", "sprintz", "sprintz", "x"],
                          "name": ["Kade", "Kade", "Kade", "Sprintz", "Sprintz", None]})
    assert unique_names(frame)["name"].to_list() == ["Kade (kade-1)", "Kade (kade-2)", "Kade (kade-3)",
                                                     "Sprintz", "Sprintz", None]  # one card twice: one name
    linked = frame.with_columns(("card?card=" + pl.col("card")).alias("card"))  # the Deck page's links
    assert unique_names(linked)["name"].to_list()[:2] == ["Kade (kade-1)", "Kade (kade-2)"]
    assert unique_names(frame.drop("card")).equals(frame.drop("card"))  # no ids: nothing to tell apart by


def test_the_free_for_all_cards_table_tells_a_striver_s_levels_apart(ffa_store, monkeypatch):  # noqa: F811
    monkeypatch.setenv("WORKBENCH_DB", str(ffa_store))
    at = page_app("ffa").run()
    cards = next(f.value for f in at.dataframe if "placement_gain" in f.value.columns)
    assert cards["name"].nunique() == cards["card"].nunique() == len(cards)
    levels = [n for n in cards["name"] if re.fullmatch(r".+ \([a-z0-9-]+-[123]\)", n)]
    assert len(levels) >= 2, list(cards["name"])


def test_the_card_charts_tell_a_striver_s_levels_apart():
    """The Cards (and Deck) ranking chart and the Campaign lift chart label cards by name: a name
    several card ids share reads with the id, as in the tables; plotly would pool rows of one label."""
    from reports.pages.campaign import lift_chart
    from reports.pages.cards import WITHIN_DECK, ranking_chart

    cards = ["kade-1", "kade-2", "sprintz"]
    frame = pl.DataFrame({"card": cards, "name": ["Kade", "Kade", "Sprintz"], "oh_games": [40, 40, 40],
                          "oh_excess": [0.1, 0.0, -0.1], "oh_excess_lo": [0.0, -0.1, -0.2],
                          "oh_excess_hi": [0.2, 0.1, 0.0], "oh_excess_q": [0.5] * 3,
                          "oh_excess_significant": [False] * 3})
    labels = ranking_chart(frame, [], WITHIN_DECK).layout.yaxis.categoryarray
    assert list(labels)[::-1] == ["Kade (kade-1) (n=40)", "Kade (kade-2) (n=40)", "Sprintz (n=40)"]
    lift = frame.select("card", "name").with_columns(
        pl.lit(0.1).alias("clear_lift"), pl.lit(0.0).alias("clear_lift_lo"), pl.lit(0.2).alias("clear_lift_hi"),
        pl.lit(5).alias("clear_taken_n"), pl.lit(6).alias("clear_skipped_n"),
        pl.lit("base").alias("rules_version"), pl.lit("d942801d06b46f3e").alias("rules_hash"))
    assert [y.split(" (n=")[0] for y in lift_chart(lift).data[0].y] == ["Kade (kade-1)", "Kade (kade-2)", "Sprintz"]
