"""``workbench diff``: play the same seeds and seats under two rules versions and compare them
pair by pair (common random numbers). A finished run with the very same matches is reused, and
two identical diffs at once play each run once (the second waits, then reuses)."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from reports.card_fields import change_text, field_changes
from reports.diff import dose_words, pairing_effect, per_play_words, testable_words, untested_why, version_diff
from reports.export import write_frame
from workbench import games
from workbench.commands.simulate import ensure_run, new_run  # ensure_run: imported from here by other commands
from workbench.errors import UserError
from workbench.farm import default_workers
from workbench.outputs import check_folder
from workbench.store import Store
from workbench.store_guard import check_store_path


def run_diff(game: str, base: str, candidate: str, decks: list[str] | None, pilots: list[str], matches: int,
             seed: int, workers: int | None, db: Path, quiet: bool, csv_dir: Path | None, out: Console,
             err: Console, pilot_salt: int = 0, cluster: str | None = None, parts: str | None = None,
             mode: str = "duel", seats: int | None = None, plan=None, status_path: Path | None = None) -> dict:
    """A fixed-size diff of ``matches`` per pairing, or with a sequential ``plan``
    (reports/sequential.Plan) one that plays rounds up to ``matches`` and stops when decided."""
    if base == candidate and not pilot_salt:
        raise UserError("--base and --candidate name the same version: nothing would differ")
    workers = workers or default_workers(cluster)
    games.known_game(game)
    check_folder(csv_dir, "--csv")
    if plan is not None:
        return run_sequential(game, base, candidate, decks, pilots, matches, seed, workers, db, quiet, csv_dir, out,
                              err, pilot_salt, cluster, parts, mode, plan, status_path)
    # both versions checked whole before the first match: a bad candidate fails before base plays
    planned = [new_run(game, version, decks, pilots, matches=matches, seed=seed, swap=True, events=0.0, chunk_size=None,
                       workers=workers, pilot_salt=salt, mode=mode, seats=seats)
               for version, salt in ((base, 0), (candidate, pilot_salt))]
    same_rules(planned, base, candidate, pilot_salt)
    check_store_path(db)
    store = Store(db)
    runs = [ensure_run(store, spec, payload, workers, quiet, err, cluster, parts) for spec, payload in planned]
    if mode != "duel":
        return mode_diff(db, runs, base, candidate, mode, csv_dir, out, err)
    store.record_diff(game, runs[0], runs[1], base, candidate)
    result = version_diff(db, runs[0], runs[1])
    show(result, base, candidate, out)
    if csv_dir is not None:
        export(db, result, csv_dir, err)
    return result


def same_rules(planned: list, base: str, candidate: str, pilot_salt: int) -> None:
    """Two versions with the same cards and constants (one rules hash) play the same matches: the
    diff would play the twin run again to find nothing, and called it "a rules change"."""
    hashes = {spec.rules_hash for spec, _payload in planned}
    if len(hashes) == 1 and not pilot_salt:
        raise UserError(f"--candidate {candidate} has the same cards and rules as --base {base} (rules hash "
                        f"{hashes.pop()}): nothing would differ")


def run_sequential(game, base, candidate, decks, pilots, matches, seed, workers, db, quiet, csv_dir, out, err,
                   pilot_salt, cluster, parts, mode, plan, status_path) -> dict:
    """``--until-decided``: rounds until the sequential test decides (workbench/commands/sequential_diff.py)."""
    from workbench.commands.sequential_diff import CHUNK, Status, deck_rows, max_matches_for, sequential_diff

    if mode != "duel":
        raise UserError("--until-decided compares duels; a free-for-all or series diff plays its full --matches")
    cap = max_matches_for(matches, plan)
    if cap < 2 * plan.min_seeds:  # it would play to the cap and stop "undecided" without having looked
        raise UserError(f"--max-matches {matches}: the sequential test looks first after {plan.min_seeds} seeds "
                        f"({2 * plan.min_seeds} matches per pairing); give at least that many")
    try:
        planned = [new_run(game, version, decks, pilots, matches=cap, seed=seed, swap=True, events=0.0,
                           chunk_size=CHUNK, workers=workers, pilot_salt=salt)
                   for version, salt in ((base, 0), (candidate, pilot_salt))]
        same_rules(planned, base, candidate, pilot_salt)
        check_store_path(db)
    except Exception as exc:  # a bad candidate: the dashboard reading the status file sees why
        Status(status_path, game, base, candidate, 0).write(state="failed", message=str(exc))
        raise
    store = Store(db)
    seq = sequential_diff(store, planned, plan, workers, quiet, err, status_path, cluster, parts)
    b, c = seq["runs"]
    verdict_rows = deck_rows(seq["verdicts"])
    diff_id = store.record_diff(game, b, c, base, candidate, {
        "decision": seq["decision"], "matches_used": seq["matches"], "delta_points": 100 * plan.delta1,
        "delta0_points": 100 * plan.delta0, "alpha": plan.alpha, "beta": plan.beta, "verdicts": verdict_rows})
    seq["status"].write(state="decided" if seq["decision"] != "undecided" else "undecided", diff_id=diff_id,
                        message=f"{seq['decision']} after {seq['matches']:,} matches per version")
    show_sequential(seq, plan, base, candidate, cap * len(planned[0][0].pairings), out)
    # the tables read the matches the test looked at: runs reused from a longer diff hold more
    result = version_diff(db, b, c, match_limit=seq["matches"] // len(planned[0][0].pairings))
    out.print("the tables below are the fixed-size diff's figures on the matches played: their intervals and "
              "p-values take no account of the stop (one made early leans toward the extreme)",
              markup=False, highlight=False)
    show(result, base, candidate, out)
    if csv_dir is not None:
        export(db, result, csv_dir, err)
    return {**result, "decision": seq["decision"], "matches_used": seq["matches"], "verdicts": seq["verdicts"],
            "diff_id": diff_id, "rounds": seq["rounds"]}


def show_sequential(seq: dict, plan, base: str, candidate: str, cap: int, out: Console) -> None:
    from reports.sequential import caveat, decision_words, overall_words

    answer = overall_words(seq["decision"], plan.delta1, plan.delta0)
    out.print(Text.assemble(("sequential diff: ", "bold"), (answer, "bold"),
                            f" after {seq['matches']:,} of at most {cap:,} matches per version ({seq['rounds']} rounds); "
                            f"tested: a change of {100 * plan.delta1:g} pts against one of {100 * plan.delta0:g}, "
                            f"at most {plan.alpha:.0%} false changes and {plan.beta:.0%} missed ones"),
              markup=False, highlight=False)
    if seq["rounds"] == 0:
        out.print("no look was made: the test looks first after its first round", markup=False, highlight=False)
    t = Table("deck", "seeds", "change (pts)", "95% (unadjusted)", "decision", title="Decks the change touches")
    for v in seq["verdicts"]:
        note = caveat(v.decision, v.change, v.lo, v.hi, plan.delta1)
        t.add_row(v.deck, f"{v.seeds:,}", pct_points(v.change), f"{pct_points(v.lo)} to {pct_points(v.hi)}",
                  decision_words(v.decision, plan.delta1, plan.delta0) + (f" ({note})" if note else ""))
    out.print(t)


def mode_diff(db: Path, runs: list[int], base: str, candidate: str, mode: str, csv_dir: Path | None,
              out: Console, err: Console) -> dict:
    """A free-for-all, series or Turf diff: each deck's win share (placed first) or series win rate,
    or each boss's clear rate, under both versions, on the same seeds, with Newcombe's interval for
    the change (unpaired: reports/alerts.mode_alerts says why); a row per deck and pilots, which the
    table, its title and the CSV's pilot columns name."""
    from reports.alerts import MODE_PILOTS, mode_alerts
    from reports.diff import pilots_of_run

    # one row per deck (boss) and pilots, as the mode tables split them: never pooled over pilots
    _alerts, decks = mode_alerts(db, runs[0], runs[1], 0.0, "diff", mode)
    what = {"ffa": "win share (placed first)", "series": "series win rate", "turf": "clear rate"}[mode]
    pilots = pilots_of_run(db, runs[1])
    if mode == "turf" and decks.height:
        pilots = f"partners {pilots}, boss {', '.join(sorted(set(decks['boss_pilot'])))}"
    keys = MODE_PILOTS[mode]
    t = Table("boss" if mode == "turf" else "deck", *(k.replace("_", " ") for k in keys), "n base", "base", "n cand.",
              "candidate", "change (pts)", "95%",
              title=f"{'Bosses' if mode == 'turf' else 'Decks'}' {what} by pilots: {base} -> {candidate} "
                    f"(runs {runs[0]} and {runs[1]}, pilots {pilots}; same seeds, unpaired)")
    for d in decks.iter_rows(named=True):
        t.add_row(d["deck"], *(d[k] for k in keys), f"{d['n']:,}", f"{d['rate']:.1%}", f"{d['n_new']:,}",
                  f"{d['rate_new']:.1%}", pct_points(d["change"]),
                  f"{pct_points(d['change_lo'])} to {pct_points(d['change_hi'])}")
    out.print(t)
    if csv_dir is not None:
        csv_dir.mkdir(parents=True, exist_ok=True)
        for path in write_frame(decks, csv=csv_dir / "diff_decks.csv"):
            err.print(f"wrote {path}")
    return {"base_run": runs[0], "candidate_run": runs[1], "decks": decks}


