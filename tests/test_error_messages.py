"""The errors a player can meet in the rules engines read as one sentence in his language
(issue 25): impossible dice, illegal moves and impossible positions, in English,
Hungarian, Polish and Slovak.

Every message is one line with no Python repr in it (no ``[``, ``]``, ``'``, ``(``), no
class name and no rule id; the rule a message follows from travels in ``error.rule``
instead (shown only with ``--explain``). The Hungarian, Polish and Slovak messages differ
from the English one (they are translated, not left in English).

The bad inputs are of two kinds: hand-picked ones, each with the rule RULES.md gives for
it (the misleading messages of issue 25 among them), and a seeded sample per game: random
legal play to a few positions, then at each an action that the engine does not list as
legal there, an impossible roll at a roll, and a state field set to a value no position
can hold.
"""
from __future__ import annotations

import dataclasses
import random
import re
from typing import Any, Callable

import pytest

import kocka.solver.rules  # noqa: F401  (registers every game)
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import (DiceError, IllegalActionError, InvalidStateError, KockaError, Reason,
                                      RulesError, either, shown)
from kocka.solver.base.i18n import use_language
from kocka.solver.rules import base as rules_base
from kocka.solver.rules.bluff_claims import Hand
from kocka.solver.rules.kocka import Bank, KockaGame, SetAside
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.rules.polish import PolishGame
from kocka.solver.rules.scorecard import Fill, HungarianGame, HungarianRules, Keep, SlovakGame, SlovakRules
from kocka.solver.rules.spec import game_specs

from conftest import RULES_MD

LANGUAGES = ("en", "hu", "pl", "sk")
RULE_ID = re.compile(r"\b(?:KOCKA|HU|SK|PL|BLUFF|YZ|YT)-\d+\b")
CAMEL_CASE = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")  # SetAside, KockaState, IllegalActionError
SEED = 25


def error_of(thunk: Callable[[], Any], lang: str) -> KockaError:
    """The error ``thunk`` raises with ``lang`` in force (it must raise one)."""
    with use_language(lang):
        try:
            thunk()
        except KockaError as exc:
            return exc
    raise AssertionError(f"{thunk} raised nothing in {lang}")


def check_readable(thunk: Callable[[], Any], json_names: bool = False) -> dict[str, KockaError]:
    """The error in every language, each checked to be a readable, translated sentence.
    ``json_names``: the input was a JSON action document, whose ``type`` names an action
    by its class name (docs/STATE.md), so the message may list those names."""
    errors = {lang: error_of(thunk, lang) for lang in LANGUAGES}
    english = str(errors["en"])
    for lang, error in errors.items():
        text = str(error)
        assert text and "\n" not in text, (lang, text)
        for mark in "[]'(":
            assert mark not in text, (lang, mark, text)
        assert json_names or not CAMEL_CASE.search(text), (lang, text)
        assert not RULE_ID.search(text), (lang, text)
        assert "KockaError" not in text and "Error:" not in text, (lang, text)
        if lang != "en":
            assert text != english, (lang, text)
        assert error.rule == errors["en"].rule, (lang, error.rule)  # the rule does not depend on the language
    return errors


# ----- hand-picked bad inputs, each with the rule RULES.md cites for it -------------------------
def kocka_bank_or_roll(turn_total: int, dice_left: int) -> Any:
    return KockaGame(num_players=2).position((0, 0), turn_total=turn_total, dice_left=dice_left)


def apply_on(game: Any, state: Any, action: Any) -> Callable[[], Any]:
    return lambda: game.apply(state, action)


def hungarian_filled_full_house() -> tuple[HungarianGame, Any]:
    """A kockapóker turn at throw 1 whose card already has full house written (the
    state is built through the engine: write full house on a first turn, then roll)."""
    game = HungarianGame(num_players=1)
    state = game.new_initial_state()
    state = game.apply(state, (2, 2, 3, 3, 3))
    state = game.apply(state, Fill("full_house"))
    state = game.apply(state, (1, 2, 3, 5, 6))
    return game, state


