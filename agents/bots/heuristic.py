"""Human-like rule-set agents: ``heuristic`` for every game, and the two Kocka styles of
the Hungarian rules, ``bold`` and ``cautious``.

None of them looks at a value table. The rules each plays by are stated in the class
docstrings; they use the rules engines' own scoring functions and never re-implement a
rule. Their ``rank`` values are the rule set's own scores (``value_name`` says what they
are); rule agents that simply pick by priority give the chosen action 1 and the rest 0.

**Scorecard games** (kockapoker, slovak, yahtzee, yatzy, polish, polish-basic) share one
idea, "aim at one box": for every box the agent knows its *par*, the expected entry of a
whole turn played for that box alone, and how much each keep is worth when aiming at that
box (a three-throw look-ahead per box, :class:`BoxTargets`). It writes the box whose entry
beats its par by the most, or keeps the dice that promise the most over par for some box.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from kocka.agents.bots.base import Agent, ranked
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.base.dice import counts, outcome_distribution
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.decision import Decision
from kocka.solver.rules import Game
from kocka.solver.rules.bluff import Claim, LiarsPokerGame, actual_result, hand_of
from kocka.solver.rules.polish_scoring import COMBINATIONS, basic_value, box_value
from kocka.solver.rules.kocka import (
    STAGE_BANK_OR_ROLL, Bank, NameJoker, Roll, SetAside, StartSeries, TakeSeries,
)
from kocka.solver.rules.kocka_scoring import face_value, series_value


# ----------------------------------------------------------------------------------------
# Aiming at one box: a per-box three-throw look-ahead over the 252 outcomes and 462 keeps
# ----------------------------------------------------------------------------------------
class BoxTargets:
    """Per-box values of a turn aimed at that box alone.

    Parameters
    ----------
    stop_values : ndarray, shape (B, 252)
        Entry of each box for each outcome when written after a later throw.
    first_values : ndarray, shape (B, 252)
        The same when written right after the first throw (from hand, doubling).

    Attributes
    ----------
    keep_values : dict[int, ndarray (B, 462)]
        ``keep_values[r][b, k]``: expected entry of box b after keeping k with r throws
        left, then playing for box b alone.
    par : ndarray, shape (B,)
        Expected entry of a whole turn (three throws) played for box b alone.
    """

    def __init__(self, stop_values: np.ndarray, first_values: np.ndarray) -> None:
        tables = dice_tables(5)
        n_keeps, n_outcomes = len(tables.keeps), len(tables.outcomes)
        transition = np.zeros((n_keeps, n_outcomes))
        for k in range(n_keeps):
            lo, hi = tables.trans_indptr[k], tables.trans_indptr[k + 1]
            transition[k, tables.trans_indices[lo:hi]] = tables.trans_probs[lo:hi]
        ptr, rows = tables.outcome_keeps_indptr, tables.outcome_keeps

        def best_keep(keep_value: np.ndarray) -> np.ndarray:  # (B, 462) -> (B, 252): best keep per outcome
            return np.maximum.reduceat(keep_value[:, rows], ptr[:-1], axis=1)

        stop = np.asarray(stop_values, dtype=float)
        self.keep_values: dict[int, np.ndarray] = {1: stop @ transition.T}
        after_second = np.maximum(stop, best_keep(self.keep_values[1]))
        self.keep_values[2] = after_second @ transition.T
        after_first = np.maximum(np.asarray(first_values, dtype=float), best_keep(self.keep_values[2]))
        self.par = after_first @ tables.probs
        self.tables = tables

    def best_keep_over_par(self, boxes: Sequence[int], keeps: Sequence[tuple[int, ...]], throws_left: int) -> np.ndarray:
        """For each keep (sorted dice tuples), the best over ``boxes`` of its keep value
        minus the box's par; -inf when ``boxes`` is empty."""
        if not boxes:
            return np.full(len(keeps), -np.inf)
        rows = [self.tables._keep_lookup[k] for k in keeps]
        values = self.keep_values[min(throws_left, 2)][np.ix_(list(boxes), rows)] - self.par[list(boxes), None]
        return values.max(axis=0)

    def best_now(self, box: int, dice: Sequence[int], throws_left: int, stop_value: float) -> float:
        """Value of aiming at ``box`` from these dice: stop now, or the best keep."""
        if throws_left <= 0:
            return stop_value
        values = self.keep_values[min(throws_left, 2)][box]
        o = self.tables.outcome_index(dice)
        ptr, rows = self.tables.outcome_keeps_indptr, self.tables.outcome_keeps
        return max(stop_value, float(values[rows[ptr[o]:ptr[o + 1]]].max()))


