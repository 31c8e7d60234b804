"""The game registry (kocka.solver.rules.spec): one spec per game, and nothing else names a game.

Issue 11's acceptance check is "grep for a game's name finds it only in its spec, its engine
and the tests"; :func:`test_game_names_appear_only_in_their_engine_module` is that grep.
Issue 23's is "no front end imports a rules family module or tests a game's class":
:func:`test_front_ends_import_no_game_family_and_test_no_game_class` reads the import
statements, the ``isinstance`` calls, the ``getattr``/``hasattr`` probes of a game or a
state and the reads of a state's fields of every front-end module.
"""
from __future__ import annotations

import ast
import pathlib
import random
import re

import pytest

from kocka.agents.advice.hint import HintParams, declared_options
from kocka.agents.frontends.commands.kocka_cli import main as kocka_main
from kocka.agents.frontends.seat.protocol import describe_server
from kocka.agents.bots.catalogue import agent_games, agent_names
from kocka.solver.rules import Game, game_names, game_specs, get_game, resolve, spec_for
from kocka.solver.rules.words import Words

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPECS = list(game_specs())
REPR = re.compile(r"\b[A-Z][A-Za-z]+\([a-z_]+=")  # a dataclass repr such as SetAside(dice=(2,))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_reference_of_a_spec_resolves(spec):
    for table in spec.tables:
        solver = resolve(table.solver)
        assert solver.kind == table.kind, f"{spec.name}: {table.solver} builds kind {solver.kind!r}"
    if spec.hint is not None:
        assert callable(resolve(spec.hint))
    assert (spec.hint is None) == (spec.hint_parameters is None), f"{spec.name}: a hint declares its parameters"
    if spec.hint_parameters is not None:
        params_class = resolve(spec.hint_parameters)
        assert issubclass(params_class, HintParams) and declared_options(params_class), spec.hint_parameters
    if spec.view is not None:
        assert callable(resolve(spec.view))
    if spec.distribution is not None:
        assert callable(resolve(spec.distribution))
    if spec.companion is not None:
        from kocka.agents.advice.table_talk import TableTalk

        assert isinstance(resolve(spec.companion), TableTalk), spec.companion
    for entry in spec.agents:
        assert callable(resolve(entry.factory)), entry
    names = {a.name for a in spec.agents}
    assert set(spec.judges) <= names, f"{spec.name}: judges {spec.judges} must be agents of the game"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_spec_facts_match_the_engine(spec):
    lo, hi = spec.players
    game = get_game(spec.name)
    assert game.num_players == spec.default_players and game.player_range() == (lo, hi)
    assert type(game) is spec.engine and game.spec() is spec
    with pytest.raises(Exception):
        spec.engine(num_players=hi + 1)
    if lo > 1:
        with pytest.raises(Exception):
            spec.engine(num_players=lo - 1)


def test_front_ends_list_exactly_the_registered_games():
    names = game_names()
    assert [g["name"] for g in describe_server()["games"]] == list(names)
    assert kocka_main.commands["hint"].list_commands(None) == list(names)
    assert all(spec.name in (kocka_main.help or "") for spec in SPECS)


def test_agents_come_from_the_specs():
    for spec in SPECS:
        assert agent_names(spec.name) == [a.name for a in spec.agents] + ["random"]
    assert agent_games("random") is None
    assert agent_games("equilibrium") == [s.name for s in SPECS if s.agent("equilibrium")]


def test_game_names_appear_only_in_their_engine_module():
    """A quoted game name in the package (solver/, agents/) stands only in the module that
    registers that game's spec (its engine) and the module of its rules options (whose
    ``GAME`` names it). (scripts/ are clients and benchmarks that name what they measure;
    words.py's "yahtzee" and "yatzy" are box ids.)"""
    words_module = ROOT / "solver" / "rules" / "words.py"
    sources = [p for d in ("solver", "agents") for p in (ROOT / d).rglob("*.py") if p != words_module]
    offenders = []
    for spec in SPECS:
        if spec.name == "kocka":
            continue  # also the project's own name (the command, the cache folder, the package)
        homes = {pathlib.Path(__import__(cls.__module__, fromlist=["x"]).__file__).resolve()
                 for cls in (spec.engine, spec.engine.RULES)}
        quoted = re.compile(rf"""["']{re.escape(spec.name)}["']""")
        for path in sources:
            if path.resolve() in homes:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if quoted.search(code) and not _in_docstring_or_example(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "game names outside their spec:\n" + "\n".join(offenders)


FRONT_ENDS = ROOT / "agents" / "frontends"
VIEWS = "kocka.agents.frontends.games.views"
"""The module of the views that the specs name (``GameSpec.view``)."""
RULES_SHARED = {"__init__", "base", "spec", "words"}
"""The rules modules every game shares; the others are the game families' own."""


def _family_modules() -> set[str]:
    return {f"kocka.solver.rules.{p.stem}" for p in (ROOT / "solver" / "rules").glob("*.py") if p.stem not in RULES_SHARED}


def _game_classes() -> set[str]:
    """The names of every engine class (every subclass of the base Game)."""
    found, todo = set(), [Game]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub.__name__)
            todo.append(sub)
    return found


