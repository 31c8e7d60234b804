"""``kocka table``: the companion for real dice (agents/frontends/games/companion.py), and ``--card``
key=value entry for ``kocka hint``.

The games here are small variants of the real ones (a three-box kockapóker card, a
one-box card, a Kocka race to a low target), whose tables build in well under a second
into the test session's isolated cache (tests/conftest.py). Every expected score is
worked out by hand from RULES.md in the comments next to it.
"""
from __future__ import annotations

import functools
import itertools
import json
import re
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from kocka.agents.advice.cards import card_option
from kocka.agents.advice.table_talk import finish_chances
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.frontends.games.companion import FORMAT, TableFileError, TableSession, companion_games
from kocka.agents.bots.catalogue import AgentOptions
from kocka.agents.bots.target_agents import WinnerAgent
from kocka.solver.base.errors import KockaError
from kocka.solver.base.i18n import use_language
from kocka.solver.models.finishing import first_place_shares
from kocka.solver.store.table_store import game_from_cli, get_table
from kocka.solver.rules import game_specs

THREE_BOXES = ("boxes=sixes,chance,pair",)
OPTIONS = AgentOptions(build_missing=True)

# A whole three-player game on the card 6-osok / szemét / pár (HU-1 reduced to three
# boxes), typed as players would. The comments give each entry by HU-5 / HU-6.
ROUND_1 = [
    "66661", "?", "write sixes",          # Anna: four 6s in 6-osok: (4 - 3) x 6 = 6
    "12345", "keep 5", "5523", "szemét",  # Béla: keeps 5, throws 4: 2 3 5 5 5 -> szemét 20
    "33355", "33366", "pair",             # me: throws 3 3 3 5 5 then types 3 3 3 6 6: pár 2 x 6 = 12
]
ROUND_2 = [
    "22334", "chance",                    # Anna: szemét 2+2+3+3+4 = 14
    "66655", "keep 666", "66666", "write 6-osok",  # Béla: all five typed after keeping three: (5 - 3) x 6 = 12
    "11111", "sixes",                     # me: no 6 in 6-osok: (0 - 3) x 6 = -18
]
ROUND_3 = [
    "44551", "pár",                       # Anna: the higher pair, 2 x 5 = 10
    "12346", "keep 6", "6 6 1 1", "keep 6 6 6", "66", "pair",  # Béla: 6 6 6 6 6 -> pár 12
    "65432", "full house", "szemét",      # me: no full on this card (an error), then szemét 20
]
# HU-7/HU-8: house = 63 + net when net >= 0, else 0; total = house + lower entries
# Anna 63 + 6 + 14 + 10 = 93; Béla 63 + 12 + 20 + 12 = 107; me 0 + 12 + 20 = 32
FINAL = "final scores: Anna 93, Béla 107, me 32"


def new_session(tmp_path, names=("Anna", "Béla", "me"), rules=THREE_BOXES, game="kockapoker", name="game.json"):
    return TableSession.start(game, list(names), tmp_path / name, rules, OPTIONS)


def feed(session, lines):
    return [session.handle(line) for line in lines]


def test_the_companion_keeps_the_games_with_tables_and_no_hidden_dice():
    expected = {s.name for s in game_specs() if s.tables and not s.hides_information}
    assert set(companion_games()) == expected
    assert "abazs" not in companion_games()  # an equilibrium table, but hidden dice (BLUFF-1)


def test_a_whole_three_player_game_with_typed_rolls(tmp_path):
    session = new_session(tmp_path)
    out = feed(session, ROUND_1 + ROUND_2 + ROUND_3)
    assert session.over
    assert FINAL in out[-1] and "winner: Béla" in out[-1]
    assert "no full" not in out[-2] and "full house" in out[-2]  # refused, the game went on
    # the typed 3 3 3 6 6 after 3 3 3 5 5 made the keep of the dice that stayed
    assert "keep 3 3 3" in out[8] and "not judged" in out[8]


