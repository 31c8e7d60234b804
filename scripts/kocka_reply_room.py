#!/usr/bin/env python3
"""How much any player could gain over ``optimal`` against a Kocka bot (issue 27): the room
the ``adaptive`` agent has, two players, default rules (KOCKA-1..20, ``kocka.end =
immediate``).

    python scripts/kocka_reply_room.py --games 2000 --seed 3 [--bots heuristic,bold,cautious]

For each bot B, its *best reply table* (``kocka.agents.bots.adaptive_kocka.best_reply_table``:
B's exact turn outcomes under its policy, the race solved one-sided) gives

* ``reply``: the best reply's exact P(win) against B from the start, averaged over the two
  seats: what the strongest possible player wins against B;
* ``room``: how much of it ``optimal`` leaves, ``reply - P(optimal wins against B)``,
  estimated without noise from the dice: the table's value is a martingale under the best
  reply's play, B's turns and the dice, and drops at each of ``optimal``'s moves by exactly
  the best reply's value of its best action minus that of ``optimal``'s action. Summed
  over a game, its mean is the room (seats rotating); the sum's spread per game is a
  fraction of a win's, so a few thousand games bound the room far more tightly than a
  paired arena run of ``adaptive`` against ``optimal`` can bound a gain;
* ``optimal``: ``reply - room``, and ``optimal``'s win share over the same games (a check:
  it must agree within its own, much wider, interval);
* ``adaptive``'s room over the same games (the same dice and the bot's same draws), and its
  gain over ``optimal``: the difference of the two rooms game by game, with its interval.
  The same estimator as a paired arena run's gain without the dice's noise in it (each
  game's win share is its start value minus its room plus a martingale's noise of mean 0).

Exact where the bot's play is one of the fitted policies (the adaptive agent's
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
    """The adaptive agent with its opponent fitted to one hypothesis from the first move:
    its ``rank`` values are the best reply table's."""

    def __init__(self, game, options, hypothesis):
        self.hypothesis = hypothesis
        super().__init__(game, 0, options)

    def fitted(self, seat):
        return self.hypothesis


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--bots", default="heuristic,bold,cautious")
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    game = get_game("kocka", None, num_players=2)
    options = AgentOptions(cache_dir=args.cache_dir)
    hypotheses = {h.name: h for h in adaptive_kocka.HYPOTHESES if not h.equilibrium}
    print(f"kocka, two players, default rules; {args.games} games per bot, seed {args.seed}, seats rotating; "
          "95 % normal intervals")
    print(f"{'bot':<10} {'reply (exact)':>13} {'room left by optimal':>22} {'optimal = reply - room':>24} "
          f"{'optimal, wins':>22} {'room left by adaptive':>22} {'adaptive gain over optimal':>27} {'s':>6}")
    for name in args.bots.split(","):
        if name not in hypotheses:
            print(f"{name}: not one of the fitted policies ({', '.join(hypotheses)})", file=sys.stderr)
            return 2
        started = time.process_time()
        table = adaptive_kocka.best_reply_table(game.rules, hypotheses[name], options)
        reply = (float(table.reply[0, 0]) + float(table.waiting[0, 0])) / 2
        judge = ReplyJudge(game, options, hypotheses[name])
        players = {agent: Judged(make_agent(agent, game, 0, options), judge) for agent in ("optimal", "adaptive")}
        bot = make_agent(name, game, 0, options)
        rooms = {agent: [] for agent in players}
        wins = []
        for i in range(args.games):
            seat = i % 2
            for agent, judged in players.items():
                judged.reset(derive_seed("agent", args.seed, i, 0))
                bot.reset(derive_seed("agent", args.seed, i, 1))
                state = play_match(game, [judged, bot] if seat == 0 else [bot, judged],
                                   ChanceSampler(derive_seed("game", args.seed, i)))
                rooms[agent].append(judged.given_up)
                if agent == "optimal":
                    wins.append(float(win_shares(np.asarray(game.returns(state), dtype=float))[seat]))
        room, room_half = interval(rooms["optimal"])
        won, won_half = interval(wins)
        left, left_half = interval(rooms["adaptive"])
        gain, gain_half = interval(np.asarray(rooms["optimal"]) - np.asarray(rooms["adaptive"]))
        print(f"{name:<10} {reply:>13.4f} {room:>+12.4f} ± {room_half:.4f} {reply - room:>14.4f} ± {room_half:.4f}"
              f"   {won:>12.4f} ± {won_half:.4f} {left:>+13.4f} ± {left_half:.4f} {gain:>+18.4f} ± {gain_half:.4f}"
              f" {time.process_time() - started:>6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
