"""Content or framing: a head that tells a piece of an answer which states something from a piece
that only frames the answer, for the pieces no argument is stated in.

A faithful answer has pieces that state no argument: its lead-in ("Here is how the two sides
compare"), its transitions, its closing line. An answer with an invention has one more such
piece, and it says something: a background fact, a rebuttal, a consensus claim, a conclusion
that takes a side. A judge that reads each argument beside a piece can say that no argument is
stated there (`explorer.detectors.ops.judge`, *absent*), but not whether what is there is framing
or content; this head says that from the piece alone.

Training pieces come from the team-written corpus (`python -m explorer.data.written`), whose
answers mark where each argument is stated (`argument_spans`) and which spans are invented. Each
answer is cut at every comma, semicolon and colon (`explorer.text.claims.piece_spans`); a piece
at least half inside an invented span is *content*, a piece that touches no argument's statement
and no invented or distorted span is *framing*, and the rest (statements of arguments, pieces
across a boundary) are left out. Only train-split answers are read, so Perspectrum's test
claims never are. The head is scikit-learn's class-balanced logistic regression on the piece's
all-MiniLM-L6-v2 embedding (standardized, `LogisticHead`), fitted on the `components` half of
the claims (`explorer.training.data.claim_half`) for each C of `STRENGTHS`, the C kept whose
head ranks the `head` half's pieces best (a stacked head may later read its scores of that
half's answers, which no part of this head was fitted on).

    python -m explorer.training.invention --written ~/.cache/rag-error-explorer/written-second.jsonl --out DIR
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.console import bounded
from explorer.data.example import Example
from explorer.data.labels import CONTENT_TASK
from explorer.data.written import argument_statements
from explorer.detectors.ops.logistic_head import LogisticHead
from explorer.text.claims import Span, piece_spans
from explorer.training.data import claim_half, read_told, write_record

TASK = CONTENT_TASK
CONTENT, FRAMING = 1, 0
INSIDE = 0.5  # share of a piece inside an invented span for it to count as that span's content
STRENGTHS = (0.0001, 0.001, 0.01, 0.1, 1.0)  # C of the logistic regression, tried in turn


@dataclass(frozen=True)
class Piece:
    example_id: str
    span: Span
    text: str
    label: int  # CONTENT or FRAMING
    half: str  # `claim_half` of its example


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def labelled_pieces(example: Example) -> Iterator[Piece]:
    """The pieces of `example`'s response that are clearly content or clearly framing (module
    docstring); none where the answer does not mark where its arguments are stated."""
    statements = [span for spans in argument_statements(example).values() for span in spans]
    if not statements:
        return
    distorted = {tuple(d["span"]) for d in example.extra.get("distortions") or []}
    marked = [tuple(span) for span in example.labels.hallucinated_spans]
    invented = [span for span in marked if span not in distorted]
    half = claim_half(example)
    for span in piece_spans(example.response):
        size = span[1] - span[0]
        if any(_overlap(span, other) >= INSIDE * size for other in invented):
            label = CONTENT
        elif any(_overlap(span, other) for other in [*marked, *distorted, *statements]):
            continue
        else:
            label = FRAMING
        yield Piece(example.id, span, example.response[span[0] : span[1]], label, half)


def fit(pieces: Sequence[Piece], encoder, strengths: Sequence[float] = STRENGTHS) -> tuple[LogisticHead, dict]:
    """The head fitted on the `components` half of `pieces` for each C of `strengths`, the one
    with the best piece-level ROC AUC on the `head` half kept (the first C without one), and the
    record: counts per half and label, each C's ROC AUC (`dev_roc_auc`: the held-out half is this
    fit's dev set) and the C kept."""
    from sklearn.metrics import roc_auc_score

    halves = {half: [p for p in pieces if p.half == half] for half in ("components", "head")}
    train, held = halves["components"], halves["head"]
    if len({p.label for p in train}) < 2:
        raise ValueError("the components half needs both content and framing pieces to fit a head")
    vectors = encoder.encode([p.text for p in train])
    held_vectors = encoder.encode([p.text for p in held]) if held else None
    columns = tuple(f"embedding {i}" for i in range(vectors.shape[1]))
    fitted, aucs = {}, {}
    for strength in strengths:
        fitted[strength] = LogisticHead.fit(TASK, columns, vectors, [p.label for p in train], strength)
        if len({p.label for p in held}) == 2:
            scores = fitted[strength].p_error(held_vectors)
            aucs[strength] = round(float(roc_auc_score([p.label for p in held], scores)), 4)
    kept = max(aucs, key=aucs.get) if aucs else strengths[0]
    record = {
        "pieces": {
            half: {"content": sum(p.label == CONTENT for p in found), "framing": sum(p.label == FRAMING for p in found)}
            for half, found in halves.items()
        },
        "selection": "the pieces of the claims' head half (explorer.training.data.claim_half), content against framing",
        "dev_roc_auc": [[strength, auc] for strength, auc in aucs.items()],
        "kept_C": kept,
    }
    return fitted[kept], record


