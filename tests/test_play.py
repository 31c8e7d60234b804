"""``kocka play``: driven through stdin with click's CliRunner, and the move parser.

Expected values: a card with only the chance box scores the sum of the dice shown
(HU-6 szemét / Yahtzee chance), read back from the drawn dice; parser cases are the
phrases a player types for the RULES.md moves they name.
"""
from __future__ import annotations

import itertools
import os
import random
import re

import pytest
from click.testing import CliRunner

from kocka.agents.bots.base import ChanceSampler, derive_seed
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.frontends.games.play import PlaySession, draw_dice, format_action, normalize, parse_input
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.rules import CHANCE, get_game
from kocka.solver.rules.scorecard import Fill, Keep


def play(args: list[str], lines: list[str], lang: str = "en"):
    return CliRunner().invoke(main, ["play", *args, "--lang", lang], input="".join(f"{line}\n" for line in lines))


def shown_dice(output: str) -> list[tuple[int, ...]]:
    """The values printed under each drawing of dice, in order."""
    found = []
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("+-------+") and i >= 4 and lines[i - 4].startswith("+-------+"):
            found.append(tuple(int(v) for v in lines[i + 1].split()))
    return found


# ----------------------------------------------------------------------------------------
# Whole games through stdin
# ----------------------------------------------------------------------------------------
def test_solo_chance_card_scores_the_dice_shown():
    out = play(["yahtzee", "-r", "boxes=chance", "--seats", "human", "--seed", "8"], ["box chance"])
    assert out.exit_code == 0, out.output
    (dice,) = shown_dice(out.output)
    assert len(dice) == 5
    assert f"final scores: you {sum(dice)}" in out.output
    assert "game over" in out.output


def test_bad_input_reprompts_with_the_reason():
    out = play(["yahtzee", "-r", "boxes=chance", "--seats", "human", "--seed", "8"],
               ["keep 9", "fly away", "box sixes", "", "box chance"])
    assert out.exit_code == 0, out.output
    assert "not allowed: the kept dice must be values from 1 to 6, not 9" in out.output
    assert "I don't understand “fly away”" in out.output
    assert "there is no box sixes on this card" in out.output
    assert "type a move" in out.output
    (dice,) = shown_dice(out.output)
    assert f"final scores: you {sum(dice)}" in out.output


def test_undo_returns_to_the_same_dice():
    """Re-roll everything, undo, then write chance: the score is the sum of the first throw
    (the undone throw's dice are gone; the first throw's dice are shown again)."""
    out = play(["yahtzee", "-r", "boxes=chance", "--seats", "human", "--seed", "21"],
               ["undo", "reroll all", "undo", "box chance"])
    assert out.exit_code == 0, out.output
    assert "nothing to undo yet" in out.output and "undone" in out.output
    first, second, again = shown_dice(out.output)
    assert again == first
    assert f"final scores: you {sum(first)}" in out.output


def test_end_of_input_and_quit_stop_cleanly():
    out = play(["kocka", "--seats", "human,cautious", "--seed", "1"], [])
    assert out.exit_code == 0 and "abandoned" in out.output and "Traceback" not in out.output
    out = play(["kocka", "--seats", "human,cautious", "--seed", "1"], ["quit"])
    assert out.exit_code == 0 and "abandoned" in out.output


def test_ctrl_c_stops_cleanly():
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    printed: list[str] = []
    session = PlaySession.create(get_game("yahtzee"), ["human"], 3, AgentOptions(), interrupt, printed.append)
    assert session.run() == 130
    assert any("interrupted" in p for p in printed)


def test_kocka_game_against_an_agent_runs_to_the_end():
    """Always the first listed move (#1): bank when allowed, else the first set-aside. The
    game must finish with a winner whose banked score reached the target (KOCKA-3)."""
    out = play(["kocka", "-r", "target=1000", "--seats", "human,cautious", "--seed", "4"], ["#1"] * 400)
    assert out.exit_code == 0, out.output
    match = re.search(r"final scores: you (\d+), cautious (\d+)", out.output)
    assert match, out.output
    scores = [int(match.group(1)), int(match.group(2))]
    assert max(scores) >= 1000
    winner = "you" if scores[0] > scores[1] else "cautious"
    assert f"winner: {winner}" in out.output
    assert "cautious: " in out.output  # the agent's moves are printed


