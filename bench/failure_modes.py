"""Each detector's calibrated verdicts on the probe answers: the record of known failure modes.

    python bench/failure_modes.py                      # every detector that is not slow
    python bench/failure_modes.py --detectors stacked  # refresh one detector's entries

The probes (`explorer/resources/probes.jsonl`) and how a verdict on one is read live in
`explorer.docs.probes`; the record (`explorer/resources/records/failure_modes.json`, or `--record`)
keeps the entries of detectors not named. Then `python -m explorer.docs` rewrites the limits in the
README, the docs and the detector cards from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.docs.probes import load_probes, measure, write_record  # noqa: E402
from explorer.docs.records import FAILURE_MODES_RECORD  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fast = [name for name in detectors.names() if not detectors.spec(name).background_for_one()]
    parser.add_argument("--detectors", default=",".join(fast), help="default: every detector that is not slow")
    parser.add_argument("--record", type=Path, default=FAILURE_MODES_RECORD)
    args = parser.parse_args(argv)
    probes = load_probes()
    names = [n.strip() for n in args.detectors.split(",") if n.strip()]
    write_record(measure(names, probes), probes, args.record)
    print(f"wrote {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
