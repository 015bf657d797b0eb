"""Training the meaning judge (`explorer.detectors.ops.judge`): LoRA adapters and a three-way head
on all-MiniLM-L6-v2, over argument / piece pairs.

    python -m explorer.training.judge_data --written ~/.cache/rag-error-explorer/written.jsonl \
        --out ~/.cache/rag-error-explorer/judge-pairs.jsonl
    python -m explorer.training.judge --pairs ~/.cache/rag-error-explorer/judge-pairs.jsonl \
        --work ~/.cache/rag-error-explorer/judge-run --out OUT   # or --ship

The pairs of the components' half of the train claims (`explorer.training.data.topic_half`: the
stacked detector's head is fitted on the other half, on scores the judge never trained on). Each
batch draws *absent* pairs at `--absent-share` (a third by default) and *states* and *misstates*
alike from the rest, *misstates* pairs half from what the team wrote
(distorted answers and twins) and half from the rule-built ones (`explorer.training.judge_data`):
the written ones are few and natural, the rule-built many and sometimes clumsy; and a quarter of
the *states* pairs from the twins' reworded statements, so that a negation or a comparison said
in other words is seen often enough to be told from a turned one.

Chosen on pairs of three dev sets that no step trains on (selection only), each a worst case:
`misstates` is the lowest ROC AUC of P(misstates) for misstated against faithful statements (the
arguments `dev_v3.jsonl`'s `R` answers turn, against its `A` answers' statements; the same
misstatements against the statements of `dev.jsonl`'s faithful answers, `--also-dev`; rule-built
misstatements of Perspectrum dev's clusters, against their paraphrases), `states` the lowest of
P(states) for statements against absent pieces (the `A` answers; `dev.jsonl`'s faithful answers;
Perspectrum dev's clusters). The kept step has the best mean of the two. Resumable from `--work`
(`explorer.training.checkpoints`); one torch thread by default; progress and an ETA are printed.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from explorer import console
from explorer.data import distortions, restatements
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import JUDGE_TASK, is_error_free
from explorer.data.perspectrum_claims import PerspectrumClaim, load_claims
from explorer.data.written import argument_statements
from explorer.detectors.ops.judge import ABSENT, LABELS, MISSTATES, STATES, encode_pair, pair_logits
from explorer.models.encoder import default_model_path, encoder_identity, load_pair_classifier
from explorer.text.claims import candidate_spans
from explorer.text.polarity import ANTONYMS
from explorer.training import TrainingInputError, TrainingRequest, judge_data
from explorer.training.checkpoints import (
    add_settings_options,
    foreign_dev,
    run_steps,
    save_run,
    settings_from,
    work_of,
)
from explorer.training.data import encoder_lora, roc_auc, save_peft, topic_half, torch_training, training_record
from explorer.training.judge_data import COVERS, TWINS, Builder, Pair, _share, build, read_pairs, write_pairs

SECOND_DEV = "dev_v3.jsonl"  # beside the first foreign dev set in the shared data folder
WRITTEN_MISSTATES = 0.5  # the share of misstates drawn from the team's own distortions and twins
TWIN_STATES = 0.25  # the share of states drawn from the team-written twins' reworded statements


@dataclass(frozen=True)
class TrainingSettings:
    steps: int = 3000
    batch_size: int = 24
    learning_rate: float = 5e-4
    eval_every: int = 250
    rank: int = 16
    seed: int = 0
    # Absent pairs are mostly easy (another argument's piece); a smaller share spends the steps on
    # telling states from misstates, the two drawn equally from the rest.
    absent_share: float = 1 / 3


def dev_pairs(path: Path, builder: Builder) -> dict[str, list[Pair]]:
    return example_dev_pairs(parse_jsonl(path).examples, path.name, builder)


def example_dev_pairs(examples: Sequence[Example], name: str, builder: Builder) -> dict[str, list[Pair]]:
    """Faithful answers' argument / piece pairs (states, absent: `A` answers, or answers of a set
    without variants that have no error) and the `R` answers' misstatements: pieces holding most of
    the hallucinated span, against the argument it turns."""
    found: dict[str, list[Pair]] = {"states": [], "misstates": []}
    for example in examples:
        variant = example.extra.get("variant")
        faithful = variant == "A" or (variant is None and is_error_free(example.labels))
        if faithful and "argument_spans" in example.extra:
            found["states"] += builder.answer_pairs(example, argument_statements(example), {}, name)
        elif variant == "R":
            [uncovered] = example.labels.uncovered
            argument = example.perspectives[uncovered.perspective].arguments[uncovered.argument]
            for piece in candidate_spans(example.response):
                if any(_share(piece, span) >= COVERS for span in example.labels.hallucinated_spans):
                    text = example.response[piece[0] : piece[1]]
                    found["misstates"].append(Pair(argument, text, MISSTATES, name, example.topic or ""))
    return found


def perspectrum_dev_pairs(builder: Builder, claims: Sequence[PerspectrumClaim]) -> list[Pair]:
    """Perspectrum dev's clusters (`claims`) as paraphrases and absent pieces, with rule-built
    misstatements of each paraphrase."""
    pairs = list(builder.cluster_pairs(claims))
    return pairs + [m for p in pairs if p.label == STATES for m in builder.misstatements(p)]


def kept_pairs(work: Path, key: str, made: Callable[[], list[Pair]], log) -> list[Pair]:
    """The training pairs `made` builds, kept in `work` under `key` (what they are built from): a
    rerun that resumes reads them instead of building them again, most of a full run's first hour."""
    path = Path(work) / f"pairs-{key[:16]}.jsonl"
    if path.is_file():
        log(f"training pairs read from {path}")
        return read_pairs(path)
    pairs = made()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_pairs(pairs, path)
    return pairs