def test_kocka_illegal_bank_names_the_rule():
    out = play(["kocka", "--seats", "human,cautious", "--seed", "4"], ["bank", "quit"])
    # KOCKA-10: a roll must be used first; the rule id is not player text
    assert "not allowed: bank is not possible yet: use the roll" in out.output and "KOCKA-10" not in out.output


@pytest.mark.parametrize("game, rules, seats", [
    ("abazs", ["-r", "max_rounds=2"], "human,heuristic"),
    ("liars-poker", ["-r", "max_rounds=1"], "heuristic,human"),
    ("kockapoker-bid", ["-r", "boxes=chance,pair"], "human,heuristic"),
])
def test_other_games_play_through(game, rules, seats):
    out = play([game, *rules, "--seats", seats, "--seed", "6"], ["#1"] * 300)
    assert out.exit_code == 0, out.output
    assert "game over" in out.output and "final scores" in out.output


def test_polish_basic_plays_the_game_the_rules_give():
    """Polish basic game, a human typing '#1' (the first listed move) against the random
    agent. The same game replayed here through the engine alone, with the seeded rolls and
    the agent's seed that ``kocka play`` uses, ends after ``moves`` human decisions when a
    seat has recorded all eight combinations and the round is complete (PL-4, PL-7), with
    the totals of the recorded values (PL-7). Fed exactly that many lines, the session
    must end that game with those totals; one line fewer, it must run out of input first."""
    game, seed = get_game("polish-basic", num_players=2), 1
    sampler = ChanceSampler(derive_seed("play-chance", seed))
    bot = make_agent("random", game, derive_seed("play", seed, 1), AgentOptions())
    state, rolls, moves = game.new_initial_state(), 0, 0
    while not game.is_terminal(state):
        player = game.current_player(state)
        if player == CHANCE:
            state, rolls = game.apply(state, sampler.sample(game, state, rolls)), rolls + 1
        elif player == 0:
            state, moves = game.apply(state, game.legal_actions(state)[0]), moves + 1
        else:
            state = game.apply(state, bot.choose(state))
    assert any(None not in row for row in state.records) and state.player == 0  # PL-7: the round is over
    you, rival = (sum(v for v in row if v is not None) for row in state.records)
    assert game.returns(state) == (you, rival)
    args = ["polish-basic", "--seats", "human,random", "--seed", str(seed)]
    out = play(args, ["#1"] * moves)
    assert out.exit_code == 0, out.output
    assert "game over" in out.output and "abandoned" not in out.output
    assert f"final scores: you {you}, random {rival}" in out.output
    winner = "winner: you" if you > rival else "winner: random" if rival > you else "shared win: you, random"
    assert winner in out.output
    short = play(args, ["#1"] * (moves - 1))
    assert short.exit_code == 0 and "abandoned" in short.output and "game over" not in short.output


def test_seat_errors():
    out = play(["kocka", "--seats", ",".join(["random"] * 7)], [])
    assert out.exit_code == 2 and "a game has 1 to 6 seats, got 7" in out.output
    out = play(["yahtzee", "--seats", "human,bold"], [])
    assert out.exit_code == 2 and "agent 'bold' plays only kocka, not 'yahtzee'" in out.output


def test_hint_and_summary_without_a_table_say_why():
    out = play(["polish", "-r", "boxes=chance", "--seats", "human", "--seed", "2"], ["?", "roll", "write chance"])
    assert out.exit_code == 0, out.output
    assert "no hint here:" in out.output
    assert "cost of your decisions: not available" in out.output
    # the reason names the command that builds the table, not the file it would be in
    built = "the value table for these rules is not built yet; build it once with: kocka-solve build polish -r boxes=chance"
    assert out.output.count(built) == 2 and os.environ["KOCKA_CACHE"] not in out.output  # the cache (conftest.py)