def _all_dice() -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in row) for row in dice_tables(5).outcomes]


@lru_cache(maxsize=32)
def _scorecard_targets(game_class: type, rules: Any) -> BoxTargets:
    game = game_class(rules)
    table = game.score_table()  # [box, outcome, first_throw]
    return BoxTargets(table[:, :, 0], table[:, :, 1])


@lru_cache(maxsize=32)
def _polish_targets(rules: Any) -> BoxTargets:
    dice = _all_dice()
    later = np.array([[box_value(b, d, False, rules) for d in dice] for b in rules.boxes])
    first = np.array([[box_value(b, d, True, rules) for d in dice] for b in rules.boxes])
    return BoxTargets(later, first)


@lru_cache(maxsize=32)
def _polish_basic_targets(rules: Any) -> BoxTargets:
    dice = _all_dice()
    later = np.array([[basic_value(c, d, False, rules) for d in dice] for c in COMBINATIONS])
    first = np.array([[basic_value(c, d, True, rules) for d in dice] for c in COMBINATIONS])
    return BoxTargets(later, first)


class ScorecardHeuristic(Agent):
    """Aim-at-one-box play of a five-dice scorecard game (kockapoker, slovak, yahtzee,
    yatzy).

    * **Write** box b: the points it scores now (entry plus any Yahtzee bonus, doubling
      from the first throw included) minus par(b).
    * **Keep** k: the best, over the boxes that may still be filled this turn, of the
      expected entry of aiming at that box after keeping k, minus its par.
    * **Declare** b (Slovak option): the value of aiming at b from these dice, minus par.

    * **The upper section** (HU house, SK part-1 bonus, Yahtzee/Yatzy bonus): like most
      players it counts on three of each face. Writing a face box also adds the change in
      the bonus that the card would get if every other open face box took exactly three
      (``final_bonus`` of the engine, before and after): two 6s that break the house cost
      their entry and the house.

    It plays the highest of these; equal values keep the engine's order (keeps before
    boxes).
    """

    name = "heuristic"
    description = "aims each turn at the box that beats its par by the most"
    value_name = "points over par"

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.targets = _scorecard_targets(type(game), game.rules)

    def rank(self, state: Any) -> list[Decision]:
        game = self.game
        actions = self.decision_actions(state)
        card = state.cards[state.player]
        yahtzee_box = getattr(game, "yahtzee_box", None)
        yahtzee_entry = None if yahtzee_box is None else card.entries[yahtzee_box]
        par = self.targets.par
        fill_boxes = [game.box_index(a.box) for a in actions if type(a).__name__ == "Fill"]
        throws_left = 3 - state.throw
        keeps = [a.dice for a in actions if type(a).__name__ == "Keep"]
        keep_values = dict(zip(keeps, self.targets.best_keep_over_par(fill_boxes, keeps, throws_left))) if keeps else {}
        decisions = []
        for a in actions:
            kind = type(a).__name__
            if kind == "Fill":
                b = game.box_index(a.box)
                s = game.fill_score(b, state.dice, state.throw == 1, card.filled_mask, yahtzee_entry)
                value = s.entry + s.bonus - par[b] + self._bonus_change(card, b, state.dice)
            elif kind == "Keep":
                value = keep_values[a.dice]
            else:  # Declare: aim at the declared face box from here
                b = game.box_index(a.box)
                now = game.box_score(b, state.dice, state.throw == 1)
                value = self.targets.best_now(b, state.dice, throws_left, now) - par[b]
            decisions.append(Decision(a, float(value), game.describe_action(a, state)))
        return ranked(decisions)


    def _bonus_change(self, card: Any, box: int, dice: Sequence[int]) -> float:
        """Bonus of the card if every other open face box gets exactly three of its face,
        after writing ``dice`` into ``box`` minus before it (0 for a lower box)."""
        game = self.game
        if box not in game.upper_boxes:
            return 0.0
        tracker = game.tracker_of(card)
        others = [b for b in game.upper_boxes if card.entries[b] is None and b != box]
        after = game.tracker_after(tracker, box, dice)
        before = game.tracker_after(tracker, box, _three_of(game.upper_face(box)))
        for b in others:
            three = _three_of(game.upper_face(b))
            after, before = game.tracker_after(after, b, three), game.tracker_after(before, b, three)
        return float(game.final_bonus(after) - game.final_bonus(before))


