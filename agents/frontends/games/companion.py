"""``kocka table``: the hint companion for a game played with real dice around a real table.

The companion keeps the game (every player's card, or banked score in Kocka; fences and
stage in the Polish game), whose turn it is and the throw, while the players roll their
own dice and type what they see. It is the rules engine's own state machine: a typed roll
is the chance outcome of the roll due, a typed move (``keep 6 6``, ``write full``,
``bank``) an action, so it never accepts a position the rules cannot reach.

One line of input is one command (:meth:`TableSession.handle`):

* ``33355`` or ``3 3 3 5 5`` -- the dice thrown. After a keep: the new dice, or all five.
  Typed where a throw is the player's own choice (after the first throw of a scorecard
  turn, Kocka's bank-or-roll, the Polish first throw), it also makes that choice: the
  dice kept are then read from the dice that stayed (the largest common part of the old
  and new dice; such a keep is not judged, since the dice really kept were not typed);
* a move, as ``kocka play`` reads it (:func:`kocka.agents.frontends.games.play.parse_input`):
  ``keep 66``, ``write full``, ``full``, ``full house``, ``bank``, ``roll``, ``take 1 5``;
* ``?`` (``? all``) -- the hint for the player on turn: every action with its value and
  its loss versus the best, the first three in plain words
  (:func:`kocka.agents.advice.cards.advice_lines`), and the chance of finishing
  first (the game's talk, :mod:`kocka.agents.advice.table_talk`; Kocka: the win
  probability). Where the talk says so (a scorecard game of two or more players) it also
  ranks the moves "to win" (:meth:`TableSession.to_win_text`):
  the ``winner`` agent's P(finishing first) per move, from the target table
  (``kocka-solve build GAME --kind target``), and whether that differs from the move
  best for points;
* ``undo``, ``cards`` (every card with totals), ``moves``, ``help``, ``quit``.

After every step the game is saved to a JSON file (:func:`save_document`: a temporary
file in the same folder, then :func:`os.replace`), so an interrupted game resumes with
``kocka table --resume FILE``; the file holds the moves (replayed through the engine on
resume) and the position they lead to (checked against the replay). At the end: the final
scores and each player's costliest decisions, by the judge's values (the spec's
``judges``: the exact tables).

The companion names no game: what it says of a game beyond the engine's words comes from
the game's :class:`~kocka.agents.advice.table_talk.TableTalk` (the spec's ``companion``).
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import os
import pathlib
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from kocka.agents.bots.base import Agent, AgentUnavailable
from kocka.agents.advice.hint import HintReport, render
from kocka.agents.advice.cards import advice_lines
from kocka.agents.advice.table_talk import TableTalk, talk_for
from kocka.solver.base.jsonio import loads as load_json
from kocka.agents.frontends.games.play import final_scores_text, hint_ranking, judge_for, parse_input, render_state
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.store.table_store import build_command, game_from_cli, get_table, path_for, solver_for
from kocka.solver.rules import CHANCE, Game, game_specs, get_game, spec_for

FORMAT = "kocka.table/1"
"""Version of the saved-game document."""
TOP_ADVICE = 3
"""How many actions of a hint are said in plain words."""
TOP_TO_WIN = 5
"""How many actions the hint's "to win" ranking lists (``? all``: every one)."""
_DIGITS = re.compile(r"[0-9](?:[\s,]*[0-9])*")


class TableFileError(KockaError):
    """A saved game that cannot be resumed (unreadable, another format, inconsistent)."""


def companion_games() -> tuple[str, ...]:
    """The games the companion keeps: those with value tables to judge by and nothing
    hidden from the players (from the specs)."""
    return tuple(s.name for s in game_specs() if s.tables and s.judges and not s.hides_information)


# ----------------------------------------------------------------------------------------
# The saved game
# ----------------------------------------------------------------------------------------
def save_document(path: pathlib.Path, doc: dict) -> None:
    """Write ``doc`` as JSON to ``path`` atomically: a temporary file in the same folder,
    flushed to disk, then renamed over ``path`` (never a half-written file)."""
    path = pathlib.Path(path)
    text = json.dumps(doc, ensure_ascii=False, indent=1)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; a saved game is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_save_path(game_name: str) -> pathlib.Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return pathlib.Path(f"kocka-table-{game_name}-{stamp}.json")


