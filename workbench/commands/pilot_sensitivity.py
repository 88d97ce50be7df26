"""``workbench pilot-sensitivity``: how much the pilot matters. One run of the field (every
pairing of the decks, both seats) per named pilot, all on the same seeds, made or reused through
``new_run`` / ``ensure_run`` (a finished run with the same matches is reused); then the headline
figures under each pilot, the conclusions that change between pilots, and each card's skill
premium (reports/pilot_sensitivity.py)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from workbench import games
from workbench.errors import UserError

if TYPE_CHECKING:
    import polars as pl

CARD_ROWS = 12  # cards shown at each end of the premium ranking (the CSV holds them all)


def labels_for(pilots: list[str]) -> list[tuple[str, int]]:
    """(label, pilot salt) per pilot: a pilot named again plays with a pilot salt (other, equally
    fair choices on the same seeds: an A/A twin) and is labelled ``name#salt``."""
    seen: dict[str, int] = {}
    out = []
    for p in pilots:
        salt = seen.get(p, 0)
        seen[p] = salt + 1
        out.append((f"{p}#{salt}" if salt else p, salt))
    return out


def run_pilot_sensitivity(game: str, pilots: list[str], matches: int, decks: list[str] | None, seed: int, rules: str,
                          workers: int | None, db: Path, quiet: bool, csv_dir: Path | None, out: Console,
                          err: Console, data_dir=None) -> dict:
    from sim.core.pilots import check_pilot

    games.known_game(game)
    if len(pilots) < 2:
        raise UserError("--pilots needs at least two pilots to compare, comma separated (e.g. greedy,mcts:200)")
    for pilot in pilots:
        try:
            check_pilot(pilot)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    # the analytics are imported once the input is known to be good (a mistake is answered at once)
    from reports.export import write_frame
    from reports.pilot_sensitivity import CSV_COLUMNS, changed_conclusions, pilot_figures, premium_pilots, skill_premium
    from workbench.commands.diff import ensure_run
    from workbench.commands.simulate import new_run
    from workbench.farm import default_workers
    from workbench.outputs import check_folder
    from workbench.store import Store
    from workbench.store_guard import check_store_path

    check_folder(csv_dir, "--csv")
    workers = workers or default_workers()
    labelled = labels_for(pilots)
    # check every pilot (and the decks and rules) before playing anything
    planned = [new_run(game, rules, decks, [pilot], matches=matches, seed=seed, swap=True, events=0.0, chunk_size=None,
                       workers=workers, data_dir=data_dir, pilot_salt=salt)
               for pilot, (_label, salt) in zip(pilots, labelled)]
    check_store_path(db)
    store = Store(db)
    runs = []
    for (label, _salt), (spec, payload) in zip(labelled, planned):
        err.print(f"pilot {label}:")
        runs.append((label, ensure_run(store, spec, payload, workers, quiet, err)))
    figures = pilot_figures(db, runs)
    changes = changed_conclusions(figures)
    b, s = premium_pilots([label for label, _ in runs])  # by pilot_strength, as the export and the Cards page
    premium = skill_premium(db, runs[b][1], runs[s][1])
    show(game, rules, matches, seed, runs, figures, changes, premium, out)
    if csv_dir is not None:
        csv_dir.mkdir(parents=True, exist_ok=True)
        write_frame(figures.select(CSV_COLUMNS), csv=csv_dir / "pilot_sensitivity.csv")
        write_frame(premium, csv=csv_dir / "skill_premium.csv")
        err.print(f"wrote {csv_dir / 'pilot_sensitivity.csv'} and {csv_dir / 'skill_premium.csv'}")
    return {"runs": runs, "figures": figures, "changes": changes, "premium": premium}


def _rate(r: dict | None) -> str:
    if r is None or r["value"] is None:
        return "-"
    return f"{r['value']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}]"


def _pts(v, lo=None, hi=None) -> str:
    if v is None or v != v:
        return "-"
    text = f"{v * 100:+.1f}"
    if lo is not None and hi is not None and lo == lo and hi == hi:
        text += f" [{lo * 100:+.1f}, {hi * 100:+.1f}]"
    return text


