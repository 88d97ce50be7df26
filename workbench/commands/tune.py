"""``workbench tune``: rebalancing proposals, as rules versions written into a workspace.

``workbench tune GAME`` searches for the smallest set of card-number changes it can find that
brings every deck's field win rate into ``--band``, verifies it on fresh seeds, and writes it as
``rules/<--as>.yaml`` (workbench/tune/search.py says how). ``--card X --stat S`` proposes one
card's fair number instead (workbench/tune/fair.py). Every mistake is one line before anything is
played; the rules file is written only after the loader read it back as what was measured."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.table import Table

from reports.export import write_frame
from reports.exports import with_tune_pilots
from reports.tune import change_text, proposal_table
from workbench import games
from workbench.commands.workspace import writable_data
from workbench.errors import UserError
from workbench.farm import default_workers
from workbench.outputs import check_folder
from workbench.store import Store
from workbench.store_guard import check_store_path
from workbench.tune import versions
from workbench.tune.fair import Fair, fair_number, plan
from workbench.tune.record import record
from workbench.tune.search import Options, Result, Search, matches_line

MARGIN = 0.02  # the search aims 2 points inside the band, room for the verification's own noise


def parse_band(text: str) -> tuple[float, float]:
    """``45-55`` (percent) -> (0.45, 0.55)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*%?\s*", text or "")
    if not m:
        raise UserError(f"--band takes LOW-HIGH in percent, e.g. 45-55, not {text!r}")
    lo, hi = float(m.group(1)), float(m.group(2))
    if not 0 <= lo < hi <= 100:
        raise UserError(f"--band {text}: LOW must be below HIGH, both from 0 to 100")
    return lo / 100, hi / 100


def run_tune(game: str, decks: list[str] | None, band: str, max_changes: int, budget: int, matches: int | None,
             verify_matches: int, pilots: list[str], seed: int, rules: str, name: str | None, card: str | None,
             stat: str | None, workers: int | None, db: Path, csv_dir: Path | None, quiet: bool,
             out: Console, err: Console) -> int:
    """Returns the exit code: 0 a proposal (or none needed), 1 when the verified proposal leaves
    a deck outside the band or no change could be found."""
    games.known_game(game)
    lo_hi = parse_band(band)
    if (card is None) != (stat is None):
        raise UserError("--card and --stat go together: --card CARD --stat atk proposes that card's fair number")
    if not pilots:
        raise UserError("--pilots names nothing")
    writable_data(None, "tune writes its proposal")  # the shipped data is refused before anything is loaded or played
    s = versions.start(game, rules, decks, None)
    name = name or (f"{rules}-{card}-{stat}" if card else f"{rules}-tuned")
    target = versions.check_new_name(s, name)
    check_folder(csv_dir, "--csv")
    if card is not None:
        plan(s, card, stat)
    workers = workers or default_workers(None)
    # the runs' specs checked whole (pilots, counts, seed) before the store is touched
    from workbench.commands.simulate import new_run
    new_run(game, rules, s.deck_ids, pilots, matches=matches or 100, seed=seed, swap=True, events=0.0, chunk_size=None,
            workers=workers)
    check_store_path(db)
    store = Store(db)
    store.init()
    if card is not None:
        return _card(s, store, card, stat, pilots, matches or 200, seed, workers, quiet, name, target, csv_dir,
                     out, err)
    opts = Options(band=lo_hi, margin=MARGIN, max_changes=max_changes, budget=budget, matches=matches or 100,
                   verify_matches=verify_matches, seed=seed, pilots=pilots, workers=workers, quiet=quiet,
                   proposal=name)
    result = Search(s, store, opts, err).run()
    return _field(s, store, opts, result, target, csv_dir, out, err)


# --- the field search -------------------------------------------------------------------------

def _field(s, store: Store, o: Options, r: Result, target: Path, csv_dir, out: Console, err: Console) -> int:
    final = r.final
    lo, hi = o.band
    if not r.steps:
        verdict = ("every deck is already inside the band: no change proposed" if not r.tried else
                   f"no change found: {r.stop}")
    elif final.in_band:
        verdict = f"every deck inside {lo:.0%}-{hi:.0%} on fresh seeds with {_n(r.steps)}"
    else:
        verdict = f"a deck is still outside {lo:.0%}-{hi:.0%} on fresh seeds after {_n(r.steps)} ({r.stop})"
    written = None
    if r.steps:
        description = (f"Proposed by `workbench tune {s.game}` from {s.version} (band {lo:.0%}-{hi:.0%}, "
                       f"pilots {','.join(o.pilots)}, seed {o.seed}): {versions.describe(s, r.steps)}. {verdict}.")
        written = versions.write(s, r.steps, o.proposal, description, r.ruleset_hash)
    with _removed_unless_recorded(written):
        tune_id, changes, decks = _record_field(s, store, o, r, verdict, written)
    _show_field(s, o, r, verdict, changes, decks, written, tune_id, out)
    _csv(csv_dir, store, tune_id, ("tune_changes", "tune_decks", "tune_steps"), err)
    return 0 if (not r.steps and not r.tried) or (final is not None and final.in_band) else 1


