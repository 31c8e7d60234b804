"""The game's own words (issue 25, solver/rules/words.py): moves written with the verbs of
the language in force, English exactly as before, and typed moves understood with the
native or the English verbs, with or without accents.

The expected texts are the words the catalogues give (solver/base/locales/*/words.po),
written out here by hand; the parsed actions are the ones the rules make legal in each
position (HU-1 boxes of kockapóker, PL-3 and PL-11 of the Polish game, KOCKA-12 bank or
roll, BLUFF-7 two-dice claims)."""
from __future__ import annotations

import pytest

from kocka.agents.advice.bluff import parse_claim
from kocka.agents.frontends.games.play import parse_input
from kocka.solver.base.i18n import _, use_language
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import Claim, TwoDiceClaim
from kocka.solver.rules.five_dice import Keep
from kocka.solver.rules.kocka import Bank, Roll, SetAside
from kocka.solver.rules.polish import PolishState, Scratch, Write
from kocka.solver.rules.scorecard import ScorecardState
from kocka.solver.rules.scorecard_engine import Fill
from kocka.solver.rules.spec import spec_for
from kocka.solver.rules.words import action_text, claim_text, game_title, normalize, without_claim_verb


def kockapoker_throw(dice=(1, 1, 3, 4, 6), throw=1):
    game = get_game("kockapoker")
    return game, ScorecardState(cards=(game.card_from_entries(None),), throw=throw, dice=dice)


def polish_throw(dice=(1, 1, 3, 4, 6)):
    game = get_game("polish")
    cards = tuple((game.card_from_entries(None),) for _stage in range(game.rules.stages))
    state = PolishState(stage=1, player=0, cards=cards, fences=(0,), throws=1, dice=dice, declared=None)
    game.check_state(state)
    return game, state


# ----------------------------------------------------------------------------------------
# Moves as text
# ----------------------------------------------------------------------------------------
def test_english_is_as_before_and_box_names_stay_the_games_own():
    game, state = kockapoker_throw()
    # nothing in force: English verbs, the Hungarian names printed on the kockapóker card (HU-1)
    assert game.describe_action(Keep((6,)), state) == "keep 6"
    assert game.describe_action(Fill("small_straight"), state) == "write kis sor"
    assert game.describe_action(Keep(()), state) == "reroll all"
    # asked for English: English box names too
    assert game.describe_action(Fill("small_straight"), state, "en") == "write small straight"
    with use_language("hu"):  # an explicit lang wins over the language in force
        assert game.describe_action(Keep((6,)), state, "en") == "keep 6"


@pytest.mark.parametrize("lang, keep, write, reroll", [
    ("en", "keep 6", "write kis sor", "reroll all"),
    ("hu", "tartsd meg: 6", "írd be: kis sor", "dobj újra"),
    ("pl", "zostaw 6", "zapisz kis sor", "rzuć ponownie"),
    ("sk", "nechaj 6", "zapíš kis sor", "hoď znova"),
])
def test_scorecard_moves_in_the_language_in_force(lang, keep, write, reroll):
    game, state = kockapoker_throw()
    with use_language(lang):
        assert [game.describe_action(a, state) for a in (Keep((6,)), Fill("small_straight"), Keep(()))] == \
            [keep, write, reroll]


@pytest.mark.parametrize("lang, write, scratch", [
    ("en", "write ful", "scratch para"),
    ("hu", "írd be: ful", "húzd ki: para"),
    ("pl", "zapisz ful", "skreśl para"),
    ("sk", "zapíš ful", "prečiarkni para"),
])
def test_polish_write_and_scratch(lang, write, scratch):
    game, state = polish_throw()
    with use_language(lang):
        assert game.describe_action(Write("full_house"), state) == write
        assert game.describe_action(Scratch("pair"), state) == scratch


@pytest.mark.parametrize("lang, bank, roll, take", [
    ("en", "bank", "roll", "take 1 5"),
    ("hu", "írasd fel", "dobj", "tedd félre: 1 5"),
    ("pl", "zapisz punkty", "rzuć", "odłóż 1 5"),
    ("sk", "zapíš body", "hoď", "odlož 1 5"),
])
def test_kocka_moves(lang, bank, roll, take):
    game = get_game("kocka")
    assert [action_text(a, game, None, lang) for a in (Bank(), Roll(), SetAside((1, 5)))] == [bank, roll, take]


@pytest.mark.parametrize("lang, text", [
    ("en", "claim 8 stake 2"), ("hu", "mondd: 8, tét: 2"), ("pl", "zapowiedz 8, stawka 2"), ("sk", "ohlás 8, stávka 2"),
])
def test_claims(lang, text):
    game = get_game("bidding-bluff")
    assert action_text(Claim(TwoDiceClaim("sum", 8), 2), game, None, lang) == text