# ----------------------------------------------------------------------------------------
# The move parser
# ----------------------------------------------------------------------------------------
def scorecard_state(game, dice, throw=1):
    from kocka.solver.rules.scorecard import Card, ScorecardState

    return ScorecardState(cards=(Card(entries=(None,) * len(game.boxes)),), throw=throw, dice=tuple(dice))


def kocka_state(roll, score=0, **fields):
    """A Kocka position of seat 0; ``roll=None`` for the stages without a roll shown."""
    from kocka.solver.rules.kocka import KockaState

    game = get_game("kocka", {}, num_players=2)
    base = dict(scores=(score, 0), stage="set_aside", last_event="rolled")
    if roll is not None:
        base.update(dice_in_play=len(roll), roll=tuple(roll))
    state = KockaState(**{**base, **fields})
    game.check_state(state)
    return game, state


HU_PARSES = [
    # typed, expected action (HU-2 keeps, HU-6 box names in Hungarian and English)
    ("keep 1 1", Keep((1, 1))),
    ("keep 11", Keep((1, 1))),
    ("KEEP 1, 1", Keep((1, 1))),
    ("k 6 1", Keep((1, 6))),
    ("reroll all", Keep(())),
    ("box full", Fill('full_house')),
    ("write full house", Fill('full_house')),
    ("box pár", Fill('pair')),
    ("box par", Fill('pair')),
    ("box 2 pár", Fill('two_pairs')),
    ("box drill", Fill('three_kind')),
    ("box 6s", Fill('sixes')),
    ("sixes", Fill('sixes')),
    ("box nagy s", Fill('large_straight')),
    ("box szemet", Fill('chance')),
]


@pytest.mark.parametrize("typed, expected", HU_PARSES)
def test_parse_hungarian_moves(typed, expected):
    game = get_game("kockapoker")
    parsed = parse_input(typed, game, scorecard_state(game, (1, 1, 3, 4, 6)))
    assert parsed.error is None, parsed.error
    assert parsed.action == expected


def test_parse_ambiguous_box_lists_the_options():
    game = get_game("kockapoker")
    parsed = parse_input("box kis", game, scorecard_state(game, (1, 1, 3, 4, 6)))
    assert parsed.action is None
    # one word for an action everywhere (issue 11): the kockapóker boxes by their Hungarian names (HU-1)
    assert "could mean" in parsed.error and "write kis sor" in parsed.error and "write kis póker" in parsed.error


@pytest.mark.parametrize("typed, score, expected", [
    # RULES.md 1.6 example 3: [1,1,1,2,5,5]
    ("take 1 1 1", 0, ("SetAside", (1, 1, 1))),
    ("keep 5 1", 0, ("SetAside", (1, 5))),
    ("take 11155", 0, ("SetAside", (1, 1, 1, 5, 5))),
    ("series 1 1 1", 3000, ("StartSeries", (1, 3))),   # KOCKA-14, 2500+ only
])
def test_parse_kocka_moves(typed, score, expected):
    game, state = kocka_state((1, 1, 1, 2, 5, 5), score=score)
    parsed = parse_input(typed, game, state)
    assert parsed.error is None, parsed.error
    kind, args = expected
    assert type(parsed.action).__name__ == kind
    assert (parsed.action.dice if kind == "SetAside" else (parsed.action.face, parsed.action.count)) == args


