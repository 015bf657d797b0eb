"""Command line: `explorer validate`, `score`, `eval`, `synth`, `train`, `generate`, `claims`, `build-data`,
`detectors`, `calibrate` and `rates`.

Exit codes (`explorer.cli.exit_codes` records them, `docs/reference/exit-codes.md` lists them): 0 all
good; 1 some input lines were invalid or some examples could not be scored (everything else was
still processed and written); 2 bad usage (unknown option or detector, an option out of range, an
output `explorer.cli.guard` refuses, a model that cannot be used); 3 an input file could not be
read or the output could not be written; 4 the generation server (`explorer generate --base-url`)
could not be reached, did not answer in time or answered an error; 130 interrupted.

Outputs are written whole or not at all (`explorer.files.atomic_writer`): a failed or killed run
leaves the previous output as it was. `--quiet` leaves only errors and warnings on stderr: no
progress bars or notices from the explorer or the libraries it loads.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from explorer.cli import describe, extras, guard, labels, score, train
from explorer.cli.exit_codes import EXIT_IO, EXIT_OK, EXIT_PARTIAL, EXIT_SERVER, EXIT_USAGE

__all__ = ["EXIT_IO", "EXIT_OK", "EXIT_PARTIAL", "EXIT_SERVER", "EXIT_USAGE", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer", description="Detect hallucination and coverage errors in RAG answers."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for module in (score, train, extras, describe, labels):
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    interrupted = "any previous output is as it was, finished results are cached: run again to resume"
    return guard.main(build_parser(), argv, interrupted=interrupted)


if __name__ == "__main__":
    sys.exit(main())
