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
* ``undo``, ``cards`` (every card with totals), ``moves``, ``help``, ``quit``: in English or
  in the words of any of the four languages, with or without accents (:func:`command_word`:
  Hungarian ``vissza``, ``lapok``, ``lépések``, ``súgó``, ``kilépés``, ``? mind``; Polish
  ``cofnij``, ``karty``, ``ruchy``, ``pomoc``, ``koniec``, ``? wszystkie``; Slovak ``späť``,
  ``karty``, ``ťahy``, ``pomoc``, ``koniec``, ``? všetky``).

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
import functools
import json
import os
import pathlib
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from kocka.agents.bots.base import Agent, AgentUnavailable
from kocka.agents.advice.hint import HintReport
from kocka.agents.advice.kocka import stand_in_line
from kocka.agents.advice.cards import advice_lines
from kocka.agents.advice.table_talk import TableTalk, talk_for
from kocka.solver.base.jsonio import loads as load_json
from kocka.agents.frontends.games.play import (
    example_action, final_scores_text, hint_ranking, judge_for, parse_input, problem_text, ranking_text, render_state,
    throw_text, value_label,
)
from kocka.solver.base.i18n import LANGUAGES, N_, _, choose_language, ngettext, number, pgettext, percent, use_language
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.store.table_store import build_command, game_from_cli, get_table, path_for, solver_for
from kocka.solver.rules import CHANCE, Game, game_specs, get_game, spec_for
from kocka.solver.rules.words import normalize

FORMAT = "kocka.table/1"
"""Version of the saved-game document."""
TOP_ADVICE = 3
"""How many actions of a hint are said in plain words."""
TOP_TO_WIN = 5
"""How many actions the hint's "to win" ranking lists (``? all``: every one)."""
_DIGITS = re.compile(r"[0-9](?:[\s,]*[0-9])*")
ENGLISH_COMMAND_ALIASES = {"exit": "quit", "q": "quit", "u": "undo", "card": "cards", "show": "cards", "m": "moves",
                           "hint": "?", "?": "?"}
"""Short English forms of the companion's commands, typed in every language."""


def command_word(command: str) -> str:
    """The word the companion's ``command`` (``help``, ``undo``, ``cards``, ``moves``,
    ``quit``, and ``all`` of ``? all``) is typed as in the language in force ("súgó")."""
    words = {  # one literal per call, so the catalogues extract each word
        "help": pgettext("companion command", "help"), "undo": pgettext("companion command", "undo"),
        "cards": pgettext("companion command", "cards"), "moves": pgettext("companion command", "moves"),
        "quit": pgettext("companion command", "quit"), "all": pgettext("companion command", "all"),
    }
    return words[command]


@functools.lru_cache(maxsize=1)
def _typed_commands() -> dict[str, str]:
    """Every typed command word, normalized (no accents, lower case), and the command it
    names: the words of all four languages (the catalogues' own) and the English aliases."""
    typed = dict(ENGLISH_COMMAND_ALIASES)
    for lang in LANGUAGES:
        with use_language(lang):
            typed.update({normalize(command_word(c)): c for c in ("help", "undo", "cards", "moves", "quit", "all")})
    return typed