def test_saved_after_every_step_and_resumed(tmp_path):
    first = new_session(tmp_path)
    path = first.path
    feed(first, ROUND_1 + ROUND_2[:3])
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == FORMAT and doc["players"] == ["Anna", "Béla", "me"]
    assert doc["state"]["state"]["cards"][0]["entries"] == {"sixes": 6, "chance": 14, "pair": None}
    assert not [p for p in tmp_path.iterdir() if p.name != path.name]  # no temporary file left behind
    again = TableSession.resume(path, OPTIONS)
    assert again.state == first.state and again.names == first.names
    out = feed(again, ROUND_2[3:] + ROUND_3)
    assert FINAL in out[-1]
    # the resumed game wrote the same file as one played without a break
    whole = new_session(tmp_path, name="whole.json")
    feed(whole, ROUND_1 + ROUND_2 + ROUND_3)
    assert json.loads(path.read_text())["turns"] == json.loads(whole.path.read_text())["turns"]


def test_the_cli_plays_and_resumes_from_typed_lines(tmp_path):
    path = tmp_path / "cli.json"
    runner = CliRunner()
    first = runner.invoke(main, ["table", "kockapoker", "--players", "Anna,Béla,me", "--save", str(path), "--lang", "en",
                                 "--build-missing", *itertools.chain(*(("-r", r) for r in THREE_BOXES))],
                          input="\n".join(ROUND_1 + ["quit"]) + "\n")
    assert first.exit_code == 0, first.output
    assert f"kocka table --resume {path}" in first.output
    second = runner.invoke(main, ["table", "--resume", str(path), "--build-missing", "--lang", "en"],
                           input="\n".join(ROUND_2 + ROUND_3) + "\n")
    assert second.exit_code == 0, second.output
    assert FINAL in second.output


def test_undo_takes_back_a_step_and_the_save(tmp_path):
    session = new_session(tmp_path)
    feed(session, ["66661", "write chance"])
    assert session.state.cards[0].entries == (None, 25, None)  # szemét 1+6+6+6+6 = 25
    assert "undone: Anna: write szemét" in session.handle("undo")
    assert session.state.dice == (1, 6, 6, 6, 6) and session.state.cards[0].entries == (None, None, None)
    saved = json.loads(session.path.read_text())
    assert saved["state"]["state"]["dice"] == [1, 6, 6, 6, 6]
    session.handle("sixes")
    assert session.state.cards[0].entries == (6, None, None)


@pytest.mark.parametrize("lang, words", [
    ("hu", {"help": ["súgó", "sugo", "SÚGÓ"], "undo": ["vissza"], "cards": ["lapok"], "moves": ["lépések", "lepesek"],
            "all": ["? mind", "?mind"], "quit": ["kilépés", "kilepes"]}),
    ("pl", {"help": ["pomoc"], "undo": ["cofnij"], "cards": ["karty"], "moves": ["ruchy"], "all": ["? wszystkie"],
            "quit": ["koniec"]}),
    ("sk", {"help": ["pomoc"], "undo": ["späť", "spat"], "cards": ["karty"], "moves": ["ťahy", "tahy"],
            "all": ["? všetky", "? vsetky"], "quit": ["koniec"]}),
])
def test_commands_are_typed_in_the_language_and_in_english(tmp_path, lang, words):
    # each native word answers as its English command does, with or without accents, in any
    # language in force (the words of all four are understood); the help names the native word
    english = {"help": "help", "cards": "cards", "moves": "moves", "all": "? all"}  # undo and quit change the game
    with use_language(lang):
        session = new_session(tmp_path)
        feed(session, ["66661"])
        for command, typed in words.items():
            if command in english:
                expected = session.handle(english[command])
                for line in typed:
                    assert session.handle(line) == expected, (command, line)
        help_text = session.handle("help")
        assert all(f"{typed[0]} (" in help_text for command, typed in words.items() if command in ("undo", "cards"))
        feed(session, ["write chance"])
        assert session.state.cards[0].entries == (None, 25, None)  # szemét 1+6+6+6+6 = 25
        session.handle(words["undo"][-1])
        assert session.state.cards[0].entries == (None, None, None)
        session.handle(words["quit"][-1])
        assert session.stopped
    with use_language("en"):  # another language's word works too
        other = new_session(tmp_path, name="other.json")
        assert other.handle(words["help"][0]) == other.handle("help")


