"""Choose the semantic detector's settings on the sample data's train split, and print why.

    python bench/tune_semantic.py

Only the train split is read: dev and test are for reporting. Steps, in order:

1. match threshold: the cosine that best separates, by balanced accuracy (Youden's J), the
   claims that are unambiguous hallucinations (the inserted sentences of the `hallucination`
   variants) from the other checked claims of the unambiguous examples, and the arguments a
   `coverage` variant drops from the other arguments; the mean of the two J on a 0.01 grid.
2. reading rules (`Settings.framing`, `.parts`, `.exclusive`) and pools (mean or max of the
   claim errors for hallucination; of a perspective's argument errors for coverage): the
   combination with the best mean of the hallucination and coverage ROC AUCs (scikit-learn)
   against the gold example labels.
3. repetition threshold: the claim-to-claim cosine that best separates (Youden's J) the
   `repetition` variants' restating sentences from every other claim that has an earlier
   supported claim on the same argument.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.labels import overlaps  # noqa: E402
from explorer.data.samples import load_samples  # noqa: E402
from explorer.detectors.ops.alignment import Settings
from explorer.detectors.ops.assessment import assess
from explorer.detectors.semantic import POOLS, SemanticDetector, errors  # noqa: E402
from explorer.evaluation.claim_level import ClaimPoints, best_cut  # noqa: E402


def scores(assessment, example, claim_pool: str, argument_pool: str) -> tuple[float, float]:
    checked = assessment.checked
    claim_errors = errors(assessment.support)[checked]
    hallucination = float(POOLS[claim_pool](claim_errors)) if len(checked) else 0.0
    argument_errors = errors(assessment.coverage)
    rows = assessment.alignment.arguments
    coverage = max(
        float(POOLS[argument_pool](argument_errors[[r for r, (q, _) in enumerate(rows) if q == p]]))
        for p in range(len(example.perspectives))
    )
    return hallucination, coverage


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    detector = SemanticDetector()
    examples = [e for e in load_samples() if e.split == "train"]
    aligned = [(e, detector.align(e)) for e in examples]
    print(f"{len(examples)} train examples; {detector.model_identity()}; aligned with match {detector.settings.match}")

    # 1. match threshold
    found = ClaimPoints()
    for example, alignment in aligned:
        if not example.labels.ambiguous:
            found.add(example, alignment)
    claim_cut, claim_j = best_cut(found.hallucinated, found.other_claims, below=True)
    argument_cut, argument_j = best_cut(found.dropped, found.other_arguments, below=True)
    print(
        f"1. claims: {len(found.hallucinated)} hallucinated vs {len(found.other_claims)} other; "
        f"alone best {claim_cut:.2f} (J {claim_j:.2f})"
    )
    print(
        f"   arguments: {len(found.dropped)} dropped vs {len(found.other_arguments)} other; "
        f"alone best {argument_cut:.2f} (J {argument_j:.2f})"
    )
    match, mean_j = found.best_cut()
    print(f"   match threshold: {match:.2f} (mean J {mean_j:.2f})")

    # 2. reading rules and pools
    gold_h = [int(e.labels.hallucination) for e, _ in aligned]
    gold_c = [int(e.labels.coverage_error) for e, _ in aligned]
    results = []
    for framing, parts, exclusive in itertools.product((False, True), repeat=3):
        settings = Settings(match=match, framing=framing, parts=parts, exclusive=exclusive)
        assessed = [(e, assess(a, settings)) for e, a in aligned]
        for claim_pool, argument_pool in itertools.product(POOLS, POOLS):
            pairs = [scores(a, e, claim_pool, argument_pool) for e, a in assessed]
            auc_h = roc_auc_score(gold_h, [h for h, _ in pairs])
            auc_c = roc_auc_score(gold_c, [c for _, c in pairs])
            results.append(((auc_h + auc_c) / 2, auc_h, auc_c, framing, parts, exclusive, claim_pool, argument_pool))
    results.sort(key=lambda r: -r[0])
    print("2. framing parts exclusive claim_pool argument_pool -> train ROC AUC hallucination, coverage (mean)")
    for mean, auc_h, auc_c, framing, parts, exclusive, claim_pool, argument_pool in results:
        print(
            f"   {framing!s:5} {parts!s:5} {exclusive!s:5} {claim_pool:4} {argument_pool:4} "
            f"-> {auc_h:.3f} {auc_c:.3f} ({mean:.3f})"
        )
    _, _, _, framing, parts, exclusive, claim_pool, argument_pool = results[0]
    settings = Settings(match=match, framing=framing, parts=parts, exclusive=exclusive)

    # 3. repetition threshold
    repeated, other = [], []
    for example, alignment in aligned:
        assessment = assess(alignment, settings)
        raw_best, support = alignment.raw_best_argument, assessment.support
        for j in assessment.checked:
            earlier = [
                float(alignment.claim_similarity[i, j])
                for i in assessment.checked[assessment.checked < j]
                if raw_best[i] == raw_best[j]
                and support[i] >= match
                and alignment.claims[i].sentence != alignment.claims[j].sentence
            ]
            if earlier:
                is_repeat = example.labels.ambiguous_type == "repetition" and overlaps(
                    alignment.claims[j].span, example.labels.hallucinated_spans
                )
                (repeated if is_repeat else other).append(max(earlier))
    repetition, j = best_cut(repeated, other, below=False)
    print(f"3. repetition: {len(repeated)} restating claims {np.round(sorted(repeated), 2).tolist()}")
    print(f"   vs {len(other)} others, top: {np.round(sorted(other)[-8:], 2).tolist()}")
    print(f"   repetition threshold: {repetition:.2f} (J {j:.2f})")
    chosen = dataclasses.replace(settings, repetition=repetition)
    print(f"\nchosen: {chosen}, claim_pool={claim_pool!r}, argument_pool={argument_pool!r}")
    if chosen != detector.settings:
        print(f"(the detector's defaults are {detector.settings}; alignment used match {detector.settings.match})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