def _record_field(s, store: Store, o: Options, r: Result, verdict: str, written) -> tuple[int, list[dict], list[dict]]:
    """The tune's record stored (and its verified diff): (tune id, change rows, deck rows)."""
    final = r.final
    lo, hi = o.band
    diff_id = store.record_diff(s.game, final.base_run, final.candidate_run, s.version, o.proposal) if final else None
    changes = _change_rows(s, r.steps)
    decks = _deck_rows(s, r)
    proposal = {"game": s.game, "kind": "field", "base_version": s.version,
                "version": o.proposal if r.steps else None, "rules_hash": r.ruleset_hash,
                "file": str(written) if written else None, "decks": ",".join(s.deck_ids),
                "pilots": ",".join(o.pilots), "band_lo": lo, "band_hi": hi, "target_lo": o.target[0],
                "target_hi": o.target[1], "max_changes": o.max_changes, "seed": o.seed,
                "search_matches": o.matches, "verify_seed": final.seed if final else None,
                "verify_matches": o.verify_matches if final else None, "matches_search": r.matches_search,
                "matches_verify": r.matches_verify, "changes": len(changes), "cards": len({c["card"] for c in changes}),
                "in_band": final.in_band if final else (not r.tried), "verdict": verdict, "why": r.stop,
                "base_run": final.base_run if final else None,
                "candidate_run": final.candidate_run if final else None, "diff_id": diff_id}
    steps = [{k: v for k, v in t.__dict__.items()} for t in r.tried]
    return record(store, proposal, {"tune_changes": changes, "tune_decks": decks, "tune_steps": steps}), changes, decks


@contextmanager
def _removed_unless_recorded(written: Path | None) -> Iterator[None]:
    """The proposal's rules file stays only if the tune's record is stored after it: a tune
    stopped (or failed) in between left a file with no record, whose name made the same command
    refuse to run again ("rules version ... already exists")."""
    try:
        yield
    except BaseException:
        if written is not None:
            Path(written).unlink(missing_ok=True)
        raise


def _n(steps) -> str:
    """``N cards changed (M numbers)``: --max-changes counts the cards."""
    cards = len({x.card for x in steps})
    return (f"{cards} card{'s' if cards != 1 else ''} changed ({len(steps)} number{'s' if len(steps) != 1 else ''})")


def _change_rows(s, steps) -> list[dict]:
    _d, after = versions.resolved(s, steps) if steps else (s.data, s.ruleset)
    return [{"change_no": i, "card": x.card, "name": s.ruleset.cards[x.card].name, "field": x.knob,
             "before": s.base_value(x.card, x.knob), "after": x.value,
             "surplus_before": versions.card_surplus(s, s.ruleset, x.card),
             "surplus_after": versions.card_surplus(s, after, x.card), "decks": ",".join(s.holders(x.card))}
            for i, x in enumerate(steps, 1)]


def _deck_rows(s, r: Result) -> list[dict]:
    final = r.final
    verified = {d["deck"]: d for d in final.decks.iter_rows(named=True)} if final else {}
    rows = []
    for deck in s.deck_ids:
        v = verified.get(deck, {})
        rows.append({"deck": deck, "search_before": r.start_rates.get(deck), "search_after": r.search_rates.get(deck),
                     **{k: v.get(k) for k in ("games_before", "wr_before", "wr_before_lo", "wr_before_hi",
                                              "games_after", "wr_after", "wr_after_lo", "wr_after_hi", "twins",
                                              "change", "change_lo", "change_hi", "in_band")}})
    return rows


def _pct(x) -> str:
    return "-" if x is None or x != x else f"{x:.1%}"


def _interval(lo, hi) -> str:
    return "-" if lo is None or lo != lo else f"{lo:.1%} to {hi:.1%}"


def _pts(x) -> str:
    return "-" if x is None or x != x else f"{x * 100:+.1f}"


def _show_field(s, o: Options, r: Result, verdict: str, changes: list[dict], decks: list[dict], written,
                tune_id: int, out: Console) -> None:
    lo, hi = o.band
    out.print(f"tune {tune_id}: {verdict}")
    if changes:
        t = Table("card", "name", "number", "before -> after", "over budget before", "after", "decks",
                  title=f"Proposal {o.proposal} (extends {s.version})")
        for c in changes:
            t.add_row(c["card"], c["name"], c["field"], f"{c['before']} -> {c['after']}", f"{c['surplus_before']:+.1f}",
                      f"{c['surplus_after']:+.1f}", c["decks"])
        out.print(t)
    final = r.final
    if final is None:  # nothing verified: the search's own figures
        t = Table("deck", "games", "field win rate", "95%", "in band",
                  title=f"Field win rates under {s.version}: the search's seeds ({o.matches} matches per pairing, "
                        f"both seats, pilots {','.join(o.pilots)})")
        for d in r.start_table.iter_rows(named=True):
            t.add_row(d["deck"], f"{d['games']:,}", _pct(d["win_rate"]), _interval(d["win_rate_lo"], d["win_rate_hi"]),
                      "yes" if lo <= d["win_rate"] <= hi else "NO")
        out.print(t)
    else:
        t = Table("deck", "before", "95%", "after", "95%", "paired change (pts)", "95%", "in band",
                  title=f"Field win rates, {s.version} -> {o.proposal}: fresh seeds (base seed {final.seed}), "
                        f"{o.verify_matches} matches per pairing, both seats, pilots {','.join(o.pilots)}")
        for d in decks:
            t.add_row(d["deck"], _pct(d["wr_before"]), _interval(d["wr_before_lo"], d["wr_before_hi"]),
                      _pct(d["wr_after"]), _interval(d["wr_after_lo"], d["wr_after_hi"]), _pts(d["change"]),
                      f"{_pts(d['change_lo'])} to {_pts(d['change_hi'])}", "yes" if d["in_band"] else "NO")
        out.print(t)
    out.print(f"matches: {matches_line(r)}; {len(r.tried)} candidates tried")
    if written:
        out.print(f"wrote {written}: play it with --rules {o.proposal} --data {s.data.root.parent}")