def request_pairs(
    request: TrainingRequest,
    train_claims: Sequence[PerspectrumClaim],
    dev_claims: Sequence[PerspectrumClaim],
    work: Path,
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`explorer train`'s pairs: the train examples' and `train_claims`' of the components half
    (kept in `work`, `kept_pairs`); for the dev check, `dev_claims`' and (where they hold every
    label) the dev examples'."""
    from explorer.detectors.matching import MatchingDetector

    matching = MatchingDetector()
    builder = Builder(matching.encoder, request.seed)
    source = hashlib.sha256()  # the builder's code and lexicons, then its inputs
    for made_by in (judge_data.__file__, distortions.__file__, restatements.__file__, ANTONYMS, restatements.LEXICON):
        source.update(Path(made_by).read_bytes())
    for part in [e.content_hash() for e in request.train_set] + [str(c.id) for c in train_claims]:
        source.update(f"{part}\n".encode())
    source.update(f"{request.seed} {matching.model_identity()}".encode())

    twins, _ = judge_data.checked_twins(None)
    source.update("".join(f"{t.argument}\t{t.text}\t{t.label}\n" for t in twins).encode())

    def made() -> list[Pair]:
        built = build(request.train_set, train_claims, matching.encoder, matching, request.seed, twins)
        return [p for p in built if topic_half(p.topic) == "components"]

    pairs = kept_pairs(work, source.hexdigest(), made, request.log)
    dev = {"perspectrum dev": perspectrum_dev_pairs(builder, dev_claims)}
    given = [p for ps in example_dev_pairs(request.dev_set, "dev", builder).values() for p in ps]
    if {p.label for p in given} >= {STATES, MISSTATES, ABSENT}:
        dev["dev"] = given
    return pairs, dev


def _auc(pairs: Sequence[Pair], probabilities, positive: int, negative: int, column: int) -> float:
    chosen = [i for i, p in enumerate(pairs) if p.label in (positive, negative)]
    return roc_auc([pairs[i].label == positive for i in chosen], [probabilities[i][column] for i in chosen])


def evaluate(model, tokenizer, limit: int, dev: dict[str, list[Pair]], log) -> dict[str, float]:
    """The two worst-case ROC AUCs the step is chosen on (module docstring)."""
    model.eval()
    found = {}
    with torch.no_grad():
        for name, pairs in dev.items():
            encoded = [encode_pair(tokenizer, p.argument, p.text, limit) for p in pairs]
            probabilities = torch.cat(
                [
                    torch.softmax(pair_logits(model, tokenizer, encoded[i : i + 64]), -1)
                    for i in range(0, len(pairs), 64)
                ]
            ).numpy()
            found[f"{name} misstates"] = _auc(pairs, probabilities, MISSTATES, STATES, MISSTATES)
            found[f"{name} states"] = _auc(pairs, probabilities, STATES, ABSENT, STATES)
    log("dev: " + ", ".join(f"{k} {v:.3f}" for k, v in found.items()))
    return {
        "misstates": min(v for k, v in found.items() if k.endswith("misstates")),
        "states": min(v for k, v in found.items() if k.endswith(" states")),
    }


