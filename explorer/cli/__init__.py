"""Command line: `explorer validate`, `score`, `eval`, `synth`, `train`, `generate`, `claims`, `build-data`,
`calibrate` and `rates`.

Exit codes: 0 all good; 1 some input lines were invalid or some examples could not be scored
(everything else was still processed and written); 2 bad usage (unknown option or detector, an
option out of range, an output `explorer.cli.guard` refuses, a model that cannot be used);
3 an input file could not be read or the output could not be written; 4 the generation server
(`explorer generate --base-url`) could not be reached, did not answer in time or answered an error.

Outputs are written whole or not at all (`explorer.files.atomic_writer`): a failed or killed run
leaves the previous output as it was. `--quiet` leaves only errors and warnings on stderr: no
progress bars or notices from the explorer or the libraries it loads.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from explorer import console
from explorer.cli import extras, guard, labels, score, train
from explorer.cli.common import EXIT_IO, EXIT_OK, EXIT_PARTIAL, EXIT_SERVER, EXIT_USAGE, CliError

__all__ = ["EXIT_IO", "EXIT_OK", "EXIT_PARTIAL", "EXIT_SERVER", "EXIT_USAGE", "build_parser", "main"]
from explorer.files import WriteError
from explorer.models.language_model import InvalidModelError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer", description="Detect hallucination and coverage errors in RAG answers."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for module in (score, train, extras, labels):
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console.report_warnings()
    if getattr(args, "quiet", False):
        console.quiet_libraries()
    try:
        guard.check(args)
        return args.run(args)
    except CliError as error:
        print(f"explorer: {error}", file=sys.stderr)
        return error.code
    except WriteError as error:
        print(f"explorer: {error}; nothing was written", file=sys.stderr)
        return EXIT_IO
    except InvalidModelError as error:
        print(f"explorer: {error}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(
            "explorer: interrupted; any previous output is as it was, finished results are cached: run again to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