class InventionTrainer:
    """`explorer train --detector invention --task content`: the content head, from answers that
    mark their arguments' statements and their invented spans (the team-written corpus)."""

    description = "a logistic regression on MiniLM embeddings telling invented pieces from framing, in minutes"
    settings = None
    no_step_options = "a logistic regression; its regularization is chosen on the held-out half of the claims (its dev)"
    model_help = "a local sentence-transformers / BERT-style folder (default: the packaged all-MiniLM-L6-v2)"
    reads_organic_errors = True  # its pieces come from the answers' marked inventions, organic ones above all

    def train(self, request) -> tuple[LogisticHead, dict[str, Any]]:
        from explorer.models.encoder import shared_encoder
        from explorer.training import TrainingInputError

        pieces = [piece for example in request.train_set for piece in labelled_pieces(example)]
        encoder = shared_encoder(request.model)
        try:
            head, record = fit(pieces, encoder)
        except ValueError as error:
            raise TrainingInputError(
                f"{error}: give answers that mark their arguments' statements (argument_spans) and invented "
                "spans, as `python -m explorer.data.written` builds them"
            ) from error
        return head, {"task": TASK, "model": encoder.identity(), **record}

    def save(self, model: LogisticHead, record: Mapping[str, Any], out: Path) -> None:
        digest = model.save(out)
        write_record({**record, "model_sha256": digest}, out)


def build_parser() -> argparse.ArgumentParser:
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(
        prog="python -m explorer.training.invention", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--written", type=Path, nargs="+", required=True, help="team-written corpus files")
    parser.add_argument("--out", type=Path, required=True, help="folder for model.json and training.json")
    parser.add_argument(
        "--strengths",
        type=bounded(float, 0, math.inf, open_ends=True),
        nargs="+",
        default=STRENGTHS,
        help="C of the logistic regression, each tried",
    )
    declare(parser, Files(inputs=("written",), output="out", folder=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    from explorer.models.encoder import SentenceEncoder

    started = time.perf_counter()
    read, errors = read_told(args.written)
    pieces = [piece for example in read if example.split == "train" for piece in labelled_pieces(example)]
    encoder = SentenceEncoder()
    head, record = fit(pieces, encoder, args.strengths)
    record_names = [path.name for path in args.written]
    record = {
        "task": TASK,
        "model": encoder.identity(),
        "data": record_names,
        **record,
        "command": f"python -m explorer.training.invention --written {' '.join(record_names)} --out DIR",
        "seconds": round(time.perf_counter() - started, 1),
    }
    InventionTrainer().save(head, record, args.out)
    print(
        f"wrote {args.out}: {record['pieces']}; head-half ROC AUC by C {record['dev_roc_auc']}; "
        f"kept C {record['kept_C']}"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