def _imports(source: str, package: str) -> list[tuple[int, str]]:
    """``(line, module)`` for every module an import statement of ``source`` (a module of
    ``package``) names; a name imported from a package counts as its submodule too
    (``from kocka.solver.rules import kocka`` imports ``kocka.solver.rules.kocka``), and
    relative imports are resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _class_tests(source: str, classes: set[str]) -> list[tuple[int, str]]:
    """``(line, class)`` for every ``isinstance``/``issubclass`` call of ``source`` against
    one of ``classes`` (a name, an attribute such as ``scorecard.ScorecardGame``, or a
    tuple of them)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            continue
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        for kind in kinds:
            name = kind.id if isinstance(kind, ast.Name) else kind.attr if isinstance(kind, ast.Attribute) else None
            if name in classes:
                found.append((node.lineno, name))
    return found


def _looked_up(node: ast.expr) -> str | None:
    """The name ``node`` stands for: ``game`` for ``game`` and ``self.game``, else None
    for anything but a name or an attribute."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _a_state(name: str | None) -> bool:
    return name is not None and (name == "state" or name.endswith("_state"))


def _a_game_or_state(name: str | None) -> bool:
    return _a_state(name) or name is not None and (name == "game" or name.endswith("_game"))


def _probes(source: str) -> list[tuple[int, str]]:
    """``(line, call)`` for every ``getattr``/``hasattr`` of ``source`` on a game or a state
    (``game``, ``self.game``, ``card_game``, ``state``, ...): a front end asking whether a
    game or its state has some family's attribute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and node.args and _a_game_or_state(_looked_up(node.args[0]))):
            found.append((node.lineno, ast.unparse(node)))
    return found


def _state_reads(source: str) -> list[tuple[int, str]]:
    """``(line, attribute)`` for every attribute of ``source`` read from a state
    (``state.stake``, ``self.state.cards``): the fields of some family's state class."""
    return [(node.lineno, ast.unparse(node)) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and _a_state(_looked_up(node.value))]


def _not_generic(source: str, package: str, draws_states: bool = False) -> list[str]:
    """What makes a front-end module of ``package`` with ``source`` not generic: each
    import of a game family's rules module or of a solver, each test of a game's class,
    each probe of a game or a state for an attribute, and (unless the module holds the
    views the specs name, ``draws_states``) each read of a state's field."""
    families, classes = _family_modules(), _game_classes()
    found = []
    for line, module in _imports(source, package):
        if module in families or any(module.startswith(f"{f}.") for f in families):
            found.append(f"{line}: imports the game family module {module}")
        elif module == "kocka.solver.solvers" or module.startswith("kocka.solver.solvers."):
            found.append(f"{line}: imports the solver {module}")
    found += [f"{line}: tests a game's class ({name})" for line, name in _class_tests(source, classes)]
    found += [f"{line}: probes a game or a state ({call})" for line, call in _probes(source)]
    if not draws_states:
        found += [f"{line}: reads a state's field ({read})" for line, read in _state_reads(source)]
    return found


def test_front_ends_import_no_game_family_and_test_no_game_class():
    """A front end (every module under agents/frontends/) is generic: it imports no game
    family's rules module (only the shared base, spec and words) and no solver, and never
    asks whether a game is of some family's class; what it needs of a game comes from the
    base Game or from the game's spec (issue 23). It neither probes a game or a state
    with ``getattr``/``hasattr`` nor reads a state's fields: only the views that the specs
    name (one module, :mod:`kocka.agents.frontends.games.views`) draw a family's state."""
    assert {spec.engine.__module__ for spec in SPECS} <= _family_modules() and "ScorecardGame" in _game_classes()
    assert {spec.view.split(":")[0] for spec in SPECS if spec.view} == {VIEWS}
    offenders = []
    for path in sorted(FRONT_ENDS.rglob("*.py")):
        where = path.relative_to(ROOT)
        package = "kocka." + ".".join(where.with_suffix("").parts[:-1])
        module = f"{package}.{path.stem}"
        offenders += [f"{where}:{found}" for found in _not_generic(path.read_text(encoding="utf-8"), package,
                                                                   draws_states=module == VIEWS)]
    assert not offenders, "front ends that are not generic:\n" + "\n".join(offenders)