def typed_command(word: str) -> str | None:
    """The command a typed word names in any of the languages, with or without accents
    (``sugo``, ``súgó``, ``pomoc`` and ``help`` are all ``help``), or None."""
    return _typed_commands().get(normalize(word))


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
            raise TableFileError(_("a saved move needs a player and a label, got {move}", move=str(doc)[:80]))
        unknown = set(doc) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise TableFileError(_("a saved move has unknown fields: {fields}", fields=", ".join(sorted(unknown))))
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
            raise KockaError(_("kocka table keeps the games with value tables: {games}; not {game}",
                               games=", ".join(companion_games()), game=game_name))
        names = [n.strip() for n in names]
        if not names or any(not n for n in names):
            raise KockaError(_("--players takes the players' names separated by commas, for example Anna,Béla,me; "
                               "got {names}", names=",".join(names)))
        if len(set(n.lower() for n in names)) != len(names):
            raise KockaError(_("two players have the same name: {names}", names=", ".join(names)))
        lo, hi = spec_for(game_name).players
        if not lo <= len(names) <= hi:
            raise KockaError(_("{game} is played by {low} to {high} players, got {n}", game=_(spec_for(game_name).title),
                               low=lo, high=hi, n=len(names)))
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
            raise TableFileError(_("cannot read the saved game {file}: {reason}", file=path, reason=exc.strerror or exc)) from None
        except ValueError as exc:
            raise TableFileError(_("{file} is not a saved game (not JSON: {reason})", file=path, reason=exc)) from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise TableFileError(_("{file} is not a saved kocka table game (format {format}), got {got}", file=path,
                                   format=FORMAT, got=got))
        try:
            names = list(doc["players"])
            position = doc["state"]
            game = get_game(doc["game"], position.get("rules"), num_players=len(names))
            turns = [[Move.from_json(m) for m in turn] for turn in doc["turns"]]
        except (KeyError, TypeError, AttributeError) as exc:
            raise TableFileError(_("{file}: a saved game needs its game, players, turns and state ({reason} is wrong)",
                                   file=path, reason=exc)) from None
        session = cls(game=game, names=names, path=path, options=options, turns=turns, created=doc.get("created", ""))
        try:
            session.state = session._replay(turns)
        except (KockaError, TypeError, ValueError) as exc:
            raise TableFileError(_("{file}: the saved moves cannot be replayed: {reason}", file=path, reason=exc)) from None
        if json.loads(json.dumps(game.state_to_json(session.state))) != position:
            raise TableFileError(_("{file}: the saved moves do not lead to the saved position (was it edited?)", file=path))
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
        return self.game.seat_on_turn(self.state)

    def throw_text(self) -> str:
        """Which throw of the turn the player on turn is at, in words."""
        return throw_text(self.game, self.state)

    def expected_roll(self) -> int | None:
        """How many dice the roll due now throws (None where no roll is due)."""
        if self.game.current_player(self.state) != CHANCE:
            return None
        outcomes = self.game.chance_outcomes(self.state)
        return len(outcomes[0][0])

    def prompt(self) -> str:
        if self.over:
            return _("game over") + "> "
        name = self.names[self.on_turn]
        n = self.expected_roll()
        if n is not None:
            kept = self.game.dice_kept(self.state)
            if kept:
                return ngettext("{name}, roll {n} die (kept {kept})", "{name}, roll {n} dice (kept {kept})", n,
                                name=name, kept=_dice(kept)) + "> "
            return ngettext("{name}, roll {n} die", "{name}, roll {n} dice", n, name=name) + "> "
        dice = self.game.dice_in_view(self.state)
        if dice:
            return f"{name}, {self.throw_text()}: {_dice(dice)}" + "> "
        return f"{name}, {self.throw_text()}" + "> "

    # ----- one line -----
    def handle(self, line: str) -> str:
        """Answer one typed line; the game is saved after every step that changes it."""
        text = line.strip()
        if not text:
            return self.status()
        words = text.split()
        command = typed_command(words[0])
        if text.startswith("?") and command is None:  # "?all": the question mark and the word together
            command, words = "?", ["?", text[1:]]
        if command == "quit":
            self.stopped = True
            return self.saved_text()
        if command == "help":
            return self.help_text()
        if command == "undo":
            return self.undo()
        if command == "cards":
            return self.cards_text()
        if command == "?":
            rest = " ".join(words[1:])
            return self.hint_text(show_all=bool(rest) and typed_command(rest) == "all")
        if self.over:
            return _("the game is over: “{undo}” takes back the last step, “{quit}” leaves",
                     undo=command_word("undo"), quit=command_word("quit"))
        if command == "moves":
            if self.game.current_player(self.state) == CHANCE:
                n = self.expected_roll()
                return ngettext("a roll is due: type the {n} die thrown", "a roll is due: type the {n} dice thrown", n)
            return "\n".join(f"  {self.game.describe_action(a, self.state)}" for a in self.game.legal_actions(self.state))
        if _DIGITS.fullmatch(text):
            dice = [int(ch) for ch in text if ch.isdigit()]
            answer = self.enter_roll(dice)
            if answer is not None:
                return answer
            digits = " ".join(map(str, dice))
            if self.game.card_boxes():  # "6" may be a box ("write 6-osok") or "keep 6": ask
                keep = self.game.keep_action(self.state, tuple(sorted(dice)))
                move = self.game.describe_action(keep, self.state) if keep is not None else f"keep {digits}"
                return _("{typed} is not a roll here: type “{move}”, or the box to write", typed=text, move=move)
            return self.enter_move(f"take {digits}")
        return self.enter_move(text)

    def enter_roll(self, dice: list[int]) -> str | None:
        """A typed roll: the outcome of the roll due, or the player's throw and its
        outcome. None when the digits are not a roll here but may be a move (``6`` for
        the sixes box)."""
        bad = [d for d in dice if not 1 <= d <= 6]
        if bad:
            return _("dice show 1 to 6, got {value}", value=bad[0])
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
        moves.append(Move(player=player, label=_("rolls {dice}", dice=_dice(outcome)), outcome=list(outcome)))
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
        rethrow = game.rethrow_size(state)
        if "Roll" in kinds and rethrow is not None:
            return (kinds["Roll"], False) if len(dice) == rethrow else None
        keeps = [a for a in legal if type(a).__name__ == "Keep"]
        if not keeps:
            return None
        shown = game.dice_in_view(state)
        if shown is None:  # the first throw of a Polish turn
            return (keeps[0], False) if len(dice) == 5 and keeps[0].dice == () else None
        if len(dice) != len(shown):
            return None
        common = sorted((Counter(shown) & Counter(dice)).elements())
        if len(common) == len(shown):
            example = next((a for a in keeps if a.dice), keeps[0])
            return _("the same dice as before: first type the dice kept (for example “{move}”), then the dice thrown",
                     move=game.describe_action(example, state))
        keep = next((a for a in keeps if list(a.dice) == common), None)
        if keep is None:
            return None
        return keep, True

    def _outcome(self, state: Any, dice: list[int]) -> tuple[int, ...] | str:
        """The outcome a typed roll stands for at the roll due in ``state``: the dice
        thrown, or all the dice with the kept ones among them."""
        outcomes = {o for o, _p in self.game.chance_outcomes(state)}
        n = len(next(iter(outcomes)))
        kept = tuple(self.game.dice_kept(state))
        typed = tuple(sorted(dice))
        if len(typed) == n and typed in outcomes:
            return typed
        if kept and len(typed) == n + len(kept):
            rest = Counter(typed) - Counter(kept)
            if sum(rest.values()) == n:
                return tuple(sorted(rest.elements()))
            return ngettext("the dice kept ({kept}) are not among {typed}: type the {n} new die",
                            "the dice kept ({kept}) are not among {typed}: type the {n} new dice", n,
                            kept=_dice(kept), typed=_dice(typed))
        name = self.names[self.on_turn]
        if kept:
            return ngettext("{name} throws {n} die now: type {n} die, or all {all} with the kept {kept}; not {got}",
                            "{name} throws {n} dice now: type {n} dice, or all {all} with the kept {kept}; not {got}",
                            n, name=name, all=n + len(kept), kept=_dice(kept), got=len(typed))
        return ngettext("{name} throws {n} die now: type {n} die, not {got}",
                        "{name} throws {n} dice now: type {n} dice, not {got}", n, name=name, got=len(typed))

    def enter_move(self, text: str) -> str:
        """A typed move (``keep 6 6``, ``write full``, ``bank``)."""
        if self.game.current_player(self.state) == CHANCE:
            n = self.expected_roll()
            return ngettext("{name} throws now: type the {n} die thrown, for example {example}, or “?” or “{help}”",
                            "{name} throws now: type the {n} dice thrown, for example {example}, or “?” or “{help}”",
                            n, name=self.names[self.on_turn], example="5" * n, help=command_word("help"))
        parsed = parse_input(text, self.game, self.state)
        if parsed.action is None:
            return parsed.error or _("I don't understand “{typed}”; “{help}” lists the commands", typed=text,
                                     help=command_word("help"))
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
            return _("nothing to undo yet")
        gone = self.turns.pop()
        self.state = self._replay(self.turns)
        self.save()
        what = "; ".join(f"{self.names[m.player]}: {m.label}" for m in gone)
        return _("undone: {moves}", moves=what) + "\n" + self.status()

    # ----- what the players read -----
    def _after_roll(self, before: Any, player: int, outcome: tuple[int, ...], moves: list[Move]) -> str:
        lines = []
        for move in moves[:-1]:
            if move.inferred:
                lines.append(_("{name}: {move} (the dice kept, read from the dice that stayed: not judged)",
                               name=self.names[player], move=move.label))
            else:
                lines.append(f"{self.names[player]}: {move.label}")
        event = self.game.turn_event(self.state)
        if event == "bust":
            lines.append(_("{name} rolls {dice}: bust, the turn total {total} is lost", name=self.names[player],
                           dice=_dice(outcome), total=self.game.turn_total(before)))
        elif event == "six_ones":
            lines.append(_("{name} rolls {dice}: six 1s, an instant win", name=self.names[player], dice=_dice(outcome)))
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
        progress = game.turn_progress(state)
        stage = progress.stage if progress is not None else None
        if n is not None:
            kept = game.dice_kept(state)
            if kept:
                return ngettext("{name} keeps {kept}: type the {n} die thrown (or all {all})",
                                "{name} keeps {kept}: type the {n} dice thrown (or all {all})", n,
                                name=name, kept=_dice(kept), all=n + len(kept))
            talk = self.talk.roll_due(game, state, self.names, n)
            if talk:
                return talk
            line = ngettext("{name} to play: type the first roll ({n} die)", "{name} to play: type the first roll ({n} dice)",
                            n, name=name)
            return _("stage {stage}: {line}", stage=stage, line=line) if stage is not None else line
        dice = game.dice_in_view(state)
        line = f"{name}, {self.throw_text()}"
        if stage is not None:
            line = _("stage {stage}: {line}", stage=stage, line=line)
        if progress is not None and progress.fences is not None:
            line = _("{line}, fences left: {fences}", line=line, fences=progress.fences)
        if dice:
            line = f"{line}: {_dice(dice)}"
        sentences = [line + "."]
        legal = game.legal_actions(state)
        if dice is None and any(type(a).__name__ == "Keep" for a in legal):
            sentences.append(_("Type the first roll (5 dice)."))
        if game.rethrow_size(state) is not None:
            bank = next((a for a in legal if type(a).__name__ == "Bank"), None)
            sentences.append(_("Type “{bank}”, or the dice thrown.", bank=game.describe_action(bank, state)) if bank
                             else _("Type the dice thrown."))
        sentences.append(_("“?” for the hint, “{help}” for the commands.", help=command_word("help")))
        return " ".join(sentences)

    def help_text(self) -> str:
        """This game's commands: a roll, its moves (from its action types, worded by the
        engine) and the companion's commands."""
        game = self.game
        has_keep = "Keep" in {c.__name__ for c in game.ACTIONS}
        rows = [(_("33355 or 3 3 3 5 5"), _("the dice thrown (after a keep: the new dice, or all of them)") if has_keep
                 else _("the dice thrown"))]
        for cls in game.ACTIONS:
            example = example_action(game, cls)
            if example is None:
                continue
            text = game.describe_action(example, None)
            box = game.action_box(example)
            if box is not None and cls.__name__ not in ("Declare", "Scratch"):
                names = dict.fromkeys((game.box_label(box), game.box_label(box, "en")))
                text = _("{move} (or: {names})", move=text, names=" / ".join(names))
            rows.append((text, _(ACTION_HELP[cls.__name__]) if cls.__name__ in ACTION_HELP else ""))
        rows += [
            (_("? (or: ? {all})", all=command_word("all")), _("the hint for the player on turn: every move with its loss against the best, "
                                   "the best in plain words, and the chance of finishing first")),
            *([("", _("with two or more players also the moves that win most often (the target table)"))]
              if self.talk.plays_to_win(game) else []),
            (_command_help("undo"), _("take back the last step (also after the end)")),
            (_command_help("cards"), _("everybody's card (or score) with totals")),
            (_command_help("moves"), _("the legal moves now")),
            (_command_help("quit"), _("leave; the game is saved after every step (go on with kocka table --resume FILE)")),
        ]
        lines = [_("{game} at the table: {players}. Type:", game=_(game.spec().title), players=", ".join(self.names))]
        for text, explain in rows:
            lines.append(f"  {text:<24}{explain}" if len(text) < 24 else f"  {text}\n  {'':<24}{explain}")
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
            return _("No chances of finishing first here: {reason}", reason=exc)

    def position_text(self) -> str:
        """The position of the player on turn in one line."""
        return self.talk.position(self.game, self.state, self.names, self.throw_text())

    def hint_text(self, show_all: bool = False) -> str:
        if self.over:
            return _("the game is over")
        game, state = self.game, self.state
        if game.current_player(state) == CHANCE:
            return "\n".join(x for x in (_("nothing to decide: {status}", status=self.status()), self.chances_text()) if x)
        ranked = hint_ranking(self.judge, self.judge_error, state)
        if isinstance(ranked, str):
            return ranked
        ranked = self.talk.move_words(game, state, ranked)
        name = self.names[self.on_turn]
        report = HintReport(position=f"{name}: {self.position_text()}",
                            value_name=value_label(self.judge.value_name), decisions=ranked)
        lines = [ranking_text(report, 0 if show_all else 8, _("“? {all}” lists every move", all=command_word("all"))), ""]
        stand_in = stand_in_line(game, state, self.judge.stand_in, self.names)
        if stand_in:  # the judge plays a stand-in for a table not here (Kocka, three or more players)
            lines.insert(1, stand_in)
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
                return _("To see which move wins most often, not only which scores most, build the target table once: "
                         "{command}", command=build_command(game, solver, cache_dir))
            return _("No ranking to win here: {reason}", reason=problem_text(exc))
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
            return _("No ranking to win here: {reason}", reason=problem_text(exc))

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
        lines = [_("to win: {name}'s chance of finishing first (ties shared) with each move, if the others play "
                   "for points ({how}):", name=name, how=how)]
        shown = ranked if show_all else ranked[:TOP_TO_WIN]
        best = ranked[0]
        action, chance, behind, score = _("move"), _("to win"), _("behind"), _("expected final score")
        width = max(len(action), *(len(d.label) for d in shown))
        lines.append(f"  {action:<{width}}  {chance:>7}  {behind:>9}  {score:>20}")
        for i, d in enumerate(shown):
            ev = (d.detail or {}).get("expected final score")
            ev_text = number(ev, 4) if isinstance(ev, float) else "-"
            gap = _("{points} pp", points=number(100 * (best.value - d.value), 1))
            lines.append(f"{'*' if i == 0 else ' '} {d.label:<{width}}  {_percent(d.value):>7}  "
                         f"{gap:>9}  {ev_text:>20}")
        if len(ranked) > len(shown):
            lines.append("  " + ngettext("… {n} more move (“? {all}” lists every move)",
                                         "… {n} more moves (“? {all}” lists every move)", len(ranked) - len(shown),
                                         all=command_word("all")))
        lines.append(f"  {self._to_win_verdict(ranked, points)}")
        return "\n".join(lines)

    def _to_win_verdict(self, ranked: Sequence[Decision], points: Sequence[Decision]) -> str:
        """One sentence: is the best move for points also the best to win?"""
        best = ranked[0]
        top = points[0]
        mine = next((d for d in ranked if d.action == top.action), None)
        if mine is None:
            return _("The best for points is {move}.", move=top.label)
        gain = best.value - mine.value
        if gain <= 1e-9:
            return _("{move}, the best move for points, is also the best to win ({chance}).", move=_capital(top.label),
                     chance=_percent(mine.value))
        cost = next((top.value - d.value for d in points if d.action == best.action), None)
        gain_text = number(100 * gain, 1) if gain >= 0.0005 else _("less than {points}", points=number(0.1, 1))
        params = dict(move=best.label, best=top.label, gain=gain_text, chance=_percent(best.value),
                      other=_percent(mine.value))
        if cost is None:
            return _("To win, {move} rather than {best}, the best for points: it wins {gain} percentage points more "
                     "often ({chance} against {other}).", **params)
        return _("To win, {move} rather than {best}, the best for points: it wins {gain} percentage points more often "
                 "({chance} against {other}) and gives up {cost} points on average.", cost=number(cost, 2), **params)

    def final_text(self) -> str:
        """The final scores and each player's costliest decisions."""
        lines = [_("game over."), final_scores_text(self.game, self.state, self.names)]
        unit = value_label(self.judge.value_name) if self.judge is not None else _("value")
        for seat, name in enumerate(self.names):
            moves = [m for turn in self.turns for m in turn if m.player == seat and m.action is not None]
            judged = [m for m in moves if m.loss is not None]
            costly = sorted((m for m in judged if m.loss > 1e-9), key=lambda m: -m.loss)
            parts = [ngettext("{name}: {n} decision judged, total cost {cost} ({unit}) versus the best play",
                              "{name}: {n} decisions judged, total cost {cost} ({unit}) versus the best play",
                              len(judged), name=name, cost=number(sum(m.loss for m in judged), 4), unit=unit)]
            inferred = sum(m.inferred for m in moves)
            untabled = len(moves) - len(judged) - inferred
            if inferred:
                parts.append(ngettext("{n} keep read from the dice that stayed, not judged",
                                      "{n} keeps read from the dice that stayed, not judged", inferred))
            if untabled:
                parts.append(ngettext("{n} not judged (no value table then)", "{n} not judged (no value table then)",
                                      untabled))
            lines.append("; ".join(parts))
            for m in costly[:3]:
                lines.append("    " + _("“{move}” instead of “{best}”: cost {cost}", move=m.label, best=m.best,
                                        cost=number(m.loss, 4)))
        return "\n".join(lines)

    # ----- the terminal -----
    def run(self, read: Callable[[str], str | None], write: Callable[[str], None]) -> int:
        """Read lines until the game is over and the players leave, or ``quit`` / end of
        input; returns the exit code (0)."""
        write(_("{game}: {players}; saving to {path}. “{help}” lists the commands.", game=_(self.game.spec().title),
                players=", ".join(self.names), path=self.path, help=command_word("help")))
        write(self.status())
        while not self.stopped:
            line = read(self.prompt())
            if line is None:
                write("\n" + self.saved_text())
                break
            try:
                write(self.handle(line))
            except (KockaError, TableError) as exc:
                write(_("not possible: {reason}", reason=problem_text(exc)))
        return 0

    def saved_text(self) -> str:
        """Where the game is saved and how to go on with it."""
        return _("saved to {path}; go on later with: kocka table --resume {path}", path=self.path)