def _share_of(share: float, chosen: Sequence[Pair], other: Sequence[Pair]) -> float:
    """How often a draw takes `chosen` rather than `other`: `share` where both hold pairs, else all or none."""
    return share if chosen and other else float(bool(chosen))


def pools_of(pairs: Sequence[Pair]) -> dict[str, list[Pair]]:
    """The training pairs by the pool a draw takes them from."""
    return {
        "states": [p for p in pairs if p.label == STATES and p.source != TWINS],
        "twin states": [p for p in pairs if p.label == STATES and p.source == TWINS],
        "absent": [p for p in pairs if p.label == ABSENT],
        "written misstates": [p for p in pairs if p.label == MISSTATES and "+" not in p.source],
        "rule misstates": [p for p in pairs if p.label == MISSTATES and "+" in p.source],
    }


def drawer(pools: dict[str, list[Pair]], absent_share: float) -> Callable[[random.Random], Pair]:
    """A draw of one training pair: absent with `absent_share`, else states or misstates alike,
    each from its pools in the shares above."""
    if not (
        (pools["states"] or pools["twin states"])
        and pools["absent"]
        and (pools["written misstates"] or pools["rule misstates"])
    ):
        raise ValueError("the training pairs need every label: states, misstates and absent")
    written_share = _share_of(WRITTEN_MISSTATES, pools["written misstates"], pools["rule misstates"])
    twin_share = _share_of(TWIN_STATES, pools["twin states"], pools["states"])

    def draw(rng: random.Random) -> Pair:
        if rng.random() < absent_share:
            return rng.choice(pools["absent"])
        if rng.choice((STATES, MISSTATES)) == MISSTATES:
            return rng.choice(pools["written misstates" if rng.random() < written_share else "rule misstates"])
        return rng.choice(pools["twin states" if rng.random() < twin_share else "states"])

    return draw


def batch_loss(model, tokenizer, limit: int, batch: Sequence[Pair]):
    """The cross-entropy of the judge's three labels over `batch`, ready for `backward`."""
    encoded = [encode_pair(tokenizer, p.argument, p.text, limit) for p in batch]
    return torch.nn.functional.cross_entropy(
        pair_logits(model, tokenizer, encoded), torch.tensor([p.label for p in batch])
    )


def train(pairs: Sequence[Pair], dev: dict[str, list[Pair]], settings: TrainingSettings, work: Path, *, log=print):
    started = time.monotonic()
    torch.manual_seed(settings.seed)
    path = default_model_path()
    tokenizer, base = load_pair_classifier(path, len(LABELS))
    limit = int(base.config.max_position_embeddings)
    model, lora = encoder_lora(base, settings.rank, "SEQ_CLS")
    pools = pools_of(pairs)
    log(", ".join(f"{name} {len(pool)}" for name, pool in pools.items()))
    draw = drawer(pools, settings.absent_share)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 100) * max(0.05, 1 - step / settings.steps)
    )

    def step_loss(rng: random.Random) -> float:
        loss = batch_loss(model, tokenizer, limit, [draw(rng) for _ in range(settings.batch_size)])
        loss.backward()
        return loss.item()

    state = run_steps(
        work,
        model,
        optimizer,
        scheduler,
        settings=settings,
        step_loss=step_loss,
        evaluate=lambda: evaluate(model, tokenizer, limit, dev, log),
        started=started,
        log=log,
        log_every=25,
        metric_names=("misstates", "states"),
    )
    record = {
        "task": JUDGE_TASK,
        "model": encoder_identity(path),
        "labels": list(LABELS),
        "train_pairs": {name: len(pool) for name, pool in pools.items()},
        "dev_pairs": {name: {LABELS[k]: sum(p.label == k for p in ps) for k in range(3)} for name, ps in dev.items()},
        "dev_roc_auc": state["aucs"],
        "lora": lora,
        "seconds": state["seconds"],
        **torch_training(settings, state["losses"], state["best"][0]),
    }
    return model, record


