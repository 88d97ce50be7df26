"""The ``workbench`` command. Each sub-command lives in workbench/commands/; this file only
declares the options and turns user mistakes into one line and exit code 2."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
import typer.core
from rich.console import Console

# typer vendors click: its parser raises these (typer re-exports only Abort and BadParameter)
from typer._click.exceptions import ClickException, NoArgsIsHelpError

from cardsdb.errors import DataError, DataErrors
from reports.db import StoreError
from sim.core.weights import WeightFileError
from workbench.errors import Interrupted, UserError
from workbench.limits import MAX_CHUNK, MAX_MATCHES, MAX_RUN_ID, MAX_WORKERS, SEED_MAX, SEED_MIN, check_cluster
from workbench.stops import sigterm_as_ctrl_c
from workbench.store import runs_of_one_command, unused_stores_removed

DEFAULT_DB = "workbench.duckdb"
INTERRUPTED = 130  # the exit code of a stop (Ctrl-C, SIGTERM), as a shell expects of an interrupt


class _Commands(typer.core.TyperGroup):
    """The command group, which turns a stop (Ctrl-C, SIGTERM: ``workbench.stops.sigterm_as_ctrl_c``) that no
    command said in its own line into one: typer would make a KeyboardInterrupt a silent exit
    130, and DuckDB makes one that lands during a query ``RuntimeError: Query interrupted``. A
    run this process left running is marked stopped and named with its resume command
    (workbench/commands/simulate.py ``interrupted``)."""

    def invoke(self, ctx):
        from workbench.commands.simulate import stop_line
        from workbench.store import stops_said

        with stops_said(stop_line):
            return super().invoke(ctx)


app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, cls=_Commands,
                  help="Card design and balance workbench: simulate, store, analyse.")
cards_app = typer.Typer(no_args_is_help=True, help="Validate, export and import card data.")
scenario_app = typer.Typer(no_args_is_help=True, help="Play scenario files and check their expectations.")
app.add_typer(cards_app, name="cards")
app.add_typer(scenario_app, name="scenario")

# piped output (a file, a test) is not cut to 80 columns; markup off: user text (a card name, a
# path, a deck id) is printed as written, never read as Rich markup ("[/red]" in a name crashed
# the error printer, "[a-z0-9]" in a message vanished); styles are given as rich.text.Text
err = Console(stderr=True, highlight=False, markup=False, width=None if sys.stderr.isatty() else 200)
out = Console(highlight=False, markup=False, width=None if sys.stdout.isatty() else 200)


CLUSTER_HELP = ("play the chunks on a Dask cluster: a scheduler address such as tcp://host:8786, or local[:N] "
                "to start N worker processes here")
# the pilots a duel's --pilots may name (sim/core/pilots/PILOTS.md says what each is for)
PILOTS_HELP = ("random, greedy, planner, planner:W (W worlds), mcts or mcts:N (N playouts a decision), each with an "
               "optional @SET weight set, e.g. greedy@hand")
PARTS_HELP = ("with a remote cluster: a folder or fsspec URL every worker can write event logs to "
              "(default: beside the database)")


def _split(value: Optional[str]) -> Optional[list[str]]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _ids(value: Optional[str], option: str) -> Optional[list[str]]:
    """A comma separated list the user gave; None when the option was left out. Given but naming
    nothing (``--decks ,,,``) is a mistake, not a request for the default."""
    if value is None:
        return None
    names = _split(value)
    if not names:
        raise UserError(f"{option} {value!r} names nothing: give names separated by commas, or leave {option} out")
    return names


def _matches(default: int, help: str):
    return typer.Option(default, min=1, max=MAX_MATCHES, help=help)


def _seed(help: str = "base seed"):
    return typer.Option(1, min=SEED_MIN, max=SEED_MAX, help=help)


def _workers():
    return typer.Option(None, min=1, max=MAX_WORKERS, help="worker processes (default: all cores)")


def _chunk(help: str):
    return typer.Option(None, min=1, max=MAX_CHUNK, help=help)


# one option object for every command that reads card data (typer reads it, never changes it)
DATA_OPTION = typer.Option(None, "--data", "--data-dir", metavar="DIR",
                           help="card data folder made by `workbench init` (default: $WORKBENCH_DATA, else the "
                           "shipped data)")


def _use_data(folder: Optional[Path]) -> None:
    """Read card data from ``folder`` for the rest of this command: set WORKBENCH_DATA, which
    the loaders read (cardsdb/workspace.py) and worker processes inherit. ``main`` puts the
    variable back as it was when the command ends."""
    import os

    if folder is None:
        return
    if not folder.is_dir():
        raise UserError(f"--data {folder}: no such folder (make one with: workbench init {folder})")
    os.environ["WORKBENCH_DATA"] = str(folder.resolve())


def _run_id(help: str):
    return typer.Option(None, min=1, max=MAX_RUN_ID, help=help)


MODE_HELP = ("duel (two seats); ffa: a free-for-all table of --seats decks, every table of the field "
             "with each seed played in every rotation; series: best-of-3 series of duels, --matches counting "
             "series; turf: Turf Defense, every pair of the decks as partners against each --boss (AlleyWay)")
BOSS_HELP = "Turf Defense: the bosses to face, comma separated (default: every boss of the rules version)"
SEATS_HELP = "seats round a free-for-all table (default 4)"


@app.command()
def simulate(
    ctx: typer.Context,
    game: Optional[str] = typer.Argument(None, help="the game, e.g. frontier"),
    decks: Optional[str] = typer.Option(None, help="deck ids, comma separated (default: the starter decks); "
                                        "more than two play every pairing"),
    pilots: str = typer.Option("greedy", help="one pilot for every deck, or one per deck: " + PILOTS_HELP),
    matches: int = _matches(200, "matches per pairing of decks (not seeds: each seed plays from both seats)"),
    seed: int = _seed(),
    rules: str = typer.Option("base", help="rules version"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    swap: bool = typer.Option(True, "--swap/--no-swap", help="play each seed from both seats"),
    events: str = typer.Option("all", help="event logs to keep: all, none, or a share of seeds like 0.1"),
    chunk_size: Optional[int] = _chunk("matches per stored chunk"),
    resume: Optional[int] = _run_id("finish a stopped run"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    cluster: Optional[str] = typer.Option(None, help=CLUSTER_HELP),
    parts: Optional[str] = typer.Option(None, help=PARTS_HELP),
    mode: str = typer.Option("duel", help=MODE_HELP),
    seats: Optional[int] = typer.Option(None, help=SEATS_HELP),
    boss: Optional[str] = typer.Option(None, help=BOSS_HELP),
    boss_pilot: Optional[str] = typer.Option(None, help="who plays the boss in Turf Defense (default: the partners' "
                                             "first pilot)"),
    data: Optional[Path] = DATA_OPTION,
):
    """Play a batch of seeded matches in parallel and store them in DuckDB."""
    if resume is not None:
        _refuse_unread(ctx, RESUME_READS, "simulate --resume (the run plays as it was started)")
    _use_data(data)
    from workbench.commands.simulate import parse_events
    from workbench.commands.simulate import simulate as run

    run(game, rules, _ids(decks, "--decks"), _split(pilots) or [], matches, seed, swap, parse_events(events),
        chunk_size, workers, db, resume, quiet, console=err, cluster=check_cluster(cluster), parts=parts,
        mode=mode, seats=seats, bosses=_ids(boss, "--boss"), boss_pilot=boss_pilot)


@app.command()
def diff(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    base: str = typer.Option(..., help="the rules version to compare against"),
    candidate: str = typer.Option(..., help="the rules version being tried"),
    matches: int = _matches(1000, "matches per pairing of decks and version (each seed from both seats)"),
    decks: Optional[str] = typer.Option(None, help="deck ids (default: the starter decks)"),
    pilots: str = typer.Option("greedy", help="one pilot, or one per deck: " + PILOTS_HELP),
    seed: int = _seed("base seed (both versions play the same seeds)"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    csv: Optional[Path] = typer.Option(None, help="folder to write the diff tables as CSV"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    cluster: Optional[str] = typer.Option(None, help=CLUSTER_HELP),
    parts: Optional[str] = typer.Option(None, help=PARTS_HELP),
    mode: str = typer.Option("duel", help=MODE_HELP + "; a free-for-all or series diff compares the decks' "
                             "win share or series win rate"),
    seats: Optional[int] = typer.Option(None, help=SEATS_HELP),
    data: Optional[Path] = DATA_OPTION,
    until_decided: bool = typer.Option(False, "--until-decided", help="play in rounds and stop as soon as a sequential "
                                       "test decides, for each deck the change touches, between no change and a "
                                       "change of at least --delta points"),
    delta: float = typer.Option(3.0, min=0.1, max=100, help="--until-decided: the smallest change worth finding, in "
                                "win-rate points"),
    delta0: float = typer.Option(0.0, min=0, max=99, help="--until-decided: a change this small counts as none (points)"),
    alpha: float = typer.Option(0.05, help="--until-decided: the most false 'change' answers allowed (share)"),
    beta: float = typer.Option(0.05, help="--until-decided: the most missed changes of --delta allowed (share)"),
    max_matches: int = _matches(4000, "--until-decided: at most this many matches per pairing and version"),
    status: Optional[Path] = typer.Option(None, help="--until-decided: a JSON file rewritten after every round "
                                          "(what a dashboard shows)"),
):
    """Compare two rules versions on the same seeds and seats (paired), card by card and deck by deck."""
    if until_decided:
        _refuse_unread(ctx, _all_but(ctx, {"matches", "seats"}), "diff --until-decided")
    else:
        _refuse_unread(ctx, _all_but(ctx, SEQUENTIAL_OPTIONS), "diff without --until-decided")
    _use_data(data)
    from workbench.commands.diff import run_diff

    plan = None
    if until_decided:
        from workbench.commands.sequential_diff import plan_from_options
        plan = plan_from_options(delta, delta0, alpha, beta)
    from workbench.commands.simulate import again_to_finish

    with again_to_finish("diff"):
        run_diff(game, base, candidate, _ids(decks, "--decks"), _split(pilots) or [],
                 max_matches if until_decided else matches, seed, workers, db, quiet, csv, out, err,
                 cluster=check_cluster(cluster), parts=parts, mode=mode, seats=seats, plan=plan, status_path=status)


@app.command()
def value(
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    deck: str = typer.Option(..., help="the deck whose cards are measured"),
    cards: Optional[str] = typer.Option(None, help="card ids, comma separated (default: every card of the deck)"),
    all_cards: bool = typer.Option(False, "--all", help="measure every card of the deck (the default)"),
    against: str = typer.Option("field", help="field (the other starter decks) or one opponent deck id"),
    matches: int = _matches(1000, "matches per opponent and card (each seed from both seats)"),
    pilots: str = typer.Option("greedy", help="one pilot for every deck, or one per deck (the measured deck first)"),
    seed: int = _seed("base seed (every card's twins play the same seeds)"),
    rules: str = typer.Option("base", help="rules version"),
    base_rules: Optional[str] = typer.Option(None, help="also measure under this version and show each card's change"),
    reference: Optional[str] = typer.Option(None, help="replace every measured card by this card instead of the "
                                            "game's reference card of the same cost"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    csv: Optional[Path] = typer.Option(None, help="folder to write card_value.csv"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    cluster: Optional[str] = typer.Option(None, help=CLUSTER_HELP),
    parts: Optional[str] = typer.Option(None, help=PARTS_HELP),
    data: Optional[Path] = DATA_OPTION,
):
    """Measure what each card adds to its deck: twins with its copies replaced by a vanilla reference card."""
    _use_data(data)
    from workbench.commands.value import run_value

    chosen = _ids(cards, "--cards")
    if chosen and all_cards:
        raise UserError("give --cards or --all, not both")
    from workbench.commands.simulate import again_to_finish

    with again_to_finish("value"):
        run_value(game, deck, chosen, against, matches, _split(pilots) or [], seed, rules, base_rules, reference,
                  workers, db, quiet, csv, out, err, cluster=check_cluster(cluster), parts=parts)


@app.command()
def ladder(
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    pilots: Optional[str] = typer.Option(None, help="two or more pilots, comma separated, e.g. random,greedy,mcts:100 "
                                         "(default: every pilot at its default budget)"),
    matches: int = _matches(120, "matches per pair of pilots, spread over the deck pairings and seeds, each "
                            "seed with both pilots on both decks and in both seats"),
    decks: Optional[str] = typer.Option(None, help="the field: deck ids, comma separated (default: the starter decks)"),
    seed: int = _seed("base seed (every pair of pilots plays the same seeds)"),
    rules: str = typer.Option("base", help="rules version"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    csv: Optional[Path] = typer.Option(None, help="folder to write ladder.csv and ladder_pairs.csv"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    data: Optional[Path] = DATA_OPTION,
):
    """Rate pilots: a round robin of every pair over the field (Bradley-Terry ratings, pairwise win rates, cost)."""
    _use_data(data)
    from sim.core.pilots import PILOTS
    from workbench.commands.ladder import run_ladder

    run_ladder(game, _ids(pilots, "--pilots") or list(PILOTS), matches, _ids(decks, "--decks"), seed, rules, workers,
               db, csv, quiet,
               out, err)


@app.command("fit-weights")
def fit_weights(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    by: str = typer.Option("play", help="play: tuned for strength by self-play (SPSA); outcomes: a logistic model "
                           "of who wins"),
    steps: int = typer.Option(60, help="--by play: SPSA steps"),
    pairs: int = typer.Option(10, help="--by play: seeds per step, each played from both seats"),
    matches: int = _matches(200, "--by outcomes: self-play matches over the field (each seed from both seats)"),
    pilot: str = typer.Option("greedy", help="the pilot that plays both seats"),
    seed: int = _seed(),
    name: str = typer.Option("fitted", help="the weight set to write: weights-NAME.yaml beside the game's evaluate"),
    replace: bool = typer.Option(False, help="overwrite a weight set of that name"),
    rules: str = typer.Option("base", help="rules version"),
    workers: Optional[int] = _workers(),
    data: Optional[Path] = DATA_OPTION,
):
    """Tune the pilots' evaluate weights by self-play into a weight set; measure it with
    `workbench ladder GAME --pilots greedy,greedy@NAME`."""
    if by in FIT_UNREAD:  # another --by is refused by run_fit_weights
        _refuse_unread(ctx, _all_but(ctx, FIT_UNREAD[by]), f"fit-weights --by {by}")
    _use_data(data)
    from workbench.commands.fit_weights import run_fit_weights

    run_fit_weights(game, rules, pilot, matches, seed, name, replace, workers, out, err, by=by, steps=steps,
                    pairs=pairs)


@app.command("pilot-sensitivity")
def pilot_sensitivity(
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    pilots: str = typer.Option(..., help="two or more pilots, comma separated, weakest first: the last is the "
                               "strongest (skill premium = it minus greedy, or minus the first), e.g. greedy,mcts:200"),
    matches: int = _matches(200, "matches per pairing of decks and pilot (each seed from both seats)"),
    decks: Optional[str] = typer.Option(None, help="the field: deck ids, comma separated (default: the starter decks)"),
    seed: int = _seed("base seed (every pilot plays the same seeds)"),
    rules: str = typer.Option("base", help="rules version"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    csv: Optional[Path] = typer.Option(None, help="folder to write pilot_sensitivity.csv and skill_premium.csv"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    data: Optional[Path] = DATA_OPTION,
):
    """How much the pilot matters: the field under each pilot on the same seeds, the figures and conclusions that change."""
    _use_data(data)
    from workbench.commands.pilot_sensitivity import run_pilot_sensitivity

    run_pilot_sensitivity(game, _split(pilots) or [], matches, _ids(decks, "--decks"), seed, rules, workers, db, quiet, csv,
                          out, err)


@app.command()
def batch(
    file: Path = typer.Argument(..., help="the batch file (YAML): its suites"),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    out: Path = typer.Option(Path("batches"), help="folder for the dated reports"),
    day: Optional[str] = typer.Option(None, help="the batch's day (default: today), e.g. 2026-11-29"),
    workers: Optional[int] = _workers(),
    cluster: Optional[str] = typer.Option(None, help=CLUSTER_HELP),
    max_matches: Optional[int] = typer.Option(None, min=2, max=MAX_MATCHES,
                                              help="cap every suite's matches (a quick smoke run)"),
    data: Optional[Path] = DATA_OPTION,
):
    """Run a nightly batch: every suite, compared with the last batch and the baseline; exit 3 if
    an alert is news, 4 if a comparison could not be made."""
    _use_data(data)
    from workbench.batch.run import check_day, run_batch

    outcome = run_batch(file, db, out, check_day(day), workers, check_cluster(cluster), max_matches, err)
    raise typer.Exit(outcome.exit_code)


@app.command("simulate-run")
def simulate_run(
    ctx: typer.Context,
    game: Optional[str] = typer.Argument(None, help="the game, e.g. frontier"),
    crew: str = typer.Option("all", help="crew ids, comma separated, or all"),
    runs: int = _matches(100, "campaign runs per crew (run i of every crew uses seed base + i)"),
    stage: Optional[str] = typer.Option(None, help="the campaign stage (default: the game's first)"),
    policy: str = typer.Option("greedy", help="who chooses routes, rewards and purchases: random, greedy"),
    fight_pilot: str = typer.Option("greedy", help="the crew's pilot in fights: " + PILOTS_HELP),
    seed: int = _seed(),
    rules: str = typer.Option("base", help="rules version"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    events: str = typer.Option("none", help="fight event logs to keep: all, none, or a share of runs like 0.1"),
    chunk_size: Optional[int] = _chunk("campaign runs per stored chunk"),
    resume: Optional[int] = _run_id("finish a stopped batch"),
    quiet: bool = typer.Option(False, help="no progress bar"),
    cluster: Optional[str] = typer.Option(None, help=CLUSTER_HELP),
    parts: Optional[str] = typer.Option(None, help=PARTS_HELP),
    data: Optional[Path] = DATA_OPTION,
):
    """Play a batch of seeded campaign runs (Frontier Run) and store runs, nodes, rewards and fights."""
    if resume is not None:
        _refuse_unread(ctx, RESUME_READS, "simulate-run --resume (the batch plays as it was started)")
    _use_data(data)
    from workbench.commands.simulate import parse_events
    from workbench.commands.simulate_run import simulate_run as run

    run(game, rules, stage, _ids(crew, "--crew"), runs, policy, fight_pilot, seed, parse_events(events), chunk_size,
        workers, db, resume, quiet, console=err, cluster=check_cluster(cluster), parts=parts)


@app.command()
def runs(db: Path = typer.Option(DEFAULT_DB, help="DuckDB file")):
    """List the runs in the store."""
    from workbench.commands.tables import show_runs

    show_runs(db, out)


@app.command()
def export(
    table: str = typer.Argument(..., help="a computed table (cards, keywords, keyword_prices, cost_curve, matchups, "
                                "diff_cards, campaign_clear_rates, campaign_reward_lift, ...) or a store table (matches, card_games, "
                                "events, runs, card_defs, campaign_runs, ...); "
                                "reports/METRICS.md lists them all"),
    run: Optional[List[int]] = typer.Option(None, min=1, max=MAX_RUN_ID, help="only these runs (repeat the option for several)"),
    game: Optional[str] = typer.Option(None, help="only this game's runs"),
    rules: Optional[str] = typer.Option(None, help="only runs of these rules versions, comma separated"),
    deck: Optional[str] = typer.Option(None, help="only these decks, comma separated"),
    pilot: Optional[str] = typer.Option(None, help="only matches whose every seat these pilots played, comma separated (greedy: greedy against greedy)"),
    diff: Optional[int] = _run_id("the diff for diff_* tables (see `workbench export diffs`)"),
    csv: Optional[Path] = typer.Option(None, help="CSV file to write"),
    parquet: Optional[Path] = typer.Option(None, help="Parquet file to write"),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
):
    """Export a table to CSV (spreadsheet-ready: UTF-8, header row, no index, ISO dates) or Parquet."""
    from reports.filters import Filters
    from workbench.commands.tables import export_table

    filters = Filters(game=game, runs=list(run or []), versions=_ids(rules, "--rules") or [],
                      decks=_ids(deck, "--deck") or [], pilots=_ids(pilot, "--pilot") or [])
    export_table(db, table, filters, diff, csv, parquet, err)


@app.command()
def report(
    run: List[int] = typer.Argument(..., min=1, max=MAX_RUN_ID, help="the run(s) to report on"),
    html: Path = typer.Option(..., help="HTML file to write (self-contained, opens offline)"),
    diff: Optional[int] = _run_id("a base run played on the same seeds: add a paired version diff"),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
):
    """Write one self-contained HTML report: headline findings first."""
    from workbench.commands.report import write_report

    write_report(db, list(run), diff, html, err)


@cards_app.command("validate")
def cards_validate(game: str, data_dir: Optional[Path] = DATA_OPTION):
    """Check every card, deck and rules version of a game."""
    _use_data(data_dir)
    from workbench.commands.cards import validate

    validate(game, data_dir, out, err)


@cards_app.command("export")
def cards_export(game: str, rules: str = typer.Option("base"), csv: Path = typer.Option(..., help="CSV file"),
                 data_dir: Optional[Path] = DATA_OPTION):
    """Write a rules version's card table as CSV, for editing in a spreadsheet."""
    _use_data(data_dir)
    from workbench.commands.cards import export_cards

    export_cards(game, rules, csv, data_dir, err)


