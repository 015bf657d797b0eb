"""Choose the claim view's encoder and match threshold on a foreign dev split, and print why.

    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python bench/tune_claims.py --data ~/.cache/rag-error-explorer/perspectrum.jsonl [--write]

For each alignment detector (`--detectors`, default semantic and semantic_tuned), the split's
examples are scored through the result cache and read at claim level
(`explorer.evaluation.claim_level`): ROC AUC of "the claim's best match is low" for the claims
that state a hallucinated argument against the other checked claims, and of "the argument's
best match is low" for the arguments the response drops against the others. The detector with
the best mean of the two AUCs is chosen, then its match threshold by the best mean Youden's J
over claims and arguments on a 0.01 grid. The repetition threshold and the reading rules stay
the detector's (chosen on the sample data's train split: Perspectrum has no restatements).

Also printed, for comparison: each detector's J at its own scoring threshold and on the sample
data's train split (`--also-sample`). `--write` stores the choice in
`explorer/resources/claim_view.json`. A test split is refused.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer import detectors  # noqa: E402
from explorer.config import SAMPLE_DIR  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.detectors.semantic import alignment_of  # noqa: E402
from explorer.evaluation.claim_level import CLAIM_VIEW_FILE, ClaimPoints, ClaimViewChoice  # noqa: E402
from explorer.files import atomic_writer  # noqa: E402
from explorer.scoring.cache import ResultCache  # noqa: E402
from explorer.scoring.runner import score_examples  # noqa: E402


def points(detector, examples, cache: ResultCache) -> ClaimPoints:
    found = ClaimPoints()
    for scored in score_examples(examples, [detector], cache):
        if detector.name in scored.results:
            found.add(scored.example, alignment_of(scored.results[detector.name], scored.example))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="labelled JSON Lines with error spans")
    parser.add_argument("--split", default="dev", choices=("train", "dev"), help="never a test split")
    parser.add_argument("--detectors", default="semantic,semantic_tuned")
    parser.add_argument("--also-sample", action="store_true", help="print the figures on the sample train split too")
    parser.add_argument("--write", action="store_true", help=f"store the choice in {CLAIM_VIEW_FILE}")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # a shared 2-core machine: busy-waiting threads cost 4x beside another job
    examples = [e for e in parse_jsonl(args.data).examples if e.split == args.split and not e.labels.ambiguous]
    data = f"{args.data.name}, {args.split} split"
    sample_train = [e for e in parse_jsonl(SAMPLE_DIR / "synthetic.jsonl").examples if e.split == "train"]
    cache = ResultCache()
    rows = []
    for name in (n.strip() for n in args.detectors.split(",") if n.strip()):
        started = time.perf_counter()
        detector = detectors.create(name)
        found = points(detector, examples, cache)
        claim_auc, argument_auc = found.roc_aucs()
        match, _ = found.best_cut()
        own = detector.settings.match
        rows.append((name, (claim_auc + argument_auc) / 2, match, found))
        print(
            f"{name} on {data} ({time.perf_counter() - started:.0f} s): {len(found.hallucinated)} hallucinated claims "
            f"vs {len(found.other_claims)}, {len(found.dropped)} dropped arguments vs {len(found.other_arguments)}"
        )
        print(f"  ROC AUC claims {claim_auc:.3f}, arguments {argument_auc:.3f} (mean {rows[-1][1]:.3f})")
        print(f"  best match {match:.2f}: J claims / arguments {' / '.join(f'{j:.3f}' for j in found.youden(match))}")
        print(f"  at its scoring threshold {own:.2f}: J {found.youden(own)[0]:.3f} / {found.youden(own)[1]:.3f}")
        if args.also_sample:
            sample = points(detector, sample_train, cache)
            print(
                f"  sample train: ROC AUC {' / '.join(f'{a:.3f}' for a in sample.roc_aucs())}; "
                f"J at {match:.2f}: {' / '.join(f'{j:.3f}' for j in sample.youden(match))}; "
                f"at {own:.2f}: {' / '.join(f'{j:.3f}' for j in sample.youden(own))}"
            )
    name, mean_auc, match, found = max(rows, key=lambda row: row[1])
    claims_j, arguments_j = found.youden(match)
    claim_auc, argument_auc = found.roc_aucs()
    choice = ClaimViewChoice(
        detector=name,
        match=match,
        data=f"{data}, ambiguous examples left out",
        evidence={
            "claim ROC AUC": round(claim_auc, 4),
            "argument ROC AUC": round(argument_auc, 4),
            "claim J": round(claims_j, 4),
            "argument J": round(arguments_j, 4),
            "detectors compared": {row[0]: round(row[1], 4) for row in rows},
        },
    )
    print(f"\nchosen: {name}, match {match:.2f} (mean claim-level ROC AUC {mean_auc:.3f})")
    if args.write:
        with atomic_writer(CLAIM_VIEW_FILE) as out:
            out.write(choice.to_json())
        print(f"wrote {CLAIM_VIEW_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