def test_the_front_end_check_finds_what_it_forbids():
    """The check above is not vacuous: in a made-up front-end module it finds every
    forbidden import, absolute, from a package or relative, and the class test."""
    source = ("from kocka.solver.rules.scorecard import ScorecardGame\n"
              "from kocka.solver.rules import kocka, spec\n"
              "import kocka.solver.solvers.scorecard.values\n"
              "from ....solver.solvers.kocka import ranking\n"
              "from kocka.solver.rules.base import Game\n"
              "ok = isinstance(game, (Game, rules.KockaGame))\n"
              "card = getattr(game, 'card_game', None) or hasattr(self.game, 'legal_choices')\n"
              "series = getattr(state, 'series', None), getattr(agent, 'win_probability', None)\n"
              "stake = self.state.stake + game.turn_total(state) + game.rules.target + card_state.card.player\n")
    forbidden = [
        "1: imports the game family module kocka.solver.rules.scorecard",
        "1: imports the game family module kocka.solver.rules.scorecard.ScorecardGame",
        "2: imports the game family module kocka.solver.rules.kocka",
        "3: imports the solver kocka.solver.solvers.scorecard.values",
        "4: imports the solver kocka.solver.solvers.kocka",
        "4: imports the solver kocka.solver.solvers.kocka.ranking",
        "6: tests a game's class (KockaGame)",
        "7: probes a game or a state (getattr(game, 'card_game', None))",
        "7: probes a game or a state (hasattr(self.game, 'legal_choices'))",
        "8: probes a game or a state (getattr(state, 'series', None))",
    ]
    reads = ["9: reads a state's field (self.state.stake)", "9: reads a state's field (card_state.card)"]
    assert sorted(_not_generic(source, "kocka.agents.frontends.games")) == sorted(forbidden + reads)
    assert sorted(_not_generic(source, "kocka.agents.frontends.games", draws_states=True)) == sorted(forbidden)


def _in_docstring_or_example(line: str) -> bool:
    """Usage examples in docstrings and help texts (``kocka hint kockapoker ...``) name games
    the way a user types them; they are prose, not lists of games."""
    stripped = line.strip()
    return stripped.startswith(("kocka ", "python ", "$ ", "echo ")) or "kocka hint" in stripped or "kocka-solve" in stripped


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_players_read_words_not_reprs(spec):
    """Every action of a few random games reads as words (``keep 6``, ``write kis sor``),
    never a dataclass repr, in the game's language and in English."""
    game = get_game(spec.name)
    rng = random.Random(7)
    for _ in range(3):
        state = game.new_initial_state()
        for _ in range(200):
            if game.is_terminal(state):
                break
            if game.is_chance_node(state):
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
                continue
            actions = game.legal_actions(state)
            for action in actions[:40]:
                for lang in (None, "en"):
                    text = game.describe_action(action, state, lang)
                    assert text and not REPR.search(text), f"{spec.name}: {text!r}"
            assert not REPR.search(game.describe_state(state)), game.describe_state(state)
            state = game.apply(state, actions[rng.randrange(len(actions))])


def test_box_names_in_the_games_language_and_in_english():
    """Box labels come from each game's Words: kockapóker's are Hungarian (HU-1), Polish
    ones Polish (PL-3), and every game answers in English on request."""
    hu, pl = spec_for("kockapoker").words, spec_for("polish").words
    assert (hu.language, hu.box("small_straight"), hu.box("small_straight", "en")) == ("hu", "kis sor", "small straight")
    assert (pl.language, pl.box("four_kind"), pl.box("four_kind", "en")) == ("pl", "kareta", "four of a kind")
    assert "kis sor" in hu.box_aliases("small_straight") and "small straight" in hu.box_aliases("small_straight")
    with pytest.raises(ValueError):
        Words("xx")
    for spec in SPECS:
        game = get_game(spec.name)
        for box in game.card_boxes():
            assert game.box_label(box) and "_" not in game.box_label(box, "en")
