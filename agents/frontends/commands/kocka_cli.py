"""``kocka``: hints, terminal play, AI seat and arena for the kocka dice games.

**The player's language.** Every command takes ``--lang en|hu|pl|sk`` after its name
(``kocka rules kockapoker --lang pl``); without it ``KOCKA_LANG``, else the language of the
game named, else English decides (:func:`~kocka.solver.base.i18n.choose_language`). The
language is set once, in :meth:`KockaGroup.main`, for the whole command: its output, its
errors and its ``--help`` (the help strings are English sentences marked with ``N_`` and
translated when the help is written, click's own words too: :func:`_install_click_words`).
A bad ``--lang`` or ``KOCKA_LANG`` is one line naming the languages. ``--explain`` (hint,
play, table, score) adds the rule id an error follows from; without it no rule id is shown.
"""
from __future__ import annotations

import contextvars
import copy
import functools
import json
import os
import random
import sys
from typing import Any, Callable, Sequence

import click
from click.core import ParameterSource

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.frontends.games.arena import ArenaError, PlotUnavailable, paired_gain, run_arena
from kocka.agents.advice.hint import declared_options, hint as make_hint, parameters_class, parse_options, render
from kocka.solver.base.jsonio import JSONInputError
from kocka.solver.base.jsonio import loads as load_json
from kocka.agents.frontends.games.play import play as play_game
from kocka.agents.frontends.games.companion import companion_games, run_table
from kocka.agents.frontends.seat.protocol import (
    DEFAULT_MAX_INFLIGHT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WORKER_THREADS, DEFAULT_WRITE_TIMEOUT, SeatOptions, parse_address, run,
)
from kocka.agents.bots.catalogue import AgentOptions, describe_agents
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.base.i18n import (
    DEFAULT_LANGUAGE, ENV_VAR, LANGUAGES, N_, _, LanguageError, choose_language, env_language, ngettext, translations, use_language,
)
from kocka.solver.store.table_store import game_from_cli
from kocka.solver.rules import game_names, game_specs, spec_for
from kocka.solver.rules.words import game_title

GAME_NAMES = game_names()

RULE_HELP = N_("A rule option as key=value (the names are in RULES.md section 6). Repeatable.")
LANG_HELP = N_("The language of what the command writes: en, hu, pl or sk (default: KOCKA_LANG, else the "
               "game's own language, else English).")
EXPLAIN_HELP = N_("With an error, also name the rule of RULES.md that it follows from.")
CACHE_HELP = N_("Folder of the value tables.")
BUILD_HELP = N_("Build a missing table (with a message) instead of failing.")


# ----------------------------------------------------------------------------------------
# Errors: one line in the player's language, the rule id only with --explain
# ----------------------------------------------------------------------------------------
def fail(exc: Exception, explain: bool = False) -> None:
    """Write ``exc`` as one line (``error: ...``), with ``explain`` a second line naming
    the rule(s) of RULES.md it follows from (``rule`` of the engines' errors), and exit 2."""
    click.echo(_("error: {message}", message=exc), err=True)
    rules = [r.strip() for r in (getattr(exc, "rule", None) or "").split(",") if r.strip()]
    if explain and rules:
        # TRANSLATORS: {rules} are rule ids such as KOCKA-12; RULES.md is the file of the house rules
        click.echo(ngettext("This follows from rule {rules} of the house rules (RULES.md).",
                            "This follows from rules {rules} of the house rules (RULES.md).",
                            len(rules), rules=", ".join(rules)), err=True)
    sys.exit(2)


def _language_list() -> str:
    return ", ".join(LANGUAGES)


def _language_error(where: str, value: str, fallback: str | None) -> None:
    """A bad ``--lang`` or ``KOCKA_LANG``: one line naming the languages, in ``fallback``
    (the other of the two when it is good), else in English: the language asked for is
    unknown, so the game's own is no better a guess than English), exit 2."""
    names = ", ".join(f"{code}: {name}" for code, name in LANGUAGES.items())
    with use_language(fallback or DEFAULT_LANGUAGE):
        message = _("{where} must be one of {codes} ({names}), not {value}", where=where, codes=_language_list(),
                    names=names, value=value or _("nothing"))
        click.echo(_("error: {message}", message=message), err=True)
    sys.exit(2)