def test_game_titles_follow_the_language():
    with use_language("hu"):
        assert game_title("liars-poker") == "hazug kockapóker" and game_title("kockapoker") == "kockapóker"
    with use_language("hu"):  # the fronts that write the spec's own title find the same message
        assert _(spec_for("liars-poker").title) == "hazug kockapóker"


# A claim whose stake is a range (the seat's legal entries, docs/PROTOCOL.md): with 9 chips
# each the stake goes 1..9 (BLUFF-13); the words are the catalogues' own, no English "stake";
# the range stays "1..9": the seat page (app.js withStake) puts the picked stake in its place.
@pytest.mark.parametrize("lang, label", [
    ("en", "claim {claim} stake 1..9"), ("hu", "mondd: {claim}, tét: 1..9"),
    ("pl", "zapowiedz {claim}, stawka 1..9"), ("sk", "ohlás {claim}, stávka 1..9"),
])
def test_claim_range_labels_in_the_language(lang, label):
    game = get_game("bidding-bluff", {"seating": "given", "start_chips": 9}, 2)
    state = game.new_initial_state()
    while game.is_chance_node(state):
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    ranges = [c for c in game.legal_choices(state) if type(c).__name__ == "ClaimRange"]
    assert ranges
    with use_language(lang):
        entry = game.choice_to_json(ranges[0], state)
        assert entry["stake"] == {"min": 1, "max": 9}
        assert entry["label"] == label.format(claim=claim_text(ranges[0].claim))
    with use_language("pl"):
        assert game_title("polish") == "poker kościany (pełna gra)"


# ----------------------------------------------------------------------------------------
# Typed moves: native or English verbs, accents or not, whatever language is in force
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("typed, action", [
    ("irdbe full", Fill("full_house")),       # no accents, no space
    ("írd be full", Fill("full_house")),
    ("írd be: kis sor", Fill("small_straight")),  # the text the hint prints
    ("Write Szemet", Fill("chance")),         # English verb, the Hungarian name without its accent
    ("tartsd meg 6", Keep((6,))),
    ("tartsd meg 61", Keep((1, 6))),          # the digits split and sorted as after "keep"
    ("zostaw 6 1", Keep((1, 6))),
    ("nechaj 6", Keep((6,))),
    ("dobj újra", Keep(())),
    ("hod znova", Keep(())),
    ("zapíš pár", Fill("pair")),
])
@pytest.mark.parametrize("lang", ["en", "hu", "pl", "sk"])
def test_typed_kockapoker_moves(typed, action, lang):
    game, state = kockapoker_throw()
    with use_language(lang):
        assert parse_input(typed, game, state).action == action


@pytest.mark.parametrize("typed, action", [
    ("zapisz ful", Write("full_house")),      # "ful" is the Polish card's name of the full house
    ("zapisz full", Write("full_house")),
    ("skreśl para", Scratch("pair")),
    ("skresl para", Scratch("pair")),
    ("húzd ki: para", Scratch("pair")),
    ("huzdki para", Scratch("pair")),
    ("prečiarkni pár", Scratch("pair")),
    ("scratch pair", Scratch("pair")),
])
def test_typed_polish_moves(typed, action):
    game, state = polish_throw()
    with use_language("pl"):
        assert parse_input(typed, game, state).action == action


def test_typed_kocka_bank_and_roll():
    game = get_game("kocka", num_players=2)
    state = game.position((0, 0), turn_total=350, dice_left=3)
    for typed, action in [("írasd fel", Bank()), ("irasdfel", Bank()), ("zapisz punkty", Bank()), ("zapíš body", Bank()),
                          ("bank", Bank()), ("dobj", Roll()), ("rzuć", Roll()), ("hoď", Roll()), ("roll", Roll())]:
        assert parse_input(typed, game, state).action == action, typed


@pytest.mark.parametrize("typed", ["8", "claim 8", "mondd: 8", "mondd 8", "zapowiedz 8", "ohlás 8", "ohlas 8", "sum 8"])
def test_typed_claims_in_every_language(typed):
    game = get_game("abazs")
    assert parse_claim(game, typed) == TwoDiceClaim("sum", 8)


def test_pro_ranking_claims_with_native_words():
    game = get_game("abazs", {"ranking": "pro"})
    assert parse_claim(game, "pár 5") == parse_claim(game, "para 5") == parse_claim(game, "pair 5") == TwoDiceClaim("pair", 5)
    assert parse_claim(game, "nem pár 7") == parse_claim(game, "bez pary 7") == TwoDiceClaim("nonpair", 7)


def test_normalize_splits_joined_verbs_and_claim_verbs_go():
    assert normalize("Írdbe Kis Sor") == "ird be kis sor"
    assert normalize("tartsdmeg 511") == "tartsd meg 1 1 5"
    assert without_claim_verb("Zapowiedz para 5") == "para 5"
    assert without_claim_verb("mondd: két pár 5 2") == "ket par 5 2"
