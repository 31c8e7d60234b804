"""``kocka hint`` for the bluff games (Abázs, the bidding bluff, liar's kockapóker).

What a person types becomes a position of the game's engine: as the claimant, the dice he
rolled (``--dice``), the claim to beat (``--standing``), in liar's poker the public dice
(``--public``) and the die he kept and showed on a re-throw (``--shown``); as the
answerer, the claim he answers (``--claim``, with ``--stake`` in the betting games) and the
claim it beat (``--previous``); ``--chips`` gives his chips and the opponent's. Or
``--state`` gives a whole state document, or a seat's observation (the claimant's hidden
dice ``null``: an answer never looks at them).

The values come from the game's judges (``GameSpec.judges``): the exact two-player
equilibrium from its table when it is built and covers the position (the chips from here
to the end of the round against the equilibrium opponent; in Abázs the match plan, which
also prices who starts the next round), else the Bayesian bot's model (its prior: it has
seen no match). A claim is listed with whether it is true and the chance it is challenged
or bet on; an answer with P(the claim is true) given the claims so far, by Bayes' rule
over the claimant's equilibrium claims (or the bot's model of him).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.advice.hint import HintParams, HintReport, hint_option
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.decision import Decision
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import InvalidStateError, RulesError, TableError
from kocka.solver.rules.bluff import AbazsGame, Bet, BiddingBluffGame, BluffState, Challenge, Claim, LiarsPokerGame
from kocka.solver.base.i18n import LANGUAGES, N_, _, number, percent, use_language
from kocka.solver.rules.words import (
    action_text, claim_bodies, claim_text, dice_text, game_title, seat_label, without_claim_verb,
)

BluffGame = AbazsGame | BiddingBluffGame | LiarsPokerGame
_PLACEHOLDER = 1
"""The face given to the claimant's hidden dice when the hint answers: an answer never
looks at them (the judges read only what the answerer sees)."""

@dataclass(frozen=True)
class BluffHintParams(HintParams):
    """What ``kocka hint`` takes in the bluff games: the claimant's dice and the claim to
    beat, or the claim answered and the one it beat; the chips. The betting games add the
    stake (:class:`BettingHintParams`), liar's poker the public dice and the shown die
    (:class:`LiarsPokerHintParams`); here these are plain fields, not options."""

    dice: tuple[int, ...] | None = hint_option(
        N_("When you claim: your two dice, e.g. --dice 3 5 (the values after --dice are collected)."), type=int, rest=True,
        metavar="DIE")
    standing: str | None = hint_option(
        N_("When you claim: the claim to beat, e.g. 8, 'pair 5', 'two pairs 5 2', 'full house 6 2' (as kocka play "
           "takes it; default: none, you claim first)."), metavar="CLAIM")
    claim: str | None = hint_option(
        N_("When you answer (instead of --dice): the claim you answer, written as for --standing."), metavar="CLAIM")
    previous: str | None = hint_option(
        N_("When you answer: the claim that --claim beat (default: none, the round's first claim)."), metavar="CLAIM")
    chips: tuple[int, int] | None = hint_option(
        N_("Your chips and the opponent's, e.g. --chips 7 9 (default: the starting chips of the rules)."),
        type=int, nargs=2, metavar="MINE THEIRS")
    seed: int | None = hint_option(
        N_("Draw the suggested move from the equilibrium’s frequencies with this seed (default: a die-roll recipe "
           "to follow at the table)."), type=int, metavar="N")
    stake: int | None = None
    public: tuple[int, ...] | None = None
    shown: int | None = None


@dataclass(frozen=True)
class BettingHintParams(BluffHintParams):
    """The bluff games whose claims carry a stake: the stake of the claim answered."""

    stake: int | None = hint_option(N_("When you answer: the stake of the claim (default 1)."), type=int)


@dataclass(frozen=True)
class LiarsPokerHintParams(BettingHintParams):
    """Liar's poker: the public dice, and the die shown on a re-throw."""

    public: tuple[int, ...] | None = hint_option(N_("The three public dice, e.g. --public 2 5 5."), type=int, nargs=3,
                                                  metavar="DIE DIE DIE")
    shown: int | None = hint_option(
        N_("The die kept and shown on a re-throw (when you claim: one of your --dice; when you answer: the "
           "claimant's)."), type=int, metavar="DIE")


