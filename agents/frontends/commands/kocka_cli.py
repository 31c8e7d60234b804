"""``kocka``: hints, terminal play, AI seat and arena for the kocka dice games."""
from __future__ import annotations

import inspect
import json
import random
import re
import sys
from typing import Any

import click
from click.core import ParameterSource

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.frontends.games.arena import ArenaError, PlotUnavailable, run_arena
from kocka.agents.advice.hint import HintParams, hint as make_hint, render
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


@main.command(context_settings={"ignore_unknown_options": False})
@click.argument("game", type=click.Choice(GAME_NAMES))
@click.argument("more_dice", nargs=-1, type=int)
@click.option("--dice", type=int, default=None,
              help="The dice showing now, e.g. --dice 1 1 3 4 6 (values after --dice are collected).")
@click.option("--roll", type=int, default=None, help="Scorecard games: throws made this turn (1, 2 or 3).")
@click.option("--card", default=None,
              help="Card games: the filled boxes as box=points pairs, e.g. pair=12,full=19 (box ids or the names "
                   "on the card, in any of the game's languages), or as JSON, e.g. '{\"pair\": 12}'.")
@click.option("--state", "state_json", default=None, help="A full state document (docs/STATE.md) instead of the options above.")
@click.option("--score", type=int, default=None, help="Kocka: your banked score.")
@click.option("--opponent", default=None,
              help="Kocka: the opponent's banked score. Polish basic game: the other player's card (like --card), "
                   "for the two-player race's P(win).")
@click.option("--opponents", default=None,
              help="Kocka: the other players' banked scores in turn order after you, e.g. --opponents 4500,8000. "
                   "Scorecard games: the other players' cards, ranking by P(win) against them: a JSON list of "
                   "cards, or cards as box=points pairs separated by ';' (an empty card: {}); needs --kind target.")
@click.option("--target", type=int, default=None,
              help="Scorecard games: rank by P(final total >= TARGET), e.g. --target 250 (the table of "
                   "kocka-solve build GAME --kind target).")
@click.option("--turn-total", type=int, default=None, help="Kocka: points already set aside this turn.")
@click.option("--dice-left", type=int, default=None, help="Kocka: how many dice were rolled for --dice.")
@click.option("--fences", type=int, default=None, help="Polish: fences held at the start of this turn (PL-12).")
@click.option("--stage", type=int, default=None, help="Polish: the stage being played (1, 2 or 3).")
@click.option("--declared", default=None, help="Polish stage 2: the box declared this turn (PL-15).")
@click.option("--standing", default=None, help="Bluff games, claiming: the claim to beat, e.g. 8, 'pair 5', 'two pairs 5 2'.")
@click.option("--claim", default=None, help="Bluff games, answering: the claim you answer (see --standing).")
@click.option("--previous", default=None, help="Bluff games, answering: the claim that --claim beat.")
@click.option("--stake", type=int, default=None, help="Betting bluff games, answering: the claim's stake.")
@click.option("--chips", type=int, nargs=2, default=None, help="Bluff games: your chips and the opponent's.")
@click.option("--public", type=int, nargs=3, default=None, help="Liar's poker: the three public dice.")
@click.option("--shown", type=int, default=None, help="Liar's poker: the die kept and shown on a re-throw.")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--top", type=int, default=8, show_default=True, help="How many actions to list (0 = all).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--cache-dir", default=None, help="Folder of the value tables.")
@click.option("--build-missing", is_flag=True, help="Build a missing table instead of failing.")
def hint(game, more_dice, dice, roll, card, state_json, score, opponent, opponents, target, turn_total, dice_left,
         fences, stage, declared, standing, claim, previous, stake, chips, public, shown, rules, top, as_json,
         cache_dir, build_missing):
    """Rank every legal action in a position of GAME, with the loss of each versus the best."""
    all_dice = None if dice is None else (dice, *more_dice)
    if dice is None and more_dice:
        fail(KockaError(f"unexpected values {list(more_dice)!r}: put dice after --dice"))
    try:
        g = game_from_cli(game, rules)
        opponent, opponent_card = opponent_option(opponent)
        params = HintParams(
            dice=all_dice, roll=roll, card=card_option(card),
            state=load_json(state_json, "--state") if state_json else None, score=score, opponent=opponent,
            turn_total=turn_total, dice_left=dice_left, cache_dir=cache_dir, build_missing=build_missing,
            extra={k: v for k, v in (("fences", fences), ("stage", stage), ("declare", declared),
                                     ("opponents", opponents), ("standing", standing), ("claim", claim),
                                     ("previous", previous), ("stake", stake), ("chips", chips), ("public", public),
                                     ("shown", shown), ("opponent", opponent_card), ("target", target)) if v is not None},
        )
        report = make_hint(g, params)
    except JSONInputError as exc:  # not JSON, nested too deeply, a number too large
        fail(exc)
    except (KockaError, TableError) as exc:
        fail(exc)
    click.echo(render(report, top=top, as_json=as_json))


def opponent_option(text: str | None) -> tuple[int | None, Any]:
    """``--opponent``: a banked score (an integer, Kocka) or the other player's card (read
    as :func:`card_option` reads ``--card``; the Polish basic game's race)."""
    if text is None:
        return None, None
    if re.fullmatch(r"\s*[+-]?\d+\s*", text):
        return int(text), None
    card = card_option(text)
    return None, {} if card is None else card


def card_option(text: str | None) -> Any:
    """``--card`` as the engines' ``card_from_entries`` reads it: JSON (an object), or
    ``box=points`` pairs separated by commas (``pair=12,full=19``, ``"kis sor=15"``,
    ``ones=-3``); the box names are checked by the engine. None for no card."""
    if text is None or not text.strip():
        return None
    if text.lstrip()[:1] in ("{", "[", '"') or "=" not in text:  # JSON (the engine refuses what is not an object)
        return load_json(text, "--card")
    entries: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.rpartition("=")
        name = name.strip()
        if not sep or not name or not re.fullmatch(r"[+-]?\d{1,6}", value.strip()):
            raise KockaError(f"--card takes box=points pairs such as pair=12,full=19 (or a JSON object), got {part.strip()!r}")
        if name in entries:
            raise KockaError(f"--card names {name!r} twice")
        entries[name] = int(value)
    return entries


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
