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

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.advice.hint import HintParams, HintReport, hint_option
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.decision import Decision
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import InvalidStateError, RulesError, TableError
from kocka.solver.rules.bluff import AbazsGame, BiddingBluffGame, BluffState, Claim, LiarsPokerGame
from kocka.solver.rules.words import action_phrases, normalize

BluffGame = AbazsGame | BiddingBluffGame | LiarsPokerGame
_PLACEHOLDER = 1
"""The face given to the claimant's hidden dice when the hint answers: an answer never
looks at them (the judges read only what the answerer sees)."""

CLAIM_EXAMPLES = "e.g. 8, 'pair 5', 'two pairs 5 2', 'full house 6 2' (as kocka play takes it)"


@dataclass(frozen=True)
class BluffHintParams(HintParams):
    """What ``kocka hint`` takes in the bluff games: the claimant's dice and the claim to
    beat, or the claim answered and the one it beat; the chips. The betting games add the
    stake (:class:`BettingHintParams`), liar's poker the public dice and the shown die
    (:class:`LiarsPokerHintParams`); here these are plain fields, not options."""

    dice: tuple[int, ...] | None = hint_option(
        "When you claim: your two dice, e.g. --dice 3 5 (the values after --dice are collected).", type=int, rest=True,
        metavar="DIE")
    standing: str | None = hint_option(
        f"When you claim: the claim to beat, {CLAIM_EXAMPLES} (default: none, you claim first).", metavar="CLAIM")
    claim: str | None = hint_option(
        "When you answer (instead of --dice): the claim you answer, written as for --standing.", metavar="CLAIM")
    previous: str | None = hint_option(
        "When you answer: the claim that --claim beat (default: none, the round's first claim).", metavar="CLAIM")
    chips: tuple[int, int] | None = hint_option(
        "Your chips and the opponent's, e.g. --chips 7 9 (default: the starting chips of the rules).",
        type=int, nargs=2, metavar="MINE THEIRS")
    stake: int | None = None
    public: tuple[int, ...] | None = None
    shown: int | None = None


@dataclass(frozen=True)
class BettingHintParams(BluffHintParams):
    """The bluff games whose claims carry a stake: the stake of the claim answered."""

    stake: int | None = hint_option("When you answer: the stake of the claim (default 1).", type=int)


@dataclass(frozen=True)
class LiarsPokerHintParams(BettingHintParams):
    """Liar's poker: the public dice, and the die shown on a re-throw."""

    public: tuple[int, ...] | None = hint_option("The three public dice, e.g. --public 2 5 5.", type=int, nargs=3,
                                                  metavar="DIE DIE DIE")
    shown: int | None = hint_option(
        "The die kept and shown on a re-throw (when you claim: one of your --dice; when you answer: the "
        "claimant's).", type=int, metavar="DIE")


def hint(game: BluffGame, params: BluffHintParams) -> HintReport:
    """Rank every legal action of the position ``params`` describes (module docstring)."""
    if not isinstance(game, (AbazsGame, BiddingBluffGame, LiarsPokerGame)):
        raise RulesError(f"the bluff hint needs a bluff game, got {type(game).__name__}")
    game, state = position(game, params)
    judge, notes = _judge(game, params)
    try:
        decisions = judge.rank(state)
    except AgentUnavailable as exc:  # the table does not cover this position
        judge, more = _judge(game, params, skip=(judge.name,), reason=str(exc))
        decisions, notes = judge.rank(state), more
    me = game.current_player(state)
    labelled = [Decision(d.action, d.value, _label(game, state, d), d.detail) for d in decisions]
    notes = list(notes) + _answer_notes(game, state, decisions, judge.name)
    return HintReport(describe(game, state, me), judge.value_name, labelled, tuple(notes))


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
    public = tuple(validate_dice(params.public, 3, what="public dice")) if params.public else ()
    if liar and not public:
        raise InvalidStateError("liar's poker needs the three public dice: --public D D D")
    if not liar and public:
        raise InvalidStateError(f"{game.NAME} has no public dice; --public is for liar's poker")
    shown = params.shown
    if shown is not None and not liar:
        raise InvalidStateError(f"{game.NAME} has no re-throws; --shown is for liar's poker")
    kept = () if shown is None else (int(shown),)
    answering = params.claim is not None
    previous = parse_claim(game, params.previous, public) if params.previous is not None else None
    base = game.new_round_state(chips, starter=1 if answering else 0)
    if answering:
        if params.dice is not None:
            raise InvalidStateError("give --dice when you claim, or --claim when you answer, not both "
                                    "(the answerer does not see the claimant's dice)")
        if params.standing is not None:
            raise InvalidStateError("--standing is the claim to beat when you claim; when you answer, "
                                    "--claim is the claim and --previous the claim it beat")
        claim = parse_claim(game, params.claim, public, kept)
        stake = params.stake
        if game.stake_range(base) == range(0, 1):
            if stake not in (None, 0):
                raise InvalidStateError(f"{game.NAME} claims carry no stake, got --stake {stake!r}")
            stake = 0
        dice = tuple(sorted(kept + (_PLACEHOLDER,) * (2 - len(kept))))
        state = replace(base, phase="answer", dice=dice, public=public, shown=kept[0] if kept else 0,
                        rerolled=bool(kept), standing=claim, history=_history(previous, claim),
                        stake=1 if stake is None else int(stake))
    else:
        if params.dice is None:
            raise InvalidStateError(
                "give your two dice with --dice (to claim, with --standing for the claim to beat), "
                "or --claim for the claim you answer"
            )
        dice = validate_dice(params.dice, 2, what="your dice")
        if kept and kept[0] not in dice:
            raise InvalidStateError(f"the shown die {kept[0]} must be one of your dice {list(dice)}")
        if params.stake is not None or previous is not None:
            raise InvalidStateError("--stake and --previous describe a claim you answer (with --claim)")
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
    wanted = normalize(str(text))
    if wanted.startswith("claim "):
        wanted = wanted[len("claim "):]
    phrases: dict[str, Any] = {}
    for claim in game.claims():
        for phrase in action_phrases(Claim(claim, 0), game, None):
            phrases.setdefault(phrase[len("claim "):] if phrase.startswith("claim ") else phrase, claim)
    if wanted not in phrases:
        examples = ", ".join(repr(p) for p in list(phrases)[:4])
        raise InvalidStateError(f"{game.NAME}: {str(text)!r} is not a claim; claims look like {examples}")
    return phrases[wanted]