def pct_points(x: float) -> str:
    """A change given as a share, written in points (+2.4), "-" when there is none."""
    return "-" if x is None or x != x else f"{x * 100:+.1f}"


def _pts(x: float) -> str:
    return "-" if x is None or x != x else f"{x:+.1f}"


def show_changed_cards(r: dict, out: Console) -> None:
    """The pre-declared hypotheses first: what the designer changed, and what it did within its deck."""
    changed = r["changed_cards"]
    if changed.is_empty():
        out.print("the candidate changes no card (a rules change, which touches every deck)", markup=False,
                  highlight=False)
        return
    measured = {c["card"]: c for c in r["primary_cards"].iter_rows(named=True)} if r["cards"].height else {}
    for card, change, base, candidate in changed.select("card", "change", "base", "candidate").iter_rows():
        # what changed, as the dashboard says it ("changed: atk 1 -> 2"); added and removed say themselves
        fields = change_text(field_changes(base, candidate)) if change == "changed" else ""
        kind = f"{change}: {fields}" if fields else change
        c = measured.get(card)
        if c is None:
            out.print(f"you changed {card} ({kind}): no deck of this diff holds it")
            continue
        groups = dose_words(c)
        why = untested_why(c)
        if why:
            out.print(f"you changed {card} ({kind}): its effect within its deck is {_pts(c['effect_points'])} pts "
                      "at full dose, "
                      f"{why} ({groups})")
            continue
        verdict = "FLAGGED" if c["flagged"] else "not flagged"
        out.print(f"you changed {card} ({kind}): its effect within its deck is {_pts(c['effect_points'])} pts "
                  f"at full dose [{_pts(c['effect_lo'])}, {_pts(c['effect_hi'])}], p {c['p_value']:.3g}, q {c['q_value']:.3g}"
                  f"{per_play_words(c)} ({verdict}; {groups})")
    if measured:
        out.print(FULL_DOSE, markup=False, highlight=False)


