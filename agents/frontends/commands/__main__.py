"""``python -m kocka.agents.frontends.commands ARGS``: the ``kocka`` command without its
console script (e.g. ``... seat`` for a frontend that starts the seat by module)."""
import sys

from kocka.agents.frontends.commands.kocka_cli import main

main(sys.argv[1:], prog_name="python -m kocka.agents.frontends.commands")