def hint(game: BluffGame, params: BluffHintParams) -> HintReport:
    """Rank every legal action of the position ``params`` describes (module docstring)."""
    if not isinstance(game, (AbazsGame, BiddingBluffGame, LiarsPokerGame)):
        raise RulesError(f"the bluff hint needs a bluff game, got {type(game).__name__}")
    game, state = position(game, params)
    judge, notes, reasons = _judge(game, params)
    try:
        decisions = judge.rank(state)
    except AgentUnavailable as exc:  # the table does not cover this position
        judge, notes, reasons = _judge(game, params, skip=(judge.name,), reason=str(exc))
        decisions = judge.rank(state)
    me = game.current_player(state)
    # values equal but for float noise (the moves of a mixed strategy) are shown equal
    labelled = [Decision(d.action, round(d.value, 12) + 0.0, _label(game, state, d), d.detail) for d in decisions]
    notes = list(notes) + _answer_notes(game, state, decisions, judge.name)
    strategy = mixed_strategy(game, state, decisions) if judge.name == "equilibrium" else None
    if strategy is not None:
        notes += [strategy_text(game, state, strategy), suggestion_text(game, state, strategy, params.seed)]
    else:
        notes += bot_reasons(game, state, decisions, judge.name, _build_command(reasons))
    columns = ("P(chosen)",) if strategy is not None else ()
    return HintReport(describe(game, state, me), judge.value_name, labelled, tuple(notes), columns)


# ----------------------------------------------------------------------------------------
# The position
# ----------------------------------------------------------------------------------------
def position(game: BluffGame, params: BluffHintParams) -> tuple[BluffGame, BluffState]:
    """The game and state ``params`` describe: ``--state`` (a state document or an
    observation), else the flags (module docstring)."""
    if params.state is not None:
        return _from_document(game, params.state)
    return game, typed_position(game, params)


def _from_document(game: BluffGame, doc: Any) -> tuple[BluffGame, BluffState]:
    if not isinstance(doc, Mapping):
        raise InvalidStateError(f"--state must be a JSON object (docs/STATE.md), got {type(doc).__name__}")
    players = doc.get("players", game.num_players)
    rules = game.RULES.from_options(doc["rules"]) if isinstance(doc.get("rules"), Mapping) else game.rules
    game = type(game)(rules, num_players=players) if isinstance(players, int) else game
    body = doc.get("state")
    if isinstance(body, Mapping) and isinstance(body.get("dice"), list) and None in body["dice"]:
        # an observation: the claimant's hidden dice are unknown and never read
        known = [d for d in body["dice"] if d is not None]
        filled = sorted(known + [_PLACEHOLDER] * (len(body["dice"]) - len(known)))
        doc = {k: v for k, v in doc.items() if k != "observer"}
        doc["state"] = {**body, "dice": filled}
    return game, game.state_from_json(doc)


