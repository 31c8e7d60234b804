"""``kocka play``: a real game in the terminal, any mix of humans and agents (1..6 seats).

What a human sees before each decision: the dice drawn as dice, the score card (with what
the dice would score in each box that may be filled now), and the prompt. Moves are typed
the way players say them (``keep 1 1 5``, ``box full`` / ``write full``, ``bank``,
``roll``, ``take 1 5``, ``series 6 6``, ``joker 2``, ``claim 8 stake 2``, ``challenge``);
``moves`` lists every legal move, ``#N`` picks the N-th of that list. Commands:

* ``?`` / ``hint`` -- the optimal agent's ranking of every legal move, with the loss of
  each versus the best (``? all`` for all of them);
* ``undo`` -- take back the last human decision (the dice that follow are the same
  again: rolls are keyed by position, see :class:`~kocka.agents.bots.base.ChanceSampler`);
* ``help``, ``quit`` (also Ctrl-C or end of input: the game stops cleanly).

The session asks of a game only what the base ``Game`` offers; how each family's
position is drawn is the view its spec names (:mod:`kocka.agents.frontends.games.views`).

Bad input is answered with the reason (the rules engine's own message for an illegal
move) and the prompt comes back. At the end a summary says how much the humans'
decisions cost versus optimal play: the sum over their decisions of the optimal agent's
value of its best move minus the value of the move played (expected points, or win
probability in Kocka).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from kocka.agents.bots.base import Agent, AgentUnavailable, ChanceSampler, Event, derive_seed
from kocka.agents.frontends.games.arena import win_shares
from kocka.agents.advice.hint import HintParams, HintReport, hint as make_hint, render
from kocka.agents.advice.kocka import stand_in_line
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.base.i18n import N_, _, choose_language, ngettext, number, use_language
from kocka.solver.rules import CHANCE, Game, resolve
from kocka.solver.rules.words import claim_text, dice_text, normalize, seat_label, snake

HUMAN = "human"


class PlayError(KockaError):
    """A game that cannot be set up (bad seat list)."""


# ----------------------------------------------------------------------------------------
# Text <-> actions
# ----------------------------------------------------------------------------------------
def format_action(action: Any, game: Game, state: Any = None) -> str:
    """What a player types for ``action`` (the engine's words)."""
    return game.describe_action(action, state)


def box_label(game: Game, box: str) -> str:
    """The name printed on the card for box id ``box``."""
    return game.box_label(box)


@dataclass(frozen=True)
class Parsed:
    """What a line of input meant: a move, a command, or an error to show."""

    action: Any = None
    command: str | None = None
    argument: str = ""
    error: str | None = None


COMMANDS = {
    "?": "hint", "hint": "hint", "h": "hint", "undo": "undo", "u": "undo", "help": "help",
    "moves": "moves", "m": "moves", "quit": "quit", "exit": "quit", "q": "quit", "card": "show", "show": "show",
}


def parse_input(text: str, game: Game, state: Any) -> Parsed:
    """Turn a typed line into a legal action or a command; never raises."""
    line = text.strip()
    if not line:
        return Parsed(error=_("type a move, “?” for a hint, or “help” for the commands"))
    words = line.lower().split()
    if words[0] in COMMANDS:
        return Parsed(command=COMMANDS[words[0]], argument=" ".join(words[1:]))
    if line.startswith("?"):
        return Parsed(command="hint", argument=line[1:].strip())
    legal = game.legal_actions(state)
    if re.fullmatch(r"#\d+", line):
        n = int(line[1:])
        if 1 <= n <= len(legal):
            return Parsed(action=legal[n - 1])
        return Parsed(error=ngettext("there is {n} move; #{number} is not one of them (“moves” lists it)",
                                     "there are {n} moves; #{number} is not one of them (“moves” lists them)",
                                     len(legal), number=n))
    wanted = normalize(line)
    table: dict[str, Any] = {}
    for action in legal:
        for phrase in game.action_phrases(action, state):
            table.setdefault(phrase, action)
    if wanted in table:
        return Parsed(action=table[wanted])
    staked = _with_typed_stake(wanted, table, game, state)
    if staked is not None:
        return staked
    # a box may be abbreviated ("box sm" for small straight) when only one fits
    named = {a for phrase, a in table.items() if game.action_box(a) is not None and phrase.startswith(wanted)
             and len(wanted) >= 3}
    if len(named) == 1:
        return Parsed(action=named.pop())
    if len(named) > 1:
        options = sorted({format_action(a, game, state) for a in named})
        shown = ", ".join(options[:8]) + (", …" if len(options) > 8 else "")
        return Parsed(error=_("“{typed}” could mean: {moves}", typed=line, moves=shown))
    return Parsed(error=_explain(wanted, line, game, state, legal))


def _with_typed_stake(wanted: str, table: dict[str, Any], game: Game, state: Any) -> Parsed | None:
    """``claim 9 stake 37``: legal actions list a few stakes of each claim (the engine's
    candidates), but any stake the rules allow may be typed. The claim is looked up with a
    listed stake, and the engine checks the typed one."""
    match = re.fullmatch(r"(.*) stake (\d+)", wanted)
    if match is None:
        return None
    body, stake = match.group(1), int(match.group(2))
    for phrase, action in table.items():
        candidate = game.with_stake(action, stake) if phrase.startswith(body + " stake ") else None
        if candidate is not None:
            try:
                game.apply(state, candidate)
            except KockaError as exc:
                return Parsed(error=_("not allowed: {reason}", reason=exc))
            return Parsed(action=candidate)
    return None


def _explain(wanted: str, line: str, game: Game, state: Any, legal: list) -> str:
    """Why ``line`` is not a legal move: the engine's own reason for the move it names,
    or examples of what it understands."""
    try:
        attempt = _construct(wanted, game, state)
        if attempt is not None:
            game.apply(state, attempt)
    except KockaError as exc:
        return _("not allowed: {reason}", reason=exc)
    examples = ", ".join(format_action(a, game, state) for a in legal[:3])
    return _("I don't understand “{typed}”. Moves here look like: {examples} (“moves” lists them all, “?” gives a hint)",
             typed=line, examples=examples)


def _construct(wanted: str, game: Game, state: Any) -> Any:
    """The action ``wanted`` names, legal or not (so the engine can say why not), or None.
    Impossible values (a die showing 9) raise the engine's error."""
    tokens = wanted.split()
    kinds = {cls.__name__: cls for cls in game.ACTIONS}
    digits = [int(t) for t in tokens[1:] if t.isdigit()]
    dice_ok = bool(digits) and len(digits) == len(tokens) - 1
    verb = tokens[0] if tokens else ""
    if any(wanted in game.words.box_aliases(box) for box in game.card_boxes()):
        tokens, verb = ["box", *tokens], "box"  # a bare box name ("full") means writing it
    try:
        # the verbs of the five-dice games' Keep and of Kocka's SetAside (TakeSeries in a series)
        if dice_ok and (verb in ("keep", "hold", "k") and "Keep" in kinds
                        or verb in ("take", "keep", "k", "aside") and "SetAside" in kinds):
            return game.keep_action(state, tuple(digits))
        if verb == "series" and "StartSeries" in kinds and dice_ok:
            return kinds["StartSeries"](digits[0], len(digits))
        if verb == "joker" and "NameJoker" in kinds and len(digits) == 1:
            return kinds["NameJoker"](digits[0])
        for name in ("Bank", "Roll", "EndTurn", "Accept", "Challenge", "Pass", "Bet", "Hold", "Raise", "Decline"):
            if name in kinds and wanted in (name.lower(), snake(name).replace("_", " ")):
                return kinds[name]()
        box_kind = {"box": "Fill", "fill": "Fill", "write": "Write", "record": "Record",
                    "scratch": "Scratch", "declare": "Declare"}.get(verb)
        if box_kind == "Fill" and "Fill" not in kinds:
            box_kind = "Write" if "Write" in kinds else "Record"
        if box_kind == "Write" and "Write" not in kinds:
            box_kind = "Fill" if "Fill" in kinds else "Record"
        if box_kind in kinds and len(tokens) > 1:
            rest = " ".join(tokens[1:])
            for box in game.card_boxes():
                if rest in game.words.box_aliases(box):
                    field_name = dataclasses.fields(kinds[box_kind])[0].name
                    return kinds[box_kind](**{field_name: box})
            return kinds[box_kind](**{dataclasses.fields(kinds[box_kind])[0].name: rest})
    except (TypeError, AttributeError, IndexError):
        return None
    return None


# ----------------------------------------------------------------------------------------
# Drawing
# ----------------------------------------------------------------------------------------
_PIPS = {
    1: ("       ", "   o   ", "       "),
    2: (" o     ", "       ", "     o "),
    3: (" o     ", "   o   ", "     o "),
    4: (" o   o ", "       ", " o   o "),
    5: (" o   o ", "   o   ", " o   o "),
    6: (" o   o ", " o   o ", " o   o "),
}


def draw_dice(dice: Sequence[int]) -> str:
    """Dice as pictures with their values underneath (ASCII, any terminal)."""
    if not dice:
        return _("(no dice)")
    top = " ".join("+-------+" for _die in dice)
    rows = [" ".join(f"|{_PIPS[d][r]}|" for d in dice) for r in range(3)]
    values = " ".join(f"    {d}    " for d in dice)
    return "\n".join([top, *rows, top, values.rstrip()])


def throw_text(game: Any, state: Any) -> str:
    """Which throw of the turn the player on turn is at, in words ("throw 1 of 3"; Kocka:
    the turn total and the dice left)."""
    progress = game.turn_progress(state)
    if progress is not None:
        return progress.throw_text()
    total = game.turn_total(state)
    if total is None:  # no throws to count (the bluff games)
        return ""
    dice = game.dice_in_play(state)
    if game.dice_in_view(state) is not None:  # the roll to set dice aside from
        return _("turn total {total}, rolled", total=total)
    if game.current_player(state) >= 0:  # to bank or roll on, or to name a joker
        return ngettext("turn total {total}, {n} die left", "turn total {total}, {n} dice left", dice, total=total)
    return ngettext("turn total {total}, {n} die to throw", "turn total {total}, {n} dice to throw", dice, total=total)


def position_text(game: Game, state: Any, seat_names: Sequence[str]) -> str:
    """The position of the player on turn in one line: who, which throw, the dice."""
    seat = game.seat_on_turn(state)
    name = seat_names[seat] if 0 <= seat < len(seat_names) else seat_label(seat)
    dice = game.dice_in_view(state)
    throw = throw_text(game, state)
    if not throw:
        return _("{name} to play", name=name)
    if dice and all(isinstance(d, int) for d in dice):
        return f"{name}, {throw}: {dice_text(dice)}"
    return f"{name}, {throw}"


def hides_information(game: Game) -> bool:
    """Does this game hide part of the state from some players (bluff dice)?"""
    return game.spec().hides_information


def render_state(game: Game, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """What ``viewer`` sees before a decision: the game's own view where its spec names
    one (:mod:`kocka.agents.frontends.games.views`), else its observation."""
    reference = game.spec().view
    if reference is not None:
        return resolve(reference)(game, state, seat_names, viewer)
    return _render_observation(game, state, seat_names, viewer)


def _render_observation(game: Game, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """Any game: the viewer's observation (hidden dice are null), dice drawn when visible."""
    doc = game.observation(state, viewer)["state"] if hides_information(game) else game.state_to_json(state)["state"]
    lines = [_("{name} to play", name=seat_names[viewer])]
    headings = {"public": _("dice on show:"), "dice": _("your dice:")}
    for key in ("public", "dice"):
        dice = doc.get(key)
        if dice and all(isinstance(d, int) for d in dice):
            lines += [headings[key], draw_dice(dice)]
    if "chips" in doc:
        chips = ", ".join(f"{n} {c}" for n, c in zip(seat_names, doc["chips"]))
        lines.append(_("chips: {chips}; bank {bank}", chips=chips, bank=doc.get("bank", 0)))
    claims = game.claim_history(state)
    if claims:  # the standing claim is the last
        claim, stake = claim_text(claims[-1]), doc.get("stake", 0)
        lines.append(_("standing claim: {claim}, stake {stake}", claim=claim, stake=stake) if stake
                     else _("standing claim: {claim}", claim=claim))
        lines.append(_("claims this round: {claims}", claims=" < ".join(claim_text(c) for c in claims)))
    if doc.get("bets"):
        lines.append(_("bets: {bets}", bets=", ".join(f"{seat_names[p]} {k}" for p, k in doc["bets"])))
    if doc.get("revealed"):
        who, dice = doc["revealed"]
        lines.append(_("last reveal: {name} showed {dice}", name=seat_names[who], dice=dice_text(dice)))
    if "active" in doc and doc["active"] >= 0:
        lines.append(_("{name} is to act, round {round}", name=seat_names[doc["active"]], round=doc.get("rounds", 0) + 1))
    return "\n".join(lines)


def final_scores_text(game: Game, state: Any, seat_names: Sequence[str]) -> str:
    scores = game.final_scores(state)
    shares = game.returns(state) if game.spec().outcome == "win" else tuple(win_shares(game.returns(state)))
    winners = [n for n, s in zip(seat_names, shares) if s > 0]
    shown = ", ".join(f"{n} {_score(s)}" for n, s in zip(seat_names, scores))
    lines = [_("final scores: {scores}", scores=shown)]
    if len(seat_names) > 1:
        lines.append(_("winner: {name}", name=winners[0]) if len(winners) == 1
                     else _("shared win: {names}", names=", ".join(winners)))
    return "\n".join(lines)


def _score(value: float) -> str:
    """A final score: whole points as they are, anything else in the language's decimals."""
    return str(int(value)) if float(value).is_integer() else number(value, 2)


# ----------------------------------------------------------------------------------------
# The session
# ----------------------------------------------------------------------------------------
@dataclass
class Mistake:
    """One human decision and its cost versus the optimal agent's best move."""

    seat: int
    played: str
    best: str
    loss: float


@dataclass
class _Snapshot:
    """Everything a human decision may be undone to."""

    state: Any
    rolls: int
    events: int
    mistakes: int


class _Quit(Exception):
    """The human asked to stop (``quit`` or end of input)."""


@dataclass
class PlaySession:
    """One terminal game. ``seats`` are ``"human"`` or agent names, in seat order.

    ``read`` returns a line of input or None at end of input; ``write`` prints a block
    of text. Build with :meth:`create`; run with :meth:`run`, which returns the exit code.
    """

    game: Game
    seats: list[str]
    seed: int
    options: AgentOptions
    read: Callable[[str], str | None]
    write: Callable[[str], None]
    agents: dict[int, Agent] = field(default_factory=dict)
    judge: Agent | None = None
    judge_error: str | None = None
    mistakes: list[Mistake] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    snapshots: list[_Snapshot] = field(default_factory=list)
    state: Any = None
    rolls: int = 0

    @classmethod
    def create(cls, game: Game, seats: Sequence[str], seed: int, options: AgentOptions,
               read: Callable[[str], str | None], write: Callable[[str], None]) -> "PlaySession":
        seats = [s.strip().lower() for s in seats]
        if not 1 <= len(seats) <= 6:
            raise PlayError(_("a game has 1 to 6 seats, got {n}: {seats}", n=len(seats), seats=", ".join(seats)))
        lo, hi = game.player_range()
        if not lo <= len(seats) <= hi:
            raise PlayError(_("{game} is played by {low} to {high} players, got {n}: {seats}", game=_(game.spec().title),
                              low=lo, high=hi, n=len(seats), seats=", ".join(seats)))
        if game.num_players != len(seats):
            game = type(game)(game.rules, num_players=len(seats))
        session = cls(game=game, seats=seats, seed=seed, options=options, read=read, write=write)
        for seat, name in enumerate(seats):
            if name != HUMAN:
                session.agents[seat] = make_agent(name, game, derive_seed("play", seed, seat), options)
        if HUMAN in seats:
            session.judge, session.judge_error = judge_for(game, options)
        return session

    @property
    def seat_names(self) -> list[str]:
        humans = self.seats.count(HUMAN)
        names = []
        for seat, name in enumerate(self.seats):
            if name == HUMAN:
                names.append(_("you") if humans == 1 else seat_label(seat))
            else:
                names.append(name if self.seats.count(name) == 1 else f"{name} {seat + 1}")
        return names

    def run(self) -> int:
        """Play to the end; 0 when the game ends or the human quits, 130 on Ctrl-C."""
        try:
            self._play()
        except _Quit:
            self.write(_("the game is abandoned."))
            self._summary(final=False)
        except KeyboardInterrupt:
            self.write("\n" + _("interrupted; the game is abandoned."))
            self._summary(final=False)
            return 130
        return 0

    # ----- the game loop -----
    def _play(self) -> None:
        game, names = self.game, self.seat_names
        sampler = ChanceSampler(derive_seed("play-chance", self.seed))
        hidden = hides_information(game)
        self.state, self.rolls = game.new_initial_state(), 0
        self.write(_("{game}: {players} (seed {seed}). Type “help” for the commands.", game=_(game.spec().title),
                     players=", ".join(names), seed=self.seed))
        while not game.is_terminal(self.state):
            before = self.state
            player = game.current_player(before)
            if player == CHANCE:
                outcome = sampler.sample(game, before, self.rolls)
                self.rolls += 1
                self._advance(CHANCE, outcome)
                if not hidden:
                    self._narrate_roll(before, outcome, self.state)
            elif self.seats[player] != HUMAN:
                action = self.agents[player].choose(before)
                self.write(f"  {names[player]}: {format_action(action, game, before)}")
                self._advance(player, action)
                self._narrate_after(self.state)
            else:
                action = self._ask(player)
                self.snapshots.append(_Snapshot(self.state, self.rolls, len(self.events), len(self.mistakes)))
                self._judge(self.state, self.game.current_player(self.state), action)
                self._advance(self.game.current_player(self.state), action)
                self._narrate_after(self.state)
        self.write("\n" + _("game over."))
        if game.spec().view is not None and game.spec().outcome != "win":  # the final card (Kocka has none)
            self.write(render_state(game, self.state, names, 0))
        self.write(final_scores_text(game, self.state, names))
        self._summary(final=True)

    def _advance(self, player: int, action: Any) -> None:
        self.state = self.game.apply(self.state, action)
        self._deliver(Event(player, None if player == CHANCE else action, self.state))

    def _ask(self, player: int) -> Any:
        """Read lines until one is a legal move of the human to play (``undo`` may move the
        game back to an earlier human decision); raise :class:`_Quit` to stop."""
        game, names = self.game, self.seat_names
        self.write("\n" + render_state(game, self.state, names, player))
        while True:
            line = self.read(f"{names[player]}> ")
            if line is None:
                self.write("")
                raise _Quit
            parsed = parse_input(line, game, self.state)
            if parsed.action is not None:
                return parsed.action
            if parsed.error:
                self.write(parsed.error)
            elif parsed.command == "quit":
                raise _Quit
            elif parsed.command == "help":
                self.write(help_text(game))
            elif parsed.command == "show":
                self.write(render_state(game, self.state, names, player))
            elif parsed.command == "moves":
                for i, a in enumerate(game.legal_actions(self.state), start=1):
                    self.write(f"  #{i:<3} {format_action(a, game, self.state)}")
            elif parsed.command == "hint":
                self.write(self._hint(self.state, parsed.argument))
            elif parsed.command == "undo":
                if not self.snapshots:
                    self.write(_("nothing to undo yet."))
                    continue
                self._undo()
                player = game.current_player(self.state)
                self.write(_("undone: back to your last decision."))
                self.write("\n" + render_state(game, self.state, names, player))

    def _undo(self) -> None:
        """Back to the state before the last human decision. The rolls after it are keyed
        by position, so the same dice come again; memory agents forget what followed."""
        snap = self.snapshots.pop()
        self.state, self.rolls = snap.state, snap.rolls
        del self.mistakes[snap.mistakes:]
        del self.events[snap.events:]
        for agent in self.agents.values():
            if agent.has_memory:
                agent.reset()
                for event in self.events:
                    agent.observe(event)

    def _deliver(self, event: Event) -> None:
        self.events.append(event)
        for agent in self.agents.values():
            if agent.has_memory:
                agent.observe(event)

    def _narrate_roll(self, before: Any, outcome: Any, after: Any) -> None:
        """Rolls made for agents are printed; a human sees his in the next view."""
        player = self.game.roller(before)
        if player is None or self.seats[player] == HUMAN and self.game.current_player(after) == player:
            return
        name, you = self.seat_names[player], self._is_you(player)
        dice = self.game.dice_in_view(after)
        if dice is not None and len(dice) > len(outcome):
            text = (_("you roll {rolled} (dice: {dice})", rolled=dice_text(outcome), dice=dice_text(dice)) if you
                    else _("{name} rolls {rolled} (dice: {dice})", name=name, rolled=dice_text(outcome), dice=dice_text(dice)))
        else:
            text = (_("you roll {rolled}", rolled=dice_text(outcome)) if you
                    else _("{name} rolls {rolled}", name=name, rolled=dice_text(outcome)))
        self.write(f"  {text}")
        self._narrate_after(after)

    def _narrate_after(self, state: Any) -> None:
        event = self.game.turn_event(state)
        if event == "bust":  # Kocka's transitions (the other games tell none apart)
            on_turn = self.game.seat_on_turn(state)
            seat = (on_turn - 1) % self.game.num_players if not self.game.is_terminal(state) else on_turn
            name = self.seat_names[seat]
            self.write("  " + (_("bust: you lose the turn total") if self._is_you(seat)
                               else _("bust: {name} loses the turn total", name=name)))
        elif event == "bank" and not self.game.is_terminal(state):
            seat = (self.game.seat_on_turn(state) - 1) % self.game.num_players
            name, score = self.seat_names[seat], self.game.scores_so_far(state)[seat]
            self.write("  " + (_("you bank: now {score}", score=score) if self._is_you(seat)
                               else _("{name} banks: now {score}", name=name, score=score)))

    def _is_you(self, seat: int) -> bool:
        """Is ``seat`` the one human of the game (the player the text calls "you")?"""
        return self.seats[seat] == HUMAN and self.seats.count(HUMAN) == 1

    # ----- hints and the cost of mistakes -----
    def _hint(self, state: Any, argument: str) -> str:
        top = 0 if argument.strip() == "all" else 8
        if hides_information(self.game) and self.game.spec().hint is not None:
            # the bluff games' hint front end adds P(the claim is true) and the chance of a bet;
            # it reads only what the player to act may see
            params = HintParams(state=self.game.state_to_json(state), cache_dir=self.options.cache_dir,
                                build_missing=self.options.build_missing)
            try:
                return ranking_text(make_hint(self.game, params), top, _("“? all” lists every move"))
            except (AgentUnavailable, KockaError, TableError) as exc:
                return _("no hint here: {reason}", reason=problem_text(exc))
        ranking = hint_ranking(self.judge, self.judge_error, state)
        if isinstance(ranking, str):
            return ranking
        decisions = [Decision(d.action, d.value, _hint_label(d, self.game, state), d.detail) for d in ranking]
        stand_in = stand_in_line(self.game, state, self.judge.stand_in, self.seat_names)  # Kocka 3+ without its table
        report = HintReport(position=position_text(self.game, state, self.seat_names),
                            value_name=value_label(self.judge.value_name), decisions=decisions,
                            notes=(stand_in,) if stand_in else ())
        return ranking_text(report, top, _("“? all” lists every move"))

    def _judge(self, state: Any, seat: int, action: Any) -> None:
        if self.judge is None:
            return
        try:
            ranked = self.judge.rank(state)
        except (AgentUnavailable, KockaError, TableError) as exc:
            self.judge, self.judge_error = None, str(exc)
            return
        best = ranked[0]
        played = next((d for d in ranked if d.action == action), None)
        if played is None:
            return
        self.mistakes.append(Mistake(seat, format_action(action, self.game, state),
                                     format_action(best.action, self.game, state), best.value - played.value))

    def _summary(self, final: bool) -> None:
        humans = [s for s, n in enumerate(self.seats) if n == HUMAN]
        if not humans:
            return
        names = self.seat_names
        if self.judge is None:
            self.write(_("cost of your decisions: not available ({reason})", reason=self.judge_error))
            return
        unit = value_label(self.judge.value_name)
        for seat in humans:
            own = [m for m in self.mistakes if m.seat == seat]
            total = sum(m.loss for m in own)
            costly = sorted((m for m in own if m.loss > 1e-9), key=lambda m: -m.loss)
            params = dict(name=names[seat], below=len(costly), cost=number(total, 4), unit=unit)
            self.write(ngettext("{name}: {n} decision, {below} below the best play; total cost {cost} ({unit})",
                                "{name}: {n} decisions, {below} below the best play; total cost {cost} ({unit})",
                                len(own), **params) if final else
                       ngettext("{name}: {n} decision so far, {below} below the best play; total cost {cost} ({unit})",
                                "{name}: {n} decisions so far, {below} below the best play; total cost {cost} ({unit})",
                                len(own), **params))
            for m in costly[:3]:
                self.write("    " + _("played “{played}” instead of “{best}”: cost {cost}", played=m.played, best=m.best,
                                      cost=number(m.loss, 4)))


def _hint_label(decision: Decision, game: Game, state: Any) -> str:
    """The move as the player types it, plus the plan the solver attaches (Kocka: "then
    bank" / "then roll on")."""
    label = format_action(decision.action, game, state)
    then = decision.detail.get("then") if decision.detail else None
    return _("{move}, then {plan}", move=label, plan=_(PLANS.get(then, then))) if then else label


PLANS = {"bank": N_("bank"), "roll on": N_("roll on")}
"""The plans a Kocka hint attaches to a move (the solver's ``then``), for the catalogues."""

VALUE_NAMES = {"expected final score": N_("expected final score"), "P(win)": N_("chance of winning"),
               "expected points this turn": N_("expected points this turn")}
"""The judges' units (their ``value_name``), as a player reads them."""


def value_label(value_name: str) -> str:
    """A judge's unit in the language in force."""
    return _(VALUE_NAMES.get(value_name, value_name))


def ranking_text(report: HintReport, top: int, more: str) -> str:
    """A hint's table (:func:`~kocka.agents.advice.hint.render`) of the first ``top``
    moves (0: all), and how many more there are with ``more``, the command that lists them
    here (the hint's own footer names ``kocka hint``'s option)."""
    decisions = list(report.decisions)
    shown = decisions[: top or None]
    text = render(dataclasses.replace(report, decisions=shown), top=0)
    hidden = len(decisions) - len(shown)
    if hidden > 0:
        text += "\n  " + ngettext("… {n} more move ({more})", "… {n} more moves ({more})", hidden, more=more)
    return text


def hint_ranking(judge: Agent | None, judge_error: str | None, state: Any) -> list[Decision] | str:
    """The judge's ranking of ``state`` for a hint, best first, or the line that says why
    there is none (``no hint here: ...``: no judge, with ``judge_error``, or the judge's
    error). A failed hint keeps the judge: the next position may be one it can rank.

    Why one function: the terminal game (:meth:`PlaySession._hint`) and the table
    companion (:meth:`kocka.agents.frontends.games.companion.TableSession.hint_text`) ask the judge
    for a hint the same way and say in the same words when they cannot give one."""
    if judge is None:
        return _("no hint here: {reason}", reason=judge_error)
    try:
        return judge.rank(state)
    except (AgentUnavailable, KockaError, TableError) as exc:
        return _("no hint here: {reason}", reason=problem_text(exc))


_BUILD_IT = re.compile(r"(re)?build it with: (kocka-solve build .*?)\s*$")


def problem_text(exc: Exception) -> str:
    """Why a table cannot be had, as a player reads it: a missing or unusable table says
    which ``kocka-solve build`` command makes it (no file path, no hash); any other
    problem is the error's own sentence."""
    text = str(exc)
    match = _BUILD_IT.search(text)
    if match is None:
        return text
    if match.group(1):
        return _("the value table for these rules cannot be used; rebuild it once with: {command}",
                 command=match.group(2))
    return _("the value table for these rules is not built yet; build it once with: {command}", command=match.group(2))


def judge_for(game: Game, options: AgentOptions) -> tuple[Agent | None, str | None]:
    """The first of the spec's judges (``GameSpec.judges``: exact tables first; in the
    bluff and betting games, where no exact optimum exists for the whole match, the
    strongest bot's own valuation) available for ``game``, or None and why not."""
    reasons = []
    for name in game.spec().judges:
        try:
            return make_agent(name, game, 0, options), None
        except (AgentUnavailable, TableError) as exc:
            reasons.append(problem_text(exc))
    return None, "; ".join(reasons) or _("no agent judges the moves of {game}", game=_(game.spec().title))


def example_action(game: Game, cls: type) -> Any:
    """An instance of action type ``cls`` to word as an example (None if its fields are
    not ones the help knows how to fill)."""
    values = {"dice": (1, 5, 5), "box": None, "combo": None, "face": 2, "count": 2}
    boxes = game.card_boxes()
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in ("box", "combo"):
            if not boxes:
                return None
            kwargs[f.name] = boxes[-1]
        elif f.name in values:
            kwargs[f.name] = values[f.name]
        else:
            return None
    return cls(**kwargs)


def help_text(game: Game) -> str:
    """``help`` in ``kocka play``: this game's moves, worded by the engine, and the commands."""
    examples = (example_action(game, cls) for cls in game.ACTIONS)
    moves = " | ".join(dict.fromkeys(format_action(a, game) for a in examples if a is not None))
    return "\n".join([
        _("moves: {moves} | #N, the N-th move that “moves” lists", moves=moves),
        _("commands: ? or hint (the moves ranked; “? all” for every move), moves, undo, card, help, quit"),
    ])


def play(game: Game, seats: Sequence[str], seed: int, options: AgentOptions = AgentOptions(),
         read: Callable[[str], str | None] | None = None, write: Callable[[str], None] | None = None,
         lang: str | None = None) -> int:
    """Play one game in the terminal (stdin/stdout by default) in ``lang`` (None:
    ``KOCKA_LANG``, else the game's own language); returns the exit code."""
    with use_language(choose_language(lang, game.words.language)):
        session = PlaySession.create(game, seats, seed, options, read or _read_stdin, write or print)
        return session.run()


def _read_stdin(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None
