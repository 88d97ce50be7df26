"""The drawn board of the replay page (issue 18, item 1): each game's table drawn from its state,
step by step, the events in plain words beside it, a card chooser, a diff's twins side by side.

The drawn boards are checked against the engine's scenario snapshot at the same decision (an
independent read of the state: slugs, ATK, DEF, HP, Cover, shields), the page under AppTest."""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from reports.board import Board, Card, Cell, Zone, draw, from_plain
from tests.conftest import DATA, run_cli

SCRIPT = "from reports.pages.replay import render\nfrom workbench.replay import replay_match\nrender(replay_match)"
GAMES = {  # game -> (run id in the store, its two decks)
    "frontier": (1, "goblin-gold-gang,lawmen-posse"),
    "alleyway": (2, "archon-star-fleet,cinder-wildfire"),
    "allegiance": (3, "citadel-wardens,forge-reapers"),
}
pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture(scope="module")
def three_games(tmp_path_factory) -> Path:
    """A store with two greedy matches of each game, runs 1-3 in GAMES' order."""
    path = tmp_path_factory.mktemp("board") / "three.duckdb"
    for game, (_run, decks) in GAMES.items():
        res = run_cli("simulate", game, "--decks", decks, "--matches", "2", "--pilots", "greedy", "--workers", "1",
                      "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    return path


@pytest.fixture(scope="module")
def twin_store(tmp_path_factory) -> Path:
    """A small rules-version diff: the same four Frontier matches under two versions."""
    path = tmp_path_factory.mktemp("twins") / "twins.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--matches", "4",
                  "--decks", "goblin-gold-gang,lawmen-posse", "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    return path


def recorded_replay(monkeypatch, store: Path, run_id: int, match_no: int):
    """The replay, and what the watcher saw at every decision: the scenario snapshot, the table
    board and the drawn board of the same state."""
    import workbench.replay as replay_mod

    seen = []

    class Recording(replay_mod.BoardWatcher):
        def __call__(self, state, action) -> None:
            super().__call__(state, action)
            seen.append((self.engine.snapshot(state), self.engine.board(state), self.decisions[-1].drawn))

    monkeypatch.setattr(replay_mod, "BoardWatcher", Recording)
    return replay_mod.replay_match(store, run_id, match_no), seen


def card_names(game: str) -> dict[str, str]:
    from cardsdb.loader import load_ruleset

    return {c.id: c.name for c in load_ruleset(game, "base", DATA)[1].cards.values()}


def expected_units(game: str, snap: dict, names: dict[str, str]) -> dict[str, tuple[str, dict, dict]]:
    """Cell id -> (card name, its numbers as the board should print them, tokens) for every card
    the snapshot puts on the table."""
    out = {}
    if game == "allegiance":
        for half, cells in snap["board"].items():
            for name, u in cells.items():
                if u == "blight":
                    out[f"{half}.{name}"] = ("Blight", {}, {})
                elif u is not None:
                    out[f"{half}.{name}"] = (names[u["card"]], {"HP": f"{u['hp']}/{u['max_hp']}"},
                                             {k.title(): u[k] for k in ("absorb", "reflect") if u[k]})
        return out
    for key, side in snap.items():
        if not (key.startswith("p") and key[1:].isdigit()):
            continue
        for lane, u in side["lanes"].items():
            cover = side.get("cover", {}).get(lane, 0)
            if u is not None:
                numbers = {"ATK": str(u["power"]), "DEF": f"{u['def']}/{u['max_def']}"} if game == "frontier" else \
                    {"ATK": str(u["atk"]), "DEF": str(u["def"])}
                out[f"{key}.{lane}"] = (names[u["card"]], numbers, {"Cover": cover} if cover else {})
        for slot, b in side.get("back", {}).items():
            if b is not None:
                out[f"{key}.{slot}"] = (names[b["card"]] if b["face"] == "up" else "face-down", {}, {})
        if side.get("leader"):
            out[f"{key}.leader"] = (names[side["leader"]["card"]], {"Influence": str(side["leader"]["influence"])}, {})
    return out


def svg_cards(svg: str) -> list[str]:
    return [html.unescape(n) for n in re.findall(r'<g class="card" data-cell="[^"]*" data-name="([^"]*)"', svg)]


@pytest.mark.parametrize("game", GAMES)
def test_the_drawn_board_has_every_unit_of_the_state_with_its_name_and_numbers(game, three_games, monkeypatch):
    run_id = GAMES[game][0]
    out, seen = recorded_replay(monkeypatch, three_games, run_id, 0)
    assert out["game"] == game and out["consistent"], out["stored"]
    names = card_names(game)
    units = 0
    for snap, _table, drawn in seen:
        board = from_plain(drawn)
        placed = {c.id: c for c in board.cells}
        expected = expected_units(game, snap, names)
        for cell_id, (name, numbers, tokens) in expected.items():
            card = placed[cell_id].card
            assert card is not None and card.name == name, (cell_id, name, card)
            assert {k: v for k, v in card.stats if k in numbers} == numbers, (cell_id, card.stats, numbers)
            assert {k: n for k, n in placed[cell_id].tokens if k in tokens} == tokens, (cell_id, placed[cell_id].tokens)
        # and nothing on the table that the state does not hold (Muster and Deputy Zones are off the field)
        on_field = {c.id for c in board.cells if c.card is not None and not re.search(r"\.(deputy|muster)\d", c.id)}
        assert on_field == set(expected), (on_field ^ set(expected))
        units += len(expected)
    assert units > 20, "the match put cards on the table"
    # every step the page can show is one of those boards (or the final one), and it draws every card
    steps = [step for entry in out["timeline"] for step in entry["steps"]]
    boards = {id(d) for _s, _t, d in seen} | {id(steps[-1]["board"])}  # the final board: after the last decision
    assert all(id(step["board"]) in boards for step in steps)
    for step in steps:
        board = from_plain(step["board"])
        svg = draw(board)
        assert sorted(svg_cards(svg)) == sorted(c.name for c in board.cards())
        for card in board.cards():
            assert html.escape(card.numbers()) in svg or not card.stats


@pytest.mark.parametrize("game", GAMES)
def test_every_event_kind_has_plain_words(game):
    """Each kind the engine logs has its sentence; none falls back to the generic one."""
    import importlib

    from sim.registry import engine

    words = importlib.import_module(f"sim.{game}.drawn").WORDS
    assert set(engine(game).kinds.names) <= set(words), set(engine(game).kinds.names) - set(words)


def test_the_allegiance_board_after_turn_0_is_the_setup_not_the_final_board(three_games, monkeypatch):
    """Turn 0 (the Strongholds placed) asks no decision: its board is the one its events left,
    the state at the first decision, not the board at the end of the match."""
    out, seen = recorded_replay(monkeypatch, three_games, GAMES["allegiance"][0], 0)
    first = out["timeline"][0]
    assert first["turn"] == 0 and all("Stronghold" in s for s in first["said"]) and len(first["said"]) == 2
    snap, table, drawn = seen[0]  # the state after setup, before the first decision
    assert first["board"] == table
    assert first["board"] != out["timeline"][-1]["board"]
    assert [step["board"] for step in first["steps"]] == [drawn]
    board = from_plain(drawn)
    assert sorted(c.kind for c in board.cards()) == ["stronghold", "stronghold"]
    assert {c.id for c in board.cells if c.card} == set(expected_units("allegiance", snap, card_names("allegiance")))
    # and the page draws that board on turn 0
    at = page(three_games, GAMES["allegiance"][0], 0, monkeypatch)
    slider(at, "Turn").set_value(0).run()
    assert sorted(svg_cards(board_svg(at))) == sorted(c.name for c in board.cards())


# --- the page ---------------------------------------------------------------------------------------

def page(store: Path, run_id: int, match_no: int, monkeypatch) -> AppTest:
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = AppTest.from_string(SCRIPT, default_timeout=90)
    at.query_params["run"], at.query_params["match"] = str(run_id), str(match_no)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def slider(at: AppTest, label: str):
    return next(s for s in at.select_slider if s.label == label)


def board_svgs(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("<svg")]


def board_svg(at: AppTest) -> str:
    [svg] = board_svgs(at)
    return svg


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_page_draws_the_board_and_says_the_events(game, three_games, monkeypatch):
    from workbench.replay import replay_match

    run_id = GAMES[game][0]
    at = page(three_games, run_id, 1, monkeypatch)
    out = replay_match(three_games, run_id, 1)
    turn = next(e for e in out["timeline"] if e["turn"] == slider(at, "Turn").value)
    step = turn["steps"][slider(at, "Step within the turn").value]
    svg = board_svg(at)
    assert sorted(svg_cards(svg)) == sorted(c.name for c in from_plain(step["board"]).cards())
    # later: a turn in the middle, its last step
    mid = out["timeline"][len(out["timeline"]) // 2]
    slider(at, "Turn").set_value(mid["turn"]).run()
    assert slider(at, "Step within the turn").options == [f"{i}: {s['label'][:70]}" for i, s in enumerate(mid["steps"])]
    last = len(mid["steps"]) - 1
    slider(at, "Step within the turn").set_value(last).run()
    assert not at.exception, [e.value for e in at.exception]
    svg = board_svg(at)
    assert sorted(svg_cards(svg)) == sorted(c.name for c in from_plain(mid["steps"][last]["board"]).cards())
    for zone in from_plain(mid["steps"][last]["board"]).zones:
        for line in zone.lines:
            assert html.escape(line) in svg
    words = [m.value for m in at.markdown if "▶" in m.value and not m.value.startswith("<svg")]
    assert words, "the turn's events in words beside the board"
    shown = words[0]
    assert all(md_plain(said) in shown for said in mid["said"])
    assert " -> " not in shown and " @ " not in shown, "plain words, not the engine's shorthand"


def md_plain(text: str) -> str:
    from reports.pages.replay import md

    return md(text)


def test_the_step_slider_moves_through_the_steps_of_a_turn(three_games, monkeypatch):
    from workbench.replay import replay_match

    run_id = GAMES["frontier"][0]
    out = replay_match(three_games, run_id, 0)
    entry = max(out["timeline"], key=lambda e: len(e["steps"]))
    assert len(entry["steps"]) >= 3
    at = page(three_games, run_id, 0, monkeypatch)
    slider(at, "Turn").set_value(entry["turn"]).run()
    drawn = []
    for i, step in enumerate(entry["steps"]):
        slider(at, "Step within the turn").set_value(i).run()
        assert not at.exception, [e.value for e in at.exception]
        svg = board_svg(at)
        assert sorted(svg_cards(svg)) == sorted(c.name for c in from_plain(step["board"]).cards())
        assert any(c.value.startswith(f"Turn {entry['turn']}, step {i} of {len(entry['steps']) - 1}:") for c in at.caption)
        bold = [m.value for m in at.markdown if "**▶" in m.value and not m.value.startswith("<svg")]
        if step["said"]:
            assert bold and all(f"**▶ {md_plain(s)}**" in bold[0] for s in step["said"])
        drawn.append(svg)
    assert len(set(drawn)) > 1, "the board changes as the steps go"


def test_the_card_chooser_opens_the_turn_a_card_was_first_played(three_games, monkeypatch):
    from workbench.replay import replay_match

    run_id = GAMES["alleyway"][0]
    out = replay_match(three_games, run_id, 0)
    index, played = next((i, p) for i, p in enumerate(out["first_played"]) if p["turn"] > 2)
    at = page(three_games, run_id, 0, monkeypatch)
    box = next(s for s in at.selectbox if s.label == "Open on the turn a card was first played")
    box.set_value(index).run()
    assert not at.exception, [e.value for e in at.exception]
    assert slider(at, "Turn").value == played["turn"]
    assert slider(at, "Step within the turn").value == played["step"]
    entry = next(e for e in out["timeline"] if e["turn"] == played["turn"])
    assert played["card"] in entry["steps"][played["step"]]["played"]
    svg = board_svg(at)
    name = html.escape(played["card"])
    framed = re.search(rf'data-name="{re.escape(name)}"[^>]*><title>[^<]*</title><rect [^>]*stroke="#f59e0b"', svg)
    card = next((c for c in from_plain(entry["steps"][played["step"]]["board"]).cards() if c.name == played["card"]),
                None)
    assert framed or card is None, "the chosen card is framed on the board (when it stays on the table)"


def test_a_diffs_twins_side_by_side(twin_store, monkeypatch):
    """The same match under base and candidate: two boards at the same turn and step."""
    from reports import db
    from workbench.replay import replay_match

    base, candidate = (r for (r,) in db.query(twin_store, "SELECT run_id FROM runs ORDER BY run_id").rows())
    at = page(twin_store, candidate, 1, monkeypatch)
    [toggle] = [t for t in at.toggle if t.label.startswith("Side by side with its twin under base")]
    toggle.set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    left, right = board_svgs(at)
    turn, step = slider(at, "Turn").value, slider(at, "Step within the turn").value
    for svg, run_id in ((left, candidate), (right, base)):
        entry = next(e for e in replay_match(twin_store, run_id, 1)["timeline"] if e["turn"] == turn)
        board = from_plain(entry["steps"][min(step, len(entry["steps"]) - 1)]["board"])
        assert sorted(svg_cards(svg)) == sorted(c.name for c in board.cards())
        assert all(html.escape(line) in svg for z in board.zones for line in z.lines)
    assert any(m.value.startswith(f"**base** (run {base})") for m in at.markdown)
    assert any(m.value.startswith(f"**first-player-skips-draw** (run {candidate})") for m in at.markdown)


# --- the renderer alone, on a hand-made board (no engine) -------------------------------------------

def test_the_renderer_draws_names_numbers_tokens_and_hides_face_down_cards():
    board = Board("Test", 3, 1.75, (Zone("p0", 0, 0, 0, 3, 0.75, ("Morale 6000 · Authority 2",), True),
                                    Zone("p0 front row", 0, 0, 0.75, 3, 1)),
                  (Cell("p0.l1", "l1", 0, 0.75, card=Card("Iron Horse Cavalry", 0, (("ATK", "3"), ("DEF", "2/4")),
                                                         ("fresh",))),
                   Cell("p0.l2", "l2", 1, 0.75, card=Card("Secret Plan", 0, face_down=True), tokens=(("Cover", 1),)),
                   Cell("p0.l3", "l3", 2, 0.75, shade="raised")))
    svg = draw(board, {0: "my deck"}, {"Iron Horse Cavalry"})
    assert "Iron Horse Cavalry" in svg and "ATK 3 · DEF 2/4" in svg and "fresh" in svg
    assert "Secret Plan" not in svg and "face-down" in svg
    assert "Cover 1" in svg and "Morale 6000 · Authority 2" in svg and "p0 · my deck" in svg and "to act" in svg
    assert re.search(r'data-name="Iron Horse Cavalry"[^>]*><title>[^<]*</title><rect [^>]*stroke="#f59e0b"', svg)
    assert svg.count('class="cell"') == 3 and ">l3<" in svg


def test_an_engine_without_a_drawing_gets_one_from_its_board_and_words_from_its_names():
    """EngineDefaults: a panel per seat and the field rows as cards; a generic sentence per event."""
    from sim.core.contract import EngineDefaults
    from tests.test_conformance import starter_game

    eng, pool, pairs = starter_game("frontier")
    state = eng.new_match(pool, list(pairs[0]), 1)

    class Borrowed(EngineDefaults):
        kinds = eng.kinds
        snapshot = staticmethod(eng.snapshot)
        card_name = staticmethod(eng.card_name)

    board = from_plain(Borrowed().drawn_board(state))
    assert [z.label for z in board.zones if z.lines] == ["p0", "p1"]
    assert any("hp 30" in line for z in board.zones for line in z.lines)
    card = state.sides[0].hand[0]
    said = Borrowed().event_words(pool, 0, eng.kinds.DRAW, card, -1, 0, -1, None)
    assert said == f"{pool.cards[card].slug} (p0): draw"
    assert draw(board).startswith("<svg")