def typed_position(game: BluffGame, params: BluffHintParams) -> BluffState:
    """The position of the flags: the player to act is player 0, his opponent player 1."""
    liar = isinstance(game, LiarsPokerGame)
    if game.num_players != 2:
        raise RulesError("the bluff hint's flags describe two players; give --state for more")
    chips = tuple(params.chips or (game.rules.start_chips,) * 2)
    public = tuple(validate_dice(params.public, 3, what=N_("the public dice"))) if params.public else ()
    if liar and not public:
        raise InvalidStateError(_("this game needs the three public dice: --public D D D"))
    if not liar and public:
        raise InvalidStateError(_("{game} has no public dice; --public is for liars-poker", game=game.NAME))
    shown = params.shown
    if shown is not None and not liar:
        raise InvalidStateError(_("{game} has no re-throws; --shown is for liars-poker", game=game.NAME))
    kept = () if shown is None else (int(shown),)
    answering = params.claim is not None
    previous = parse_claim(game, params.previous, public) if params.previous is not None else None
    base = game.new_round_state(chips, starter=1 if answering else 0)
    if answering:
        if params.dice is not None:
            raise InvalidStateError(_("give --dice when you claim, or --claim when you answer, not both "
                                      "(the answerer does not see the dice of the claimant)"))
        if params.standing is not None:
            raise InvalidStateError(_("--standing is the claim to beat when you claim; when you answer, "
                                      "--claim is the claim and --previous the claim it beat"))
        claim = parse_claim(game, params.claim, public, kept)
        stake = params.stake
        if game.stake_range(base) == range(0, 1):
            if stake not in (None, 0):
                raise InvalidStateError(_("{game} claims carry no stake, got --stake {stake}", game=game.NAME,
                                          stake=stake))
            stake = 0
        dice = tuple(sorted(kept + (_PLACEHOLDER,) * (2 - len(kept))))
        state = replace(base, phase="answer", dice=dice, public=public, shown=kept[0] if kept else 0,
                        rerolled=bool(kept), standing=claim, history=_history(previous, claim),
                        stake=1 if stake is None else int(stake))
    else:
        if params.dice is None:
            raise InvalidStateError(_("give your two dice with --dice (to claim, with --standing for the claim to "
                                      "beat), or --claim for the claim you answer"))
        dice = validate_dice(params.dice, 2, what=N_("your dice"))
        if kept and kept[0] not in dice:
            raise InvalidStateError(_("the shown die {die} must be one of your dice {dice}", die=kept[0],
                                      dice=dice_text(dice)))
        if params.stake is not None or previous is not None:
            raise InvalidStateError(_("--stake and --previous describe a claim you answer (with --claim)"))
        standing = parse_claim(game, params.standing, public) if params.standing is not None else None
        state = replace(base, phase="claim", dice=dice, public=public, shown=kept[0] if kept else 0,
                        rerolled=bool(kept), standing=standing, history=() if standing is None else (standing,))
    game.check_state(state)
    return state


def _history(previous: Any, claim: Any) -> tuple:
    return (claim,) if previous is None else (previous, claim)