def test_parse_kocka_bank_roll_joker_and_take_all():
    game, state = kocka_state(None, stage="bank_or_roll", turn_total=400, dice_in_play=3, last_event="set_aside")
    assert type(parse_input("bank", game, state).action).__name__ == "Bank"
    assert type(parse_input("roll", game, state).action).__name__ == "Roll"
    game, state = kocka_state(None, score=3000, stage="joker", dice_in_play=1, series=(4, 5), last_event="series")
    assert parse_input("joker 2", game, state).action.face == 2
    # KOCKA-1.6-2: [3,3,3] after 6,6,6 is full: "take all" names the whole roll
    game, state = kocka_state((3, 3, 3), turn_total=600, dice_in_play=3)
    assert parse_input("take all", game, state).action.dice == (3, 3, 3)
    # a single 3 scores nothing (KOCKA-5, KOCKA-6): the engine's reason is shown
    assert "a lone 3 does not score: set aside 1s, 5s or three of a kind" in parse_input("take 3", game, state).error


def test_parse_kocka_take_after_a_complete_series_is_a_set_aside():
    """KOCKA-15, KOCKA-17: dice are taken for a series only while it runs; the compulsory
    re-roll after a complete series (3s: 3000 points) is set aside as usual, so a typed
    "take" there is a set-aside and the engine's reason is the set-aside's, not that no
    series runs."""
    game, state = kocka_state((1, 2, 2, 3, 4, 6), score=3000, turn_total=3000, series=(3, 6))
    assert type(parse_input("take 1", game, state).action).__name__ == "SetAside"
    error = parse_input("take 2 3", game, state).error
    assert "a lone 2 does not score" in error and "series" not in error, error
    game, state = kocka_state(None, score=3000, stage="joker", dice_in_play=1, series=(4, 5), last_event="series")
    assert type(game.keep_action(state, (4, 4))).__name__ == "TakeSeries"  # the series runs (KOCKA-15)


def test_parse_bluff_claims():
    from kocka.solver.rules.bluff import BiddingBluffState, Claim, TwoDiceClaim

    game = get_game("bidding-bluff", {"seating": "given"}, num_players=3)
    state = BiddingBluffState(phase="claim", chips=(10, 10, 10), initial=(10, 10, 10), order=(0, 1, 2), active=0,
                              dice=(2, 4))
    game.check_state(state)
    # RULES.md 3.5 example 3: A claims 8 and stakes 2
    assert parse_input("claim 8 stake 2", game, state).action == Claim(TwoDiceClaim("sum", 8), 2)
    assert parse_input("claim 8 2", game, state).action == Claim(TwoDiceClaim("sum", 8), 2)
    assert parse_input("claim 8", game, state).action == Claim(TwoDiceClaim("sum", 8), 1)
    pro = get_game("abazs", {"seating": "given", "ranking": "pro"}, num_players=2)
    from kocka.solver.rules.bluff import AbazsState

    pstate = AbazsState(phase="claim", chips=(10, 10), initial=(10, 10), order=(0, 1), active=0, dice=(2, 2))
    assert parse_input("claim pair 3", pro, pstate).action == Claim(TwoDiceClaim("pair", 3))
    assert parse_input("claim 3 3", pro, pstate).action == Claim(TwoDiceClaim("pair", 3))
    assert parse_input("claim non pair 8", pro, pstate).action == Claim(TwoDiceClaim("nonpair", 8))


def test_commands_and_move_numbers():
    game = get_game("yahtzee", {"boxes": ("chance",)})
    state = scorecard_state(game, (2, 3, 4, 5, 6))
    assert parse_input("?", game, state).command == "hint"
    assert parse_input("? all", game, state).argument == "all"
    assert parse_input("undo", game, state).command == "undo"
    legal = game.legal_actions(state)
    assert parse_input(f"#{len(legal)}", game, state).action == legal[-1]
    assert "is not one of them" in parse_input(f"#{len(legal) + 1}", game, state).error


def test_format_and_parse_round_trip_on_every_legal_move():
    """What the game prints for a move parses back to that move (every legal move of a few
    positions of each family)."""
    game = get_game("kockapoker")
    state = scorecard_state(game, (1, 1, 3, 4, 6))
    game2, kstate = kocka_state((1, 1, 1, 2, 5, 5), score=3000)
    for g, s in ((game, state), (game2, kstate)):
        for action in g.legal_actions(s):
            assert parse_input(format_action(action, g, s), g, s).action == action