class JudgeTrainer:
    """`explorer train --detector meaning --work W`: pairs built from the train examples (the
    team-written corpora's stated and distorted spans; other answers' statements found by the
    matching check) and Perspectrum train's clusters, with rule-built misstatements, the
    components half of their claims; the step chosen on the dev examples' pairs (answers with a
    `variant` and spans, as dev_v3's) and Perspectrum dev's."""

    description = (
        "the meaning check's judge: LoRA adapters and a three-way head (states, misstates, absent) on "
        "all-MiniLM-L6-v2, over argument / piece pairs built from the train examples; resumable from --work"
    )
    settings = TrainingSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "none: the judge reads with the packaged all-MiniLM-L6-v2"

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        if request.model:
            raise TrainingInputError(f"--model does not apply to the judge ({self.model_help})")
        started = time.monotonic()
        settings = TrainingSettings(seed=request.seed, **request.steps)
        work = work_of(request)
        pairs, dev = request_pairs(request, load_claims(["train"]), load_claims(["dev"]), work)
        model, record = train(pairs, dev, settings, work, log=request.log)
        return model, {
            **training_record(
                JUDGE_TASK,
                record.pop("model"),
                request.train_set,
                request.dev_set,
                dev_is_held_out=request.dev_is_held_out,
                started=started,
            ),
            **record,
            "train_data": ["the train examples' pairs", "perspectrum train's clusters (the components half)"],
            "dev_data": list(dev),
        }

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)


def build_parser() -> argparse.ArgumentParser:
    from explorer import detectors
    from explorer.cli.guard import Files, add_output_folder, declare

    dev = foreign_dev()
    parser = argparse.ArgumentParser(prog="python -m explorer.training.judge", description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=Path, nargs="+", required=True, help="python -m explorer.training.judge_data")
    parser.add_argument(
        "--dev",
        type=Path,
        default=dev and dev.with_name(SECOND_DEV),
        required=dev is None,
        help="the dev file whose A and R answers choose the step (default: npov_foreign/dev_v3.jsonl in the shared "
        "data folder)",
    )
    parser.add_argument(
        "--also-dev",
        type=Path,
        default=dev,
        help="a dev file of faithful answers with argument spans whose statements, against --dev's misstatements, "
        "also choose the step (default: npov_foreign/dev.jsonl in the shared data folder; none: leave it out)",
    )
    parser.add_argument("--work", type=Path, required=True, help="checkpoint folder; a rerun resumes from it")
    shipped = detectors.weights("meaning").shipped
    add_output_folder(parser, shipped, "judge's adapter")
    parser.add_argument("--threads", type=console.THREADS, default=1, help="torch CPU threads (default 1)")
    add_settings_options(parser, TrainingSettings)
    declare(
        parser,
        Files(inputs=("pairs", "dev", "also_dev"), output="out", folder=True, may_replace=(shipped,), work="work"),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, lambda args: run(args, argv))


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    torch.set_num_threads(args.threads)
    settings = settings_from(args, TrainingSettings)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    pairs = [p for path in args.pairs for p in read_pairs(path) if topic_half(p.topic) == "components"]
    from explorer.detectors.semantic_tuned import tuned_encoder

    builder = Builder(tuned_encoder())
    second = dev_pairs(args.dev, builder)
    dev = {args.dev.name: [p for ps in second.values() for p in ps]}
    if args.also_dev:  # its faithful statements against the other set's misstatements
        dev[args.also_dev.name] = dev_pairs(args.also_dev, builder)["states"] + second["misstates"]
    dev["perspectrum dev"] = perspectrum_dev_pairs(builder, load_claims(["dev"]))
    model, record = train(pairs, dev, settings, args.work, log=log)
    record["train_data"] = [str(p) for p in args.pairs] + ["the components half of the claims"]
    record["dev_data"] = [str(args.dev)] + ([f"{args.also_dev} (its statements)"] if args.also_dev else [])
    record["dev_data"].append("perspectrum dev (explorer.training.judge_data.Builder.cluster_pairs)")
    save_run(model, record, "explorer.training.judge", argv, args.out / JUDGE_TASK, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
