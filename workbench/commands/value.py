"""``workbench value``: what each card adds to its deck, measured by intervention.

For each card, the deck as written and the deck with that card's copies replaced (at the same
places of the shuffled deck) by the game's reference card of the same cost play the same seeds
and seats against the same opponents; the paired difference of the deck's wins is the card's win
rate added (reports/intervention.py). Every run is an ordinary resumable run (the replaced one is
filed as kind ``value``, out of the dashboard's default views), so a finished one is reused, a
stopped one finished, and ``--cluster`` plays them on Dask like any other.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table

from cardsdb.errors import DataError
from cardsdb.reference import reference_for, reference_ids
from reports.export import write_frame
from reports.intervention import card_value, value_change, with_q_values
from reports.value import card_values
from workbench import games
from workbench.commands.diff import ensure_run
from workbench.commands.simulate import new_run
from workbench.errors import UserError
from workbench.farm import default_workers
from workbench.outputs import check_folder
from workbench.store import Store
from workbench.store_guard import check_store_path

MEASURED_SLOT = "0"  # the measured deck is deck slot 0 of every run, paired with each opponent


@dataclass(frozen=True, slots=True)
class Measured:
    """One card to measure: what replaces it and how many copies the deck holds."""
    card: str
    name: str
    reference: str
    copies: int


@dataclass(frozen=True, slots=True)
class Plan:
    game: str
    deck: str
    opponents: tuple[str, ...]
    against: str
    cards: tuple[Measured, ...]

    @property
    def deck_ids(self) -> list[str]:
        return [self.deck, *self.opponents]

    @property
    def pairings(self) -> list[tuple[int, int]]:
        return [(0, j) for j in range(1, len(self.opponents) + 1)]


def opponents_of(data, deck: str, against: str) -> tuple[str, ...]:
    """``field``: the game's starter decks other than this one (its mirror if it is the only
    starter); otherwise the one deck named (the mirror when it is the deck itself)."""
    if against != "field":
        if against not in data.decks:
            raise UserError(f"--against: unknown deck {against!r} (known: {', '.join(sorted(data.decks))})")
        return (against,)
    field = sorted(d.id for d in data.decks.values() if d.starter and d.id != deck)
    return tuple(field) or (deck,)


def make_plan(game: str, rules: str, deck: str, cards: list[str] | None, against: str,
              reference: str | None, data_dir=None) -> Plan:
    """What to measure, checked: every mistake is one line naming the deck, card or option."""
    data, ruleset = games.load(game, rules, data_dir)
    if deck not in data.decks:
        raise UserError(f"unknown deck {deck!r} for {game} (known: {', '.join(sorted(data.decks))})")
    written = data.decks[deck].cards
    for card in cards or []:
        if card not in written:
            raise UserError(f"{data.deck_files.get(deck, deck)}: deck {deck!r} holds no card {card!r} "
                            f"(its cards: {', '.join(written)})")
    if reference is not None and reference not in ruleset.cards:
        raise UserError(f"--reference: no card {reference!r} in {game} rules version {rules!r}")
    try:
        refs = [reference] if reference else reference_ids(game, Path(data_dir) if data_dir else None)
    except DataError as exc:
        raise UserError(str(exc)) from None
    measured = []
    for card in cards or list(written):
        if card in refs:
            continue  # a reference card's value is nil by definition
        ref = reference or reference_for(ruleset, card, refs)
        measured.append(Measured(card, ruleset.cards[card].name, ref, int(written[card])))
    if not measured:
        raise UserError(f"nothing to measure in deck {deck!r}")
    return Plan(game, deck, opponents_of(data, deck, against), against, tuple(measured))


def ensure(store: Store, plan: Plan, rules: str, pilots: list[str], matches: int, seed: int, workers: int,
           quiet: bool, err: Console, cluster, parts, data_dir, substitute: dict | None = None) -> int:
    """A finished run of the deck (replaced or not) against its opponents, reused when stored."""
    spec, payload = new_run(plan.game, rules, plan.deck_ids, pilots, matches=matches, seed=seed, swap=True, events=0.0,
                            chunk_size=None, workers=workers, data_dir=data_dir, pairings=plan.pairings,
                            substitute=substitute)
    return ensure_run(store, spec, payload, workers, quiet, err, cluster, parts)


def measure(store: Store, plan: Plan, rules: str, pilots: list[str], matches: int, seed: int, workers: int,
            quiet: bool, err: Console, cluster=None, parts=None, data_dir=None) -> list[dict]:
    """Play (or reuse) the full run and one replaced run per card; one row per card."""
    _data, ruleset = games.load(plan.game, rules, data_dir)
    full = ensure(store, plan, rules, pilots, matches, seed, workers, quiet, err, cluster, parts, data_dir)
    rows = []
    for i, m in enumerate(plan.cards, 1):
        err.print(f"[{i}/{len(plan.cards)}] {m.card} x{m.copies} -> {m.reference} ({rules})")
        variant = ensure(store, plan, rules, pilots, matches, seed, workers, quiet, err, cluster, parts, data_dir,
                         substitute={MEASURED_SLOT: {m.card: m.reference}})
        rows.append({"game": plan.game, "rules_version": rules, "rules_hash": ruleset.hash, "deck": plan.deck,
                     "card": m.card, "name": m.name, "reference": m.reference, "against": plan.against,
                     "pilots": ",".join(pilots), "base_run": full, "variant_run": variant, "copies": m.copies,
                     **card_value(store.path, full, variant)})
    return with_q_values(rows)


def run_value(game: str, deck: str, cards: list[str] | None, against: str, matches: int, pilots: list[str],
              seed: int, rules: str, base_rules: str | None, reference: str | None, workers: int | None, db: Path,
              quiet: bool, csv_dir: Path | None, out: Console, err: Console, cluster: str | None = None,
              parts: str | None = None, data_dir=None) -> int:
    if base_rules == rules:
        raise UserError(f"--base-rules and --rules both name {rules!r}: nothing would differ (leave --base-rules "
                        "out, or name another version)")
    games.known_game(game)
    workers = workers or default_workers(cluster)
    plan = make_plan(game, rules, deck, cards, against, reference, data_dir)
    if base_rules is not None:
        make_plan(game, base_rules, deck, [m.card for m in plan.cards], against, reference, data_dir)
    check_folder(csv_dir, "--csv")
    # the runs' specs checked whole (pilots, matches, seed) before the store is touched
    for version in filter(None, (rules, base_rules)):
        new_run(plan.game, version, plan.deck_ids, pilots, matches=matches, seed=seed, swap=True, events=0.0,
                chunk_size=None, workers=workers, data_dir=data_dir, pairings=plan.pairings)
    check_store_path(db)
    store = Store(db)
    store.init()
    rows = measure(store, plan, rules, pilots, matches, seed, workers, quiet, err, cluster, parts, data_dir)
    value_id = store.record_card_values(rows)
    show(plan, rows, rules, pilots, matches, out)
    if base_rules is not None:
        before = measure(store, plan, base_rules, pilots, matches, seed, workers, quiet, err, cluster, parts, data_dir)
        store.record_card_values(before)
        show_change(plan, pilots, before, rows, base_rules, rules, store.path, out)
    if csv_dir is not None:
        csv_dir.mkdir(parents=True, exist_ok=True)
        frame = card_values(db, game, latest=False).filter(pl.col("value_id") == value_id)
        for path in write_frame(frame, csv=csv_dir / "card_value.csv"):
            err.print(f"wrote {path}")
    return value_id


def _pts(x: float) -> str:
    return "-" if x is None or x != x else f"{x:+.1f}"


def pilot_words(plan: Plan, pilots: list[str]) -> str:
    """The pilots as the title says them: the one pilot, or each deck's ("lawmen-posse: greedy;
    goblin-gold-gang: random") when ``--pilots`` named one per deck and they differ."""
    if len(set(pilots)) <= 1 or len(pilots) != len(plan.deck_ids):
        return ",".join(dict.fromkeys(pilots))
    seated: dict[str, list[str]] = {}
    for deck, pilot in zip(plan.deck_ids, pilots):
        seated.setdefault(deck, []).append(pilot)
    return "; ".join(f"{deck}: {', '.join(dict.fromkeys(p))}" for deck, p in seated.items())