@cards_app.command("import")
def cards_import(file: Path, game: str = typer.Option(...), as_: str = typer.Option(..., "--as", help="new version"),
                 base: str = typer.Option("base", help="the version the sheet was exported from"),
                 data_dir: Optional[Path] = DATA_OPTION):
    """Turn an edited card sheet into a new rules version holding only the changes."""
    _use_data(data_dir)
    from workbench.commands.cards import import_cards

    import_cards(file, game, as_, base, data_dir, err)


@scenario_app.command("run")
def scenario_run(files: List[Path], data_dir: Optional[Path] = DATA_OPTION):
    """Play scenario files; exit 1 if an expectation fails."""
    _use_data(data_dir)
    from workbench.commands.scenarios import run_files

    if not run_files(files, data_dir, out):
        raise typer.Exit(1)


@app.command()
def init(folder: Path = typer.Argument(..., help="the workspace folder to make (DIR/<game>/ per game)"),
         game: Optional[str] = typer.Option(None, help="copy only these games, comma separated (default: all)")):
    """Copy the shipped card data into a folder you own, to edit; then pass --data FOLDER (or set WORKBENCH_DATA)."""
    from workbench.commands.workspace import init_folder

    init_folder(folder, _ids(game, "--game"), out)


@app.command()
def tune(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="the game, e.g. frontier"),
    decks: Optional[str] = typer.Option(None, help="the field: deck ids, comma separated (default: the starter decks)"),
    band: str = typer.Option("45-55", help="every deck's field win rate must end inside LOW-HIGH, in percent"),
    max_changes: int = typer.Option(6, min=1, max=100, help="cards the proposal may change at most (each in one "
                                     "or more of its numbers)"),
    matches_budget: int = typer.Option(60_000, min=1, max=MAX_MATCHES, help="matches the search may read, its "
                                       "starting run included (the verification comes on top)"),
    matches: Optional[int] = typer.Option(None, min=2, max=MAX_MATCHES, help="matches per pairing in the search "
                                          "(default 100); with --card, per opponent and number (default 200)"),
    verify_matches: int = typer.Option(200, min=2, max=MAX_MATCHES, help="matches per pairing of each fresh "
                                       "verification run (both seats)"),
    pilots: str = typer.Option("greedy", help="one pilot for every deck, or one per deck"),
    seed: int = _seed("base seed of the search (each verification's seeds are hashed from it)"),
    rules: str = typer.Option("base", help="the rules version to start from (the proposal extends it)"),
    as_: Optional[str] = typer.Option(None, "--as", help="the proposal's rules version name (default: "
                                      "RULES-tuned, or RULES-CARD-STAT with --card)"),
    card: Optional[str] = typer.Option(None, help="instead: propose this card's fair number (with --stat)"),
    stat: Optional[str] = typer.Option(None, help="with --card: the number to tune, e.g. atk, def, cost"),
    workers: Optional[int] = _workers(),
    db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"),
    csv: Optional[Path] = typer.Option(None, help="folder to write tune_changes.csv, tune_decks.csv and tune_steps.csv "
                                       "(or tune_values.csv), every row with the pilots that played"),
    quiet: bool = typer.Option(False, help="no progress bars"),
    data: Optional[Path] = DATA_OPTION,
):
    """Propose card-number changes that bring every deck's field win rate into --band (verified on fresh seeds),
    or with --card X --stat S one card's fair number, written as a rules version into the --data workspace.

    The fair number is where the card's measured value (as `workbench value`: the deck with it minus the deck with a
    vanilla reference card of its cost in its place, same seeds) is nearest 0: the reference sits exactly on the stat
    budget, so value 0 is "worth its cost" as play measures it; the budget formula's own number is shown beside it,
    and the current number stays when its value's 95% interval holds 0 (reports/METRICS.md, "Rebalancing
    proposals")."""
    if card is not None and stat is not None:  # one of them alone: run_tune says they go together
        _refuse_unread(ctx, _all_but(ctx, TUNE_SEARCH_OPTIONS), "tune --card --stat")
    _use_data(data)
    from workbench.commands.simulate import again_to_finish
    from workbench.commands.tune import run_tune

    with again_to_finish("tune"):
        code = run_tune(game, _ids(decks, "--decks"), band, max_changes, matches_budget, matches, verify_matches,
                        _split(pilots) or [], seed, rules, as_, card, stat, workers, db, csv, quiet, out, err)
    raise typer.Exit(code)