def test_a_kocka_hint_words_the_moves_in_the_language(tmp_path):
    # 1 1 3 4 5 6: a single 1 scores 100 and leaves 5 dice (KOCKA-5); the companion says it
    # as ``kocka hint kocka`` does, in the language in force
    with use_language("hu"):
        session = new_session(tmp_path, names=("Anna", "Béla"), rules=("target=1000",), game="kocka")
        session.handle("113456")
        text = session.handle("?")
    assert "tedd félre: 1 (+100, 5 kocka marad)" in text and "set aside" not in text


@pytest.mark.parametrize("line, message", [
    ("6612", "type 5 dice"),                  # a first throw is five dice (HU-2)
    ("66178", "dice show 1 to 6, got 7"),
    ("keep 66", "throws now: type the 5 dice"),
    ("bank", "throws now"),
])
def test_bad_input_at_a_roll_is_explained(tmp_path, line, message):
    session = new_session(tmp_path)
    assert message in session.handle(line)
    assert session.turns == []


def test_a_roll_after_a_keep_must_contain_the_kept_dice(tmp_path):
    session = new_session(tmp_path)
    feed(session, ["66612", "keep 666"])
    assert "the dice kept (6 6 6) are not among 1 1 2 3 4" in session.handle("11234")
    assert "type 2 dice" in session.handle("123")
    session.handle("12")
    assert session.state.dice == (1, 2, 6, 6, 6) and session.state.throw == 2


def test_a_bare_digit_at_a_decision_is_not_guessed(tmp_path):
    session = new_session(tmp_path)
    session.handle("66612")
    assert "not a roll here: type “keep 6”" in session.handle("6")
    assert session.state.throw == 1


def test_a_bare_box_name_already_written_says_so(tmp_path):
    session = new_session(tmp_path)
    feed(session, ["66661", "sixes", "12345", "chance", "12366", "pair", "66612"])  # a round: 6-osok is Anna's
    text = session.handle("sixes")  # the bare box name, as a move: the engine's reason, not "I don't understand"
    assert "already" in text and "6-osok" in text and "understand" not in text
    assert session.state.cards[0].entries == (6, None, None)  # HU-5: four 6s, (4 - 3) x 6 = 6, unchanged


def test_help_lists_this_games_moves_only(tmp_path):
    text = new_session(tmp_path).handle("help")
    assert "keep 1 5 5" in text and "write pár" in text
    assert "bank" not in text and "joker" not in text  # Kocka's moves (KOCKA-12, KOCKA-18)


def test_the_hint_ranks_words_and_gives_chances(tmp_path):
    session = new_session(tmp_path)
    session.handle("66661")
    text = session.handle("?")
    # four 6s on the first throw: 6-osok holds +6 now (HU-5); the best is one of the table's
    assert "loss vs best" in text and "6-osok" in text
    assert "the best play" in text and "chance of finishing first" in text
    assert "to win: Anna's chance of finishing first" in text  # three players: the winner agent's ranking too


def test_chances_of_finishing_first_by_brute_force():
    """One box (szemét, HU-6: the sum of five dice) and the other player done: the
    chance of finishing first is exact, and it can be counted by hand. The optimal play
    for a sum keeps each die on its own: before the last throw a die stays if it beats
    3.5 (the mean of a throw), before the second if it beats 4.25 (the mean with two
    throws left); no value ties. So each die ends as one independent value."""
    game = game_from_cli("kockapoker", ("boxes=chance",), num_players=2)
    table = get_table(game, build_missing=True)
    die = {v: Fraction(0) for v in range(1, 7)}
    for v1 in range(1, 7):
        if v1 >= 5:
            die[v1] += Fraction(1, 6)
            continue
        for v2 in range(1, 7):
            if v2 >= 4:
                die[v2] += Fraction(1, 36)
                continue
            for v3 in range(1, 7):
                die[v3] += Fraction(1, 216)
    total = {0: Fraction(1)}
    for _ in range(5):
        total = _convolve(total, die)
    rolled = game.apply(game.new_initial_state(), (2, 3, 4, 5, 6))
    state = game.apply(rolled, game.action_from_json({"type": "Fill", "box": "chance"}))
    # Anna wrote 20 in szemét: 63 (house of a card without face boxes, HU-7) + 20 = 83
    assert game.card_total(state.cards[0]) == 83
    mine = sum(p for s, p in total.items() if 63 + s > 83) + sum(p for s, p in total.items() if 63 + s == 83) / 2
    shares = finish_chances(game, table, state)
    assert shares[1] == pytest.approx(float(mine), abs=1e-12)
    assert shares[0] == pytest.approx(1 - float(mine), abs=1e-12)


