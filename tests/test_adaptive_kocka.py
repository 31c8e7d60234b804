"""The adaptive Kocka agent (issue 27): the fitted opponent, the best reply table, the agent.

Where the expected numbers come from:

* the best reply table against a fixed threshold player is compared with a brute-force
  solve over the engine's states (every roll outcome and every legal action of
  :class:`KockaGame`, KOCKA-4..20, no turn model, no policy DP) on a two-player variant
  with a 150-point target;
* the fitted opponent: a threshold bot's own decisions, played through the engine, must
  leave the posterior on that threshold and not on its neighbours;
* the posterior update is checked against Bayes' rule by hand.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np
import pytest

from kocka.agents.bots.adaptive_kocka import (
    ERROR_RATE, HYPOTHESES, OpponentFit, best_reply_table, threshold_player,
)
from kocka.agents.bots.base import ChanceSampler, Event
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import play_match
from kocka.solver.rules import CHANCE
from kocka.solver.rules.kocka import STAGE_ROLL, Bank, KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.best_reply import solve_best_reply
from kocka.solver.solvers.kocka.kocka_turn import kocka_model
from kocka.solver.solvers.kocka.policy_turns import CAP_ABOVE_TARGET, policy_turn_outcomes

TINY = KockaRules.from_options({"target": 150, "series_threshold": 10000, "min_bank_points": 100})
"""Three scores per player (0, 50, 100), the 100-point minimum bank in play (KOCKA-13), no
series (the 2500+ phase, here 10000, is never reached: KOCKA-2)."""


def brute_force_race(rules: KockaRules, opponent_points: int) -> tuple[np.ndarray, np.ndarray]:
    """``(mine, theirs)``: P(seat 0 wins) at the start of seat 0's / seat 1's turn with
    banked units (a, b), seat 0 maximising over every legal action of the engine and
    seat 1 playing the threshold bot; score pairs in decreasing a + b, each pair's two
    bust values (a bust leaves the scores, passing the turn) by Newton steps on the turn
    values, which are piecewise linear in the bust value (value and slope carried).

    Every engine answer (chance outcomes, legal actions, transitions, the bot's choice)
    is asked once per state and kept (:func:`functools.lru_cache`): the Newton steps walk
    the same turn again with another bust value, and only the arithmetic is redone."""
    game = KockaGame(rules, num_players=2)
    opponent = threshold_player(opponent_points)(game, 0)
    goal = rules.target // 50
    cap = rules.target + CAP_ABOVE_TARGET  # the policy DP's cap: the opponent has reached the target
    mine = np.zeros((goal, goal))
    theirs = np.zeros((goal, goal))

    @lru_cache(maxsize=None)
    def rolled(state):
        return tuple((game.apply(state, roll), p) for roll, p in game.chance_outcomes(state))

    @lru_cache(maxsize=None)
    def chosen(state):
        return tuple(game.apply(state, a) for a in game.legal_actions(state))

    @lru_cache(maxsize=None)
    def opponent_chose(state):
        return game.apply(state, opponent.choose(state))

    throws_past_the_target: dict = {}

    def ends_at_once(state):
        """(P(win now), P(full only), P(bust)) of seat 0's compulsory throw (KOCKA-11)
        with the target already in his turn total: any set-aside that leaves dice lets
        him bank and win, a full one throws again in the same situation: with the target
        in hand the turn total no longer matters, so the three are kept per the rest of
        the state (every total a chain of full rolls reaches shares them)."""
        key = tuple(getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "turn_total")
        if key not in throws_past_the_target:
            win = full = bust_p = 0.0
            for after, p in rolled(state):
                if after.player != 0:
                    bust_p += p
                elif game.is_terminal(after):
                    win += p
                elif any(game.apply(after, a).stage != STAGE_ROLL for a in game.legal_actions(after)):
                    win += p
                else:
                    full += p
            throws_past_the_target[key] = win, full, bust_p
        return throws_past_the_target[key]

    def turn(state, start, bust, memo):
        """(value, d value / d bust) of the rest of the turn of ``start``'s player."""
        if state in memo:
            return memo[state]
        if game.is_terminal(state):
            result = (game.returns(state)[0], 0.0)
        elif state.player != start.player:  # the turn has passed
            if state.scores == start.scores:
                result = (bust, 1.0)
            else:
                a, b = (s // 50 for s in state.scores)
                result = (float((theirs if state.player == 1 else mine)[a, b]), 0.0)
        elif state.player == 1 and state.turn_total >= cap:
            result = (0.0, 0.0)
        elif state.player == 0 and game.current_player(state) == CHANCE and state.turn_total >= max(
                game.points_to_target(state), rules.bank_minimum(game.phase(state))):  # a bank would win
            # v = P(win now) + P(full only) v + P(bust) x
            win, full, bust_p = ends_at_once(state)
            result = ((win + bust_p * bust) / (1.0 - full), bust_p / (1.0 - full))
        elif game.current_player(state) == CHANCE:
            value = slope = 0.0
            for after, p in rolled(state):
                v, s = turn(after, start, bust, memo)
                value, slope = value + p * v, slope + p * s
            result = (value, slope)
        elif state.player == 1:
            result = turn(opponent_chose(state), start, bust, memo)
        else:
            result = max(turn(after, start, bust, memo) for after in chosen(state))
        memo[state] = result
        return result

    for total in range(2 * goal - 2, -1, -1):
        for a in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            b = total - a
            scores = (a * 50, b * 50)
            my_start = KockaState(scores=scores, player=0)
            their_start = KockaState(scores=scores, player=1)
            # theirs = c + p * mine (a fixed policy: linear); mine = f(theirs)
            c, p = turn(their_start, their_start, 0.0, {})
            guess = 0.5
            for _step in range(60):
                x = c + p * guess
                value, slope = turn(my_start, my_start, x, {})
                new = (value + slope * (c - x)) / (1.0 - slope * p)
                if abs(new - guess) < 1e-14:
                    guess = new
                    break
                guess = new
            mine[a, b], theirs[a, b] = guess, c + p * guess
    return mine, theirs


@pytest.fixture(scope="module")
def threshold_150_turns():
    """The turn outcomes of the 150-point threshold player on TINY, below and at 2500+."""
    policy = threshold_player(150)
    return [policy_turn_outcomes(TINY, lambda game: policy(game, 0).choose, high) for high in (False, True)]


def test_the_best_reply_table_equals_a_brute_force_solve_over_the_engine(threshold_150_turns):
    # reference: brute_force_race above (engine states, every legal action; KOCKA-4..20)
    model = kocka_model(TINY)
    table = solve_best_reply(model.turn, model.goal, threshold_150_turns)
    mine, theirs = brute_force_race(TINY, 150)
    assert np.max(np.abs(table.reply - mine)) < 1e-9
    assert np.max(np.abs(table.waiting - theirs)) < 1e-9
    # and the reply beats the fixed threshold player from the first seat (not a tie)
    assert table.reply[0, 0] > 0.5


def test_the_policy_turn_outcomes_add_up_and_the_transition_keeps_the_mass(threshold_150_turns):
    # reference: a turn ends in exactly one of bank / bust / instant win (KOCKA-9..19)
    out = threshold_150_turns[1]  # the 2500+ phase (series allowed)
    total = out.bank.sum() + out.bust_after.sum() + out.bust_unbankable + out.instant_win
    assert total == pytest.approx(1.0, abs=1e-12)
    move, stay, reach = out.transition(2, 4)  # two units to go: every bank of 2+ reaches
    assert move.sum() + stay + reach == pytest.approx(1.0, abs=1e-12)
    # need 2 units: reach = P(bank >= 2) + P(bust after a bankable total >= 2) + instant wins
    expected = out.bank[2:].sum() + out.bust_after[2:].sum() + out.instant_win
    assert reach == pytest.approx(expected, abs=1e-12)


def test_the_posterior_follows_bayes_rule():
    # by hand: two hypotheses, three legal actions, the first agrees twice, the second once
    fit = OpponentFit(2)
    fit.update([True, False], 3)
    fit.update([True, True], 3)
    agree, miss = 1 - ERROR_RATE, ERROR_RATE / 2
    expected = (agree * agree) / (agree * agree + miss * agree)
    assert fit.posterior()[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("points", [500, 1000, 1500])
def test_the_posterior_settles_on_the_threshold_the_opponent_plays(points):
    # reference: the threshold bot's own decisions (engine play, default rules): its own
    # hypothesis must end with the mass, its neighbours (500 apart) with almost none
    game = KockaGame(KockaRules(), num_players=2)
    policies = [h.make(game, AgentOptions()) for h in HYPOTHESES if not h.equilibrium]  # no table needed
    fits = OpponentFit(len(policies))
    bots = [threshold_player(points)(game, 0), threshold_player(points)(game, 1)]
    state, before = game.new_initial_state(), game.new_initial_state()
    sampler = ChanceSampler(7)
    rolls = 0
    for _step in range(400):  # about a dozen turns of each seat
        player = game.current_player(state)
        if player < 0 and player != CHANCE:
            break
        if player == CHANCE:
            action = sampler.sample(game, state, rolls)
            rolls += 1
        else:
            action = bots[player].choose(state)
            actions = game.legal_actions(state)
            if player == 1 and len(actions) > 1:
                fits.update([p.choose(state) == action for p in policies], len(actions))
        state = game.apply(state, action)
    names = [h.name for h in HYPOTHESES if not h.equilibrium]
    post = fits.posterior()
    assert names[int(np.argmax(post))] == f"bank-{points}"
    assert post[names.index(f"bank-{points}")] > 0.95


def test_the_agent_is_legal_fits_its_opponent_and_replies(tmp_path):
    # reference: the engine's legal actions (KOCKA-5..13) at every decision of a match;
    # the fit: the opponent is the cautious bot (banks every allowed total, KOCKA-12)
    rules = KockaRules.from_options({"target": 800, "series_threshold": 400, "min_bank_points": 100})
    game = KockaGame(rules, num_players=2)
    options = AgentOptions(cache_dir=tmp_path, build_missing=True)
    agent = make_agent("adaptive", game, 3, options)
    assert agent.has_memory
    cautious = make_agent("cautious", game, 0, options)
    checked = []
    final = play_match(game, [_Legal(agent, game, checked), cautious], ChanceSampler(11))
    assert game.is_terminal(final) and checked
    assert agent.fitted(1) is not None and agent.fitted(1).name == "cautious"
    # the table it replies with was built once and is kept (in memory and in the cache)
    table = best_reply_table(rules, next(h for h in HYPOTHESES if h.name == "cautious"), options)
    assert table is best_reply_table(rules, next(h for h in HYPOTHESES if h.name == "cautious"), options)
    assert list(tmp_path.glob("kocka-adaptive-cautious-*.npz"))
    agent.reset()
    assert agent.fitted(1) is None


class _Legal:
    """Seat wrapper: plays ``agent``'s choice after checking it is legal, and passes
    every event on (the agent has memory)."""

    def __init__(self, agent, game, seen):
        self.agent, self.game, self.seen = agent, game, seen
        self.has_memory = True
        self.name = agent.name

    def choose(self, state):
        action = self.agent.choose(state)
        assert action in self.game.legal_actions(state)
        self.seen.append(action)
        return action

    def observe(self, event: Event) -> None:
        self.agent.observe(event)


@pytest.mark.parametrize("player", ["random", "optimal"])
def test_the_room_for_gain_is_what_the_best_reply_table_loses_by_its_values(tmp_path, player):
    """scripts/kocka_reply_room.py's estimator: the best reply table's value (against
    `cautious`, KOCKA-12) is a martingale under the best reply's play, cautious's turns and
    the dice, and drops at each move of another player by exactly the table's value of the
    best action minus that of his action. So per game, what ``player`` gives up by those
    values minus (the table's value of his seat at the start - his win share) has mean 0
    (the reply's seat value: ``reply[0, 0]`` moving first, ``waiting[0, 0]`` second). 200
    seeded games on a 800-point race with series from 400: |mean| within 4.5 standard
    errors; `random` gives up a great deal (so a judge summing nothing fails), `optimal`
    little but not nothing."""
    from kocka.agents.bots.base import derive_seed
    from kocka.agents.frontends.games.arena import win_shares
    from script_modules import script_module

    room = script_module("kocka_reply_room")
    rules = KockaRules.from_options({"target": 800, "series_threshold": 400, "min_bank_points": 100})
    game = KockaGame(rules, num_players=2)
    options = AgentOptions(cache_dir=tmp_path, build_missing=True)
    cautious_hypothesis = next(h for h in HYPOTHESES if h.name == "cautious")
    table = best_reply_table(rules, cautious_hypothesis, options)
    judged = room.Judged(make_agent(player, game, 0, options), room.ReplyJudge(game, options, {0: cautious_hypothesis, 1: cautious_hypothesis}))
    cautious = make_agent("cautious", game, 0, options)
    differences, given_up = [], []
    for i in range(200):
        seat = i % 2
        judged.reset(derive_seed("agent", 4, i, 0))
        final = play_match(game, [judged, cautious] if seat == 0 else [cautious, judged],
                           ChanceSampler(derive_seed("game", 4, i)))
        start_value = float(table.reply[0, 0] if seat == 0 else table.waiting[0, 0])
        share = float(win_shares(np.asarray(game.returns(final), dtype=float))[seat])
        differences.append(judged.given_up - (start_value - share))
        given_up.append(judged.given_up)
    differences = np.asarray(differences)
    standard_error = differences.std(ddof=1) / np.sqrt(len(differences))
    assert abs(differences.mean()) <= 4.5 * standard_error, (differences.mean(), standard_error)
    assert min(given_up) >= -1e-9
    assert np.mean(given_up) > (0.2 if player == "random" else 0.0), np.mean(given_up)


# ----------------------------------------------------------------------------------------
# three players: the joint best reply to two fitted opponents
# ----------------------------------------------------------------------------------------
SMALL = KockaRules.from_options({"target": 400, "series_threshold": 200, "min_bank_points": 100})
"""Eight scores per player, both phases (KOCKA-2) and the 100-point minimum bank (KOCKA-13)
in play."""


def _turns(rules, policy):
    return [policy_turn_outcomes(rules, lambda game: policy(game, 0).choose, high) for high in (False, True)]


def reference_three(rules, next_turns, last_turns):
    """``(mine, to_next, to_last)`` of the one-sided three-player race solved without the
    kernel's loop: triples in decreasing total, each one's fixed point (my bust and both
    opponents' stays return to it, RULES KOCKA-20 ``immediate``) by plain repeated
    substitution through the turn model, every sum over the opponents' banks written out."""
    from kocka.solver.solvers.kocka.best_reply import opponent_chain
    from kocka.solver.solvers.kocka.turn_model import solve_turn

    model = kocka_model(rules)
    goal = model.goal
    next_chain = opponent_chain(next_turns, model.turn.threshold, goal)
    last_chain = opponent_chain(last_turns, model.turn.threshold, goal)
    mine, to_next, to_last = (np.zeros((goal,) * 3) for _ in range(3))
    for total in range(3 * goal - 3, -1, -1):
        for a in range(goal):
            for b in range(goal):
                c = total - a - b
                if not 0 <= c < goal:
                    continue
                move_n, stay_n, _ = next_chain[b]
                move_l, stay_l, _ = last_chain[c]
                moved_last = sum(move_l[t] * mine[a, b, c + t] for t in range(1, goal - c))
                moved_next = sum(move_n[t] * to_last[a, b + t, c] for t in range(1, goal - b))
                bank = np.array([to_next[a + t, b, c] if a + t < goal else 1.0 for t in range(goal - a)])
                v = 0.5
                for _ in range(500):
                    bust = moved_next + stay_n * (moved_last + stay_l * v)
                    tv = solve_turn(model.turn, model.turn.phase_index(a), bank, goal - a, bust=bust, boundary="goal")
                    new = float(tv.val[0, model.turn.roll_slot(tv.phase.opening_kind)])
                    if abs(new - v) < 1e-14:
                        break
                    v = new
                mine[a, b, c] = v
                to_last[a, b, c] = moved_last + stay_l * v
                to_next[a, b, c] = moved_next + stay_n * to_last[a, b, c]
    return mine, to_next, to_last


def test_the_three_player_best_reply_equals_a_plain_solve_of_its_equations():
    # reference: reference_three above (the same equations, no Newton steps, no kernel loop)
    from kocka.agents.bots.heuristic import KockaCautious
    from kocka.solver.solvers.kocka.best_reply import solve_best_reply_three

    model = kocka_model(SMALL)
    next_turns, last_turns = _turns(SMALL, threshold_player(200)), _turns(SMALL, KockaCautious)
    table = solve_best_reply_three(model.turn, model.goal, next_turns, last_turns, threads=2)
    mine, to_next, to_last = reference_three(SMALL, next_turns, last_turns)
    assert np.max(np.abs(table.to_next - to_next)) < 1e-10
    assert np.allclose(table.starts, (mine[0, 0, 0], to_last[0, 0, 0], to_next[0, 0, 0]), rtol=0, atol=1e-10)
    # the seats differ: moving first is worth more than moving last against the same two
    assert table.starts[0] > table.starts[2]


def test_against_a_player_who_never_scores_the_three_player_reply_is_the_two_player_one(threshold_150_turns):
    # reference: solve_best_reply (checked against the engine brute force above); a player
    # whose every turn busts before any bankable total (stay 1) leaves the race to the
    # other two, whichever of the two seats after me he takes
    from kocka.solver.solvers.kocka.best_reply import solve_best_reply_three
    from kocka.solver.solvers.kocka.policy_turns import PolicyTurnOutcomes

    rules = KockaRules.from_options({"target": 800, "series_threshold": 400, "min_bank_points": 100})
    model = kocka_model(rules)
    scorer = _turns(rules, threshold_player(300))
    never = [PolicyTurnOutcomes(scorer[0].unit, np.zeros(1), np.zeros(1), 1.0, 0.0)] * 2
    two = solve_best_reply(model.turn, model.goal, scorer)
    after_me = solve_best_reply_three(model.turn, model.goal, scorer, never)
    last = solve_best_reply_three(model.turn, model.goal, never, scorer)
    assert np.max(np.abs(after_me.to_next - two.waiting[:, :, None])) < 1e-12
    # the silent player next: his turn passes straight to the scorer's
    assert np.max(np.abs(last.to_next - two.waiting[:, None, :])) < 1e-12
    # seat 0 begins: in seat 1 the silent last player (seat 0) hands me the first turn, in
    # seat 2 the scorer (seat 0, next after me) throws first
    assert np.allclose(after_me.starts, (two.reply[0, 0], two.reply[0, 0], two.waiting[0, 0]), rtol=0, atol=1e-12)


def test_at_three_players_the_agent_replies_to_both_fits_jointly(tmp_path):
    # reference: the engine's legal actions at every decision (KOCKA-5..13), and the joint
    # table's own values; the agent is fitted from the first move (the fit itself is
    # tested above), to the bots that sit after it: cautious, then bold (KOCKA-12)
    from kocka.agents.bots.adaptive_kocka import best_reply_three_table
    from script_modules import script_module

    game = KockaGame(SMALL, num_players=3)
    options = AgentOptions(cache_dir=tmp_path, build_missing=True)
    hypotheses = {h.name: h for h in HYPOTHESES}
    fits = {1: hypotheses["cautious"], 2: hypotheses["bold"]}
    agent = script_module("kocka_reply_room").ReplyJudge(game, options, fits)
    checked = []
    final = play_match(game, [_Legal(agent, game, checked), make_agent("cautious", game, 0, options),
                              make_agent("bold", game, 0, options)], ChanceSampler(5))
    assert game.is_terminal(final) and checked
    assert list(tmp_path.glob("kocka-adaptive-cautious+bold-*.npz"))
    table = best_reply_three_table(SMALL, hypotheses["cautious"], hypotheses["bold"], options)
    # where it may bank, banking's value is the table's value of the next player's turn at
    # the banked scores (units of 50 points; the dice of a turn leave the others' alone)
    for seat, fits in ((0, {1: "cautious", 2: "bold"}), (1, {2: "cautious", 0: "bold"})):
        agent.fits_by_seat = {s: hypotheses[name] for s, name in fits.items()}
        state = _bank_decision(game, KockaState(scores=(100, 50, 150), player=seat))
        ranked = agent.rank(state)
        assert ranked[0].detail["fitted"] == "cautious, bold"
        bank = next(d for d in ranked if isinstance(d.action, Bank))
        a, b, c = (state.scores[(seat + k) % 3] // 50 for k in range(3))
        assert abs(bank.value - table.to_next[a + state.turn_total // 50, b, c]) < 1e-12


def _bank_decision(game, state):
    """``state``'s player throws 1, 1, 2, 3, 4, 6 and sets the two 1s aside: 200 points
    (KOCKA-5), over the 100-point minimum bank, so he may bank (KOCKA-13)."""
    from kocka.solver.rules.kocka import SetAside

    state = game.apply(game.apply(state, (1, 1, 2, 3, 4, 6)), SetAside(dice=(1, 1)))
    assert Bank() in game.legal_actions(state) and state.turn_total == 200
    return state


def test_a_damaged_or_foreign_joint_table_in_the_cache_is_never_used(tmp_path, monkeypatch):
    # reference: the cache's own contract (adaptive_kocka: "computed again when missing or
    # damaged"): a truncated file and one of another goal's shape are refused; where none
    # may be built that is None (the agent races the leader), with building allowed the
    # table is solved again and written whole over them
    from kocka.agents.bots import adaptive_kocka
    from kocka.agents.bots.adaptive_kocka import best_reply_three_table, table_path

    # the tables other tests solved stay in memory by rules: this test reads the disk
    monkeypatch.setattr(adaptive_kocka, "_THREE_TABLES", {})
    monkeypatch.setattr(adaptive_kocka, "_THREE_UNUSABLE", {})
    # the tiny variant: the cache's handling is the same at any goal, and its solve is quick
    hypotheses = {h.name: h for h in HYPOTHESES}
    pair = (hypotheses["cautious"], hypotheses["bold"])
    path = table_path(TINY, "cautious+bold", tmp_path)
    goal = kocka_model(TINY).goal
    for damaged in (b"PK\x03\x04 not a whole archive", None):
        if damaged is None:
            np.savez(path, to_next=np.zeros((goal - 1,) * 3), starts=np.zeros(3), turn_evaluations=0)
        else:
            path.write_bytes(damaged)
        assert best_reply_three_table(TINY, *pair, AgentOptions(cache_dir=tmp_path)) is None
    table = best_reply_three_table(TINY, *pair, AgentOptions(cache_dir=tmp_path, build_missing=True))
    assert table.to_next.shape == (goal,) * 3
    with np.load(path) as stored:
        assert stored["to_next"].shape == (goal,) * 3