# ----------------------------------------------------------------------------------------
# Who judges, and the words
# ----------------------------------------------------------------------------------------
def _judge(game: BluffGame, params: BluffHintParams, skip: Sequence[str] = (), reason: str = "") -> tuple[Any, list[str]]:
    """The first of the game's judges that can play here, and a note on where the values
    come from (and why an earlier judge could not give them)."""
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
        return agent, [_source(game, name, reasons, getattr(agent, "plan", None))]
    raise RulesError("no judge can value this position: " + "; ".join(reasons))


def _source(game: BluffGame, name: str, reasons: Sequence[str], plan: Any = None) -> str:
    if name == "equilibrium":
        if isinstance(game, AbazsGame):
            return ("values: your chips from here to the end of the round against the exact two-player equilibrium "
                    "(the match plan: it also prices who starts the next round)")
        if getattr(plan, "value_name", "").startswith("P(win"):
            return ("values: your chance to win the match against the exact two-player match equilibrium "
                    "(the match plan of these chips)")
        return "values: your chips from here to the end of the round against the exact two-player round equilibrium"
    why = f" (the exact equilibrium is not available: {reasons[0]})" if reasons else ""
    return f"values: expected chips by the {name!r} bot's model of the opponent, before it has seen him play{why}"


def describe(game: BluffGame, state: BluffState, me: int) -> str:
    """The position in sentences: who acts, the dice he sees, the claims, the chips."""
    title = game.spec().title
    ranking = getattr(game.rules, "ranking", None)
    head = f"{title}" + (f", {ranking} ranking" if ranking else "")
    public = f"; the public dice are {_dice(state.public)}" if state.public else ""
    shown = f", showing {state.shown} after a re-throw" if state.shown else (
        ", after throwing both again" if state.rerolled else "")
    if state.phase == "claim":
        beat = "no claim stands" if state.standing is None else f"you must claim higher than {state.standing}"
        doing = f"you hold {_dice(state.dice)}{shown}{public}; {beat}"
    elif state.phase == "answer":
        stake = f" with stake {state.stake}" if state.stake else ""
        over = f", made over {state.previous}" if state.previous is not None else ", the round's first claim"
        doing = f"you answer player {state.active}'s claim {state.standing}{stake}{over}{shown.replace('showing', 'who shows')}{public}"
    else:
        doing = game.describe_state(state)
    others = ", ".join(f"player {p} {c}" for p, c in enumerate(state.chips) if p != me)
    bank = f", bank {state.bank}" if state.bank else ""
    return f"{head}: {doing}. Chips: you {state.chips[me]}, {others}{bank}."


def _dice(dice: Sequence[int]) -> str:
    return " and ".join(str(d) for d in dice) if len(dice) <= 2 else ", ".join(str(d) for d in dice)


def _label(game: BluffGame, state: BluffState, decision: Decision) -> str:
    text = game.describe_action(decision.action, state)
    detail = decision.detail or {}
    if isinstance(decision.action, Claim):
        truth = "true" if detail.get("true") else "a lie"
        answered = "challenged" if isinstance(game, AbazsGame) else "bet on"
        chance = detail.get("P(bet)", detail.get("P(challenged)"))
        return f"{text} ({truth}; {answered} {chance:.0%})" if chance is not None else f"{text} ({truth})"
    if detail.get("re-throw"):
        return f"{text} (then claim at best)"
    return text


def _answer_notes(game: BluffGame, state: BluffState, decisions: Sequence[Decision], judge: str) -> list[str]:
    if state.phase != "answer" or not decisions:
        return []
    detail = decisions[0].detail or {}
    q = detail.get("P(claim true)")
    if q is None:
        return []
    if judge == "equilibrium":
        how = ("by Bayes' rule over the claimant's equilibrium claims" if detail.get("on equilibrium path", True)
               else "the equilibrium never makes this claim here: the chance a roll makes it true")
    else:
        how = "by Bayes' rule over the bot's model of the claimant (his lie and smallest-lie rates)"
    return [f"P(the claim {state.standing} is true) = {q:.4f} given the claims so far, {how}"]


__all__ = ["BettingHintParams", "BluffHintParams", "LiarsPokerHintParams", "describe", "hint", "parse_claim", "position",
           "typed_position"]