@app.command()
def dashboard(db: Path = typer.Option(DEFAULT_DB, help="DuckDB file"), port: int = typer.Option(8501, min=1, max=65535),
              data: Optional[Path] = DATA_OPTION):
    """Open the dashboard on localhost."""
    from workbench.commands.dashboard import launch

    _use_data(data)
    raise typer.Exit(launch(db, port))


@app.command()
def bench(
    ctx: typer.Context,
    games: Optional[str] = typer.Option(None, help="games to measure (default: all)"),
    modes: Optional[str] = typer.Option(None, help="the modes to measure, comma separated, e.g. duel (default: "
                                        "every mode of each game; a four-seat search row takes many minutes)"),
    matches: int = typer.Option(400, help="random-pilot matches per engine measurement"),
    greedy_matches: int = typer.Option(60, help="greedy-pilot matches per engine measurement"),
    farm_matches: int = typer.Option(4000, help="random-pilot matches per farm measurement (greedy: a quarter)"),
    repeats: int = typer.Option(5, help="runs per farm measurement, or timings of each --reports measurement "
                                "(the median is shown)"),
    skip_farm: bool = typer.Option(False, help="measure the engine alone"),
    reports: bool = typer.Option(False, "--reports", help="instead: time the Cards page split by run (issue 13's bar: "
                                 "80 runs, 10M card_games rows, under 3 s)"),
    pages: bool = typer.Option(False, "--pages", help="with --reports: time every dashboard page cold and warm "
                               "instead (issue 18's bar: 1M card_games rows, under 3 s cold and 1 s warm; "
                               "defaults then --rows 1000000 --runs 10 --repeats 3)"),
    stats: bool = typer.Option(False, "--stats", help="instead: calibrate diffs and value with a planted moderate buff "
                               "and A/A twins on real simulations, per game"),
    dask: bool = typer.Option(False, "--dask", help="instead: a Dask LocalCluster of 1 worker against all cores"),
    ceilings: bool = typer.Option(False, "--ceilings", help="instead: the match rate if legal actions (random play) "
                                  "or evaluate (greedy play) cost nothing, their answers recorded and read back in "
                                  "the same matches: the most that work on that part alone can buy (defaults then "
                                  "--matches 100 --greedy-matches 8 --blocks 4: matches per pass, pass pairs)"),
    rows: int = typer.Option(10_000_000, help="--reports: card_games rows in the store, at least"),
    runs: int = typer.Option(80, help="--reports: runs in the store (one played, the others copies of it with a "
                             "fifth of their results flipped)"),
    blocks: int = typer.Option(10, help="--stats: blocks (base seeds) per game; --against: block pairs per "
                               "measurement (each figure's ratio is the median of the pairs')"),
    seeds: str = typer.Option("200,500,1000", help="--stats: the sizes each block is read at, in seeds"),
    pilots: Optional[str] = typer.Option(None, help="the pilots to measure, comma separated, e.g. greedy,mcts:100 "
                                         "(default: every pilot at its default budget); --stats: the pilots that "
                                         "play (default greedy)"),
    search_matches: int = typer.Option(2, help="matches per engine measurement of a searching pilot (not random "
                                       "or greedy)"),
    seconds: Optional[float] = typer.Option(None, help="stop an engine measurement after this many seconds "
                                            "(default 20; its first match always plays); with --against: start no "
                                            "block pair after it (two always play; default: no limit)"),
    against: Optional[str] = typer.Option(None, "--against", metavar="REV",
                                          help="play the same matches with the engines at git revision REV (a "
                                          "temporary worktree) interleaved with today's, and print every figure as "
                                          "today / REV with its spread; --matches, --greedy-matches, "
                                          "--search-matches and --farm-matches are then per side in all"),
    compiled: bool = typer.Option(False, "--compiled", help="like --against, with this tree's compiled build "
                                  "(WORKBENCH_COMPILE=1 pip install -e .) against its own Python source: what "
                                  "the compiled hot path buys"),
    db: Optional[Path] = typer.Option(None, help="--stats: keep the runs in this store (resume or extend)"),
    no_value: bool = typer.Option(False, "--no-value", help="--stats: skip the planted card's value measurement"),
    soak: Optional[int] = typer.Option(None, "--soak", metavar="N", min=2, max=MAX_MATCHES,
                                       help="instead: N random matches of each game through the farm, events "
                                       "none, counting engine errors and invariant violations and sampling the "
                                       "writer's memory (exit 1 unless all are 0 and memory stays flat)"),
    soak_check: str = typer.Option("turn", help="--soak: check the invariants at every turn or every decision"),
):
    """Measure matches and decisions per second: engine alone, and through the farm into the store.
    With --reports or --stats, measure the analytics instead."""
    from workbench.commands import bench as b

    kind = ("--soak" if soak is not None else "--against" if against is not None else "--compiled" if compiled
            else "--dask" if dask else "--ceilings" if ceilings else "--reports --pages" if reports and pages
            else "--reports" if reports else "--stats" if stats else "")
    if against is not None and compiled:
        raise UserError("--against and --compiled each name what today is measured against: give one")
    _refuse_unread(ctx, BENCH_READS[kind], f"bench {kind}" if kind else "bench (engines and farm)")
    if soak is not None:
        if not b.soak_bench(_split(games), soak, None, soak_check, out):
            raise typer.Exit(1)
    elif against is not None or compiled:
        b.against_bench(against, _split(games), matches, greedy_matches, search_matches, farm_matches, repeats,
                        blocks, skip_farm, out, _split(pilots), seconds)
    elif dask:
        b.dask_speed(farm_matches, repeats, out)
    elif ceilings:
        from workbench.bench.ceilings import ceilings_bench
        ceilings_bench(b.bench_games(_split(games)), 100 if matches == 400 else matches,
                       8 if greedy_matches == 60 else greedy_matches, 4 if blocks == 10 else blocks, out)
    elif reports and pages:
        if not b.pages_speed(1_000_000 if rows == 10_000_000 else rows, 10 if runs == 80 else runs,
                             3 if repeats == 5 else repeats, out):
            raise typer.Exit(1)
    elif reports:
        b.reports_speed(rows, runs, repeats, out)
    elif stats:
        parts = _split(seeds) or []
        if not all(x.isdigit() for x in parts):
            raise UserError(f"--seeds takes sizes such as 200,500,1000, not {seeds!r}")
        sizes = sorted(int(x) for x in parts)
        if not sizes or sizes[0] < 1:
            raise UserError(f"--seeds takes sizes such as 200,500,1000, not {seeds!r}")
        if blocks < 1:  # (it played the value's runs, then crashed on no blocks)
            raise UserError(f"--blocks must be at least 1 (a block is one base seed), not {blocks}")
        b.stats_calibration(_split(games), blocks, sizes, _split(pilots) or ["greedy"], db, out, not no_value)
    else:
        b.run_bench(_split(games), matches, greedy_matches, farm_matches, repeats, skip_farm, out, _split(pilots),
                    search_matches, 20.0 if seconds is None else seconds, _split(modes))


