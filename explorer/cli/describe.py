"""`explorer detectors`: what each detector is, from the same records as its card and the app.

explorer detectors                     # each detector: name, cost, summary, dev ROC AUC, speed
explorer detectors --describe stacked  # its whole card (Markdown), as in docs/detectors/
"""

from __future__ import annotations

import argparse

from explorer import detectors
from explorer.cli.common import parse_detector_names
from explorer.cli.guard import Files, declare


def run_detectors(args: argparse.Namespace) -> int:
    from explorer.docs import cards

    if args.describe:
        print("\n".join(cards.card(name) for name in args.describe), end="")
        return 0
    for name in detectors.names():
        print(f"{name} ({detectors.spec(name).cost}): {cards.about(name)}\n")
    return 0


def add_parsers(commands) -> None:
    found = commands.add_parser(
        "detectors",
        help="list the detectors with their dev figures and speed, or print one's card (--describe)",
    )
    found.add_argument(
        "--describe",
        type=parse_detector_names,
        metavar="NAMES",
        help="comma-separated detectors whose cards to print: method, training, calibration, figures on each "
        "evaluation set, speed, known failures",
    )
    found.set_defaults(run=run_detectors)
    declare(found, Files())