def show(game: str, rules: str, matches: int, seed: int, runs: list[tuple[str, int]], figures: "pl.DataFrame",
         changes: "pl.DataFrame", premium: "pl.DataFrame", out: Console) -> None:
    import polars as pl

    from reports.pilot_sensitivity import BAND, band_class

    labels = [label for label, _ in runs]
    by = {(r["figure"], r["subject"], r["pilot"]): r for r in figures.iter_rows(named=True)}
    out.print(Text.assemble((f"{game} ({rules})", "bold"), f": {matches} matches per pairing, base seed {seed}, "
                            "the same seeds under every pilot; runs "
                            + ", ".join(f"{label} = {run}" for label, run in runs)))
    t = Table("figure", *labels, title="First seat: win rate over decided matches (95% Wilson)")
    t.add_row("first-seat win rate", *(_rate(by.get(("first_seat_wr", "first seat", p))) for p in labels))
    t.add_row("decided matches", *(str(by[("first_seat_wr", "first seat", p)]["n"]) for p in labels))
    out.print(t)
    decks = list(dict.fromkeys(figures.filter(pl.col("figure") == "deck_field_wr")["subject"].to_list()))
    t = Table("deck", *labels, title=f"Win rate against the field (95% Wilson; band {BAND[0]:.0%}-{BAND[1]:.0%}: "
                                     "inside / outside when the whole interval is, else undecided)")
    for deck in decks:
        cells = []
        for p in labels:
            r = by.get(("deck_field_wr", deck, p))
            cells.append("-" if r is None else f"{_rate(r)} {band_class(r['lo'], r['hi'])}")
        t.add_row(deck, *cells)
    out.print(t)
    base, strong = (premium["base_pilot"][0], premium["strong_pilot"][0]) if premium.height else ("-", "-")
    shown = premium.filter(pl.col("premium").is_not_null())
    if shown.height > 2 * CARD_ROWS:
        shown = pl.concat([shown.head(CARD_ROWS), shown.tail(CARD_ROWS)])
    t = Table("card", "name", f"deck-relative {base} (pts)", f"deck-relative {strong} (pts)",
              "skill premium (pts)", "q (BY)", "paired",
              title=f"Skill premium: a card's deck-relative win rate (OH excess, deck and seat held fixed) under "
                    f"{strong} minus under {base}, 95% interval"
                    + (f"; the {CARD_ROWS} highest and lowest (skill_premium.csv has all)"
                       if premium.filter(pl.col("premium").is_not_null()).height > 2 * CARD_ROWS else ""))
    for r in shown.iter_rows(named=True):
        mark = " *" if r["premium_significant"] else ""
        t.add_row(r["card"], r["name"] or "", _pts(r["base_excess"], r["base_excess_lo"], r["base_excess_hi"]),
                  _pts(r["strong_excess"], r["strong_excess_lo"], r["strong_excess_hi"]),
                  _pts(r["premium"], r["premium_lo"], r["premium_hi"]) + mark,
                  "-" if r["premium_q"] is None else f"{r['premium_q']:.3g}", "yes" if r["paired"] else "no")
    out.print(t)
    sig = premium.filter(pl.col("premium_significant"))
    out.print("cards with a significant skill premium (Benjamini-Yekutieli, FDR 5%): "
              + (", ".join(f"{r['card']} {_pts(r['premium'])} pts" for r in sig.iter_rows(named=True)) or "none"))
    out.print(Text.assemble(("Conclusions that change between pilots", "bold"), " (backed by the 95% intervals):"))
    supported = changes.filter(pl.col("supported"))
    if supported.is_empty():
        out.print("  none")
    for r in supported.iter_rows(named=True):
        out.print(f"  - {r['conclusion']}")
    loose = changes.filter(~pl.col("supported"))
    if loose.height:
        counts = {f: loose.filter(pl.col("figure") == f).height for f in ("deck_field_wr", "first_seat_wr",
                                                                         "card_oh_excess")}
        out.print(f"  not backed by the intervals (point estimates only, noise until more matches say otherwise): "
                  f"{counts['deck_field_wr']} deck band crossings, {counts['first_seat_wr']} first-seat sign changes, "
                  f"{counts['card_oh_excess']} card sign changes")