# --- one card's fair number -------------------------------------------------------------------

def _card(s, store: Store, card: str, stat: str, pilots, matches: int, seed: int, workers: int, quiet: bool,
          name: str, target: Path, csv_dir, out: Console, err: Console) -> int:
    f: Fair = fair_number(s, store, card, stat, pilots, matches, seed, workers, quiet, err)
    written = None
    hash_ = None
    if f.steps:
        hash_ = versions.resolved(s, f.steps, name)[1].hash
        written = versions.write(s, f.steps, name, f"Proposed by `workbench tune {s.game} --card {card} --stat {stat}` "
                                 f"from {s.version} (pilots {','.join(pilots)}, seed {seed}): {f.why}", hash_)
    with _removed_unless_recorded(written):
        changes, values, verdict, tune_id = _record_card(s, store, card, stat, pilots, matches, seed, name, f,
                                                         written, hash_)
    out.print(f"tune {tune_id}: {verdict}")
    out.print(f"why: {f.why}")
    t = Table(stat, "value (pts)", "95%", "twins", "budget (points)", "reference", "chosen",
              title=f"{card}'s value in {f.deck} against {', '.join(f.opponents)} at each {stat} measured "
                    f"(pilots {','.join(pilots)}, {matches} matches per opponent)")
    for v in values:
        t.add_row(str(v["number"]), f"{v['value_points']:+.1f}", f"{v['value_lo']:+.1f} to {v['value_hi']:+.1f}",
                  f"{v['twins']:,}", f"{v['surplus']:+.1f}", v["reference"], "yes" if v["chosen"] else "")
    out.print(t)
    out.print(f"matches: {f.matches:,} read (finished runs already in the store are reused, not played again)")
    if written:
        out.print(f"wrote {written}: {change_text(changes[0])}")
    _csv(csv_dir, store, tune_id, ("tune_changes", "tune_values"), err)
    return 0


def _record_card(s, store: Store, card: str, stat: str, pilots, matches: int, seed: int, name: str, f: Fair,
                 written, hash_) -> tuple[list[dict], list[dict], str, int]:
    """The card tune's record stored: (change rows, value rows, verdict, tune id)."""
    changes = _change_rows(s, f.steps)
    values = [{"card": card, "field": stat, "number": m.number, "deck": f.deck, "reference": m.reference,
               "twins": m.value["twins"], "value_points": m.value["value_points"], "value_lo": m.value["value_lo"],
               "value_hi": m.value["value_hi"], "p_value": m.value["p_value"], "surplus": m.surplus,
               "chosen": m.number == f.chosen, "run_id": m.run_id, "reference_run": m.reference_run}
              for m in sorted(f.measured, key=lambda m: m.number)]
    verdict = f"{card} {stat}: {f.current} -> {f.chosen}" if f.steps else f"{card} {stat}: keep {f.current}"
    proposal = {"game": s.game, "kind": "card", "base_version": s.version, "version": name if f.steps else None,
                "rules_hash": hash_, "file": str(written) if written else None,
                "decks": ",".join([f.deck, *f.opponents]), "pilots": ",".join(pilots), "seed": seed,
                "search_matches": matches, "matches_search": f.matches, "matches_verify": 0,
                "changes": len(changes), "cards": len(changes), "verdict": verdict, "why": f.why, "card": card,
                "field": stat}
    return changes, values, verdict, record(store, proposal, {"tune_changes": changes, "tune_values": values})


def _csv(folder: Path | None, store: Store, tune_id: int, tables: tuple[str, ...], err: Console) -> None:
    """The proposal's rows of ``tables`` as the store holds them, each with the ``pilots`` the
    tune played with (what `workbench export` writes, its columns even when a table has no row:
    an empty list had made a file of one newline)."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for table in tables:
        rows = with_tune_pilots(store.path, table, proposal_table(store.path, table, tune_id))
        for path in write_frame(rows, csv=folder / f"{table}.csv"):
            err.print(f"wrote {path}")