HAND_PICKED: list[tuple[str, Callable[[], Any], str | None]] = [
    # KOCKA-12: after a set-aside the player banks or rolls; typing dice is not a move then
    ("kocka 446 at bank or roll", apply_on(KockaGame(num_players=2), kocka_bank_or_roll(400, 5), SetAside((4, 4, 6))),
     "KOCKA-12"),
    # KOCKA-12 and KOCKA-13: below the minimum bank (350) only rolling is left
    ("kocka set-aside below the minimum bank", apply_on(KockaGame(num_players=2), kocka_bank_or_roll(300, 5),
                                                        SetAside((5,))), "KOCKA-12, KOCKA-13"),
    ("kocka bank below 350", apply_on(KockaGame(num_players=2), kocka_bank_or_roll(100, 4), Bank()), "KOCKA-13"),
    # KOCKA-5: each die set aside is worth at least 50, so 1 1 1 5 5 rolled means 50+ set aside
    ("kocka --dice 1 1 1 5 5 --score 3000",
     lambda: KockaGame(num_players=2).position((3000, 0), roll=(1, 1, 1, 5, 5)), "KOCKA-5"),
    # KOCKA-5: a lone 2 does not score
    ("kocka lone 2", apply_on(KockaGame(num_players=2), KockaGame(num_players=2).position((0, 0), roll=(1, 2, 3, 4, 4, 6)),
                              SetAside((2,))), "KOCKA-5"),
    ("kocka seven on a die", lambda: KockaGame(num_players=2).position((0, 0), roll=(1, 7)), None),
    ("kocka rule option", lambda: KockaRules.from_options({"min_bank": "never"}), None),
    ("kockapoker rule option zero or count", lambda: HungarianRules(house_negative="minus"), None),
    ("kockapoker five dice of seven", lambda: validate_dice([1, 2, 3, 4, 7], 5), None),
    ("kockapoker six dice", lambda: validate_dice([1, 2, 3, 4, 5, 6], 5, what="kept"), None),
    # a box already written: named as written, with its entry
    ("kockapoker full house written", lambda: apply_on(*hungarian_filled_full_house(), Fill("full_house"))(), None),
    ("kockapoker keep dice not rolled", lambda: apply_on(*hungarian_filled_full_house(), Keep((4, 4)))(), None),
    ("slovak rule option", lambda: SlovakRules(part1_choice="random"), None),
    ("polish unknown box", lambda: PolishGame(num_players=1).box_points("nonsense", (1, 2, 3, 4, 5)), None),
    ("unknown rule option", lambda: KockaRules.from_options({"kocka.nonsense": 1}), None),
]


def slovak_declared_wrong_box() -> Callable[[], Any]:
    """SK-3 under ``declare_after_first_throw``: a face box is written only when declared."""
    game = SlovakGame(SlovakRules(part1_choice="declare_after_first_throw"), num_players=1)
    state = game.apply(game.new_initial_state(), (1, 1, 2, 3, 6))
    declare = next(a for a in game.legal_actions(state) if type(a).__name__ == "Declare" and a.box == "ones")
    state = game.apply(state, declare)
    return apply_on(game, state, Fill("sixes"))


HAND_PICKED.append(("slovak undeclared face box", slovak_declared_wrong_box(), "SK-3"))


@pytest.mark.parametrize("name, thunk, rule", HAND_PICKED, ids=[c[0] for c in HAND_PICKED])
def test_hand_picked_bad_inputs_read_as_sentences(name: str, thunk: Callable[[], Any], rule: str | None) -> None:
    errors = check_readable(thunk)
    if rule is not None:
        assert errors["en"].rule == rule
        assert errors["en"].rules == tuple(r.strip() for r in rule.split(","))


def test_the_misleading_messages_of_issue_25_name_the_right_thing() -> None:
    game = KockaGame(num_players=2)
    with use_language("en"):
        # bank or roll with 5 dice left: says what is possible now
        text = str(error_of(apply_on(game, kocka_bank_or_roll(400, 5), SetAside((4, 4, 6))), "en"))
        assert "bank your 400 points or roll the 5 dice left" in text
        # a roll of five dice means one die was set aside: the turn total must say so
        text = str(error_of(lambda: game.position((3000, 0), roll=(1, 1, 1, 5, 5)), "en"))
        assert "1 die is already set aside" in text and "turn total is 0" in text and "turn_total" not in text
        assert "zero or count" in str(error_of(lambda: HungarianRules(house_negative="minus"), "en"))
        assert str(Hand(1, (5,))) == "pair 5"  # the bluff hint's "claim higher than pair 5"
        hungarian, state = hungarian_filled_full_house()
        text = str(error_of(apply_on(hungarian, state, Fill("full_house")), "en"))
        assert text.startswith(f"{hungarian.box_label('full_house')} is already written, with ")
    with use_language("hu"):
        text = str(error_of(apply_on(game, kocka_bank_or_roll(400, 5), SetAside((4, 4, 6))), "hu"))
        assert "írasd fel" in text and "5 kockával" in text  # the game's own verb for bank