# What each kind of bench reads, by its switch ("": the plain engine and farm bench). An option
# another kind reads, given to this one, is refused: silently ignored, the user would take the
# figures for what they asked (``--modes ffa`` with --against measured duels).
_ENGINE_COUNTS = {"games", "matches", "greedy_matches", "search_matches", "pilots", "seconds"}
BENCH_READS = {
    "": _ENGINE_COUNTS | {"modes", "farm_matches", "repeats", "skip_farm"},
    "--against": _ENGINE_COUNTS | {"against", "farm_matches", "repeats", "blocks", "skip_farm"},
    "--compiled": _ENGINE_COUNTS | {"compiled", "farm_matches", "repeats", "blocks", "skip_farm"},
    "--soak": {"soak", "games", "soak_check"},
    "--dask": {"dask", "farm_matches", "repeats"},
    "--ceilings": {"ceilings", "games", "matches", "greedy_matches", "blocks"},
    "--reports": {"reports", "rows", "runs", "repeats"},
    "--reports --pages": {"reports", "pages", "rows", "runs", "repeats"},
    "--stats": {"stats", "games", "blocks", "seeds", "pilots", "db", "no_value"},
}


# What the other commands leave unread in one of their uses, by the same rule as bench's kinds.
# A resume plays the run (or campaign batch) as the store holds it: only where and how to play
# it are read; the game, when named, must be the run's own (commands/simulate.py).
RESUME_READS = {"game", "resume", "db", "workers", "quiet", "cluster", "parts", "data"}
# diff: the sequential test's options, read only with --until-decided (which plays --max-matches
# at most, not --matches, and compares duels: no --seats)
SEQUENTIAL_OPTIONS = {"until_decided", "delta", "delta0", "alpha", "beta", "max_matches", "status"}
# fit-weights: what each --by does not read
FIT_UNREAD = {"play": {"matches"}, "outcomes": {"steps", "pairs"}}
# tune: the field search's options, unread by --card X --stat S (one card's fair number)
TUNE_SEARCH_OPTIONS = {"band", "max_changes", "matches_budget", "verify_matches"}