def _convolve(a, b):
    out = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def test_first_place_shares_share_ties_and_sum_to_one():
    # by hand: A is 10 for sure; B is 5 or 10 (1/2 each); C is 10 for sure.
    # B = 5: A and C tie at the top (1/2 each); B = 10: all three tie (1/3 each).
    shares = first_place_shares([(10, np.array([1.0])), (5, np.array([0.5, 0, 0, 0, 0, 0.5])), (10, np.array([1.0]))])
    assert shares == pytest.approx([0.5 * 0.5 + 0.5 / 3, 0.5 / 3, 0.5 * 0.5 + 0.5 / 3])
    rng = np.random.default_rng(1)
    dists = [(int(rng.integers(0, 5)), rng.dirichlet(np.ones(int(rng.integers(1, 6))))) for _ in range(4)]
    assert sum(first_place_shares(dists)) == pytest.approx(1.0)


# ----------------------------------------------------------------------------------------
# Playing to win: the winner agent's ranking in the hint (the target table)
# ----------------------------------------------------------------------------------------
ONE_BOX = ("boxes=chance",)


def _win_session(tmp_path, build_missing=True, rules=ONE_BOX, names=("Anna", "Béla"), name="win.json"):
    """A game whose tables (the target table too, when ``build_missing``) are built on
    demand into ``tmp_path``: a one-box card builds in milliseconds."""
    options = AgentOptions(cache_dir=tmp_path, build_missing=build_missing)
    return TableSession.start("kockapoker", list(names), tmp_path / name, rules, options), options


def _move_key(decision):
    action = decision.action
    return ("write",) if type(action).__name__ == "Fill" else ("keep", *action.dice)


def _last_turn_win_shares(dice, throw, opponent_total):
    """Brute force, written here from RULES.md: the win share of every move of the last
    turn on a one-box card (szemét, HU-6: the sum of the five dice; the house adds 63,
    HU-7) against one finished card of ``opponent_total``, ties shared (section 0: 1/2
    each). Every throw left is enumerated die by die (6^n outcomes); after each throw the
    player writes or keeps any dice (HU-2, HU-3: three throws at most)."""
    def utility(five):
        total = 63 + sum(five)
        return Fraction(1) if total > opponent_total else Fraction(1, 2) if total == opponent_total else Fraction(0)

    def keeps(five):  # every part of the dice kept, all five excepted (that is writing)
        return sorted({tuple(sorted(c)) for r in range(5) for c in itertools.combinations(five, r)})

    @functools.lru_cache(maxsize=None)
    def showing(five, throws):  # the best with ``five`` showing after ``throws`` throws
        if throws == 3:
            return utility(five)
        return max([utility(five)] + [kept(k, throws) for k in keeps(five)])

    @functools.lru_cache(maxsize=None)
    def kept(keep, throws):  # keep ``keep``, throw the others
        n = 5 - len(keep)
        outcomes = itertools.product(range(1, 7), repeat=n)
        return sum(showing(tuple(sorted(keep + rest)), throws + 1) for rest in outcomes) / 6 ** n

    dice = tuple(sorted(dice))
    shares = {("write",): utility(dice)}
    if throw < 3:
        shares.update({("keep", *k): kept(k, throw) for k in keeps(dice)})
    return shares


def _to_win_rows(text):
    """The rows of the hint's "to win" table: label -> (P(win) shown, marked best)."""
    part = text.split("\nto win: ", 1)[1]
    return {m[2]: (m[3], m[1] == "*") for m in re.finditer(r"^([* ]) (\S.*?)\s{2,}(\d+\.\d%)\s+\d+\.\d pp\s+\S+$",
                                                           part, re.M)}


