"""Every generated file of the docs, written from the records and the code, never by hand.

    python -m explorer.docs            # rewrite what is not up to date
    python -m explorer.docs --check    # write nothing; exit 1 naming each file that is not

It writes the detector cards (`docs/detectors/`, `explorer.docs.cards`), the command-line
reference (`docs/reference/cli.md`, from `explorer.cli.build_parser()`'s own help) and fills the
blocks between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in the README, the docs
pages and `mkdocs.yml` (`BLOCK_FILES`): the verdict's bands, the verdict detector's known failure
modes, the input limits and the nav's detector cards (so a new detector's card is in the nav).

It is a module rather than an `explorer` subcommand because it writes files of the repository,
which the CLI's output guard refuses by design: a user's command never overwrites what the
project ships.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from explorer import detectors
from explorer.config import CHECKOUT
from explorer.docs import cards, limits
from explorer.docs.records import Records, shipped
from explorer.files import write_text

CARDS = Path("docs") / "detectors"
CLI_REFERENCE = Path("docs") / "reference" / "cli.md"
# The files whose generated blocks are filled.
BLOCK_FILES = (
    Path("mkdocs.yml"),
    Path("README.md"),
    Path("docs") / "guide" / "verdict.md",
    Path("docs") / "guide" / "limits.md",
    Path("docs") / "reference" / "formats.md",
)
# A block's body is whole lines; its closing marker may sit after a line's indentation and a YAML
# comment sign (the nav in mkdocs.yml), which stay.
BLOCK = re.compile(
    r"(<!-- generated:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(?P<close>^[ \t#]*<!-- /generated:(?P=name) -->)",
    re.S | re.M,
)
HELP_WIDTH = "100"  # argparse wraps help at the terminal's width: fixed, so the page is the same everywhere


def cli_reference() -> str:
    """Each subcommand's `--help`, as argparse prints it, under the parser's own description."""
    from explorer.cli import build_parser

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        parser = build_parser()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        lines = [
            "# Command line",
            "",
            "`explorer COMMAND --help` prints each section below; every command exits with one of the codes in "
            "[Exit codes](exit-codes.md).",
            "",
            "```text",
            parser.format_help().rstrip(),
            "```",
            "",
        ]
        for name, command in commands.choices.items():
            lines += [f"## explorer {name}", "", "```text", command.format_help().rstrip(), "```", ""]
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    lines += [
        "---",
        "",
        "Written by `python -m explorer.docs` from `explorer.cli.build_parser()`; do not edit by hand.",
        "",
    ]
    return "\n".join(lines)


def input_limits() -> str:
    """The sizes an input may have, from the constants that enforce them."""
    from explorer.data.records import MAX_CHARACTERS
    from explorer.detectors.ops.alignment import MAX_CLAIMS
    from explorer.files import MAX_INPUT_BYTES

    return (
        f"- An example holds at most {MAX_CHARACTERS:,} characters of text (query, perspective names, arguments and "
        f"answer together), and an answer at most {MAX_CLAIMS:,} claims for the detectors that align claims; an "
        f"input file at most {MAX_INPUT_BYTES / 2**30:g} GiB (a gzipped one, decompressed)."
    )


def card_nav() -> str:
    """The *Detector cards* entries of the nav in `mkdocs.yml`, one per registered detector."""
    entries = ["      - detectors/index.md"]
    entries += [f"      - {json.dumps(detectors.spec(name).title)}: detectors/{name}.md" for name in detectors.names()]
    return "\n".join(entries)


def blocks(records: Records) -> dict[str, str]:
    return {
        "card-nav": card_nav(),
        "input-limits": input_limits(),
        "verdict-bands": "\n".join(limits.bands(records)),
        "limits": "\n".join(limits.summary(records)),
        "failure-modes": "\n".join(
            limits.failure_table(detectors.VERDICT_DETECTOR, records) + limits.failure_examples(records)
        ),
    }


def fill(text: str, filled: Mapping[str, str]) -> str:
    """`text` with each generated block's body replaced by `filled[name]`; an unknown name is an error."""

    def body(match: re.Match) -> str:
        name = match["name"]
        if name not in filled:
            raise KeyError(f"no generated block named {name!r}; known: {', '.join(filled)}")
        return f"{match.group(1)}{filled[name]}\n{match['close']}"

    return BLOCK.sub(body, text)


def written(records: Records, checkout: Path = CHECKOUT) -> dict[Path, str]:
    """What every generated file should hold, by path relative to `checkout`."""
    found = {CARDS / f"{name}.md": cards.card(name, records) for name in detectors.names()}
    found[CARDS / "index.md"] = cards.index(records)
    found[CLI_REFERENCE] = cli_reference()
    filled = blocks(records)
    for path in BLOCK_FILES:
        if (checkout / path).is_file():
            found[path] = fill((checkout / path).read_text(encoding="utf-8"), filled)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is not up to date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in written(shipped()).items():
        target = CHECKOUT / path
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_text(target, text)
    for path in stale:
        print(f"{'not up to date' if args.check else 'wrote'}: {path}")
    return 1 if args.check and stale else 0