def test_normalize_and_dice_drawing():
    assert normalize("Keep 5,1,1") == "keep 1 1 5"
    assert normalize("box 2 Pár") == "box 2 par"
    art = draw_dice((1, 6)).splitlines()
    assert art[0] == "+-------+ +-------+"
    assert art[2] == "|   o   | | o   o |"  # the middle row: one pip for 1, two for 6
    assert art[-1].split() == ["1", "6"]


def test_hint_table_and_the_cost_of_a_mistake(tmp_path):
    """Chance + yahtzee card, solo, with its exact table: '?' prints the optimal agent's
    ranking; the human then plays the worst first move and the best moves after it, so the
    summary's cost is exactly best - worst of the first decision (from the same ranking)."""
    from kocka.agents.bots.base import ChanceSampler, derive_seed
    from kocka.agents.bots.catalogue import make_agent
    from kocka.solver.store.table_store import get_table

    game = get_game("yahtzee", {"boxes": ("chance", "yahtzee")})
    try:
        get_table(game, None, tmp_path, build_missing=True, announce=lambda m: None)
    except ImportError as exc:
        pytest.skip(f"no scorecard solver here: {exc}")
    seed = 13
    judge = make_agent("optimal", game, options=AgentOptions(cache_dir=tmp_path))
    sampler = ChanceSampler(derive_seed("play-chance", seed))
    state, rolls, typed, first_loss = game.new_initial_state(), 0, [], None
    while not game.is_terminal(state):
        if game.current_player(state) == CHANCE:
            state, rolls = game.apply(state, sampler.sample(game, state, rolls)), rolls + 1
            continue
        ranking = judge.rank(state)
        chosen = ranking[-1] if first_loss is None else ranking[0]
        if first_loss is None:
            first_loss = ranking[0].value - chosen.value
        typed.append(format_action(chosen.action, game, state))
        state = game.apply(state, chosen.action)
    assert first_loss > 0
    out = play(["yahtzee", "-r", "boxes=chance,yahtzee", "--seats", "human", "--seed", str(seed),
                "--cache-dir", str(tmp_path)], ["?", *typed])
    assert out.exit_code == 0, out.output
    assert "expected final score" in out.output and "loss vs best" in out.output
    match = re.search(r"you: (\d+) decisions, (\d+) below the best play; total cost ([0-9.]+)", out.output)
    assert match, out.output
    assert int(match.group(1)) == len(typed) and int(match.group(2)) == 1
    assert float(match.group(3)) == pytest.approx(first_loss, abs=1e-4)


def test_bluff_games_hint_with_the_bayesian_bot_when_no_table_exists():
    """Abázs has no equilibrium table in the fresh test cache, so hints come from the
    next judge, ``bayes``: its values are expected chips, and exactly one claim per
    possible sum is listed (BLUFF-7 simple ranking: the 11 sums 2..12, none standing)."""
    out = play(["abazs", "--seats", "human,bayes", "--seed", "2"], ["? all", "quit"])
    assert out.exit_code == 0, out.output
    assert "expected chips" in out.output
    claims = re.findall(r"^[* ] claim (\d+)\s", out.output, flags=re.M)
    assert sorted(int(c) for c in claims) == list(range(2, 13))


def test_any_allowed_stake_may_be_typed_beyond_the_listed_candidates():
    """BLUFF-12 (bid.stake_cap = own_chips): with 60 chips any stake 1..60 may be bet, though
    legal_actions lists only a bounded set of candidate stakes per claim."""
    game = get_game("bidding-bluff", {"start_chips": 60}, num_players=2)
    state, rng = game.new_initial_state(), random.Random(1)
    while game.is_chance_node(state):
        outcomes = game.chance_outcomes(state)
        state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
    listed = {a.stake for a in game.legal_actions(state) if getattr(a, "stake", None)}
    assert 37 not in listed
    parsed = parse_input("claim 2 stake 37", game, state)
    assert parsed.action is not None and parsed.action.stake == 37 and parsed.action.claim.value == 2
    refused = parse_input("claim 2 stake 61", game, state)
    assert refused.action is None and "from 1 to 60" in refused.error