def _three_of(face: int) -> tuple[int, ...]:
    """Five dice with exactly three of ``face``."""
    other = face % 6 + 1
    return tuple(sorted((face, face, face, other, other)))


FENCE_VALUE = 2.0
"""Polish full game: points the heuristic credits for one fence (a spare throw later); a
rule of thumb, not a solved value (PL-12)."""


class PolishHeuristic(Agent):
    """Aim-at-one-box play of the full Polish game (PL-8..PL-17), fences included.

    * **Write** b after t throws: ``box_value`` (from-hand multipliers included) minus
      par(b), plus :data:`FENCE_VALUE` per fence the write earns (3 - t, PL-12).
    * **Scratch** b: the scratch entry (0, or -3f before any throw) minus par(b), plus the
      fences it earns.
    * **Keep** k (a throw): the best over the fillable boxes of aiming at it with the
      throws still in the budget (at most two counted), minus par, plus the fences left
      after this throw (negative when the throw spends one).
    * **Declare** b (stage 2): aiming at b from these dice, minus par.
    """

    name = "heuristic"
    description = "aims at the box that beats its par by the most; values a fence at 2 points"
    value_name = "points over par"

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.targets = _polish_targets(game.rules)
        self.index = {b: i for i, b in enumerate(game.rules.boxes)}

    def rank(self, state: Any) -> list[Decision]:
        game = self.game
        actions = self.decision_actions(state)
        par = self.targets.par
        t = state.throws
        budget = game.budget(state)
        fillable = list(dict.fromkeys(self.index[a.box] for a in actions if type(a).__name__ in ("Write", "Scratch")))
        keeps = [a.dice for a in actions if type(a).__name__ == "Keep" and state.dice is not None]
        keep_values = dict(zip(keeps, self.targets.best_keep_over_par(fillable, keeps, budget - t))) if keeps else {}
        decisions = []
        for a in actions:
            kind = type(a).__name__
            if kind == "Write":
                b = self.index[a.box]
                value = box_value(a.box, state.dice, t == 1, game.rules) - par[b] + FENCE_VALUE * (3 - t)
            elif kind == "Scratch":
                b = self.index[a.box]
                entry = game.scratch_entry(a.box) if t == 0 else 0  # PL-11
                value = entry - par[b] + FENCE_VALUE * (3 - t)
            elif kind == "Keep":
                fences_after = FENCE_VALUE * (3 - (t + 1))
                if state.dice is None:  # the first throw: a whole turn for the best box lies ahead
                    value = fences_after
                else:
                    value = keep_values[a.dice] + fences_after
            else:  # Declare
                b = self.index[a.box]
                now = box_value(a.box, state.dice, t == 1, game.rules)
                value = self.targets.best_now(b, state.dice, budget - t, now) - par[b]
            decisions.append(Decision(a, float(value), game.describe_action(a, state)))
        return ranked(decisions)


class PolishBasicHeuristic(Agent):
    """Aim-at-one-combination play of the basic Polish game (PL-4..PL-7).

    * **Record** c: its value (from-hand multipliers included) minus par(c); a record
      below par is worth less than waiting.
    * **End turn** without recording: 0.
    * **Keep** k: the best over the combinations not yet recorded of aiming at it, minus
      par.
    """

    name = "heuristic"
    description = "records a combination only when it beats its par"
    value_name = "points over par"

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.targets = _polish_basic_targets(game.rules)
        self.index = {c: i for i, c in enumerate(COMBINATIONS)}

    def rank(self, state: Any) -> list[Decision]:
        game = self.game
        actions = self.decision_actions(state)
        par = self.targets.par
        open_combos = [self.index[c] for c, v in zip(COMBINATIONS, state.records[state.player]) if v is None]
        keeps = [a.dice for a in actions if type(a).__name__ == "Keep" and state.dice is not None]
        keep_values = dict(zip(keeps, self.targets.best_keep_over_par(open_combos, keeps, 3 - state.throws))) if keeps else {}
        decisions = []
        for a in actions:
            kind = type(a).__name__
            if kind == "Record":
                value = basic_value(a.combo, state.dice, state.throws == 1, game.rules) - par[self.index[a.combo]]
            elif kind == "EndTurn":
                value = 0.0
            elif state.dice is None:  # the first throw
                value = 0.0
            else:
                value = keep_values[a.dice]
            decisions.append(Decision(a, float(value), game.describe_action(a, state)))
        return ranked(decisions)