# the effect's unit, said once under the changed cards (reports/attribution.py)
FULL_DOSE = ("(at full dose: the change between a twin where the card's first copy lay where cards always get "
             "played and one where none do; reports/METRICS.md, diff_cards)")


def show(r: dict, base: str, candidate: str, out: Console) -> None:
    out.print(Text.assemble((f"{base} -> {candidate}", "bold"), f": runs {r['base_run']} and {r['candidate_run']}, "
                            f"{r['twins'] // 2:,} twin matches, pilots {r['pilots']}"))
    show_changed_cards(r, out)
    t = Table("deck", "twins", "WR base", "WR cand.", "change (pts)", "paired 95%", "unpaired 95%", "McNemar p",
              title="Decks (paired)")
    for d in r["decks"].iter_rows(named=True):
        t.add_row(d["deck"], str(d["twins"]), f"{d['wr_base']:.1%}", f"{d['wr_candidate']:.1%}", pct_points(d["change"]),
                  f"{pct_points(d['change_lo'])} to {pct_points(d['change_hi'])}", f"{pct_points(d['unpaired_lo'])} to {pct_points(d['unpaired_hi'])}",
                  f"{d['mcnemar_p']:.3g}")
    out.print(t)
    g = r["length"]
    out.print(f"game length: {g['turns_base']:.1f} -> {g['turns_candidate']:.1f} player-turns "
              f"(change {g['change']:+.2f}, 95% {g['change_lo']:+.2f} to {g['change_hi']:+.2f})")
    flagged = r["flagged_cards"]
    out.print("other cards whose change differs from their deck's (by how often their place in the shuffled deck "
              "gets them played, "
              "Benjamini-Yekutieli, FDR 5%): " + (", ".join(f"{c['card']} {_pts(c['effect_points'])} pts (q {c['q_value']:.3g})"
                                            for c in flagged.iter_rows(named=True)) if flagged.height
                                                   else f"none {testable_words(r['cards'], 'play more matches')}"), markup=False, highlight=False)
    sig = r["significant_cards"]
    out.print("cards whose win rate moved (paired wins in hand, Benjamini-Hochberg, FDR 5%): "
              + (f"{sig.height} of {r['cards'].height}" if sig.height else "none")
              + " (for reference, not a finding about a card: a deck that got stronger moves all its cards, and its "
                "opponents' the other way; diff_cards.csv has them)")
    saved = r["variance_saved"]
    if saved == saved:
        out.print(pairing_effect(saved) + (f": an unpaired comparison would need about {1 / (1 - saved):.1f}x the "
                                           "matches" if 0 < saved < 1 else ""))
    touched = ", ".join(r["touched_decks"])
    p = Table("change", "a deck's paired games", "paired seeds", "paired matches of this field",
              "unpaired games / version", "unpaired seeds / version",
              title=f"Games needed (80% power, 5% two-sided), decks the change touches: {touched}")
    for row in r["power"].iter_rows(named=True):
        p.add_row(f"{row['change_points']} pts", *(("-" if v != v else f"{int(v):,}") for v in
                                                  (row["paired_matches"], row["paired_seeds"], row["paired_field_matches"],
                                                   row["unpaired_matches_per_version"], row["unpaired_seeds_per_version"])))
    out.print(p)


def export(db: Path, r: dict, folder: Path, err: Console) -> None:
    """The diff's tables as `workbench export diff_* --diff ID` writes them (the same function:
    the same columns and rows), each whether empty or not, so the folder always holds all four."""
    # imported here: reports.exports brings every table's imports (scipy), which ensure_run's importers do not need
    from reports.exports import DIFF_TABLES, diff_frame
    from workbench.store import interrupts_deferred

    folder.mkdir(parents=True, exist_ok=True)
    frames = {name: diff_frame(db, name, r) for name in DIFF_TABLES}
    with interrupts_deferred():  # all four or none new: a stop while writing left 1 or 3 of them
        for name, frame in frames.items():
            for path in write_frame(frame, csv=folder / f"{name}.csv"):
                err.print(f"wrote {path}")