def test_the_hint_ranks_the_moves_to_win_against_a_finished_card(tmp_path):
    session, options = _win_session(tmp_path)
    feed(session, ["45666", "chance"])   # Anna: szemét 4+5+6+6+6 = 27 (HU-6), 63 + 27 = 90 (HU-7)
    session.handle("46666")              # Béla's first throw: 28 showing
    text = session.handle("?")
    want = _last_turn_win_shares((4, 6, 6, 6, 6), 1, 90)
    # by hand: writing 28 now gives 91 > 90, a sure win. Keeping 6 6 6 6 leaves one die
    # with two throws: 4 or more wins, 3 ties; with one throw left a tie (1/2) is worth
    # less than throwing again (1/2 + 1/6 x 1/2 = 7/12), so 1/2 + 1/2 x 7/12 = 19/24
    assert want[("write",)] == 1 and want[("keep", 6, 6, 6, 6)] == Fraction(19, 24)
    # for points, keep 6 6 6 6 is best: 63 + 24 + 4.25 = 91.25 > 91 (a die thrown twice
    # stays when it beats 3.5: (4 + 5 + 6) / 6 + 1/2 x 3.5 = 4.25)
    assert session.judge.rank(session.state)[0].label == "keep 6 6 6 6"
    ranked = session.to_win_ranking()
    assert {_move_key(d) for d in ranked} == set(want)
    for d in ranked:
        assert d.value == pytest.approx(float(want[_move_key(d)]), abs=1e-9), d.label
    # the agent of the seat and `kocka hint --opponents`, built on its own, ranks alike
    agent = WinnerAgent(session.game, 0, options)
    assert [d.value for d in agent.rank(session.state)] == pytest.approx([d.value for d in ranked], abs=1e-12)
    rows = _to_win_rows(text)
    assert rows["write szemét"] == (f"{100 * agent.rank(session.state)[0].value:.1f}%", True) == ("100.0%", True)
    assert rows["keep 6 6 6 6"] == ("79.2%", False)  # 19/24 = 0.7917
    for d in ranked[:5]:
        assert rows[d.label][0] == f"{100 * float(want[_move_key(d)]):.1f}%"
    assert "to win: Béla's chance of finishing first (ties shared)" in text and "exact: the other cards are full" in text
    assert ("To win, write szemét rather than keep 6 6 6 6, the best for points: it wins 20.8 percentage points "
            "more often (100.0% against 79.2%) and gives up 0.25 points on average.") in text
    assert "loss vs best" in text and "chance of finishing first: Anna" in text  # the hint as before, above it

    # the second throw, 3 6 6 6 6 (27: a tie at 90): throwing the 3 again is best both ways,
    # 7/12 to win (above) and 63 + 24 + 3.5 = 90.5 points
    feed(session, ["keep 6 6 6 6", "3"])
    text = session.handle("?")
    want = _last_turn_win_shares((3, 6, 6, 6, 6), 2, 90)
    assert want[("keep", 6, 6, 6, 6)] == Fraction(7, 12) and want[("write",)] == Fraction(1, 2)
    assert [d.value for d in session.to_win_ranking()] == pytest.approx(
        sorted((float(v) for v in want.values()), reverse=True), abs=1e-9)
    assert "Keep 6 6 6 6, the best move for points, is also the best to win (58.3%)." in text

    # the last throw: only the box is left, and both totals are known: 90 against 90, the
    # direct computation of finishing first (first_place_shares) shares the tie
    feed(session, ["keep 6 6 6 6", "3"])
    assert [d.label for d in session.to_win_ranking()] == ["write szemét"]
    tie = first_place_shares([(90, np.array([1.0])), (90, np.array([1.0]))])[1]
    assert tie == 0.5 and session.to_win_ranking()[0].value == pytest.approx(tie, abs=1e-12)
    assert _to_win_rows(session.handle("?"))["write szemét"] == ("50.0%", True)