# ----------------------------------------------------------------------------------------
# Kocka: heuristic, bold, cautious
# ----------------------------------------------------------------------------------------
class _KockaRuleAgent(Agent):
    """Common moves of the Kocka rule agents.

    Always name a joker before the last die of a series (it never hurts, KOCKA-18; the
    lowest face other than the series face), and in a series set aside every die that
    matches (KOCKA-15). A rule picks one action; ``rank`` gives it 1 and the others 0.
    """

    value_name = "rule choice (1 = chosen)"

    def rank(self, state: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        choice = self._choose(state, actions)
        decisions = [Decision(a, 1.0 if a == choice else 0.0, self.game.describe_action(a, state)) for a in actions]
        return ranked(decisions)

    def choose(self, state: Any) -> Any:
        """The rule's pick, as ``rank(state)[0].action`` but without labelling every
        action (policy DPs and brute-force checks ask it at every state of a turn)."""
        return self._choose(state, self.decision_actions(state))

    def _choose(self, state: Any, actions: list) -> Any:
        jokers = self.by_kind(actions, NameJoker)
        if jokers:
            return min(jokers, key=lambda a: a.face)
        takes = self.by_kind(actions, TakeSeries)
        if takes:
            return max(takes, key=lambda a: a.count)
        if state.stage == STAGE_BANK_OR_ROLL:
            return self._bank_or_roll(state, actions)
        return self._use_roll(state, actions)

    def _bank_or_roll(self, state: Any, actions: list) -> Any:
        raise NotImplementedError

    def _use_roll(self, state: Any, actions: list) -> Any:
        raise NotImplementedError

    # ----- helpers over the engine's scoring -----
    def value_of(self, state: Any, action: Any) -> int:
        return int(self.game.set_aside_points(state, action.dice) or 0)

    def wins_by_banking(self, state: Any) -> bool:
        return state.turn_total >= self.game.points_to_target(state)

    @staticmethod
    def by_kind(actions: list, kind: type) -> list:
        return [a for a in actions if isinstance(a, kind)]

    @staticmethod
    def best_series(series: list) -> Any:
        """Most dice first, then the more valuable series (1s are worth 10000, KOCKA-17)."""
        return max(series, key=lambda a: (a.count, series_value(a.face)))


class KockaHeuristic(_KockaRuleAgent):
    """A steady club player of Kocka.

    * **Set aside** every triple (three or six of a kind) and every 1; a 5 only when nothing else scores, and then a single one, to keep dice rolling.
    * **Series** (2500+, opening roll): only with four or more dice of one face, or when
      nothing else scores.
    * **Bank** (when allowed) if the bank wins the game, or the turn total reaches the
      threshold for the dice left: 1-2 dice any allowed total, 3 dice 400, 4 dice 700,
      5 dice 1500.
    """

    name = "heuristic"
    description = "a steady club player: triples and 1s, banks by a dice-left threshold"
    BANK_THRESHOLD = {1: 0, 2: 0, 3: 400, 4: 700, 5: 1500}

    def _bank_or_roll(self, state: Any, actions: list) -> Any:
        bank = self.by_kind(actions, Bank)
        if bank and (self.wins_by_banking(state) or state.turn_total >= self.BANK_THRESHOLD[state.dice_in_play]):
            return bank[0]
        return self.by_kind(actions, Roll)[0]

    def _use_roll(self, state: Any, actions: list) -> Any:
        set_asides = self.by_kind(actions, SetAside)
        series = self.by_kind(actions, StartSeries)
        long_series = [a for a in series if a.count >= 4]
        if series and (long_series or not set_asides):
            return self.best_series(long_series or series)
        if len(set_asides) == 1:
            return set_asides[0]
        preferred = _triples_and_ones(state.roll)
        for a in set_asides:
            if a.dice == preferred:
                return a
        single_five = [a for a in set_asides if a.dice == (5,)]
        return single_five[0] if single_five else max(set_asides, key=lambda a: self.value_of(state, a))


def _triples_and_ones(roll: Sequence[int]) -> tuple[int, ...]:
    """Every die of a triple or six of a kind, plus every 1 (KOCKA-5), sorted; empty if
    there is none: of each face, the most dice that score together (the engine's
    :func:`face_value`) when they are three or more, and all the 1s. A triple of 5s takes
    all the 5s (extra 5s add 50 each), four 2s only three. A straight that scores is a
    full roll, which the engine makes the only set-aside."""
    chosen: list[int] = []
    for face, k in zip(range(1, 7), counts(roll)):
        take = max((j for j in range(k + 1) if face_value(face, j) is not None and (j >= 3 or face == 1)), default=0)
        chosen += [face] * take
    return tuple(sorted(chosen))


class KockaCautious(_KockaRuleAgent):
    """The cautious style of the Hungarian rules: banks every total it is allowed to bank
    (KOCKA-12, KOCKA-13), never starts a series unless nothing else is possible, and sets
    aside the highest-scoring dice of each roll."""

    name = "cautious"
    description = "banks every allowed total; never chases a series"

    def _bank_or_roll(self, state: Any, actions: list) -> Any:
        bank = self.by_kind(actions, Bank)
        return bank[0] if bank else self.by_kind(actions, Roll)[0]

    def _use_roll(self, state: Any, actions: list) -> Any:
        set_asides = self.by_kind(actions, SetAside)
        if not set_asides:
            return self.best_series(self.by_kind(actions, StartSeries))
        return max(set_asides, key=lambda a: (self.value_of(state, a), -len(a.dice)))


class KockaBold(_KockaRuleAgent):
    """The bold style of the Hungarian rules: chases series and big turns.

    * **Series** (2500+, opening roll): starts one whenever a face shows three or more
      times (most dice first, then the more valuable series), or nothing else scores.
    * **Set aside** as few dice as possible: the best triple if there is one, else a
      single 1, else a single 5 (the whole roll when it is full).
    * **Bank** only if the bank wins the game, or the turn total is at least 2000, or at
      least 1000 with two dice or fewer left.
    """

    name = "bold"
    description = "chases series and big turns; banks at 1000+ with two dice left or 2000+"

    def _bank_or_roll(self, state: Any, actions: list) -> Any:
        bank = self.by_kind(actions, Bank)
        big = state.turn_total >= 2000 or (state.turn_total >= 1000 and state.dice_in_play <= 2)
        if bank and (self.wins_by_banking(state) or big):
            return bank[0]
        return self.by_kind(actions, Roll)[0]

    def _use_roll(self, state: Any, actions: list) -> Any:
        set_asides = self.by_kind(actions, SetAside)
        series = self.by_kind(actions, StartSeries)
        long_series = [a for a in series if a.count >= 3]
        if series and (long_series or not set_asides):
            return self.best_series(long_series or series)
        if len(set_asides) == 1:
            return set_asides[0]
        fewest = min(len(a.dice) for a in set_asides)
        triples = [a for a in set_asides if len(a.dice) == 3 and len(set(a.dice)) == 1]
        if triples:
            return max(triples, key=lambda a: self.value_of(state, a))
        return max((a for a in set_asides if len(a.dice) == fewest), key=lambda a: self.value_of(state, a))


# ----------------------------------------------------------------------------------------
# Bluff games
# ----------------------------------------------------------------------------------------
class BluffHeuristic(Agent):
    """A plain bluff player (Abázs, bidding bluff, liar's poker).

    * **Claim**: the truth when it is allowed (it ranks above the standing claim), else the
      lowest claim allowed (the smallest lie); stake 1 in the betting games; never
      re-throws (liar's poker).
    * **Answer**: doubts a claim that a fresh roll would reach (rank at or above it) with
      probability below :attr:`DOUBT_BELOW` -- challenges in Abázs, bets in the betting
      games (always when BLUFF-5 obliges). The probability uses only what the answerer
      may see: the public dice and a shown die (liar's poker), never the hidden ones.
    """

    name = "heuristic"
    description = "claims the truth or the smallest lie; doubts claims a roll rarely reaches"
    value_name = "rule choice (1 = chosen)"
    DOUBT_BELOW = 0.5

    def rank(self, state: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        choice = self._choose(state, actions)
        return ranked([Decision(a, 1.0 if a == choice else 0.0, self.game.describe_action(a, state)) for a in actions])

    def _choose(self, state: Any, actions: list) -> Any:
        kinds = {type(a).__name__: a for a in actions}
        claims = [a for a in actions if isinstance(a, Claim)]
        if claims:
            smallest_stake = min(a.stake for a in claims)
            claims = [a for a in claims if a.stake == smallest_stake]
            truth = self._actual(state)
            for a in claims:
                if a.claim == truth:
                    return a
            return claims[0]  # the engine lists claims lowest first
        doubt = kinds.get("Challenge") or kinds.get("Bet")
        trust = kinds.get("Accept") or kinds.get("Pass")
        if doubt is None or trust is None:
            return actions[0]
        return doubt if self._reach_probability(state) < self.DOUBT_BELOW else trust

    def _actual(self, state: Any) -> Any:
        if isinstance(self.game, LiarsPokerGame):
            if len(state.dice) != 2 or self.game.rules.claim != "hand":
                return None
            return hand_of(state.public + state.dice, self.game.rules)
        return actual_result(state.dice, self.game.rules.ranking)

    def _reach_probability(self, state: Any) -> float:
        """P(a fresh roll of the claimant's hidden dice ranks at or above the claim)."""
        standing = state.standing
        if isinstance(self.game, LiarsPokerGame):
            shown = self.game.shown_dice(state)
            total = 0.0
            for hidden, p in outcome_distribution(2 - len(shown)):
                if hand_of(state.public + shown + hidden, self.game.rules) >= standing:
                    total += p
            return total
        ranking = self.game.rules.ranking
        return sum(p for dice, p in outcome_distribution(2) if actual_result(dice, ranking) >= standing)


# ----------------------------------------------------------------------------------------
# Chip bidding over the Hungarian card
# ----------------------------------------------------------------------------------------
class ChipBiddingHeuristic(Agent):
    """Hungarian kockapóker with chip bidding (HU-10..HU-19): the card is played by
    :class:`ScorecardHeuristic`; the betting by the totals written so far.

    * **Raise** when its total leads every player still in (not passed) by at least
      :attr:`RAISE_LEAD` points; otherwise decline.
    * **Answer** a raise by holding when its total is within :attr:`HOLD_GAP` points of the
      best total still in, else pass; it never re-raises.
    """

    name = "heuristic"
    description = "plays the card by par; raises with a 20-point lead, holds within 10"
    value_name = "points over par / rule choice"
    RAISE_LEAD = 20
    HOLD_GAP = 10

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.card_agent = ScorecardHeuristic(game.card_game, seed)

    def rank(self, state: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        if state.phase == "play":
            return self.card_agent.rank(state.card)
        me = self.game.current_player(state)
        totals = self.game.totals(state)
        rivals = [t for p, t in enumerate(totals) if p != me and not state.passed[p]]
        lead = totals[me] - max(rivals, default=totals[me])
        kinds = {type(a).__name__: a for a in actions}
        if state.phase == "raise":
            choice = kinds["Raise"] if lead >= self.RAISE_LEAD and "Raise" in kinds else kinds.get("Decline", actions[-1])
        else:
            choice = kinds["Hold"] if lead >= -self.HOLD_GAP and "Hold" in kinds else kinds.get("Pass", actions[-1])
        return ranked([Decision(a, 1.0 if a == choice else 0.0, self.game.describe_action(a, state)) for a in actions])


# ----------------------------------------------------------------------------------------
# Factories (named by the games' specs)
# ----------------------------------------------------------------------------------------
def _factory(cls: Callable[[Game, int], Agent]) -> Callable[[Game, int, AgentOptions], Agent]:
    def factory(game: Game, seed: int, options: AgentOptions) -> Agent:
        return cls(game, seed)

    return factory


scorecard_heuristic = _factory(ScorecardHeuristic)
polish_heuristic = _factory(PolishHeuristic)
polish_basic_heuristic = _factory(PolishBasicHeuristic)
kocka_heuristic = _factory(KockaHeuristic)
bluff_heuristic = _factory(BluffHeuristic)
chip_bidding_heuristic = _factory(ChipBiddingHeuristic)


def bold_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return KockaBold(game, seed)


def cautious_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return KockaCautious(game, seed)
