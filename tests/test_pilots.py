"""Pilots: random is uniform over legal actions; greedy looks one action ahead on a
determinized clone, beats random, and never sees hidden cards or the chance to come."""
from sim.core.match import play_match
from sim.core.rng import Streams


def test_greedy_beats_random_from_both_seats(frontier):
    eng, pool, _data, _rules, decks = frontier
    wins = 0
    for seed in range(20):
        for seat in (0, 1):
            pilots = ["random", "random"]
            pilots[seat] = "greedy"
            r = play_match(eng, pool, decks, seed, pilots, log=False)
            wins += r.winner == seat
    assert wins >= 36, wins  # of 40


def test_determinize_hides_what_the_seat_cannot_see(frontier):
    eng, pool, _data, _rules, decks = frontier
    state = eng.new_match(pool, decks, 3)
    rng = Streams(3).pilot(0)
    belief = eng.determinize(state, 0, rng)
    me, them = belief.sides
    # own hand is known, own deck order is not; the enemy's hand is resampled, its size kept
    assert me.hand == state.sides[0].hand
    assert sorted(me.deck) == sorted(state.sides[0].deck) and me.deck != state.sides[0].deck
    assert len(them.hand) == len(state.sides[1].hand)
    assert sorted(them.hand + them.deck) == sorted(state.sides[1].hand + state.sides[1].deck)
    assert them.hand != state.sides[1].hand
    # the chance stream is the pilot's, not the match's
    assert belief.chance_key != state.chance_key
    # and the clone logs nothing
    assert belief.events is None and belief.ledger is None


def test_lookahead_does_not_disturb_the_match(frontier):
    """A greedy pilot's thinking leaves the real state untouched."""
    eng, pool, _data, _rules, decks = frontier
    state = eng.new_match(pool, decks, 8)
    before = eng.snapshot(state)
    from sim.core.pilots import make_pilot

    pilot = make_pilot("greedy", eng, 0, Streams(8).pilot(0))
    pilot.choose(state, eng.legal_actions(state))
    assert eng.snapshot(state) == before


def test_a_run_spec_names_the_weights_its_pilots_think_with(tmp_path, monkeypatch):
    """A weight set changed (fit-weights --replace, an edit) changes the spec of the runs whose
    pilots read it, so a run played with the old weights is neither reused nor resumed; random
    play reads none and keeps the spec hash it always had."""
    import sim.core.pilots as pilots
    from sim.registry import engine
    from workbench.commands.simulate import new_run

    eng = engine("frontier")
    assert pilots.weights_fingerprint(["random"], eng) == ""
    before = pilots.weights_fingerprint(["greedy"], eng)
    assert before and before != pilots.weights_fingerprint(["greedy@hand"], eng)
    real = pilots.weights_file

    def edited(engine_, name):  # the same set with one weight changed, in a copy
        path = real(engine_, name)
        copy = tmp_path / path.name
        copy.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        return copy

    monkeypatch.setattr(pilots, "weights_file", edited)
    assert pilots.weights_fingerprint(["greedy"], eng) != before
    monkeypatch.setattr(pilots, "weights_file", real)
    greedy, _ = new_run("frontier", "base", None, ["greedy"], matches=2, seed=1, swap=True, events=0.0, chunk_size=None,
                        workers=1)
    assert greedy.weights_hash == before and "weights_hash" in greedy.to_json()
    randomly, _ = new_run("frontier", "base", None, ["random"], matches=2, seed=1, swap=True, events=0.0,
                          chunk_size=None, workers=1)
    assert "weights_hash" not in randomly.to_json()


def test_a_pilot_does_not_read_values_another_weight_set_left_on_the_shared_units(frontier):
    """Lookahead clones share the units a move leaves alone with the real state, and evaluate
    caches a unit's worth on it. Two pilots thinking with different weight sets (``greedy`` thinks
    with the tuned set, ``greedy@hand`` with the hand set) must each read only their own: the same
    match, its unit caches wiped after every decision, makes the same decisions. (Before the
    cache was kept with its weights, 3 of 6 such Frontier matches diverged.)"""
    eng, pool, data, _rules, _decks = frontier
    field = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]

    def wipe(state, _action):
        for side in state.sides:
            for u in side.lanes:
                if u is not None:
                    u.value = None

    pilots = ["greedy@hand", "greedy"]
    for seed in range(4):
        decks = [field[seed % len(field)], field[(seed + 1) % len(field)]]
        played, wiped = [], []
        a = play_match(eng, pool, decks, seed, pilots, log=False, on_decision=lambda s, x, p=played: p.append(x))
        b = play_match(eng, pool, decks, seed, pilots, log=False,
                       on_decision=lambda s, x, w=wiped: (w.append(x), wipe(s, x)))
        assert played == wiped and a.winner == b.winner, seed