def _asked_language(args: Sequence[str]) -> str | None:
    """The value of ``--lang`` in ``args`` (the command line as typed), else None."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang":
            return args[i + 1] if i + 1 < len(args) else ""
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def command_language(args: Sequence[str]) -> str:
    """The language of a command line: ``--lang``, else ``KOCKA_LANG``, else the own language
    of the first game it names (``kocka hint kockapoker``: Hungarian), else English; a bad
    ``--lang`` or ``KOCKA_LANG`` ends the command with one line naming the languages."""
    asked = _asked_language(args)
    game = next((a for a in args if a in GAME_NAMES), None)
    own = spec_for(game).words.language if game else None
    try:
        env = env_language()
    except LanguageError:
        _language_error(ENV_VAR, os.environ.get(ENV_VAR, "").strip(), asked if asked in LANGUAGES else None)
    if asked is not None and asked not in LANGUAGES:
        _language_error("--lang", asked, env)
    return choose_language(asked, own)


# ----------------------------------------------------------------------------------------
# Help in the player's language: English sentences marked with N_, translated when shown
# ----------------------------------------------------------------------------------------
class Lines(str):
    """A help paragraph written line by line as it stands (examples, lists), not rewrapped."""


Paragraph = str | Callable[[], str]


def help_text(paragraphs: Sequence[Paragraph]) -> str:
    """The help of a command in the language in force: each paragraph translated (a callable
    one written by its function), a :class:`Lines` one kept line by line (click's ``\\b``)."""
    shown = []
    for p in paragraphs:
        text = p() if callable(p) else _(p)
        shown.append("\b\n" + text if isinstance(p, Lines) else text)
    return "\n\n".join(shown)


USAGE_WORDS = (N_("[OPTIONS]"), N_("GAME"), N_("[GAME]"), N_("COMMAND [ARGS]..."), N_("GAME [OPTIONS]..."),
               N_("[DICE]..."), N_("TEXT"), N_("INTEGER"), N_("FLOAT"), N_("KEY=VALUE"), N_("DIR"))
"""The words of a usage line (``Usage: kocka rules [OPTIONS] GAME``) and of the options'
metavars (``--seed INTEGER``) that are translated."""
HELP_OPTION_TEXT = N_("Show this message and exit.")


class Translated:
    """What the player commands share: help text, usage line and option help in the
    language in force (the strings stay English on the command; a copy is translated)."""

    paragraphs: Sequence[Paragraph] = ()
    _help: str | None = None

    @property
    def help(self) -> str | None:
        """The help in the language in force (what click and the tests read)."""
        if self.paragraphs:
            return help_text(self.paragraphs)
        return _(self._help) if self._help else self._help

    @help.setter
    def help(self, value: str | None) -> None:  # click.Command.__init__ sets it
        self._help = value

    def _shown(self) -> Any:
        shown = copy.copy(self)
        shown.short_help = _(self.short_help) if self.short_help else None
        return shown

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super(Translated, self._shown()).format_help_text(ctx, formatter)  # type: ignore[misc]

    def get_short_help_str(self, limit: int = 45) -> str:
        return super(Translated, self._shown()).get_short_help_str(limit)  # type: ignore[misc]

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        return [_(piece) if piece in USAGE_WORDS else piece for piece in pieces]

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:  # click makes it once: its help is written in the language of now
            option.help = _(HELP_OPTION_TEXT)
        return option


class KockaCommand(Translated, click.Command):
    def __init__(self, *args: Any, paragraphs: Sequence[Paragraph] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paragraphs = paragraphs


class ErrorHint:
    """A parameter named in click's errors as typed (``--roll``, ``GAME`` in the player's
    language), not quoted; its metavar (``INTEGER``) in the player's language."""

    def get_error_hint(self, ctx: click.Context) -> str:
        hint = super().get_error_hint(ctx).replace("'", "")  # type: ignore[misc]
        return _(hint) if hint in USAGE_WORDS else hint

    def make_metavar(self, ctx: click.Context) -> str:
        metavar = super().make_metavar(ctx)  # type: ignore[misc]
        return _(metavar) if metavar in USAGE_WORDS else metavar


class KockaArgument(ErrorHint, click.Argument):
    pass


class KockaOption(ErrorHint, click.Option):
    """An option whose help is translated when shown; ``help_params`` (a function) gives the
    values of its placeholders then (``{agents}``: the agents known now)."""

    def __init__(self, *args: Any, help_params: Callable[[], dict[str, Any]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_params = help_params

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = copy.copy(self)
        if self.help:
            shown.help = _(self.help, **(self.help_params() if self.help_params else {}))
        return click.Option.get_help_record(shown, ctx)


class WordChoice(click.Choice):
    """``click.Choice`` whose refusal names the choices as words: ``xx is not one of en,
    hu, pl, sk`` (click writes them quoted, like a Python list)."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        return _("{value} is not one of {choices}", value=value, choices=", ".join(map(str, self.choices)))

    def get_missing_message(self, param: click.Parameter, ctx: click.Context | None) -> str:
        return _("Choose one of {choices}.", choices=", ".join(map(str, self.choices)))


class WholeNumber(click.types.IntParamType):
    """An integer option whose refusal is a sentence (``abc is not a whole number``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return int(value)
        except (TypeError, ValueError):
            self.fail(_("{value} is not a whole number", value=value), param, ctx)


WHOLE = WholeNumber()


def option(*decls: str, **attrs: Any) -> Callable:
    """``click.option`` with its help translated when shown (and integers read as :data:`WHOLE`)."""
    if attrs.get("type") is int:
        attrs["type"] = WHOLE
    return click.option(*decls, cls=KockaOption, **attrs)


def lang_option(function: Callable) -> Callable:
    return option("--lang", type=WordChoice(sorted(LANGUAGES)), default=None, help=LANG_HELP)(function)


def explain_option(function: Callable) -> Callable:
    return option("--explain", is_flag=True, help=EXPLAIN_HELP)(function)


def game_argument(choices: Sequence[str] = GAME_NAMES, required: bool = True) -> Callable:
    return click.argument("game", cls=KockaArgument, type=WordChoice(list(choices)), required=required,
                          metavar=N_("GAME") if required else N_("[GAME]"))


_click_language: contextvars.ContextVar[str | None] = contextvars.ContextVar("kocka_click_language", default=None)


def _click_gettext(message: str) -> str:
    lang = _click_language.get()
    if lang is None or not message:
        return message
    return translations(lang).gettext(message).replace("!r}", "}")  # values as typed, not quoted like a repr


def _click_ngettext(singular: str, plural: str, n: int) -> str:
    lang = _click_language.get()
    if lang is None:
        return singular if n == 1 else plural
    return translations(lang).ngettext(singular, plural, n).replace("!r}", "}")


CLICK_WORDS = (  # click's own words that a player of these commands reads, for the catalogues
    N_("Usage:"), N_("Options"), N_("Commands"), N_("Error: {message}"),
    N_("Invalid value for {param_hint}: {message}"), N_("Invalid value: {message}"), N_("Missing argument"),
    N_("Missing option"), N_("Missing parameter: {param_name}"), N_("No such option {name!r}."),
    N_("No such command {name!r}."), N_("Missing command."), N_("default: {default}"), N_("env var: {var}"),
    N_("required"), N_("Aborted!"), N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."),
)


def _did_you_mean(possibilities: list[str]) -> str:
    """click's suggestion after an unknown option, with the options as typed (click quotes them)."""
    found = sorted(possibilities)
    return ngettext("Did you mean {options}?", "Did you mean one of {options}?", len(found), options=", ".join(found))


def _install_click_words() -> None:
    """Let click write its own words (``Usage:``, ``Options``, its errors) in the language of
    the running ``kocka`` command: click calls ``gettext`` by the names ``_`` and
    ``ngettext`` of its modules; these read our catalogues (cli domain: :data:`CLICK_WORDS`)
    while :class:`KockaGroup` runs a command, and leave every other use of click as it is."""
    for module in (click.core, click.exceptions, click.formatting, click.types, click.decorators, click.parser):
        if getattr(module, "_", None) is not _click_gettext:
            module._ = _click_gettext
        if hasattr(module, "ngettext"):
            module.ngettext = _click_ngettext
    click.exceptions._format_possibilities = _did_you_mean


_install_click_words()


class KockaGroup(Translated, click.Group):
    """The ``kocka`` group: each command line runs in its language (:func:`command_language`),
    and click's usage errors are one line like every other error (``error: ...``) with a
    second one saying where the help is."""

    command_class = KockaCommand

    def __init__(self, *args: Any, paragraphs: Sequence[Paragraph] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paragraphs = paragraphs

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, **extra: Any) -> Any:
        args = list(sys.argv[1:] if args is None else args)
        language = command_language(args)
        extra.pop("standalone_mode", None)
        token = _click_language.set(language)
        try:
            with use_language(language):
                try:
                    code = super().main(args, prog_name, standalone_mode=False, **extra)
                except click.exceptions.NoArgsIsHelpError as exc:  # ``kocka``, ``kocka hint``: the help
                    click.echo(exc.ctx.get_help(), err=True)
                    sys.exit(exc.exit_code)
                except click.UsageError as exc:
                    click.echo(_("error: {message}", message=exc.format_message()), err=True)
                    if exc.ctx is not None:
                        click.echo(_("{command} --help lists what it takes.", command=exc.ctx.command_path), err=True)
                    sys.exit(exc.exit_code)
                except click.ClickException as exc:
                    exc.show()
                    sys.exit(exc.exit_code)
                except click.Abort:
                    click.echo(_("Aborted!"), err=True)
                    sys.exit(1)
        finally:
            _click_language.reset(token)
        sys.exit(code if isinstance(code, int) else 0)


def _games_help() -> str:
    return "\n".join(f"  {spec.name:16s}{game_title(spec.name)}" for spec in game_specs())


@click.group(cls=KockaGroup, context_settings={"help_option_names": ["-h", "--help"]}, paragraphs=(
    N_("Play and analyse Central-European dice games with optimal AI help."),
    N_("Every command takes --lang en, hu, pl or sk after its name (default: KOCKA_LANG, else the "
       "game's own language); with --explain an error also names the rule it follows from."),
    lambda: "\b\n" + _("Games:") + "\n" + _games_help(),
    Lines(N_("Examples:\n"
             "  kocka rules kockapoker                       rule options and their values\n"
             "  kocka hint kockapoker --dice 1 1 3 4 6 --roll 1\n"
             "  kocka hint kocka --dice 1 1 1 5 5 2 --score 3000 --opponent 8650\n"
             "  kocka hint bidding-bluff --dice 2 4 --standing 7   what to claim, and stake\n"
             "  kocka hint bidding-bluff --claim 9 --stake 2     pass or bet?\n"
             "  kocka hint kockapoker --dice 1 1 3 4 6 --roll 1 --lang en")),
))
def main() -> None:
    """The ``kocka`` command (its help: the paragraphs above)."""


# ----------------------------------------------------------------------------------------
# kocka rules
# ----------------------------------------------------------------------------------------
def _value_words(value: Any) -> str:
    """A rule option's value as typed after ``-r key=``: a list as its items with commas."""
    return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


@main.command(paragraphs=(N_("Show GAME's rule options (the defaults of RULES.md section 6), each with the "
                             "values it may take, and the variant id of these rules."),))
@game_argument()
@option("-r", "--rule", "--rules", "rules", multiple=True, metavar="KEY=VALUE", help=RULE_HELP)
@lang_option
def rules(game, rules, lang):
    try:
        g = game_from_cli(game, rules)
    except KockaError as exc:
        fail(exc)
    click.echo(_("The rule options of {game} (change one with -r OPTION=VALUE):", game=game_title(game)))
    allowed = type(g.rules).OPTIONS
    for key, value in g.rules.options().items():
        if key in allowed:
            click.echo("  " + _("{option} = {value}; it may be one of: {choices}", option=key,
                                value=_value_words(value), choices=", ".join(map(str, allowed[key]))))
        else:
            click.echo(f"  {key} = {_value_words(value)}")
    click.echo(_("The variant id of these rules (it names their value tables): {variant}", variant=g.rules.variant_id()))


# ----------------------------------------------------------------------------------------
# kocka hint GAME
# ----------------------------------------------------------------------------------------
class HintGroup(Translated, click.Group):
    """``kocka hint GAME ...``: one command per game, whose options are those its hint
    declares (``GameSpec.hint_parameters``), then the options every game shares. A game's
    command is built when it is named: its parameters live in its hint's module."""

    def __init__(self, *args: Any, paragraphs: Sequence[Paragraph] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paragraphs = paragraphs

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GAME_NAMES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return _hint_command(name) if name in GAME_NAMES else None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and not args[0].startswith("-") and args[0] not in GAME_NAMES:
            ctx.fail(_("there is no game {name}; the games are {games}", name=args[0], games=", ".join(GAME_NAMES)))
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(spec.name, game_title(spec.name) if spec.hint is not None
                 else _("{game} (no hints yet)", game=game_title(spec.name))) for spec in game_specs()]
        with formatter.section(_("Games")):
            formatter.write_dl(rows)


@main.group(cls=HintGroup, subcommand_metavar=N_("GAME [OPTIONS]..."), paragraphs=(
    N_("Rank every legal action in a position of GAME, with the loss of each versus the best."),
    Lines(N_("Each game takes its own options: kocka hint GAME --help lists them.\n"
             "Example: kocka hint kockapoker --dice 1 1 3 4 6 --roll 1")),
))
def hint():
    """``kocka hint``: the games' commands (:class:`HintGroup`)."""


def _shared_hint_options() -> list[click.Parameter]:
    """The options of ``kocka hint`` in every game, after the game's own."""
    return [
        KockaOption(["--state", "state_json"], default=None, metavar="JSON",
                    help=N_("A full state document (docs/STATE.md) instead of the options above.")),
        KockaOption(["-r", "--rule", "--rules", "rules"], multiple=True, metavar="KEY=VALUE", help=RULE_HELP),
        KockaOption(["--top"], type=WHOLE, default=8, show_default=True, help=N_("How many actions to list (0 = all).")),
        KockaOption(["--json", "as_json"], is_flag=True, help=N_("Machine-readable output.")),
        KockaOption(["--cache-dir"], default=None, metavar="DIR", help=CACHE_HELP),
        KockaOption(["--build-missing"], is_flag=True, help=N_("Build a missing table instead of failing.")),
        KockaOption(["--lang"], type=WordChoice(sorted(LANGUAGES)), default=None, help=LANG_HELP),
        KockaOption(["--explain"], is_flag=True, help=EXPLAIN_HELP),
    ]


@functools.lru_cache(maxsize=None)
def _hint_command(name: str) -> click.Command:
    """``kocka hint NAME``: the options the game's hint parameters declare (the values
    after an option with ``rest``, such as ``--dice 1 1 3 4 6``, are collected into it)."""
    spec = spec_for(name)
    params_class = parameters_class(spec)
    declared = declared_options(params_class)
    rest = next(((field, option) for field, option in declared if option.rest), None)
    parameters: list[click.Parameter] = []
    if rest is not None:
        parameters.append(KockaArgument([f"more_{rest[0]}"], nargs=-1, type=WHOLE if rest[1].type is int else rest[1].type,
                                         metavar=N_("[DICE]...")))
    parameters += [KockaOption([option.spelling(field), field], type=WHOLE if option.type is int else option.type,
                               nargs=option.nargs, default=None, help=option.help, metavar=option.metavar)
                   for field, option in declared]
    parameters += _shared_hint_options()

    def run(state_json, rules, top, as_json, cache_dir, build_missing, lang, explain, **values):
        with use_language(choose_language(lang, spec.words.language)):  # the hint, its errors too, in the player's language
            _run_hint(state_json, rules, top, as_json, cache_dir, build_missing, explain, **values)

    def _run_hint(state_json, rules, top, as_json, cache_dir, build_missing, explain, **values):
        if rest is not None:
            field, option = rest
            more = values.pop(f"more_{field}")
            if values[field] is None and more:
                fail(KockaError(_("unexpected values {values}: put {what} after {option}", values=" ".join(map(str, more)),
                                  what=field.replace("_", " "), option=option.spelling(field))))
            if values[field] is not None:
                values[field] = (values[field], *more)
        try:
            game = game_from_cli(name, rules)
            options = parse_options(params_class, values)
            state = load_json(state_json, "--state") if state_json else None
            report = make_hint(game, params_class(**options, state=state, cache_dir=cache_dir,
                                                  build_missing=build_missing))
        except (JSONInputError, KockaError, TableError) as exc:  # JSONInputError: not JSON, nested too deeply, ...
            fail(exc, explain)
        click.echo(render(report, top=top, as_json=as_json))

    def about() -> str:
        if spec.hint is None:
            return _("{game} has no hints yet.", game=game_title(name))
        return _("Rank every legal action in a position of {game}, with the loss of each versus the best.",
                 game=game_title(name))

    return KockaCommand(name, params=parameters, callback=run, paragraphs=(about,), short_help=spec.title)


# ----------------------------------------------------------------------------------------
# kocka play, table, arena
# ----------------------------------------------------------------------------------------
def _agent_options(cache_dir, build_missing):
    return AgentOptions(cache_dir=cache_dir, build_missing=build_missing)


def _agents_help() -> str:
    return "; ".join(f"{name}: {text}" for name, text in describe_agents())


@main.command(paragraphs=(
    N_("Play GAME in the terminal against the AI (or hot-seat), with hints."),
    Lines(N_("Type moves as you would say them: keep 1 1 5, box full (or write full), roll, bank,\n"
             "take 1 5, series 6 6, joker 2, declare fours, scratch poker, claim 8 stake 2, challenge.\n"
             "'?' ranks every legal move with the optimal agent's values; 'undo' takes back your last\n"
             "decision; 'moves' lists the legal moves; 'quit' (or Ctrl-C) stops.\n"
             "At the end you see how many points (Kocka: how much win probability) your decisions\n"
             "cost versus optimal play.")),
))
@game_argument()
@option("--seats", default="human,optimal", show_default=True,
        help=N_("Comma-separated seats in playing order, 1 to 6: human or an agent name "
                "(see kocka arena --help), e.g. human,optimal,heuristic."))
@option("--seed", type=int, default=None, help=N_("Seed of the dice and the agents (default: a random seed, printed)."))
@option("-r", "--rule", "--rules", "rules", multiple=True, metavar="KEY=VALUE", help=RULE_HELP)
@option("--cache-dir", default=None, metavar="DIR", help=CACHE_HELP)
@option("--build-missing", is_flag=True, help=BUILD_HELP)
@lang_option
@explain_option
def play(game, seats, seed, rules, cache_dir, build_missing, lang, explain):
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    seat_list = [s for s in seats.split(",") if s.strip()]
    try:
        g = game_from_cli(game, rules)
        code = play_game(g, seat_list, seed, _agent_options(cache_dir, build_missing), write=click.echo, lang=lang)
    except (KockaError, TableError, AgentUnavailable) as exc:
        fail(exc, explain)
    sys.exit(code)


@main.command(paragraphs=(
    N_("The hint companion for a game with real dice: it keeps every player's card (or score), "
       "whose turn it is and the throw; you type the dice thrown and the moves made."),
    Lines(N_("Example: kocka table kockapoker --players Anna,Béla,me\n"
             "Then, each turn: 33355 (the dice), ? (the hint), keep 333, 55 (the new dice),\n"
             "write full (or: full), bank, undo, cards, help. Saved after every step;\n"
             "kocka table --resume FILE goes on with a saved game.")),
))
@game_argument(companion_games(), required=False)
@option("--players", default=None, metavar="NAMES",
        help=N_("The players in playing order, separated by commas, e.g. Anna,Béla,me."))
@option("--save", "save_path", default=None, metavar="FILE",
        help=N_("Where the game is saved after every step (default: kocka-table-GAME-DATE-TIME.json here)."))
@option("--resume", default=None, metavar="FILE", help=N_("Go on with the game saved in FILE."))
@option("-r", "--rule", "--rules", "rules", multiple=True, metavar="KEY=VALUE", help=RULE_HELP)
@option("--cache-dir", default=None, metavar="DIR", help=CACHE_HELP)
@option("--build-missing", is_flag=True, help=BUILD_HELP)
@lang_option
@explain_option
def table(game, players, save_path, resume, rules, cache_dir, build_missing, lang, explain):
    names = [p for p in players.split(",")] if players else None
    try:
        code = run_table(game, names, resume, save_path, rules, _agent_options(cache_dir, build_missing), lang=lang)
    except (KockaError, TableError, AgentUnavailable, OSError) as exc:
        fail(exc, explain)
    sys.exit(code)


@main.command(paragraphs=(
    N_("Play seeded matches between agents and measure their strength."),
    N_("Scorecard games (kockapoker, slovak, yahtzee, yatzy, polish, polish-basic): each agent plays its own "
       "card with the same dice (common random numbers); the win rate is the share of top scores over these "
       "paired games, and a head-to-head table compares pairs. Other games: one seat per agent, seat order "
       "rotating from game to game. Prints each agent's mean score with a 95% normal-approximation interval, "
       "its win rate with a 95% Wilson interval (ties shared), and the score distribution."),
    N_("With --baseline NAME the same games are played again with NAME in the first agent's place (the same "
       "dice, the same opponents' draws), and the first agent's gain over NAME is given game by game, with a 95% "
       "interval over these paired differences: far narrower than comparing two separate runs."),
    Lines(N_("Example: kocka arena kockapoker --agents optimal,heuristic,random --games 20000 --seed 1 --jobs 2\n"
             "  kocka arena abazs --agents adaptive,truthful --baseline equilibrium --games 100")),
))
@game_argument()
@option("--agents", "agent_list", default="optimal,heuristic", show_default=True,
        help=N_("Comma-separated agent names; a name may repeat. Agents: {agents}"),
        help_params=lambda: {"agents": _agents_help()})
@option("--games", type=int, default=1000, show_default=True, help=N_("Number of games (matches)."))
@option("--seed", type=int, default=1, show_default=True, help=N_("Seed; each game's dice come from (seed, game index)."))
@option("--jobs", "-j", type=int, default=1, show_default=True,
        help=N_("Worker processes (joblib); results do not depend on it."))
@option("-r", "--rule", "--rules", "rules", multiple=True, metavar="KEY=VALUE", help=RULE_HELP)
@option("--json", "as_json", is_flag=True, help=N_("Machine-readable output."))
@option("--plot", type=click.Path(dir_okay=False), default=None,
        help=N_("Draw the score distributions to this PNG (needs matplotlib: pip install 'kocka[plot]')."))
@option("--bins", type=int, default=12, show_default=True, help=N_("Bins of the text histogram."))
@option("--table", "at_table", is_flag=True,
        help=N_("Scorecard games: seat the agents at one table (seat order rotating, each seat's dice shared by "
                "the rotations) instead of one card each; needed by agents that watch the other cards (winner)."))
@option("--baseline", default=None, metavar="AGENT",
        help=N_("Play the same games again with AGENT in the first agent's place and report the first agent's "
                "gain over it, game by game (paired differences, 95% interval)."))
@option("--series", is_flag=True,
        help=N_("Play the games as one series, in order in one process: agents that learn the table (adaptive) "
                "keep what they learnt from game to game, as over an evening at one table (--jobs is unused)."))
@option("--cache-dir", default=None, metavar="DIR", help=CACHE_HELP)
@option("--build-missing", is_flag=True, help=BUILD_HELP)
@lang_option
def arena(game, agent_list, games, seed, jobs, rules, as_json, plot, bins, at_table, baseline, series, cache_dir,
          build_missing, lang):
    names = [s.strip().lower() for s in agent_list.split(",") if s.strip()]
    paired = None
    try:
        g = game_from_cli(game, rules)
        report_language = choose_language(lang, g.words.language)
        options = _agent_options(cache_dir, build_missing)
        # the baseline's games first: a baseline that cannot play fails before the long run
        against = (run_arena(g, [baseline.strip().lower(), *names[1:]], games, seed, jobs, options, table=at_table,
                             series=series)
                   if baseline is not None and names else None)
        result = run_arena(g, names, games, seed, jobs, options, table=at_table, series=series)
        paired = paired_gain(result, against) if against is not None else None
        if plot:
            result.plot(plot)
    except (KockaError, TableError, AgentUnavailable, ArenaError, PlotUnavailable) as exc:
        fail(exc)
    if as_json:
        click.echo(json.dumps({**result.to_json(bins), **({"paired": paired.to_json()} if paired else {})}))
    else:
        with use_language(report_language):
            click.echo(result.render(bins))
            if paired:
                click.echo("\n" + paired.render())
            if plot:
                click.echo(_("plot written to {path}", path=plot))


# ----------------------------------------------------------------------------------------
# kocka seat, web
# ----------------------------------------------------------------------------------------
LOG_LEVELS = ["debug", "info", "warning", "error"]


@main.command(paragraphs=(
    N_("Seat the AI for another program: one JSON request per line on stdin, one JSON response per line on "
       "stdout (protocol kocka.seat/1, docs/PROTOCOL.md)."),
    N_("Each answer is written in the request's lang; a request without one is answered in the language "
       "of --lang, else KOCKA_LANG, else its game's own language."),
    Lines(N_("Example:\n"
             "  echo '{\"id\": 1, \"method\": \"hello\"}' | kocka seat\n"
             "  kocka seat --http 127.0.0.1:8765 --allow-origin http://localhost:5173")),
))
@option("--http", "http_address", default=None, metavar="HOST:PORT",
        help=N_("Serve JSON over HTTP (POST /) on HOST:PORT instead of stdin/stdout, e.g. 127.0.0.1:8765 "
                "(port 0: any free port)."))
@option("--cache-dir", default=None, metavar="DIR", help=CACHE_HELP)
@option("--build-missing", is_flag=True,
        help=N_("Build a missing table (with a message on stderr) instead of answering table_missing."))
@option("--log-level", type=WordChoice(LOG_LEVELS), default="warning", show_default=True,
        help=N_("Detail of the log on stderr."))
@option("--request-timeout", type=float, default=DEFAULT_REQUEST_TIMEOUT, show_default=True, metavar="SECONDS",
        help=N_("Answer timeout to a request not answered within SECONDS (0: no limit)."))
@option("--max-inflight", type=int, default=DEFAULT_MAX_INFLIGHT, show_default=True,
        help=N_("Requests worked on at once (abandoned ones included) before new ones get busy (HTTP 503)."))
@option("--worker-threads", type=int, default=DEFAULT_WORKER_THREADS, show_default=True,
        help=N_("HTTP: requests computed at once; the others wait in a queue (more threads add no speed, "
                "they only slow the quick answers)."))
@option("--token", default=None, envvar="KOCKA_SEAT_TOKEN", metavar="SECRET",
        help=N_("HTTP: require the header Authorization: Bearer SECRET on every request (also from "
                "KOCKA_SEAT_TOKEN); required for a non-loopback address."))
@option("--allow-origin", "allow_origins", multiple=True, metavar="URL",
        help=N_("HTTP: let the web page at this origin (e.g. http://localhost:5173) use the seat, with CORS "
                "headers. Repeatable."))
@option("--allow-host", "allow_hosts", multiple=True, metavar="NAME[:PORT]",
        help=N_("HTTP: accept this Host header besides the address bound (e.g. behind a proxy). Repeatable."))
@option("--write-timeout", type=float, default=DEFAULT_WRITE_TIMEOUT, show_default=True, metavar="SECONDS",
        help=N_("HTTP: close a connection whose queued answers the client has not read for SECONDS (a slow reader)."))
@option("--allow-quit", is_flag=True, help=N_("HTTP: let a client stop the server with quit (refused otherwise)."))
@option("--workers", type=int, default=1, show_default=True, metavar="N",
        help=N_("HTTP: serve from N processes sharing the address and the memory-mapped tables (one per core)."))
@option("--lang", type=WordChoice(sorted(LANGUAGES)), default=None,
        help=N_("The language of the answers to requests without lang (as KOCKA_LANG; default: each game's own)."))
def seat(http_address, cache_dir, build_missing, log_level, request_timeout, max_inflight, worker_threads, token, allow_origins,
         allow_hosts, write_timeout, allow_quit, workers, lang):
    if not request_timeout >= 0:  # NaN too
        fail(KockaError(_("--request-timeout must be 0 (no limit) or a positive number of seconds, not {value}",
                          value=request_timeout)))
    budget = request_timeout if 0 < request_timeout < float("inf") else None
    if max_inflight < 1:
        fail(KockaError(_("--max-inflight must be 1 or more, not {value}", value=max_inflight)))
    http = None
    if http_address is not None:
        try:
            parse_address(http_address)
            # deferred heavy optional import: starlette and uvicorn load only for --http
            from kocka.agents.frontends.seat.http import http_options

            http = http_options(http_address, token=token, allow_origins=allow_origins, allow_hosts=allow_hosts,
                                allow_quit=allow_quit, request_timeout=budget, max_inflight=max_inflight,
                                worker_threads=worker_threads, write_timeout=write_timeout, workers=workers)
        except ValueError as exc:
            fail(exc)
        if workers > 1 and build_missing:  # each worker would build the same table inside a request
            fail(KockaError(_("--build-missing builds a table inside a request, in every worker: build the tables "
                              "first (kocka-solve build) or serve with --workers 1")))
    elif allow_origins or allow_hosts or allow_quit or any(
            click.get_current_context().get_parameter_source(name) is ParameterSource.COMMANDLINE
            for name in ("token", "worker_threads", "write_timeout", "workers")):
        fail(KockaError(_("--token, --allow-origin, --allow-host, --allow-quit, --worker-threads, --write-timeout "
                          "and --workers are for --http")))
    # --lang is KOCKA_LANG for this process: the seat reads it per request (protocol.request_language),
    # in every worker thread, for the requests that name no lang of their own
    before = os.environ.get(ENV_VAR)
    if lang is not None:
        os.environ[ENV_VAR] = lang
    try:
        code = run(SeatOptions(cache_dir=cache_dir, build_missing=build_missing), http=http, log_level=log_level,
                   request_timeout=budget, max_inflight=max_inflight)
    except OSError as exc:  # the address is in use, or not this machine's
        fail(KockaError(_("cannot serve on {address}: {problem}", address=http_address, problem=exc.strerror or exc)))
    finally:
        if lang is not None:
            if before is None:
                os.environ.pop(ENV_VAR, None)
            else:
                os.environ[ENV_VAR] = before
    sys.exit(code)


@main.command(paragraphs=(
    N_("The hint companion in a browser: a phone-sized page on http://127.0.0.1:8080, served with the AI "
       "seat's protocol by one process (docs/TABLE.md)."),
    N_("Pick a game and the players, type or tap the dice thrown, and read the hint; or play against the AI "
       "(the page rolls). A position is a link that opens straight to its hint, e.g. "
       "http://127.0.0.1:8080/?game=kockapoker&dice=11346&roll=1"),
))
@option("--host", default="127.0.0.1", show_default=True,
        help=N_("Address to listen on (another than loopback needs --token)."))
@option("--lan", is_flag=True,
        help=N_("For phones at the table: listen on this machine's address on the local network with a fresh "
                "token (unless --token), and print the address with a QR code to scan."))
@option("--port", type=int, default=8080, show_default=True, help=N_("Port to listen on (0: any free port)."))
@option("--lang", type=WordChoice(sorted(LANGUAGES)), default=None,
        help=N_("The page's language until the player picks one with its switch (default: KOCKA_LANG, else "
                "each game's own language)."))
@option("--token", default=None, envvar="KOCKA_SEAT_TOKEN", metavar="SECRET",
        help=N_("Require this bearer token (the page gets it from the address printed); needed off loopback."))
@option("--allow-host", "allow_hosts", multiple=True, metavar="NAME[:PORT]",
        help=N_("Accept this Host header too (the machine's name on the network). Repeatable."))
@option("--cache-dir", default=None, metavar="DIR", help=CACHE_HELP)
@option("--build-missing", is_flag=True,
        help=N_("Build a missing table (with a message on stderr) when first needed."))
@option("--write-timeout", type=float, default=DEFAULT_WRITE_TIMEOUT, show_default=True, metavar="SECONDS",
        help=N_("Close a connection whose queued answers the client has not read for SECONDS (a slow reader)."))
@option("--log-level", type=WordChoice(LOG_LEVELS), default="warning", show_default=True,
        help=N_("Detail of the log on stderr."))
def web(host, lan, port, lang, token, allow_hosts, cache_dir, build_missing, write_timeout, log_level):
    if not 0 <= port <= 65535:
        fail(KockaError(_("--port must be 0..65535, not {value}", value=port)))
    # deferred heavy optional import: starlette and uvicorn load only for a server
    from kocka.agents.frontends.seat.web import lan_address, new_token, serve_web

    if lan:
        if click.get_current_context().get_parameter_source("host") is ParameterSource.COMMANDLINE:
            fail(KockaError(_("--lan finds the address itself; give either --lan or --host")))
        try:
            host = lan_address()
        except OSError as exc:
            fail(KockaError(str(exc)))
        token = token or new_token()
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        code = serve_web(address, SeatOptions(cache_dir=cache_dir, build_missing=build_missing), lang or env_language(),
                         log_level, token, allow_hosts, write_timeout=write_timeout, qr=lan)
    except ValueError as exc:
        fail(exc)
    except OSError as exc:
        fail(KockaError(_("cannot serve on {address}: {problem}", address=address, problem=exc.strerror or exc)))
    sys.exit(code)


# ----------------------------------------------------------------------------------------
# kocka score
# ----------------------------------------------------------------------------------------
@main.command(paragraphs=(N_("Points that DICE score in each box of GAME's card (scorecard and Polish games)."),))
@game_argument()
@click.argument("more_dice", cls=KockaArgument, nargs=-1, type=WHOLE, metavar=N_("[DICE]..."))
@option("--dice", type=int, required=True, help=N_("Five dice, e.g. --dice 3 3 3 5 5."))
@option("--box", default=None, help=N_("One box id (default: every box of the card)."))
@option("--first-throw", is_flag=True, help=N_("Written right after the first throw (from hand)."))
@option("-r", "--rule", "--rules", "rules", multiple=True, metavar="KEY=VALUE", help=RULE_HELP)
@lang_option
@explain_option
def score(game, more_dice, dice, box, first_throw, rules, lang, explain):
    try:
        g = game_from_cli(game, rules)
        boxes = g.card_boxes()
        if not boxes:
            raise KockaError(_("{game} has no score card; kocka score is for the games with boxes", game=game_title(game)))
        roll = validate_dice((dice, *more_dice), 5)
        if box is not None and box not in boxes:
            raise KockaError(_("{game} has no box {box}; its boxes are {boxes}", game=game_title(game), box=box,
                               boxes=", ".join(boxes)))
    except KockaError as exc:
        fail(exc, explain)
    width = max(len(b) for b in boxes)
    for b in [box] if box else boxes:
        click.echo(f"{b:<{width}}  {g.box_points(b, roll, first_throw):>5}")
