"""The exit codes are one record (`explorer.cli.exit_codes`): the reference page is written from
it, and it names every command of the parser and every `python -m` module (tests/test_modules.py)."""

from explorer.cli import exit_codes
from tests.helpers import ROOT
from tests.test_guard import subcommands

PAGE = ROOT / "docs" / "reference" / "exit-codes.md"
WRITE = (
    "python -c \"from explorer.cli.exit_codes import markdown; print(markdown(), end='')\" "
    "> docs/reference/exit-codes.md"
)


def test_the_reference_page_is_the_record():
    assert PAGE.read_text(encoding="utf-8") == exit_codes.markdown(), f"write it again: {WRITE}"


def test_the_record_names_the_commands_of_the_parser_and_each_code_once():
    assert set(exit_codes.COMMANDS) == set(subcommands())
    codes = [entry.code for entry in exit_codes.EXIT_CODES]
    assert len(set(codes)) == len(codes)
    for entry in exit_codes.EXIT_CODES:
        assert set(entry.commands) <= set(exit_codes.COMMANDS) and set(entry.modules) <= set(exit_codes.MODULES)