# ----------------------------------------------------------------------------------------
# The session
# ----------------------------------------------------------------------------------------
@dataclass
class Move:
    """One step of the engine: a roll (``outcome``) or a player's action, with its cost
    versus the judge's best (``loss`` None: not judged)."""

    player: int
    label: str
    action: dict | None = None
    outcome: list[int] | None = None
    best: str | None = None
    loss: float | None = None
    inferred: bool = False

    def to_json(self) -> dict:
        fields = (("player", self.player), ("label", self.label), ("action", self.action), ("outcome", self.outcome),
                  ("best", self.best), ("loss", self.loss), ("inferred", self.inferred))
        return {k: v for k, v in fields if v is not None and v is not False}

    @classmethod
    def from_json(cls, doc: Any) -> "Move":
        if not isinstance(doc, dict) or not isinstance(doc.get("player"), int) or not isinstance(doc.get("label"), str):
            raise TableFileError(f"a saved move must have 'player' and 'label', got {str(doc)[:80]!r}")
        unknown = set(doc) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise TableFileError(f"a saved move has unknown field(s) {sorted(unknown)!r}")
        return cls(**doc)


@dataclass
class TableSession:
    """One game at a real table. Build with :meth:`start` or :meth:`resume`; feed it lines
    with :meth:`handle` (it saves after every step); :meth:`run` is the terminal loop."""

    game: Game
    names: list[str]
    path: pathlib.Path
    options: AgentOptions = AgentOptions()
    turns: list[list[Move]] = field(default_factory=list)
    state: Any = None
    judge: Agent | None = None
    judge_error: str | None = None
    created: str = ""
    stopped: bool = False
    _chances: dict = field(default_factory=dict)
    _winner: Agent | None = None

    # ----- making one -----
    @classmethod
    def start(cls, game_name: str, names: Sequence[str], path: pathlib.Path | str | None = None,
              rules: Sequence[str] = (), options: AgentOptions = AgentOptions()) -> "TableSession":
        """A new game of ``game_name`` for the players ``names`` (in playing order) under
        the rule options ``rules`` (``key=value``, as ``-r`` takes them)."""
        if game_name not in companion_games():
            raise KockaError(f"kocka table keeps the games with value tables: {', '.join(companion_games())}; "
                             f"not {game_name!r}")
        names = [n.strip() for n in names]
        if not names or any(not n for n in names):
            raise KockaError(f"--players takes the players' names separated by commas, e.g. Anna,Béla,me; got {names!r}")
        if len(set(n.lower() for n in names)) != len(names):
            raise KockaError(f"two players have the same name: {names!r}")
        lo, hi = spec_for(game_name).players
        if not lo <= len(names) <= hi:
            raise KockaError(f"{spec_for(game_name).title} is played by {lo} to {hi} players, got {len(names)}")
        game = game_from_cli(game_name, rules, num_players=len(names))
        session = cls(game=game, names=names, path=pathlib.Path(path or default_save_path(game_name)), options=options,
                      created=_now())
        session.state = game.new_initial_state()
        session._make_judge()
        session.save()
        return session

    @classmethod
    def resume(cls, path: pathlib.Path | str, options: AgentOptions = AgentOptions()) -> "TableSession":
        """The game saved in ``path``, replayed move by move through the engine."""
        path = pathlib.Path(path)
        try:
            doc = load_json(path.read_text(encoding="utf-8"), "the saved game")
        except OSError as exc:
            raise TableFileError(f"cannot read the saved game {str(path)!r}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise TableFileError(f"{str(path)!r} is not a saved game (not JSON: {exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise TableFileError(f"{str(path)!r} is not a saved kocka table game (format {FORMAT!r}), got {got!r}")
        try:
            names = list(doc["players"])
            position = doc["state"]
            game = get_game(doc["game"], position.get("rules"), num_players=len(names))
            turns = [[Move.from_json(m) for m in turn] for turn in doc["turns"]]
        except (KeyError, TypeError, AttributeError) as exc:
            raise TableFileError(f"{str(path)!r}: a saved game needs game, players, turns and state ({exc!r} is wrong)") from None
        session = cls(game=game, names=names, path=path, options=options, turns=turns, created=doc.get("created", ""))
        try:
            session.state = session._replay(turns)
        except (KockaError, TypeError, ValueError) as exc:
            raise TableFileError(f"{str(path)!r}: the saved moves cannot be replayed: {exc}") from None
        if json.loads(json.dumps(game.state_to_json(session.state))) != position:
            raise TableFileError(f"{str(path)!r}: the saved moves do not lead to the saved position (was it edited?)")
        session._make_judge()
        return session

    def _make_judge(self) -> None:
        """The first of the spec's judges that can play this game here (exact tables)."""
        self.judge, self.judge_error = judge_for(self.game, self.options)

    def _replay(self, turns: Sequence[Sequence[Move]]) -> Any:
        state = self.game.new_initial_state()
        for turn in turns:
            for move in turn:
                if move.outcome is not None:
                    state = self.game.apply(state, tuple(move.outcome))
                else:
                    state = self.game.apply(state, self.game.action_from_json(move.action))
        return state

    def document(self) -> dict:
        return {
            "format": FORMAT,
            "game": self.game.NAME,
            "players": self.names,
            "created": self.created,
            "saved": _now(),
            "turns": [[m.to_json() for m in turn] for turn in self.turns],
            "state": self.game.state_to_json(self.state),
        }

    def save(self) -> None:
        save_document(self.path, self.document())

    # ----- facts -----
    @property
    def talk(self) -> TableTalk:
        """What this game's spec says the companion says of it beyond the engine's words."""
        return talk_for(self.game)

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.state)

    @property
    def on_turn(self) -> int:
        """The seat whose turn it is (also at a roll)."""
        return getattr(self.state, "player", 0)

    def throw_text(self) -> str:
        """Which throw of the turn the player on turn is at, in words."""
        s = self.state
        if hasattr(s, "throw"):
            return f"throw {s.throw} of 3"
        if hasattr(s, "throws"):
            budget = self.game.budget(s) if hasattr(self.game, "budget") else 3
            return f"throw {s.throws} of {budget}"
        dice = "1 die" if s.dice_in_play == 1 else f"{s.dice_in_play} dice"
        if s.stage == "set_aside":
            return f"turn total {s.turn_total}, rolled"
        if s.stage in ("bank_or_roll", "joker"):
            return f"turn total {s.turn_total}, {dice} left"
        return f"turn total {s.turn_total}, {dice} to throw"

    def expected_roll(self) -> int | None:
        """How many dice the roll due now throws (None where no roll is due)."""
        if self.game.current_player(self.state) != CHANCE:
            return None
        outcomes = self.game.chance_outcomes(self.state)
        return len(outcomes[0][0])

    def prompt(self) -> str:
        if self.over:
            return "game over> "
        name = self.names[self.on_turn]
        n = self.expected_roll()
        if n is not None:
            kept = getattr(self.state, "kept", None) or ()
            what = f"roll {n} dice" + (f" (kept {_dice(kept)})" if kept else "")
            return f"{name}, {what}> "
        dice = getattr(self.state, "dice", None) or getattr(self.state, "roll", None)
        return f"{name}, {self.throw_text()}" + (f": {_dice(dice)}" if dice else "") + "> "

    # ----- one line -----
    def handle(self, line: str) -> str:
        """Answer one typed line; the game is saved after every step that changes it."""
        text = line.strip()
        word = text.lower().split()[0] if text else ""
        if not text:
            return self.status()
        if word in ("quit", "exit", "q"):
            self.stopped = True
            return f"saved to {self.path}; go on later with: kocka table --resume {self.path}"
        if word == "help":
            return self.help_text()
        if word in ("undo", "u"):
            return self.undo()
        if word in ("cards", "card", "show"):
            return self.cards_text()
        if text.startswith("?") or word == "hint":
            rest = text[1:] if text.startswith("?") else text[4:]
            return self.hint_text(show_all=rest.strip().lower() == "all")
        if self.over:
            return "the game is over: 'undo' takes back the last step, 'quit' leaves"
        if word in ("moves", "m"):
            if self.game.current_player(self.state) == CHANCE:
                return f"a roll is due: type the {self.expected_roll()} dice thrown"
            return "\n".join(f"  {self.game.describe_action(a, self.state)}" for a in self.game.legal_actions(self.state))
        if _DIGITS.fullmatch(text):
            dice = [int(ch) for ch in text if ch.isdigit()]
            answer = self.enter_roll(dice)
            if answer is not None:
                return answer
            digits = " ".join(map(str, dice))
            if self.game.card_boxes():  # "6" may be a box ("write 6-osok") or "keep 6": ask
                return f"{text!r} is not a roll here: type 'keep {digits}', or the box to write"
            return self.enter_move(f"take {digits}")
        return self.enter_move(text)

    def enter_roll(self, dice: list[int]) -> str | None:
        """A typed roll: the outcome of the roll due, or the player's throw and its
        outcome. None when the digits are not a roll here but may be a move (``6`` for
        the sixes box)."""
        bad = [d for d in dice if not 1 <= d <= 6]
        if bad:
            return f"dice show 1 to 6, got {bad[0]}"
        game, state = self.game, self.state
        moves: list[Move] = []
        if game.current_player(state) != CHANCE:
            throw = self._implicit_throw(dice)
            if throw is None:
                return None
            if isinstance(throw, str):
                return throw
            action, inferred = throw
            moves.append(self._judged(action, inferred))
            state = game.apply(state, action)
        outcome = self._outcome(state, dice)
        if isinstance(outcome, str):
            return outcome
        player = self.on_turn
        moves.append(Move(player=player, label=f"rolls {_dice(outcome)}", outcome=list(outcome)))
        before = self.state
        self.state = game.apply(state, outcome)
        self.turns.append(moves)
        self.save()
        return self._after_roll(before, player, outcome, moves)

    def _implicit_throw(self, dice: list[int]) -> tuple[Any, bool] | str | None:
        """The throw a typed roll makes at a decision: ``(action, inferred)``, a message
        why it cannot, or None when no throw of that many dice is a move here."""
        game, state = self.game, self.state
        legal = game.legal_actions(state)
        kinds = {type(a).__name__: a for a in legal}
        if "Roll" in kinds and getattr(state, "stage", None) == "bank_or_roll":
            return (kinds["Roll"], False) if len(dice) == state.dice_in_play else None
        keeps = [a for a in legal if type(a).__name__ == "Keep"]
        if not keeps:
            return None
        shown = getattr(state, "dice", None)
        if shown is None:  # the first throw of a Polish turn
            return (keeps[0], False) if len(dice) == 5 and keeps[0].dice == () else None
        if len(dice) != len(shown):
            return None
        common = sorted((Counter(shown) & Counter(dice)).elements())
        if len(common) == len(shown):
            return "the same dice as before: type 'keep ...' with the dice kept, then the dice thrown"
        keep = next((a for a in keeps if list(a.dice) == common), None)
        if keep is None:
            return None
        return keep, True

    def _outcome(self, state: Any, dice: list[int]) -> tuple[int, ...] | str:
        """The outcome a typed roll stands for at the roll due in ``state``: the dice
        thrown, or all the dice with the kept ones among them."""
        outcomes = {o for o, _ in self.game.chance_outcomes(state)}
        n = len(next(iter(outcomes)))
        kept = tuple(getattr(state, "kept", None) or ())
        typed = tuple(sorted(dice))
        if len(typed) == n and typed in outcomes:
            return typed
        if kept and len(typed) == n + len(kept):
            rest = Counter(typed) - Counter(kept)
            if sum(rest.values()) == n:
                return tuple(sorted(rest.elements()))
            return f"the dice kept ({_dice(kept)}) are not among {_dice(typed)}: type the {n} new dice"
        also = f" (or all {n + len(kept)} with the kept {_dice(kept)})" if kept else ""
        return f"{self.names[self.on_turn]} throws {n} {'die' if n == 1 else 'dice'} now: type {n} dice{also}, got {len(typed)}"

    def enter_move(self, text: str) -> str:
        """A typed move (``keep 6 6``, ``write full``, ``bank``)."""
        if self.game.current_player(self.state) == CHANCE:
            n = self.expected_roll()
            return f"{self.names[self.on_turn]} throws now: type the {n} dice thrown, e.g. {'5' * n}, or '?'/'help'"
        parsed = parse_input(text, self.game, self.state)
        if parsed.action is None:
            return parsed.error or f"I don't understand {text!r}; 'help' lists the commands"
        before, player = self.state, self.on_turn
        move = self._judged(parsed.action)
        self.state = self.game.apply(self.state, parsed.action)
        self.turns.append([move])
        self.save()
        return self._after_move(before, player, move)

    def _judged(self, action: Any, inferred: bool = False) -> Move:
        """``action`` of the player on turn as a move, with its cost versus the judge's
        best (not for an inferred keep: the dice really kept were not typed)."""
        state, player = self.state, self.game.current_player(self.state)
        label = self.game.describe_action(action, state)
        move = Move(player=player, label=label, action=self.game.action_to_json(action), inferred=inferred)
        if self.judge is None or inferred:
            return move
        try:
            ranked = self.judge.rank(state)
        except (AgentUnavailable, KockaError, TableError) as exc:
            self.judge, self.judge_error = None, str(exc)
            return move
        played = next((d for d in ranked if d.action == action), None)
        if played is not None:
            move.best = self.game.describe_action(ranked[0].action, state)
            move.loss = float(ranked[0].value - played.value)
        return move

    def undo(self) -> str:
        if not self.turns:
            return "nothing to undo yet"
        gone = self.turns.pop()
        self.state = self._replay(self.turns)
        self.save()
        what = "; ".join(f"{self.names[m.player]} {m.label}" for m in gone)
        return f"undone: {what}\n{self.status()}"

    # ----- what the players read -----
    def _after_roll(self, before: Any, player: int, outcome: tuple[int, ...], moves: list[Move]) -> str:
        lines = []
        for move in moves[:-1]:
            note = " (the dice kept, read from the dice that stayed: not judged)" if move.inferred else ""
            lines.append(f"{self.names[player]}: {move.label}{note}")
        event = getattr(self.state, "last_event", None)
        if event == "bust":
            lines.append(f"{self.names[player]} rolls {_dice(outcome)}: bust, the turn total "
                         f"{getattr(before, 'turn_total', 0)} is lost")
        elif event == "six_ones":
            lines.append(f"{self.names[player]} rolls {_dice(outcome)}: six 1s, an instant win (KOCKA-19)")
        lines.append(self.status())
        return "\n".join(lines)

    def _after_move(self, before: Any, player: int, move: Move) -> str:
        name = self.names[player]
        lines = [f"{name}: {move.label}"]
        if move.action:
            lines[0] += self.talk.move_note(self.game, self.state, player, move.action)
        lines.append(self.status())
        return "\n".join(lines)

    def status(self) -> str:
        """What happens next, in one or two lines."""
        if self.over:
            return self.final_text()
        game, state = self.game, self.state
        name = self.names[self.on_turn]
        n = self.expected_roll()
        stage = f"stage {state.stage}, " if hasattr(state, "stage") and isinstance(state.stage, int) else ""
        if n is not None:
            kept = getattr(state, "kept", None) or ()
            if kept:
                return f"{name} keeps {_dice(kept)}: type the {n} dice thrown (or all five)"
            return (self.talk.roll_due(game, state, self.names, n)
                    or f"{stage}{name} to play: type the first roll ({n} dice)")
        dice = getattr(state, "dice", None) or getattr(state, "roll", None)
        shown = f": {_dice(dice)}" if dice else ""
        fences = f", fences {state.fences[state.player]}" if hasattr(state, "fences") else ""
        then = ""
        if dice is None and any(type(a).__name__ == "Keep" for a in game.legal_actions(state)):
            then = " Type the first roll (5 dice);"
        if getattr(state, "stage", None) == "bank_or_roll":
            then = " 'bank', or type the dice thrown;" if game.may_bank(state) else " type the dice thrown;"
        return f"{stage}{name}, {self.throw_text()}{fences}{shown}.{then} '?' for the hint, 'help' for the commands"

    def help_text(self) -> str:
        """This game's commands: a roll, its moves (from its action types, worded by the
        engine) and the companion's commands."""
        game = self.game
        after_keep = " (after a keep: the new dice, or all of them)" if "Keep" in {c.__name__ for c in game.ACTIONS} else ""
        lines = [f"{game.spec().title} at the table: {', '.join(self.names)}. Type:",
                 f"  {'33355 or 3 3 3 5 5':<24}the dice thrown{after_keep}"]
        for cls in game.ACTIONS:
            example = _example_action(game, cls)
            if example is None:
                continue
            text = game.describe_action(example, None)
            box = getattr(example, "box", None) or getattr(example, "combo", None)
            if box is not None and cls.__name__ not in ("Declare", "Scratch"):
                names = dict.fromkeys((game.box_label(box), game.box_label(box, "en")))
                text += f" (or: {' / '.join(names)})"
            explain = ACTION_HELP.get(cls.__name__, "")
            lines.append(f"  {text:<24}{explain}" if len(text) < 24 else f"  {text}\n  {'':<24}{explain}")
        lines += [
            f"  {'? (or: ? all)':<24}the hint for the player on turn: every move with its loss against the best,",
            f"  {'':<24}the best in plain words, and the chance of finishing first",
            *([f"  {'':<24}(with two or more players also the moves that win most often: the target table)"]
              if self.talk.plays_to_win(game) else []),
            f"  {'undo':<24}take back the last step (also after the end)",
            f"  {'cards':<24}everybody's card (or score) with totals",
            f"  {'moves':<24}the legal moves now",
            f"  {'quit':<24}leave; the game is saved after every step (go on with --resume FILE)",
        ]
        return "\n".join(lines)

    def cards_text(self) -> str:
        game, state = self.game, self.state
        lines = [render_state(game, state, self.names, self.on_turn if not self.over else 0)]
        chances = self.chances_text()
        if chances:
            lines.append(chances)
        return "\n".join(lines)

    def chances_text(self) -> str:
        """The chances of finishing first, as the game's talk gives them (scorecard games:
        every player's; Kocka: the win probability of the player on turn at the start of
        his turn); "" with one player, after the end, or where the talk has none."""
        if self.over or self.game.num_players < 2:
            return ""
        try:
            return self.talk.chances(self.game, self.state, self.names, self.options, self._chances)
        except TableError as exc:
            return f"(no chances: {exc})"

    def position_text(self) -> str:
        """The position of the player on turn in one line."""
        return self.talk.position(self.game, self.state, self.names, self.throw_text())

    def hint_text(self, show_all: bool = False) -> str:
        if self.over:
            return "the game is over"
        game, state = self.game, self.state
        if game.current_player(state) == CHANCE:
            return "\n".join(x for x in (f"nothing to decide: {self.status()}", self.chances_text()) if x)
        ranked = hint_ranking(self.judge, self.judge_error, state)
        if isinstance(ranked, str):
            return ranked
        name = self.names[self.on_turn]
        report = HintReport(position=f"{name}: {self.position_text()}",
                            value_name=self.judge.value_name, decisions=ranked)
        lines = [render(report, top=0 if show_all else 8), ""]
        card_game = bool(game.card_boxes())
        lines += [f"  {line}" for line in advice_lines(game, state, ranked, self.judge.value_name,
                                                        self.judge.rank if card_game else None, TOP_ADVICE)]
        chances = self.chances_text()
        if chances:
            lines.append(chances)
        to_win = self.to_win_text(ranked, show_all)
        if to_win:
            lines += ["", to_win]
        return "\n".join(lines)

    # ----- playing to win (scorecard games, two or more players) -----
    def winner_agent(self) -> Agent | str | None:
        """The ``winner`` agent of this game (P(finishing first) against the other cards,
        from the target table), or one sentence saying why there is none; None where it
        does not apply (the game's talk does not play to win here: one player, or not a
        scorecard game). A missing table is looked for again at the next hint (it may have
        been built meanwhile)."""
        game = self.game
        if not self.talk.plays_to_win(game):
            return None
        if self._winner is not None:
            return self._winner
        try:
            solver = solver_for(game.NAME, "target")
        except TableError:
            return None
        cache_dir = self.options.cache_dir
        try:
            get_table(game, "target", cache_dir=cache_dir, build_missing=self.options.build_missing)
            self._winner = make_agent("winner", game, 0, self.options)
        except (TableError, AgentUnavailable) as exc:
            if not path_for(game, solver, cache_dir).is_file():
                return ("To see which move wins most often, not only which scores most, build the target table once: "
                        f"{build_command(game, solver, cache_dir)}")
            return f"No ranking to win here: {exc}"
        return self._winner

    def to_win_ranking(self) -> list[Decision] | str | None:
        """Every legal action of the player on turn valued by the ``winner`` agent
        (P(finishing first), ties shared), best first; a sentence where it cannot be had;
        None where it does not apply (also at a roll and after the end)."""
        if self.over or self.game.current_player(self.state) == CHANCE:
            return None
        agent = self.winner_agent()
        if agent is None or isinstance(agent, str):
            return agent
        try:
            return agent.rank(self.state)
        except (AgentUnavailable, KockaError, TableError) as exc:
            return f"No ranking to win here: {exc}"

    def to_win_text(self, points: Sequence[Decision], show_all: bool = False) -> str:
        """The hint's "to win" part: the ``winner`` agent's P(win) of the first
        :data:`TOP_TO_WIN` actions (all with ``show_all``) beside their expected final
        score, and whether the best move to win differs from ``points[0]``, the best for
        points (the judge's ranking). "" where it does not apply."""
        ranked = self.to_win_ranking()
        if ranked is None or not ranked:
            return ""
        if isinstance(ranked, str):
            return ranked
        name = self.names[self.on_turn]
        how = self.talk.to_win_basis(self.game, self.state)
        lines = [f"to win: {name}'s chance of finishing first (ties shared) with each move, if the others play "
                 f"for points ({how}):"]
        shown = ranked if show_all else ranked[:TOP_TO_WIN]
        best = ranked[0]
        width = max(len("action"), *(len(d.label) for d in shown))
        score = "expected final score"
        lines.append(f"  {'action':<{width}}  {'P(win)':>7}  {'vs best':>9}  {score:>20}")
        for i, d in enumerate(shown):
            ev = (d.detail or {}).get(score)
            ev_text = f"{ev:.4f}" if isinstance(ev, float) else "-"
            lines.append(f"{'*' if i == 0 else ' '} {d.label:<{width}}  {_percent(d.value):>7}  "
                         f"{100 * (best.value - d.value):>6.1f} pp  {ev_text:>20}")
        if len(ranked) > len(shown):
            lines.append(f"  ... {len(ranked) - len(shown)} more ('? all' lists every move)")
        lines.append(f"  {self._to_win_verdict(ranked, points)}")
        return "\n".join(lines)

    def _to_win_verdict(self, ranked: Sequence[Decision], points: Sequence[Decision]) -> str:
        """One sentence: is the best move for points also the best to win?"""
        best = ranked[0]
        top = points[0]
        mine = next((d for d in ranked if d.action == top.action), None)
        if mine is None:
            return f"The best for points is {top.label}."
        gain = best.value - mine.value
        if gain <= 1e-9:
            return f"{_capital(top.label)}, the best move for points, is also the best to win ({_percent(mine.value)})."
        cost = next((top.value - d.value for d in points if d.action == best.action), None)
        gain_text = f"{100 * gain:.1f}" if gain >= 0.0005 else "less than 0.1"
        text = (f"To win, {best.label} rather than {top.label}, the best for points: it wins {gain_text} percentage "
                f"points more often ({_percent(best.value)} against {_percent(mine.value)})")
        if cost is not None:
            text += f" and gives up {cost:.2f} points on average"
        return text + "."

    def final_text(self) -> str:
        """The final scores and each player's costliest decisions."""
        lines = ["game over.", final_scores_text(self.game, self.state, self.names)]
        unit = self.judge.value_name if self.judge is not None else "value"
        for seat, name in enumerate(self.names):
            moves = [m for turn in self.turns for m in turn if m.player == seat and m.action is not None]
            judged = [m for m in moves if m.loss is not None]
            costly = sorted((m for m in judged if m.loss > 1e-9), key=lambda m: -m.loss)
            text = (f"{name}: {len(judged)} decisions judged, total cost {sum(m.loss for m in judged):.4f} "
                    f"({unit}) versus the best play")
            inferred = sum(m.inferred for m in moves)
            untabled = len(moves) - len(judged) - inferred
            if inferred:
                text += f"; {inferred} keep{'s' if inferred > 1 else ''} read from the dice that stayed, not judged"
            if untabled:
                text += f"; {untabled} not judged (no value table then)"
            lines.append(text)
            for m in costly[:3]:
                lines.append(f"    '{m.label}' instead of '{m.best}': cost {m.loss:.4f}")
        return "\n".join(lines)

    # ----- the terminal -----
    def run(self, read: Callable[[str], str | None], write: Callable[[str], None]) -> int:
        """Read lines until the game is over and the players leave, or ``quit`` / end of
        input; returns the exit code (0)."""
        write(f"{self.game.spec().title}: {', '.join(self.names)}; saving to {self.path}. 'help' lists the commands.")
        write(self.status())
        while not self.stopped:
            line = read(self.prompt())
            if line is None:
                write(f"\nsaved to {self.path}; go on later with: kocka table --resume {self.path}")
                break
            try:
                write(self.handle(line))
            except (KockaError, TableError) as exc:
                write(f"not possible: {exc}")
        return 0


ACTION_HELP = {
    "Keep": "keep these dice and throw the others",
    "Fill": "write the dice into this box; the turn ends",
    "Write": "write the dice into this box; the turn ends",
    "Record": "record this combination; the turn ends",
    "Scratch": "cross this box out (0 points)",
    "Declare": "name the box this turn plays for",
    "EndTurn": "end the turn without recording",
    "SetAside": "set these dice aside and score them",
    "StartSeries": "start a series with these dice",
    "TakeSeries": "set aside more dice of the series",
    "NameJoker": "name a joker face for the last die of a series",
    "Bank": "add the turn total to the score; the turn ends",
    "Roll": "throw the dice left (or type the dice thrown)",
}
"""What each kind of move does, for ``help`` (the moves themselves are worded by the engine)."""


def _example_action(game: Game, cls: type) -> Any:
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


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def _percent(p: float) -> str:
    return f"{100 * p:.1f}%"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def run_table(game_name: str | None, players: Sequence[str] | None, resume: str | None, save: str | None,
              rules: Any, options: AgentOptions, read: Callable[[str], str | None] | None = None,
              write: Callable[[str], None] | None = None) -> int:
    """``kocka table``: start or resume a game and play it in the terminal."""
    if resume is not None:
        if players:
            raise KockaError("--resume continues a saved game with its own players; leave out --players")
        session = TableSession.resume(resume, options)
        if game_name is not None and game_name != session.game.NAME:
            raise KockaError(f"{resume!r} is a saved {session.game.NAME} game, not {game_name}")
        if save is not None:
            session.path = pathlib.Path(save)
            session.save()
    else:
        if game_name is None:
            raise KockaError("name the game (kocka table kockapoker --players Anna,Béla,me) or give --resume FILE")
        if not players:
            raise KockaError("--players is needed: the names in playing order, e.g. --players Anna,Béla,me")
        session = TableSession.start(game_name, players, save, rules, options)
    return session.run(read or _read_stdin, write or print)


def _read_stdin(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None