def test_the_moves_to_win_before_the_others_have_finished(tmp_path):
    session, options = _win_session(tmp_path, rules=THREE_BOXES, names=("Anna", "Béla", "me"))
    session.handle("66661")
    text = session.handle("?")
    # expected: the winner agent's own ranking (WinnerAgent.rank, built here), its best
    # move marked; its play can follow expected-score play, so the best chance it finds is
    # at least Anna's chance of finishing first playing for points (finish_chances: the
    # score distributions of the expected-score table, first_place_shares)
    ranked = WinnerAgent(session.game, 0, options).rank(session.state)
    rows = _to_win_rows(text)
    assert rows[ranked[0].label] == (f"{100 * ranked[0].value:.1f}%", True)
    assert len(rows) == 5 and "… 7 more moves (“? all” lists every move)" in text  # 12 legal moves
    assert len(_to_win_rows(session.handle("? all"))) == len(ranked) == 12
    table = get_table(session.game, cache_dir=tmp_path)
    assert ranked[0].value >= finish_chances(session.game, table, session.state)[0] - 1e-5
    assert "this turn exact, the later turns valued as played for points" in text
    assert ("the best move for points, is also the best to win" in text) or ("To win, " in text)


def test_without_the_target_table_the_hint_says_how_to_build_it(tmp_path):
    game = game_from_cli("kockapoker", ONE_BOX, num_players=2)
    get_table(game, cache_dir=tmp_path, build_missing=True)    # the expected-score table only
    session, _ = _win_session(tmp_path, build_missing=False)
    session.handle("12345")
    text = session.handle("?")
    assert "loss vs best" in text and "the best play" in text and "chance of finishing first" in text
    assert "to win:" not in text
    assert text.splitlines()[-1] == ("To see which move wins most often, not only which scores most, build the target "
                                     f"table once: kocka-solve build kockapoker --kind target -r boxes=chance "
                                     f"--cache-dir {tmp_path}")
    get_table(game, "target", cache_dir=tmp_path, build_missing=True)  # built meanwhile: the next hint has it
    assert "to win: Anna's chance of finishing first" in session.handle("?")


def test_no_moves_to_win_alone_or_at_a_roll(tmp_path):
    session, _ = _win_session(tmp_path, names=("Anna",))
    session.handle("12345")
    text = session.handle("?")
    assert "to win" not in text and "target table" not in text
    two, _ = _win_session(tmp_path, name="two.json")
    assert two.to_win_ranking() is None and "to win" not in two.handle("?")  # a roll is due


def test_a_kocka_turn_with_bank_and_bust(tmp_path):
    # a race to 1000 (KOCKA-3 target as a parameter), minimum bank 350 below 2500 (KOCKA-13)
    rules = ("target=1000",)
    session = new_session(tmp_path, names=("Anna", "Béla"), rules=rules, game="kocka")
    assert "type the 6 dice thrown" in session.status()
    assert "chance of winning for Anna from the start of this turn" in session.handle("?")
    feed(session, ["111552", "take 1 1 1"])   # three 1s: 1000 (KOCKA-5)
    assert session.state.turn_total == 1000 and session.state.dice_in_play == 3
    text = session.handle("?")
    assert "bank 1000" in text and "chance of winning" in text  # the judge's unit, P(win)
    out = session.handle("bank")               # 1000 banked: the target is reached (KOCKA-20, end immediate)
    assert session.over and "final scores: Anna 1000, Béla 0" in out


def test_a_kocka_roll_typed_at_bank_or_roll_rolls_on_and_may_bust(tmp_path):
    session = new_session(tmp_path, names=("Anna", "Béla"), rules=("target=1000",), game="kocka")
    feed(session, ["155234", "take 1 5 5"])    # 100 + 50 + 50 = 200, three dice left
    out = session.handle("236")                # no 1, no 5, no triple: a bust (KOCKA-9)
    assert "roll" in out and "bust, the turn total 200 is lost" in out
    assert session.state.player == 1 and session.state.scores == (0, 0)
    judged = session.turns[-1][0]
    assert judged.label == "roll" and judged.loss is not None  # rolling on instead of banking was judged


def test_polish_first_throw_and_fences(tmp_path):
    rules = ("boxes=sixes,pair,chance", "stages=1")
    session = new_session(tmp_path, names=("Ala", "Ola"), rules=rules, game="polish")
    assert "Type the first roll" in session.status()
    session.handle("66612")                    # the first throw of a Polish turn (PL-2)
    assert session.state.throws == 1
    session.handle("write sixes")              # after 1 throw: 3 - 1 = 2 fences (PL-12)
    assert session.state.fences == (2, 0)