def _all_but(ctx: typer.Context, unread: set[str]) -> set[str]:
    """The command's parameters other than ``unread``: what to pass ``_refuse_unread`` as read."""
    return {p.name for p in ctx.command.params} - set(unread)


def _refuse_unread(ctx: typer.Context, reads: set[str], what: str) -> None:
    """A one-line UserError for options given on the command line that ``what`` does not read
    (named as given: ``--no-swap``, not ``--swap``). Defaults are never refused."""
    from typer._click.core import ParameterSource

    def given(p) -> str:
        if p.param_type_name == "argument":
            return p.name.upper()
        if getattr(p, "is_bool_flag", False) and p.secondary_opts and not ctx.params.get(p.name):
            return p.secondary_opts[0]
        return p.opts[0]

    unread = [given(p) for p in ctx.command.params
              if p.name not in reads and ctx.get_parameter_source(p.name) is ParameterSource.COMMANDLINE]
    if unread:
        them = "it" if len(unread) == 1 else "them"
        raise UserError(f"{what} does not read {', '.join(unread)}: leave {them} out "
                        f"(see {ctx.command_path} --help)")


def error_line(text: str) -> None:
    """One error line: "error:" in red, the text exactly as written (never read as markup)."""
    from rich.text import Text

    err.print(Text.assemble(("error:", "red"), " ", str(text)), soft_wrap=True)