# ----------------------------------------------------------------------------------------
# Every language: a whole seeded game per game, every line scanned
# ----------------------------------------------------------------------------------------
from player_text import LANGS, SMALL_RULES, play_lines, problems  # noqa: E402  (tests/ is on the path)
from kocka.solver.base.i18n import _ as translate, use_language  # noqa: E402

_ENGLISH_RUNS: dict[str, str] = {}
"""The English run of each game, made once per session."""
ENGLISH_ONLY = ("for the commands", " to play", "throw 1 of", "final scores", "game over", "the game is abandoned",
                "Moves here look like", "below the best play", "commands:")
"""English sentences of ``kocka play`` that a game in another language must not show."""


def _play_in(game_name: str, lang: str, seed: int = 3):
    from kocka.solver.store.table_store import game_from_cli

    rules = SMALL_RULES[game_name]
    game = game_from_cli(game_name, rules, num_players=2)
    lines = play_lines(game, seed, lang, humans=(0, 1))
    args = [game_name, *itertools.chain(*(("-r", r) for r in rules)), "--seats", "human,human", "--seed", str(seed)]
    if not game.spec().hides_information:  # the bluff games' equilibrium tables take minutes: their next judge hints
        args.append("--build-missing")
    return lines, play(args, lines, lang=lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_name", sorted(SMALL_RULES))
def test_a_whole_game_reads_as_sentences_in_every_language(game_name, lang):
    """Two human seats type a whole seeded game (the moves in the language's own words,
    with a hint, the moves, the card, the help, a bad line and an undo at the first
    decision); the game ends, nothing is refused but the bad line, and no line shows a
    bracket, a quoted repr, a rule id, a class name or an identifier. In hu, pl and sk no
    English sentence of the game's own is left."""
    lines, out = _play_in(game_name, lang)
    assert out.exit_code == 0, out.output
    if lang == "en":
        _ENGLISH_RUNS[game_name] = out.stdout
    with use_language(lang):
        ended, abandoned = translate("game over."), translate("the game is abandoned.")
    assert ended in out.stdout and abandoned not in out.stdout  # played to the end, in its language
    assert problems(out.stdout) == [], "\n".join(problems(out.stdout))  # stderr: the table builder's progress
    assert "not allowed" not in out.stdout  # every typed move was understood and legal
    if lang == "en":
        assert "game over." in out.stdout and "final scores: " in out.stdout
        assert "I don't understand “fly away”" in out.stdout
    else:
        english = [p for p in ENGLISH_ONLY if p in out.stdout]
        assert english == [], english
        if game_name not in _ENGLISH_RUNS:
            _ENGLISH_RUNS[game_name] = _play_in(game_name, "en")[1].stdout
        assert out.stdout != _ENGLISH_RUNS[game_name]


def test_the_cards_now_column_counts_the_yahtzee_joker_and_bonus():
    """The "now" column (Game.box_scores_now) counts a Fill as writing it does. Yahtzee's
    joker rule (official rules: a further Yahtzee, with the Yahtzee box at 50 and its face
    box filled, scores full house 25, small straight 30, large straight 40 and the dice's
    sum in the of-a-kind boxes and chance) plus the +100 bonus, by hand for 6 6 6 6 6."""
    from kocka.solver.rules.scorecard_engine import ScorecardState

    game = get_game("yahtzee")
    card = game.card_from_entries({"yahtzee": 50, "sixes": 24})
    state = ScorecardState(cards=(card,), dice=(6,) * 5, throw=2)
    assert game.box_scores_now(state) == {
        "ones": 100, "twos": 100, "threes": 100, "fours": 100, "fives": 100, "three_kind": 130, "four_kind": 130,
        "full_house": 125, "small_straight": 130, "large_straight": 140, "chance": 130}
    assert game.box_scores_now(ScorecardState(cards=(card,), throw=1, kept=(6, 6))) == {}  # a roll is due: none