def test_resume_refuses_a_broken_or_edited_file(tmp_path):
    session = new_session(tmp_path)
    feed(session, ["66661", "write sixes"])
    doc = json.loads(session.path.read_text())
    doc["state"]["state"]["cards"][0]["entries"]["sixes"] = 12
    session.path.write_text(json.dumps(doc))
    with pytest.raises(TableFileError, match="do not lead to the saved position"):
        TableSession.resume(session.path, OPTIONS)
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(TableFileError, match="not a saved kocka table game"):
        TableSession.resume(tmp_path / "other.json", OPTIONS)
    with pytest.raises(TableFileError, match="cannot read"):
        TableSession.resume(tmp_path / "missing.json", OPTIONS)


def test_start_checks_players():
    with pytest.raises(KockaError, match="same name"):
        TableSession.start("kockapoker", ["Anna", "anna"], "/nonexistent/x.json", THREE_BOXES, OPTIONS)
    with pytest.raises(KockaError, match="1 to 4 players"):
        TableSession.start("slovak", ["a", "b", "c", "d", "e"], "/nonexistent/x.json", (), OPTIONS)


# ----------------------------------------------------------------------------------------
# --card key=value
# ----------------------------------------------------------------------------------------
def test_card_option_reads_pairs_and_json():
    assert card_option("pair=12,full=19") == {"pair": 12, "full": 19}
    assert card_option("kis sor=15, 6-osok=-6") == {"kis sor": 15, "6-osok": -6}
    assert card_option('{"pair": 12}') == {"pair": 12}
    assert card_option(None) is None
    with pytest.raises(KockaError, match="box=points pairs"):
        card_option("pair=12,full19")
    with pytest.raises(KockaError, match="twice"):
        card_option("pair=2,pair=4")


def test_hint_takes_the_card_as_pairs_in_any_language():
    runner = CliRunner()
    base = ["hint", "kockapoker", "--dice", "3", "3", "3", "5", "5", "--roll", "3", "--json", "--build-missing",
            "-r", "boxes=chance,pair,full_house,three_kind"]
    by_json = runner.invoke(main, base + ["--card", '{"full_house": 19, "pair": 12}'])
    by_ids = runner.invoke(main, base + ["--card", "full_house=19,pair=12"])
    by_names = runner.invoke(main, base + ["--card", "full=19,pár=12"])
    assert by_json.exit_code == 0, by_json.output
    assert json.loads(by_ids.stdout) == json.loads(by_json.stdout) == json.loads(by_names.stdout)
    # the open boxes are szemét and drill; HU-6: 3+3+3+5+5 = 19 and 3 x 3 = 9
    points = {a["detail"]["box"]: a["detail"]["points"] for a in json.loads(by_json.stdout)["actions"]}
    assert points == {"chance": 19, "three_kind": 9}
    bad = runner.invoke(main, base + ["--card", "pairs=12", "--lang", "en"])
    assert bad.exit_code == 2 and "no box pairs on this card" in bad.output, bad.output


# ----------------------------------------------------------------------------------------
# A whole game on the full card, typed through the command and resumed halfway
# ----------------------------------------------------------------------------------------
# One roll per box whose entry is plain from HU-5 and HU-6: five of a face in its face box,
# (5 - 3) x f; the best fit of each lower box. All fifteen give the highest total there is:
# house 63 + (2 + 4 + 6 + 8 + 10 + 12) = 105; szemét 30, pár 12, drill 18, 2 pár 22,
# kis póker 24, full 28, kis sor 15, nagy sor 20, nagy póker 50: 219 more; 324 in all
# (the top of the table's score range, 7..324).
BEST = [("11111", "ones"), ("22222", "twos"), ("33333", "threes"), ("44444", "fours"), ("55555", "fives"),
        ("66666", "sixes"), ("66666", "szemét"), ("66666", "pár"), ("66666", "drill"), ("55666", "2 pár"),
        ("66666", "kis póker"), ("55666", "full"), ("12345", "kis sor"), ("23456", "nagy sor"), ("66666", "nagy póker")]