def parse_claim(game: BluffGame, text: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> Any:
    """A claim typed as a player says it (``8``, ``pair 5``, ``non pair 7``, ``two pairs
    5 2``, ``full house 6 2``): any of the phrases ``kocka play`` understands after
    ``claim``."""
    wanted = without_claim_verb(str(text))  # "claim 8", "mondd 8", "zapowiedz 8": the claim 8
    phrases: dict[str, Any] = {}
    for lang in ("en", *(code for code in LANGUAGES if code != "en")):
        with use_language(lang):
            for claim in game.claims():
                for body in claim_bodies(claim):
                    phrases.setdefault(body, claim)
    if wanted not in phrases:
        examples = ", ".join(claim_text(c) for c in list(game.claims())[:4])
        raise InvalidStateError(_("{game}: {text} is not a claim; claims look like {examples}",
                                  game=game.NAME, text=str(text), examples=examples))
    return phrases[wanted]


# ----------------------------------------------------------------------------------------
# Who judges, and the words
# ----------------------------------------------------------------------------------------
def _judge(game: BluffGame, params: BluffHintParams, skip: Sequence[str] = (),
           reason: str = "") -> tuple[Any, list[str], list[str]]:
    """The first of the game's judges that can play here, a note on where the values
    come from, and why the earlier judges could not give them."""
    options = AgentOptions(cache_dir=params.cache_dir, build_missing=params.build_missing)
    reasons = [reason] if reason else []
    for name in game.spec().judges:
        if name in skip:
            continue
        try:
            agent = make_agent(name, game, 0, options)
        except (AgentUnavailable, TableError) as exc:
            reasons.append(str(exc))
            continue
        return agent, [_source(game, name, reasons, getattr(agent, "plan", None))], reasons
    raise RulesError("no judge can value this position: " + "; ".join(reasons))


def _source(game: BluffGame, name: str, reasons: Sequence[str], plan: Any = None) -> str:
    if name == "equilibrium":
        if isinstance(game, AbazsGame):
            return _("values: your chips from here to the end of the round against the exact two-player equilibrium "
                     "(the match plan: it also prices who starts the next round)")
        if getattr(plan, "value_name", "").startswith("P(win"):
            return _("values: your chance to win the match against the exact two-player match equilibrium "
                     "(the match plan of these chips)")
        return _("values: your chips from here to the end of the round against the exact two-player round "
                 "equilibrium")
    model = _("values: expected chips by the model of the opponent that the {bot} bot has before it sees him play",
              bot=name)
    if not reasons:
        return model
    command = _build_command(reasons)
    if command is None:
        return _("{values}; the exact equilibrium is not available here", values=model)
    return _("{values}; for the exact equilibrium build its table on this computer: {command}", values=model,
             command=command)


BUILD_COMMAND = re.compile(r"(kocka-solve build [^;()]*?)\s*(?:$|[;()])")
"""The command that builds a missing table, in the table store's message (no paths shown)."""


def _build_command(reasons: Sequence[str]) -> str | None:
    """The ``kocka-solve build`` command named by the first reason that names one."""
    return next((m.group(1) for r in reasons for m in [BUILD_COMMAND.search(str(r))] if m), None)


RANKINGS = {"simple": N_("{game}, simple ranking"), "pro": N_("{game}, pro ranking")}


def describe(game: BluffGame, state: BluffState, me: int) -> str:
    """The position in sentences: who acts, the dice he sees, the claims, the chips."""
    title = game_title(game)
    ranking = getattr(game.rules, "ranking", None)
    head = _(RANKINGS[ranking], game=title) if ranking in RANKINGS else title
    clauses = []
    if state.phase == "claim":
        clauses.append(_("you hold {dice}", dice=dice_text(state.dice)))
        if state.shown:
            clauses.append(_("you show {die} after a re-throw", die=state.shown))
        elif state.rerolled:
            clauses.append(_("you threw both dice again"))
    elif state.phase == "answer":
        claimant = seat_label(state.active)
        words = dict(player=claimant, claim=claim_text(state.standing), stake=state.stake)
        clauses.append(_("you answer the claim {claim} of {player}, stake {stake}", **words) if state.stake
                       else _("you answer the claim {claim} of {player}", **words))
        clauses.append(_("it beat {claim}", claim=claim_text(state.previous)) if state.previous is not None
                       else _("it is the first claim of the round"))
        if state.shown:
            clauses.append(_("{player} shows {die} after a re-throw", player=claimant, die=state.shown))
        elif state.rerolled:
            clauses.append(_("{player} threw both dice again", player=claimant))
    else:
        clauses.append(game.describe_state(state))
    if state.public:
        clauses.append(_("the public dice are {dice}", dice=dice_text(state.public)))
    if state.phase == "claim":
        clauses.append(_("no claim stands") if state.standing is None
                       else _("you must claim higher than {claim}", claim=claim_text(state.standing)))
    chips = [_("you {chips}", chips=state.chips[me])]
    chips += [f"{seat_label(p)} {c}" for p, c in enumerate(state.chips) if p != me]
    if state.bank:
        chips.append(_("bank {chips}", chips=state.bank))
    return _("{game}: {position}. Chips: {chips}.", game=head, position="; ".join(clauses), chips=", ".join(chips))


def _label(game: BluffGame, state: BluffState, decision: Decision) -> str:
    text = game.describe_action(decision.action, state)
    detail = decision.detail or {}
    if isinstance(decision.action, Claim):
        true = bool(detail.get("true"))
        chance = detail.get("P(bet)", detail.get("P(challenged)"))
        if chance is None:
            return _("{move} (true)", move=text) if true else _("{move} (a lie)", move=text)
        words = dict(move=text, chance=percent(chance))
        if isinstance(game, AbazsGame):
            return _("{move} (true; challenged {chance})", **words) if true else _("{move} (a lie; challenged {chance})", **words)
        return _("{move} (true; bet on {chance})", **words) if true else _("{move} (a lie; bet on {chance})", **words)
    if detail.get("re-throw"):
        return _("{move} (then claim at best)", move=text)
    return text


def _answer_notes(game: BluffGame, state: BluffState, decisions: Sequence[Decision], judge: str) -> list[str]:
    if state.phase != "answer" or not decisions:
        return []
    detail = decisions[0].detail or {}
    q = detail.get("P(claim true)")
    if q is None:
        return []
    if judge == "equilibrium":
        how = (_("by the Bayes formula over the equilibrium claims of the claimant")
               if detail.get("on equilibrium path", True)
               else _("the equilibrium never makes this claim here: the chance a roll makes it true"))
    else:
        how = _("by the Bayes formula over the model of the claimant that the bot has (how often he lies, and how "
                "often with the smallest lie)")
    return [_("the chance that the claim {claim} is true: {chance} given the claims so far, {how}",
              claim=claim_text(state.standing), chance=percent(q, 1), how=how)]


# ----------------------------------------------------------------------------------------
# The equilibrium's mixed strategy, and a move drawn from it
# ----------------------------------------------------------------------------------------
FREQUENCY_FLOOR = 1e-9
"""Probabilities at or below this are the solver's zero (a float of an exact 0): such a
move is never played in the equilibrium and is not listed."""


def mixed_strategy(game: BluffGame, state: BluffState,
                   decisions: Sequence[Decision]) -> tuple[tuple[Any, float], ...] | None:
    """The equilibrium's behaviour strategy at this information set: (action, probability)
    of every action it plays, in the engine's order (claims lowest first, stakes smallest
    first), read from the ``P(chosen)`` the equilibrium judge copies from its table
    (:func:`~kocka.solver.solvers.bluff.plans.rank_betting`,
    :func:`~kocka.solver.solvers.bluff.abazs.rank_abazs`); None where the decisions carry
    none (a bot that is not the equilibrium)."""
    if not isinstance(game, (AbazsGame, BiddingBluffGame, LiarsPokerGame)):
        return None
    if not decisions or any("P(chosen)" not in (d.detail or {}) for d in decisions):
        return None
    order = {a: i for i, a in enumerate(game.legal_actions(state))}
    played = [(d.action, float(d.detail["P(chosen)"])) for d in decisions if d.detail["P(chosen)"] > FREQUENCY_FLOOR]
    return tuple(sorted(played, key=lambda pair: order.get(pair[0], len(order))))


def frequencies_json(game: BluffGame, strategy: Sequence[tuple[Any, float]]) -> list[dict]:
    """The mixed strategy as the seat sends it: ``[{action, probability}]``."""
    return [{"action": game.action_to_json(a), "probability": min(p, 1.0)} for a, p in strategy]


def _share(probability: float) -> str:
    """A frequency as a player reads it: whole percents, a decimal under 10 %."""
    if probability < 0.001:
        return _("under {chance}", chance=percent(0.001, 1))
    return percent(probability, 0 if probability >= 0.095 else 1)


def _frequency_parts(game: BluffGame, state: BluffState, strategy: Sequence[tuple[Any, float]]) -> list[str]:
    """One part per move; the stakes of one claim grouped under it ("claim 8: 67 %
    (stake 1: 47 %, stake 10: 21 %)")."""
    parts, i = [], 0
    while i < len(strategy):
        action, p = strategy[i]
        j = i + 1
        if isinstance(action, Claim) and action.stake:
            while j < len(strategy) and isinstance(strategy[j][0], Claim) and strategy[j][0].claim == action.claim:
                j += 1
        group = strategy[i:j]
        if len(group) == 1:
            parts.append(_("{move}: {chance}", move=action_text(action, game, state), chance=_share(p)))
        else:
            stakes = ", ".join(_("stake {stake}: {chance}", stake=a.stake, chance=_share(q)) for a, q in group)
            parts.append(_("{move}: {chance} ({stakes})", move=action_text(replace(action, stake=0), game, state),
                           chance=_share(sum(q for a, q in group)), stakes=stakes))
        i = j
    return parts


def strategy_text(game: BluffGame, state: BluffState, strategy: Sequence[tuple[Any, float]]) -> str:
    """The mixed strategy in a sentence: how often the equilibrium plays each move here."""
    frequencies = ", ".join(_frequency_parts(game, state, strategy))
    if len(strategy) < len(game.legal_actions(state)):
        return _("the equilibrium’s mixed strategy here: {frequencies}; every other move: never in the equilibrium",
                 frequencies=frequencies)
    return _("the equilibrium’s mixed strategy here: {frequencies}", frequencies=frequencies)


@dataclass(frozen=True)
class DieRecipe:
    """How to draw a move with fair dice: ``dice`` dice (1: six outcomes; 2: 36, read as
    a two-digit number, first die first), ``counts[i]`` outcomes for the i-th move (in
    turn: the first ``counts[0]`` outcomes, then the next ``counts[1]``, ...), ``error``
    the largest difference between a move's chance by the recipe and its frequency."""

    dice: int
    counts: tuple[int, ...]
    error: float

    @property
    def outcomes(self) -> int:
        return 6 ** self.dice

    def probabilities(self) -> tuple[float, ...]:
        return tuple(c / self.outcomes for c in self.counts)


def apportion(probabilities: Sequence[float], outcomes: int) -> tuple[int, ...]:
    """Whole numbers of ``outcomes`` in proportion to ``probabilities``, adding up to
    ``outcomes``: Hamilton's largest remainders (each share rounded down, the outcomes
    left to the largest remainders), which makes the largest difference between a share's
    chance and its probability the smallest any whole shares allow."""
    total = float(sum(probabilities))
    quotas = [p / total * outcomes for p in probabilities]
    counts = [int(q) for q in quotas]
    left = outcomes - sum(counts)
    by_remainder = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[:left]:
        counts[i] += 1
    return tuple(counts)


def die_recipe(probabilities: Sequence[float]) -> DieRecipe:
    """One die when it gets every move within 1/12 (half a face) of its frequency and still
    leaves a choice (two moves or more get a face), else two dice (36ths, within 1/72
    where whole 36ths allow it; ``error`` says how close)."""
    for dice in (1, 2):
        outcomes = 6 ** dice
        counts = apportion(probabilities, outcomes)
        error = max(abs(c / outcomes - p) for c, p in zip(counts, probabilities))
        choice = sum(c > 0 for c in counts) >= min(2, len(counts))
        if (error <= 1 / (2 * outcomes) + 1e-12 and choice) or dice == 2:
            return DieRecipe(dice, counts, error)
    raise AssertionError("unreachable: two dice always give a recipe")


def _outcome_name(k: int, dice: int) -> str:
    """The k-th outcome (from 0) as the dice show it: a face, or two faces read as a number."""
    return str(k + 1) if dice == 1 else f"{k // 6 + 1}{k % 6 + 1}"


def recipe_text(game: BluffGame, state: BluffState, strategy: Sequence[tuple[Any, float]], recipe: DieRecipe) -> str:
    """The recipe as a player follows it: "roll a die: 1-4 claim 8; 5-6 claim 9", and how
    close it is to the frequencies."""
    items, start = [], 0
    for (action, p), count in zip(strategy, recipe.counts):
        if count == 0:
            continue
        low, high = _outcome_name(start, recipe.dice), _outcome_name(start + count - 1, recipe.dice)
        faces = low if count == 1 else f"{low}-{high}"
        items.append(_("{faces} {move}", faces=faces, move=action_text(action, game, state)))
        start += count
    rolls = "; ".join(items)
    if recipe.error < 1e-9:
        closeness = _("exactly the equilibrium’s frequencies")
    else:
        closeness = _("each move within {points} percentage points of its frequency", points=number(100 * recipe.error, 1))
    if recipe.dice == 1:
        return _("roll a die: {rolls} ({closeness})", rolls=rolls, closeness=closeness)
    return _("roll two dice, the first for tens and the second for units (11 to 66): {rolls} ({closeness})",
             rolls=rolls, closeness=closeness)


def seeded_pick(strategy: Sequence[tuple[Any, float]], seed: int) -> Any:
    """A move drawn from the frequencies with ``seed`` (the same seed, the same move)."""
    actions, weights = zip(*strategy)
    return random.Random(seed).choices(actions, weights=weights)[0]


def suggestion_text(game: BluffGame, state: BluffState, strategy: Sequence[tuple[Any, float]], seed: int | None) -> str:
    """One line to follow: the only move, a move drawn with ``seed``, or a die-roll recipe."""
    if len(strategy) == 1:
        return _("suggestion: {move} (the equilibrium always plays it here)",
                 move=action_text(strategy[0][0], game, state))
    if seed is not None:
        return _("suggestion drawn with seed {seed} from the equilibrium’s frequencies: {move}", seed=seed,
                 move=action_text(seeded_pick(strategy, seed), game, state))
    recipe = die_recipe([p for a, p in strategy])
    if sum(c > 0 for c in recipe.counts) == 1:  # the other moves are rarer than 1/72 each
        only = strategy[max(range(len(strategy)), key=lambda i: recipe.counts[i])][0]
        return _("suggestion: {move} (the equilibrium’s other moves are rarer than two dice can show: each within "
                 "{points} percentage points of its frequency)", move=action_text(only, game, state),
                 points=number(100 * recipe.error, 1))
    return _("suggestion: {recipe}", recipe=recipe_text(game, state, strategy, recipe))


# ----------------------------------------------------------------------------------------
# Without the table: the Bayesian bot's reasons
# ----------------------------------------------------------------------------------------
def bot_reasons(game: BluffGame, state: BluffState, decisions: Sequence[Decision], judge: str,
                command: str | None) -> list[str]:
    """Why the ``bayes`` bot ranks as it does (its posterior, its rule), labelled as a
    bot's heuristic, and what gives the exact mixed strategy instead."""
    if judge != "bayes" or not decisions:
        return []
    best = decisions[0]
    detail = best.detail or {}
    move = action_text(best.action, game, state)
    if state.phase == "answer" and "P(claim true)" in detail:
        values = ", ".join(_("{move} {value}", move=action_text(d.action, game, state), value=number(d.value, 2))
                           for d in decisions)
        doubt = next((action_text(d.action, game, state) for d in decisions if isinstance(d.action, (Bet, Challenge))),
                     move)
        reason = _("the {bot} bot’s reasons (a bot’s heuristic, not an equilibrium): its chance that the claim is true, "
                   "{chance}, takes a claimant to lie {lie} of the times the truth is allowed and to tell the smallest "
                   "lie {smallest} of the times he lies; its rule: {doubt} when that is worth more chips by this chance "
                   "than the other answer ({values}), so {move}",
                   bot=judge, chance=percent(detail["P(claim true)"], 1), lie=percent(detail.get("lie rate", 0.0)),
                   smallest=percent(detail.get("smallest-lie rate", 0.0)), doubt=doubt, values=values, move=move)
    else:
        reason = _("the {bot} bot’s reasons (a bot’s heuristic, not an equilibrium): its rule is the move worth the "
                   "most chips by its model of how often a claim is called (the less likely a fresh roll reaches a "
                   "claim, the more often it is called), here {move} ({value} chips)",
                   bot=judge, move=move, value=number(best.value, 2))
    if command is not None:
        exact = _("the exact mixed strategy (how often to play each move) comes with the equilibrium table: {command}",
                  command=command)
    else:
        exact = _("the exact mixed strategy needs the two-player equilibrium table, which does not serve this position")
    return [reason, exact]


__all__ = ["BettingHintParams", "BluffHintParams", "DieRecipe", "LiarsPokerHintParams", "apportion", "bot_reasons",
           "describe", "die_recipe", "frequencies_json", "hint", "mixed_strategy", "parse_claim", "position",
           "recipe_text", "seeded_pick", "strategy_text", "suggestion_text", "typed_position"]
