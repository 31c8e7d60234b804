"""``kocka``: hints, terminal play, AI seat and arena for the kocka dice games."""
from __future__ import annotations

import functools
import inspect
import json
import random
import sys

import click
from click.core import ParameterSource

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.frontends.games.arena import ArenaError, PlotUnavailable, run_arena
from kocka.agents.advice.hint import declared_options, hint as make_hint, parameters_class, parse_options, render
from kocka.solver.base.jsonio import JSONInputError
from kocka.solver.base.jsonio import loads as load_json
from kocka.agents.frontends.games.play import play as play_game
from kocka.agents.frontends.games.companion import companion_games, run_table
from kocka.agents.frontends.seat.protocol import (
    DEFAULT_MAX_INFLIGHT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WORKER_THREADS, SeatOptions, parse_address, run,
)
from kocka.agents.bots.catalogue import AgentOptions, describe_agents
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.store.table_store import game_from_cli
from kocka.solver.rules import game_names, game_specs, spec_for
from kocka.solver.rules.words import LANGUAGES

GAME_NAMES = game_names()

RULE_HELP = "Rule option as key=value (names from RULES.md section 6). Repeatable."


def fail(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


def _games_help() -> str:
    return "\n".join(f"  {spec.name:15s}{spec.title}" for spec in game_specs())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Play and analyse Central-European dice games with optimal AI help.

    \b
    Games:
    {games}
    \b
    Examples:
      kocka rules kockapoker                       rule options and their values
      kocka hint kockapoker --dice 1 1 3 4 6 --roll 1
      kocka hint kocka --dice 1 1 1 5 5 2 --score 3000 --opponent 8650
      kocka hint bidding-bluff --dice 2 4 --standing 7   what to claim, and stake
      kocka hint bidding-bluff --claim 9 --stake 2     pass or bet?
      kocka hint kocka --dice 1 1 1 5 5 2 --score 3000 --opponents 4500,8000
    """


main.help = inspect.cleandoc(main.help or "").replace("{games}", _games_help().lstrip())  # the list comes from the specs


@main.command()
@click.argument("game", type=click.Choice(GAME_NAMES))
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
def rules(game, rules):
    """Show GAME's rule options (defaults from RULES.md section 6) and the variant id."""
    try:
        g = game_from_cli(game, rules)
    except KockaError as exc:
        fail(exc)
    click.echo(f"{g.NAME}: {spec_for(game).engine.__doc__.strip().splitlines()[0]}")
    allowed = type(g.rules).OPTIONS
    for key, value in g.rules.options().items():
        choices = f"  (one of: {', '.join(map(str, allowed[key]))})" if key in allowed else ""
        click.echo(f"  {key} = {value}{choices}")
    click.echo(f"variant id: {g.rules.variant_id()}")


class HintGroup(click.Group):
    """``kocka hint GAME ...``: one command per game, whose options are those its hint
    declares (``GameSpec.hint_parameters``), then the options every game shares. A game's
    command is built when it is named: its parameters live in its hint's module."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GAME_NAMES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return _hint_command(name) if name in GAME_NAMES else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in GAME_NAMES:
            ctx.fail(f"unknown game {args[0]!r}; games: {', '.join(GAME_NAMES)}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(spec.name, spec.title if spec.hint is not None else f"{spec.title} (no hints yet)")
                for spec in game_specs()]
        with formatter.section("Games"):
            formatter.write_dl(rows)


@main.group(cls=HintGroup, subcommand_metavar="GAME [OPTIONS]...")
def hint():
    """Rank every legal action in a position of GAME, with the loss of each versus the best.

    \b
    Each game takes its own options: kocka hint GAME --help lists them.
    Example: kocka hint kockapoker --dice 1 1 3 4 6 --roll 1
    """


def _shared_hint_options() -> list[click.Parameter]:
    """The options of ``kocka hint`` in every game, after the game's own."""
    return [
        click.Option(["--state", "state_json"], default=None, metavar="JSON",
                     help="A full state document (docs/STATE.md) instead of the options above."),
        click.Option(["-r", "--rule", "--rules", "rules"], multiple=True, help=RULE_HELP),
        click.Option(["--top"], type=int, default=8, show_default=True, help="How many actions to list (0 = all)."),
        click.Option(["--json", "as_json"], is_flag=True, help="Machine-readable output."),
        click.Option(["--cache-dir"], default=None, help="Folder of the value tables."),
        click.Option(["--build-missing"], is_flag=True, help="Build a missing table instead of failing."),
    ]


@functools.lru_cache(maxsize=None)
def _hint_command(name: str) -> click.Command:
    """``kocka hint NAME``: the options the game's hint parameters declare (the values
    after an option with ``rest``, such as ``--dice 1 1 3 4 6``, are collected into it)."""
    spec = spec_for(name)
    params_class = parameters_class(spec)
    declared = declared_options(params_class)
    rest = next(((field, option) for field, option in declared if option.rest), None)
    parameters: list[click.Parameter] = []
    if rest is not None:
        parameters.append(click.Argument([f"more_{rest[0]}"], nargs=-1, type=rest[1].type))
    parameters += [click.Option([option.spelling(field), field], type=option.type,
                                nargs=option.nargs, default=None, help=option.help, metavar=option.metavar)
                   for field, option in declared]
    parameters += _shared_hint_options()

    def run(state_json, rules, top, as_json, cache_dir, build_missing, **values):
        if rest is not None:
            field, option = rest
            more = values.pop(f"more_{field}")
            if values[field] is None and more:
                fail(KockaError(f"unexpected values {list(more)!r}: put {field.replace('_', ' ')} after "
                                f"{option.spelling(field)}"))
            if values[field] is not None:
                values[field] = (values[field], *more)
        try:
            game = game_from_cli(name, rules)
            options = parse_options(params_class, values)
            state = load_json(state_json, "--state") if state_json else None
            report = make_hint(game, params_class(**options, state=state, cache_dir=cache_dir,
                                                  build_missing=build_missing))
        except (JSONInputError, KockaError, TableError) as exc:  # JSONInputError: not JSON, nested too deeply, ...
            fail(exc)
        click.echo(render(report, top=top, as_json=as_json))

    if spec.hint is None:
        about = f"{spec.title} has no hints yet."
    else:
        about = f"Rank every legal action in a position of {spec.title}, with the loss of each versus the best."
    return click.Command(name, params=parameters, callback=run, help=about, short_help=spec.title)


def _agent_options(cache_dir, build_missing):
    return AgentOptions(cache_dir=cache_dir, build_missing=build_missing)


def _agents_help() -> str:
    return "; ".join(f"{name}: {text}" for name, text in describe_agents())


@main.command()
@click.argument("game", type=click.Choice(GAME_NAMES))
@click.option("--seats", default="human,optimal", show_default=True,
              help="Comma-separated seats in playing order, 1 to 6: 'human' or an agent name "
                   "(see `kocka arena --help`), e.g. human,optimal,heuristic.")
@click.option("--seed", type=int, default=None, help="Seed of the dice and the agents (default: a random seed, printed).")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table (with a message) instead of failing.")
def play(game, seats, seed, rules, cache_dir, build_missing):
    """Play GAME in the terminal against the AI (or hot-seat), with hints.

    \b
    Type moves as you would say them: keep 1 1 5, box full (or write full), roll, bank,
    take 1 5, series 6 6, joker 2, declare fours, scratch poker, claim 8 stake 2, challenge.
    '?' ranks every legal move with the optimal agent's values; 'undo' takes back your last
    decision; 'moves' lists the legal moves; 'quit' (or Ctrl-C) stops.
    At the end you see how many points (Kocka: how much win probability) your decisions
    cost versus optimal play.
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    seat_list = [s for s in seats.split(",") if s.strip()]
    try:
        g = game_from_cli(game, rules)
        code = play_game(g, seat_list, seed, _agent_options(cache_dir, build_missing), write=click.echo)
    except (KockaError, TableError, AgentUnavailable) as exc:
        fail(exc)
    sys.exit(code)


@main.command()
@click.argument("game", type=click.Choice(companion_games()), required=False)
@click.option("--players", default=None, metavar="NAMES",
              help="The players in playing order, separated by commas, e.g. Anna,Béla,me.")
@click.option("--save", "save_path", default=None, metavar="FILE",
              help="Where the game is saved after every step (default: kocka-table-GAME-DATE-TIME.json here).")
@click.option("--resume", default=None, metavar="FILE", help="Go on with the game saved in FILE.")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table (with a message) instead of failing.")
def table(game, players, save_path, resume, rules, cache_dir, build_missing):
    """The hint companion for a game with real dice: it keeps every player's card (or
    score), whose turn it is and the throw; you type the dice thrown and the moves made.

    \b
    Example: kocka table kockapoker --players Anna,Béla,me
    Then, each turn: 33355 (the dice), ? (the hint), keep 333, 55 (the new dice),
    write full (or: full), bank, undo, cards, help. Saved after every step;
    kocka table --resume FILE goes on with a saved game.
    """
    names = [p for p in players.split(",")] if players else None
    try:
        code = run_table(game, names, resume, save_path, rules, _agent_options(cache_dir, build_missing))
    except (KockaError, TableError, AgentUnavailable, OSError) as exc:
        fail(exc)
    sys.exit(code)


@main.command()
@click.argument("game", type=click.Choice(GAME_NAMES))
@click.option("--agents", "agent_list", default="optimal,heuristic", show_default=True,
              help="Comma-separated agent names; a name may repeat. Agents: " + _agents_help())
@click.option("--games", type=int, default=1000, show_default=True, help="Number of games (matches).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed; each game's dice come from (seed, game index).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True,
              help="Worker processes (joblib); results do not depend on it.")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the score distributions to this PNG (needs matplotlib: pip install 'kocka[plot]').")
@click.option("--bins", type=int, default=12, show_default=True, help="Bins of the text histogram.")
@click.option("--table", "at_table", is_flag=True,
              help="Scorecard games: seat the agents at one table (seat order rotating, each seat's dice shared by "
                   "the rotations) instead of one card each; needed by agents that watch the other cards (winner).")
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table (with a message) instead of failing.")
def arena(game, agent_list, games, seed, jobs, rules, as_json, plot, bins, at_table, cache_dir, build_missing):
    """Play seeded matches between agents and measure their strength.

    \b
    Scorecard games (kockapoker, slovak, yahtzee, yatzy, polish, polish-basic): each agent
    plays its own card with the same dice (common random numbers); the win rate is the
    share of top scores over these paired games, and a head-to-head table compares pairs.
    Other games: one seat per agent, seat order rotating from game to game.
    Prints each agent's mean score with a 95% normal-approximation interval, its win rate
    with a 95% Wilson interval (ties shared), and the score distribution.
    \b
    Example: kocka arena kockapoker --agents optimal,heuristic,random --games 20000 --seed 1 --jobs 2
    """
    names = [s.strip().lower() for s in agent_list.split(",") if s.strip()]
    try:
        g = game_from_cli(game, rules)
        result = run_arena(g, names, games, seed, jobs, _agent_options(cache_dir, build_missing), table=at_table)
        if plot:
            result.plot(plot)
    except (KockaError, TableError, AgentUnavailable, ArenaError, PlotUnavailable) as exc:
        fail(exc)
    if as_json:
        click.echo(json.dumps(result.to_json(bins)))
    else:
        click.echo(result.render(bins))
        if plot:
            click.echo(f"plot written to {plot}")


@main.command()
@click.option("--http", "http_address", default=None, metavar="HOST:PORT",
              help="Serve JSON over HTTP (POST /) on HOST:PORT instead of stdin/stdout, e.g. 127.0.0.1:8765 (port 0: any free port).")
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table (with a message on stderr) instead of answering table_missing.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
              show_default=True, help="Detail of the log on stderr.")
@click.option("--request-timeout", type=float, default=DEFAULT_REQUEST_TIMEOUT, show_default=True, metavar="SECONDS",
              help="Answer 'timeout' to a request not answered within SECONDS (0: no limit).")
@click.option("--max-inflight", type=int, default=DEFAULT_MAX_INFLIGHT, show_default=True,
              help="Requests worked on at once (abandoned ones included) before new ones get 'busy' (HTTP 503).")
@click.option("--worker-threads", type=int, default=DEFAULT_WORKER_THREADS, show_default=True,
              help="HTTP: requests computed at once; the others wait in a queue (more threads add no speed, "
                   "they only slow the quick answers).")
@click.option("--token", default=None, envvar="KOCKA_SEAT_TOKEN", metavar="SECRET",
              help="HTTP: require 'Authorization: Bearer SECRET' on every request (also from $KOCKA_SEAT_TOKEN); "
                   "required for a non-loopback address.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="URL",
              help="HTTP: let the web page at this origin (e.g. http://localhost:5173) use the seat, with CORS headers. Repeatable.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME[:PORT]",
              help="HTTP: accept this Host header besides the address bound (e.g. behind a proxy). Repeatable.")
@click.option("--allow-quit", is_flag=True, help="HTTP: let a client stop the server with quit (refused otherwise).")
def seat(http_address, cache_dir, build_missing, log_level, request_timeout, max_inflight, worker_threads, token, allow_origins,
         allow_hosts, allow_quit):
    """Seat the AI for another program: one JSON request per line on stdin, one JSON
    response per line on stdout (protocol kocka.seat/1, docs/PROTOCOL.md).

    \b
    Example:
      echo '{"id": 1, "method": "hello"}' | kocka seat
      kocka seat --http 127.0.0.1:8765 --allow-origin http://localhost:5173
    """
    if not request_timeout >= 0:  # NaN too
        fail(KockaError(f"--request-timeout must be 0 (no limit) or a positive number of seconds, got {request_timeout}"))
    budget = request_timeout if 0 < request_timeout < float("inf") else None
    if max_inflight < 1:
        fail(KockaError(f"--max-inflight must be 1 or more, got {max_inflight}"))
    http = None
    if http_address is not None:
        try:
            parse_address(http_address)
            # deferred heavy optional import: starlette and uvicorn load only for --http
            from kocka.agents.frontends.seat.http import http_options

            http = http_options(http_address, token=token, allow_origins=allow_origins, allow_hosts=allow_hosts,
                                allow_quit=allow_quit, request_timeout=budget, max_inflight=max_inflight,
                                worker_threads=worker_threads)
        except ValueError as exc:
            fail(exc)
    elif allow_origins or allow_hosts or allow_quit or any(
            click.get_current_context().get_parameter_source(name) is ParameterSource.COMMANDLINE
            for name in ("token", "worker_threads")):
        fail(KockaError("--token, --allow-origin, --allow-host, --allow-quit and --worker-threads are for --http"))
    try:
        code = run(SeatOptions(cache_dir=cache_dir, build_missing=build_missing), http=http, log_level=log_level,
                   request_timeout=budget, max_inflight=max_inflight)
    except OSError as exc:  # the address is in use, or not this machine's
        fail(KockaError(f"cannot serve on {http_address}: {exc.strerror or exc}"))
    sys.exit(code)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (another than loopback needs --token).")
@click.option("--port", type=int, default=8080, show_default=True, help="Port to listen on (0: any free port).")
@click.option("--lang", type=click.Choice(sorted(LANGUAGES)), default=None,
              help="Box names in this language (default: each game's own; the page has a switch).")
@click.option("--token", default=None, envvar="KOCKA_SEAT_TOKEN", metavar="SECRET",
              help="Require this bearer token (the page gets it from the address printed); needed off loopback.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME[:PORT]",
              help="Accept this Host header too (the machine's name on the network). Repeatable.")
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table (with a message on stderr) when first needed.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning", show_default=True)
def web(host, port, lang, token, allow_hosts, cache_dir, build_missing, log_level):
    """The hint companion in a browser: a phone-sized page on http://127.0.0.1:8080, served
    with the AI seat's protocol by one process (docs/TABLE.md).

    \b
    Pick a game and the players, type or tap the dice thrown, and read the hint; or play
    against the AI (the page rolls). A position is a link that opens straight to its
    hint, e.g. http://127.0.0.1:8080/?game=kockapoker&dice=11346&roll=1
    """
    if not 0 <= port <= 65535:
        fail(KockaError(f"--port must be 0..65535, got {port}"))
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    # deferred heavy optional import: starlette and uvicorn load only for a server
    from kocka.agents.frontends.seat.web import serve_web

    try:
        code = serve_web(address, SeatOptions(cache_dir=cache_dir, build_missing=build_missing), lang, log_level,
                         token, allow_hosts)
    except ValueError as exc:
        fail(exc)
    except OSError as exc:
        fail(KockaError(f"cannot serve on {address}: {exc.strerror or exc}"))
    sys.exit(code)


@main.command()
@click.argument("game", type=click.Choice(GAME_NAMES))
@click.argument("more_dice", nargs=-1, type=int)
@click.option("--dice", type=int, required=True, help="Five dice, e.g. --dice 3 3 3 5 5.")
@click.option("--box", default=None, help="One box id (default: every box of the card).")
@click.option("--first-throw", is_flag=True, help="Written right after the first throw (from hand).")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
def score(game, more_dice, dice, box, first_throw, rules):
    """Points that DICE score in each box of GAME's card (scorecard and Polish games)."""
    try:
        g = game_from_cli(game, rules)
        boxes = g.card_boxes()
        if not boxes:
            raise KockaError(f"{spec_for(game).title} has no score card; kocka score is for the games with boxes")
        roll = validate_dice((dice, *more_dice), 5)
        if box is not None and box not in boxes:
            raise KockaError(f"{game}: no box {box!r}; boxes: {', '.join(boxes)}")
    except KockaError as exc:
        fail(exc)
    width = max(len(b) for b in boxes)
    for b in [box] if box else boxes:
        click.echo(f"{b:<{width}}  {g.box_points(b, roll, first_throw):>5}")