def opponent_words(plan: Plan) -> str:
    """Whom the deck played, as every value table's title says it."""
    return "the field (" + ", ".join(plan.opponents) + ")" if plan.against == "field" else plan.opponents[0]


def show(plan: Plan, rows: list[dict], rules: str, pilots: list[str], matches: int, out: Console) -> None:
    opponents = opponent_words(plan)
    t = Table("card", "name", "copies", "replaced by", "twins", "WR with", "WR without", "value (pts)", "95%",
              "McNemar p", "q (BH)",
              title=f"Card value: {plan.deck} against {opponents}, rules {rules}, pilots {pilot_words(plan, pilots)}, "
                    f"{matches} matches per pairing")
    for r in sorted(rows, key=lambda r: -(r["value_points"] if r["value_points"] == r["value_points"] else -1e9)):
        t.add_row(r["card"], r["name"], str(r["copies"]), r["reference"], f"{r['twins']:,}",
                  f"{r['wr_with']:.1%}", f"{r['wr_without']:.1%}", _pts(r["value_points"]),
                  f"{_pts(r['value_lo'])} to {_pts(r['value_hi'])}", f"{r['p_value']:.3g}", f"{r['q_value']:.3g}",
                  style="bold" if r["significant"] else None)
    out.print(t)
    out.print("value: the deck's win rate with the card minus with its copies replaced by the reference card "
              "(same seeds, seats and shuffled places); bold rows: significant after Benjamini-Hochberg at FDR 5%")


def show_change(plan: Plan, pilots: list[str], before: list[dict], after: list[dict], base_rules: str, rules: str,
                path, out: Console) -> None:
    """Each card's value under both versions, and the paired change between them; the title names
    the deck, its opponents and the pilots as the per-version tables do (every balance figure
    says which pilot produced it)."""
    t = Table("card", f"value {base_rules}", f"value {rules}", "change (pts)", "95%", "p",
              title=f"Card value, {base_rules} -> {rules}: {plan.deck} against {opponent_words(plan)}, pilots "
                    f"{pilot_words(plan, pilots)} (paired over the four runs' shared seeds)")
    for b, a in zip(before, after):
        c = value_change(path, (b["base_run"], b["variant_run"]), (a["base_run"], a["variant_run"]))
        t.add_row(a["card"], _pts(b["value_points"]), _pts(a["value_points"]), _pts(c["change_points"]),
                  f"{_pts(c['change_lo'])} to {_pts(c['change_hi'])}", f"{c['p_value']:.3g}")
    out.print(t)