def _usage_line(exc: ClickException) -> str:
    """click's complaint about the command line, on one line, naming the sub-command."""
    ctx = getattr(exc, "ctx", None)
    where = f"{ctx.command_path.split(' ', 1)[-1]}: " if ctx is not None and " " in ctx.command_path else ""
    return where + " ".join(exc.format_message().split())


def main(argv: Optional[list[str]] = None) -> None:
    """The command line (``argv``: the arguments after the program name, for tests). Every user
    mistake is one line and exit code 2; nothing else is printed. A store the command created
    and left empty (it failed before storing anything) is removed again."""
    import os

    data = os.environ.get("WORKBENCH_DATA")
    try:
        with sigterm_as_ctrl_c(), unused_stores_removed(), runs_of_one_command():
            _run(argv)
    finally:  # --data set it for one command only (tests call main in one process)
        if data is None:
            os.environ.pop("WORKBENCH_DATA", None)
        else:
            os.environ["WORKBENCH_DATA"] = data


def _run(argv: Optional[list[str]]) -> None:
    try:
        code = app(args=argv, prog_name="workbench", standalone_mode=False)
    except NoArgsIsHelpError as exc:  # `workbench cards`: the group's help, as typer shows it
        exc.show()
        sys.exit(2)
    except ClickException as exc:  # a bad option or argument (click's own checks)
        error_line(_usage_line(exc))
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):  # a stop while typer read the command line
        code = INTERRUPTED
    except Interrupted as exc:
        error_line(str(exc))
        sys.exit(INTERRUPTED)
    except (UserError, DataError, StoreError, WeightFileError) as exc:
        error_line(str(exc))
        sys.exit(2)
    except DataErrors as exc:
        for e in exc.errors:
            error_line(e.line())
        sys.exit(2)
    if code == INTERRUPTED:  # what typer returns for a KeyboardInterrupt outside the commands (_Commands)
        from workbench.commands.simulate import interrupted

        error_line(str(interrupted()))
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # `python -m workbench.cli`: as the `workbench` script runs it
    from workbench.entry import main as entry

    entry()