def test_a_reason_carries_its_rule_into_the_error() -> None:
    reason = Reason("a lone 2 does not score", "KOCKA-5")
    error = IllegalActionError(reason)
    assert str(error) == "a lone 2 does not score" and error.rule == "KOCKA-5" and error.rules == ("KOCKA-5",)
    assert IllegalActionError("x", rule="PL-2, PL-12").rules == ("PL-2", "PL-12")
    assert RulesError("x").rule is None and RulesError("x").rules == ()
    import pickle
    assert pickle.loads(pickle.dumps(error)).rule == "KOCKA-5"


def test_values_and_options_read_as_words() -> None:
    with use_language("en"):
        assert shown([1, 3, 3]) == "1 3 3" and shown(((1, 2), (3,))) == "1 2, 3" and shown("x'y") == "xy"
        assert either(("zero", "count")) == "zero or count" and either((1, 2, 3)) == "1, 2 or 3"
    with use_language("pl"):
        assert either(("zero", "count")) == "zero lub count"


def test_rule_ids_exist_in_rules_md() -> None:
    if not RULES_MD.is_file():
        pytest.skip("needs ../shared/RULES.md beside the checkout")
    known = set(RULE_ID.findall(RULES_MD.read_text(encoding="utf-8")))
    for name, thunk, _rule in HAND_PICKED:
        assert set(error_of(thunk, "en").rules) <= known, name


# ----- a seeded sample of bad inputs per game ------------------------------------------------------
BAD_VALUES = (-1, 99, "nonsense", (7,), (), None, 2.5)


def sampled_bad_inputs(spec: Any, rng: random.Random, positions: int = 6) -> list[tuple[str, Callable[[], Any]]]:
    """Bad inputs met on a seeded random walk through ``spec``'s game: an action legal
    elsewhere but not here, an impossible roll, a state field no position holds."""
    game = spec.engine(num_players=max(2, spec.players[0]) if spec.players[1] >= 2 else 1)
    state = game.new_initial_state()
    seen_actions: list[Any] = []
    cases: list[tuple[str, Callable[[], Any]]] = []
    steps = 0
    while len(cases) < 3 * positions and steps < 400 and not game.is_terminal(state):
        steps += 1
        if game.is_chance_node(state):
            outcomes = [o for o, _p in game.chance_outcomes(state)]
            if rng.random() < 0.3:
                bad = tuple(outcomes[0]) + (7,)
                cases.append((f"{spec.name} roll {bad}", apply_on(game, state, bad)))
            state = game.apply(state, rng.choice(outcomes))
            continue
        legal = game.legal_actions(state)
        seen_actions.extend(a for a in legal if a not in seen_actions)
        illegal = [a for a in seen_actions if a not in legal]
        if illegal and rng.random() < 0.5:
            action = rng.choice(illegal)
            cases.append((f"{spec.name} illegal {action}", apply_on(game, state, action)))
        if dataclasses.is_dataclass(state) and rng.random() < 0.4:
            field = rng.choice([f.name for f in dataclasses.fields(state) if f.name != "rules"])
            value = rng.choice(BAD_VALUES)
            broken = dataclasses.replace(state, **{field: value})

            def check(broken: Any = broken) -> None:
                game.check_state(broken, recheck=True)

            try:
                check()
            except KockaError:
                cases.append((f"{spec.name} state {field}={value!r}", check))
            except Exception:  # noqa: BLE001 - a crash on a malformed state is another bug, not this test's
                pass
        state = game.apply(state, rng.choice(legal))
    return cases


SPECS = [s for s in game_specs()]


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_a_seeded_sample_of_bad_inputs_reads_as_sentences(spec: Any) -> None:
    rng = random.Random(f"{SEED}:{spec.name}")
    cases = sampled_bad_inputs(spec, rng)
    assert cases, spec.name
    for name, thunk in cases:
        errors = check_readable(thunk)
        assert isinstance(errors["en"], (DiceError, IllegalActionError, InvalidStateError, RulesError)), name


def test_state_documents_errors_read_as_sentences() -> None:
    game = KockaGame(num_players=2)
    for doc in ('{"schema": "kocka.state/1", "game": "kocka", "state": []}', "{not json", "[1, 2]",
                '{"schema": "kocka.state/0", "game": "kocka"}', '{"schema": "kocka.state/1", "game": "yatzy"}'):
        check_readable(lambda doc=doc: game.state_from_json(doc))
    for doc in ('{"type": "Pass"}', '{"type": "SetAside", "dice": "x", "extra": 1}', "[1]"):
        check_readable(lambda doc=doc: game.action_from_json(doc), json_names=True)
    assert rules_base.ACTION_SCHEMA  # the module under test
