#!/usr/bin/env python3
"""How much any player could gain over ``optimal`` against Kocka bots (issue 27): the room
the ``adaptive`` agent has, default rules (KOCKA-1..20, ``kocka.end = immediate``).

    python scripts/kocka_reply_room.py --games 2000 --seed 3 [--bots heuristic,bold,cautious]
    python scripts/kocka_reply_room.py --players 3 --bots heuristic+cautious --games 3000 --seed 3

Two players: one bot at a time. Three players (``--players 3``): each ``A+B`` is a table
of two bots, A sitting after the judged player and B after A (the arena's rotating seats
keep that order). For each, the *best reply table*
(``kocka.agents.bots.adaptive_kocka.best_reply_table``, with three players
``best_reply_three_table``: the bots' exact turn outcomes under their policies, the race
solved one-sided) gives

* ``reply``: the best reply's exact P(win) against the bots from the start, averaged over
  the seats: what the strongest possible player wins against them;
* ``room``: how much of it ``optimal`` leaves, ``reply - P(optimal wins)``, estimated
  without noise from the dice: the table's value is a martingale under the best reply's
  play, the bots' turns and the dice, and drops at each of ``optimal``'s moves by exactly
  the best reply's value of its best action minus that of ``optimal``'s action. Summed
  over a game, its mean is the room (seats rotating); the sum's spread per game is a
  fraction of a win's, so a few thousand games bound the room far more tightly than a
  paired arena run of ``adaptive`` against ``optimal`` can bound a gain;
* ``optimal``: ``reply - room``, and ``optimal``'s win share over the same games (a check:
  it must agree within its own, much wider, interval);
* the room of each compared agent (``adaptive``; with three players also ``leader``) over
  the same games (the same dice and the bots' same draws), and its gain over ``optimal``
  (with three players also over ``leader``): the difference of the rooms game by game,
  with its interval. The same estimator as a paired arena run's gain without the dice's
  noise in it (each game's win share is its start value minus its room plus a
  martingale's noise of mean 0).

Exact where the bots' play is one of the fitted policies (the adaptive agent's
hypotheses); a bot outside that family has no best reply table here.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from kocka.agents.bots import adaptive_kocka
from kocka.agents.bots.base import ChanceSampler, derive_seed
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import mean_interval, play_match, win_shares
from kocka.solver.rules import get_game


class ReplyJudge(adaptive_kocka.AdaptiveKocka):
    """The adaptive agent with its opponents fitted from the first move (``fits``: seat ->
    hypothesis, set before each game): its ``rank`` values are the best reply table's."""

    def __init__(self, game, options, fits):
        self.fits_by_seat = dict(fits)
        super().__init__(game, 0, options)

    def fitted(self, seat):
        return self.fits_by_seat.get(seat)


class Judged:
    """Plays as ``player`` and adds, at each of its decisions, what it gives up by the
    judge's values (the best reply's value of its best action minus its action's)."""

    def __init__(self, player, judge):
        self.player, self.judge, self.given_up = player, judge, 0.0

    def reset(self, seed=None):
        self.player.reset(seed)
        self.given_up = 0.0

    def observe(self, event):
        self.player.observe(event)

    def choose(self, state):
        action = self.player.choose(state)
        values = {d.action: d.value for d in self.judge.rank(state)}
        self.given_up += max(values.values()) - values[action]
        return action

    def __getattr__(self, name):
        return getattr(self.player, name)


def interval(values) -> tuple[float, float]:
    """(mean, half-width of its 95 % normal interval), as the arena computes it."""
    mean, _low, high = mean_interval(values)
    return mean, high - mean


def reply_values(game, options, bots):
    """The best reply's exact P(win) per seat of the judged player (seat 0 begins) against
    ``bots`` (hypotheses, in seat order after him)."""
    if len(bots) == 1:
        table = adaptive_kocka.best_reply_table(game.rules, bots[0], options)
        return [float(table.reply[0, 0]), float(table.waiting[0, 0])]
    table = adaptive_kocka.best_reply_three_table(game.rules, *bots, options)
    return list(table.starts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    parser.add_argument("--bots", default=None,
                        help="two players: bots, comma-separated (default heuristic,bold,cautious); three "
                             "players: tables A+B, comma-separated (default heuristic+cautious)")
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    n = args.players
    game = get_game("kocka", None, num_players=n)
    options = AgentOptions(cache_dir=args.cache_dir, build_missing=True)
    hypotheses = {h.name: h for h in adaptive_kocka.HYPOTHESES if not h.equilibrium}
    tables = (args.bots or ("heuristic,bold,cautious" if n == 2 else "heuristic+cautious")).split(",")
    compared = ("adaptive",) if n == 2 else ("leader", "adaptive")
    print(f"kocka, {n} players, default rules; {args.games} games per table, seed {args.seed}, seats rotating; "
          "95 % normal intervals")
    header = f"{'bots':<20} {'reply (exact)':>13} {'room left by optimal':>22} {'optimal = reply - room':>24} " \
             f"{'optimal, wins':>17}"
    for agent in compared:
        header += f" {'room left by ' + agent:>22} {agent + ' gain over optimal':>27}"
    if n == 3:
        header += f" {'adaptive gain over leader':>27}"
    print(header + f" {'s':>6}")
    for names in tables:
        bot_names = names.split("+")
        if len(bot_names) != n - 1 or any(name not in hypotheses for name in bot_names):
            print(f"{names}: give {n - 1} of the fitted policies ({', '.join(hypotheses)}), joined by '+'",
                  file=sys.stderr)
            return 2
        started = time.process_time()
        bots = [hypotheses[name] for name in bot_names]
        starts = reply_values(game, options, bots)
        judge = ReplyJudge(game, options, {})
        players = {agent: Judged(make_agent(agent, game, 0, options), judge) for agent in ("optimal", *compared)}
        seated = [make_agent(name, game, 0, options) for name in bot_names]
        rooms = {agent: [] for agent in players}
        wins, reply = [], []
        for i in range(args.games):
            seat = i % n
            judge.fits_by_seat = {(seat + k) % n: bots[k - 1] for k in range(1, n)}
            reply.append(starts[seat])
            for agent, judged in players.items():
                judged.reset(derive_seed("agent", args.seed, i, 0))
                lineup = [None] * n
                lineup[seat] = judged
                for k, bot in enumerate(seated, start=1):
                    bot.reset(derive_seed("agent", args.seed, i, k))
                    lineup[(seat + k) % n] = bot
                state = play_match(game, lineup, ChanceSampler(derive_seed("game", args.seed, i)))
                rooms[agent].append(judged.given_up)
                if agent == "optimal":
                    wins.append(float(win_shares(np.asarray(game.returns(state), dtype=float))[seat]))
        room, room_half = interval(rooms["optimal"])
        won, won_half = interval(wins)
        line = (f"{names:<20} {np.mean(reply):>13.4f} {room:>+12.4f} ± {room_half:.4f} "
                f"{np.mean(reply) - room:>14.4f} ± {room_half:.4f}   {won:>7.4f} ± {won_half:.4f}")
        for agent in compared:
            left, left_half = interval(rooms[agent])
            gain, gain_half = interval(np.asarray(rooms["optimal"]) - np.asarray(rooms[agent]))
            line += f" {left:>+13.4f} ± {left_half:.4f} {gain:>+18.4f} ± {gain_half:.4f}"
        if n == 3:
            gain, gain_half = interval(np.asarray(rooms["leader"]) - np.asarray(rooms["adaptive"]))
            line += f" {gain:>+18.4f} ± {gain_half:.4f}"
        print(line + f" {time.process_time() - started:>6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