def test_a_whole_full_card_game_typed_saved_and_resumed(tmp_path):
    # Béla throws 1 2 3 4 5 for his nagy sor (0: it is 2-3-4-5-6, HU-6): 324 - 20 = 304;
    # me throws 6 6 6 6 5 for nagy póker (0): 324 - 50 = 274
    plays = {"Anna": BEST, "Béla": [("12345", b) if b == "nagy sor" else (r, b) for r, b in BEST],
             "me": [("66665", b) if b == "nagy póker" else (r, b) for r, b in BEST]}
    lines = [line for turn in range(15) for name in ("Anna", "Béla", "me") for line in plays[name][turn]]
    path = tmp_path / "full.json"
    runner = CliRunner()
    half = 40  # twenty turns: into the seventh round
    first = runner.invoke(main, ["table", "kockapoker", "--players", "Anna,Béla,me", "--save", str(path), "--lang", "en"],
                          input="\n".join(lines[:half] + ["quit"]) + "\n")
    assert first.exit_code == 0, first.output
    saved = json.loads(path.read_text())
    assert len(saved["turns"]) == half and saved["state"]["state"]["player"] == 20 % 3
    second = runner.invoke(main, ["table", "--resume", str(path), "--lang", "en"], input="\n".join(lines[half:]) + "\n")
    assert second.exit_code == 0, second.output
    assert "final scores: Anna 324, Béla 304, me 274" in second.output and "winner: Anna" in second.output
    assert len(json.loads(path.read_text())["turns"]) == len(lines)


# ----------------------------------------------------------------------------------------
# Every language: a whole seeded game per companion game, every line scanned
# ----------------------------------------------------------------------------------------
from player_text import LANGS, SMALL_RULES, problems, table_lines  # noqa: E402  (tests/ is on the path)

_ENGLISH_RUNS: dict[str, str] = {}
"""The English run of each game (its save file's name left out), made once per session."""
COMPANION_ENGLISH = ("for the hint", "for the commands", "at the table", "throw 1 of", "final scores", "game over",
                     "Type the", "decisions judged", "saving to")
"""English sentences of the companion that a game in another language must not show."""


def _table_in(tmp_path, game_name: str, lang: str, seed: int = 5):
    rules = SMALL_RULES[game_name]
    game = game_from_cli(game_name, rules, num_players=2)
    lines = table_lines(game, seed, lang)
    path = tmp_path / f"{game_name}-{lang}.json"
    out = CliRunner().invoke(main, ["table", game_name, "--players", "Anna,Béla", "--save", str(path), "--build-missing",
                                    "--lang", lang, *itertools.chain(*(("-r", r) for r in rules))],
                             input="\n".join(lines) + "\n")
    return path, out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_name", companion_games())
def test_a_whole_companion_game_reads_as_sentences_in_every_language(tmp_path, game_name, lang):
    """Anna and Béla type a whole seeded game into the companion (each roll as digits, each
    move in the language's own words, with a hint, the moves, the cards, the help, a bad
    line and an undo at the first decision): the game ends (the saved file replays to a
    finished game), nothing typed is refused but the bad line, and no line shows a
    bracket, a quoted repr, a rule id, a class name or an identifier; in hu, pl and sk no
    English sentence of the companion's own is left."""
    path, out = _table_in(tmp_path, game_name, lang)
    assert out.exit_code == 0, out.output
    if lang == "en":
        _ENGLISH_RUNS[game_name] = out.stdout.replace("-en.json", "")
    assert TableSession.resume(path, OPTIONS).over
    assert problems(out.stdout, hide=(str(path),)) == [], "\n".join(problems(out.stdout, hide=(str(path),)))
    assert "not possible" not in out.stdout and "not allowed" not in out.stdout
    if lang == "en":
        assert "I don't understand “fly away”" in out.stdout and "final scores: Anna" in out.stdout
    else:
        english = [p for p in COMPANION_ENGLISH if p in out.stdout]
        assert english == [], english
        if game_name not in _ENGLISH_RUNS:
            _ENGLISH_RUNS[game_name] = _table_in(tmp_path, game_name, "en")[1].stdout.replace("-en.json", "")
        assert out.stdout.replace(f"-{lang}.json", "") != _ENGLISH_RUNS[game_name]