ACTION_HELP = {
    "Keep": N_("keep these dice and throw the others"),
    "Fill": N_("write the dice into this box; the turn ends"),
    "Write": N_("write the dice into this box; the turn ends"),
    "Record": N_("record this combination; the turn ends"),
    "Scratch": N_("cross this box out (0 points)"),
    "Declare": N_("name the box this turn plays for"),
    "EndTurn": N_("end the turn without recording"),
    "SetAside": N_("set these dice aside and score them"),
    "StartSeries": N_("start a series with these dice"),
    "TakeSeries": N_("set aside more dice of the series"),
    "NameJoker": N_("name a joker face for the last die of a series"),
    "Bank": N_("add the turn total to the score; the turn ends"),
    "Roll": N_("throw the dice left (or type the dice thrown)"),
}
"""What each kind of move does, for ``help`` (the moves themselves are worded by the engine)."""


def _command_help(command: str) -> str:
    """A command as the help lists it: its word in the language in force, and the English
    word too where that differs (both are understood)."""
    word = command_word(command)
    with use_language("en"):
        english = command_word(command)
    return word if normalize(word) == normalize(english) else _("{move} (or: {names})", move=word, names=english)


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def _percent(p: float) -> str:
    return percent(p, 1)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def run_table(game_name: str | None, players: Sequence[str] | None, resume: str | None, save: str | None,
              rules: Any, options: AgentOptions, read: Callable[[str], str | None] | None = None,
              write: Callable[[str], None] | None = None, lang: str | None = None) -> int:
    """``kocka table``: start or resume a game and play it in the terminal, in ``lang``
    (None: ``KOCKA_LANG``, else the game's own language; a resumed game's)."""
    own = spec_for(game_name).words.language if game_name in companion_games() else None
    with use_language(choose_language(lang, own)):
        session = _open_table(game_name, players, resume, save, rules, options)
    with use_language(choose_language(lang, session.game.words.language)):
        return session.run(read or _read_stdin, write or print)


def _open_table(game_name: str | None, players: Sequence[str] | None, resume: str | None, save: str | None,
                rules: Any, options: AgentOptions) -> TableSession:
    """The session ``kocka table`` plays: the saved game ``resume``, or a new one."""
    if resume is not None:
        if players:
            raise KockaError(_("--resume continues a saved game with its own players; leave out --players"))
        session = TableSession.resume(resume, options)
        if game_name is not None and game_name != session.game.NAME:
            raise KockaError(_("{file} is a saved {saved} game, not {game}", file=resume, saved=session.game.NAME,
                               game=game_name))
        if save is not None:
            session.path = pathlib.Path(save)
            session.save()
    else:
        if game_name is None:
            raise KockaError(_("name the game (kocka table kockapoker --players Anna,Béla,me) or give --resume FILE"))
        if not players:
            raise KockaError(_("--players is needed: the names in playing order, for example --players Anna,Béla,me"))
        session = TableSession.start(game_name, players, save, rules, options)
    return session


def _read_stdin(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None
