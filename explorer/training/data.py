"""What the learned classifiers train on (Chang et al. 2024, §4.2): error-free examples and
synthetic errors, with one binary target per error type; the dev check every trainer chooses
by (`roc_auc`, which `explorer.evaluation` reports too); and where trained classifiers are kept.

For the hallucination classifier a synthetic coverage error is a negative (it has no
hallucination), and vice versa. Organic errors are never training data: the paper keeps them
for testing, and ambiguous examples have no clear target.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.data.edits import with_argument_orders
from explorer.data.example import Example
from explorer.data.jsonl import parse_jsonl
from explorer.data.labels import ERROR_TYPES, PAIR_TASK, SPAN_TASK, has_error, is_ambiguous, is_error_free
from explorer.files import write_text
from explorer.models.trained import TRAINING_FILE

SYNTHETIC_KINDS = ("synthetic", "synthetic_paraphrased")


def training_examples(examples: Sequence[Example], splits: Sequence[str]) -> list[Example]:
    """Error-free and synthetic examples of the given splits."""
    return [
        e
        for e in examples
        if e.split in splits and is_labelled(e.labels) and (is_error_free(e.labels) or e.labels.kind in SYNTHETIC_KINDS)
    ]


def labelled_examples(examples: Sequence[Example], splits: Sequence[str]) -> list[Example]:
    """Every example of the given splits labelled for both error types, organic errors included."""
    return [e for e in examples if e.split in splits and is_labelled(e.labels)]


def is_labelled(labels) -> bool:
    return labels.hallucination is not None and labels.coverage_error is not None


def corpus_builder_parser(
    prog: str, doc: str, corpora: str, add_inputs: Callable[[Any], Sequence[str]] | None = None
) -> argparse.ArgumentParser:
    """A builder's command line over the built written corpora (`--CORPORA` files), Perspectrum
    train (`--perspectrum`) and one output of third-party text (`--out`), declared to the guard;
    `add_inputs(parser)` adds the caller's own input options and returns their dests."""
    from explorer.cli.guard import Files, declare

    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n")[0])
    parser.add_argument(
        f"--{corpora}", type=Path, nargs="+", required=True, help="built written corpora (explorer.data.written --out)"
    )
    parser.add_argument("--out", type=Path, required=True, help="output JSON Lines (third-party text: a cache)")
    parser.add_argument("--perspectrum", type=Path, help="the Perspectrum folder (default: ../shared/data/perspectrum)")
    more = tuple(add_inputs(parser)) if add_inputs else ()
    declare(parser, Files(inputs=(corpora, "perspectrum", *more), output="out", third_party=True))
    return parser


def read_told(paths: Sequence[Path]) -> tuple[list[Example], int]:
    """Every example of the files, and how many lines were no example: each named on stderr with
    its file and line, the good lines kept (a data builder's input)."""
    examples, errors = [], 0
    for path in paths:
        loaded = parse_jsonl(Path(path))
        for error in loaded.errors:
            print(f"{path}: {error}", file=sys.stderr)
        errors += len(loaded.errors)
        examples += loaded.examples
    return examples, errors


def labelled_train(paths: Sequence[Path]) -> list[Example]:
    """Every train-split example of the files labelled for both error types, whatever its kind."""
    return labelled_examples([e for path in paths for e in parse_jsonl(Path(path)).examples], ["train"])


def dev_targets(examples: Sequence[Example], error_type: str) -> list[tuple[int, int]]:
    """(index, 1 if the error) over error-free examples and unambiguous examples with the error."""
    return [
        (i, int(has_error(e.labels, error_type)))
        for i, e in enumerate(examples)
        if is_error_free(e.labels) or (has_error(e.labels, error_type) and not is_ambiguous(e.labels))
    ]


def target(example: Example, error_type: str) -> int:
    """1 when the example has an error of type `error_type`, else 0."""
    return int(has_error(example.labels, error_type))


def data_digest(examples: Sequence[Example], task: str) -> str:
    """sha256 of what a model learns from, in order: each example's content and, for a classifier
    of an error type, its target, for the token tagger (`SPAN_TASK`) its gold spans (the
    generator learns the response, which the content holds)."""
    digest = hashlib.sha256()
    for example in examples:
        if task in ERROR_TYPES:
            learned = f"{example.content_hash()} {target(example, task)}"
        elif task == PAIR_TASK:  # one model learns both targets
            learned = f"{example.content_hash()} {' '.join(str(target(example, t)) for t in ERROR_TYPES)}"
        elif task == SPAN_TASK:  # a tagger learns the gold spans
            labels = example.labels
            spans = [list(labels.hallucinated_spans), [[u.perspective, u.argument, u.spans] for u in labels.uncovered]]
            learned = f"{example.content_hash()} {json.dumps(spans)}"
        else:
            learned = example.content_hash()
        digest.update(f"{learned}\n".encode())
    return digest.hexdigest()


def training_record(
    task: str,
    model: str,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    *,
    dev_is_held_out: bool,
    started: float,
    dev_roc_auc: Sequence | None = None,
    **specific: Any,
) -> dict[str, Any]:
    """The `training.json` fields every trained model records, then its own (`specific`): what it
    fits, on what data (`data_digest`), the dev ROC AUC as training went (a model chosen on
    another dev figure, such as the generator's dev loss, records that in `specific` instead),
    and the seconds since `started` (a `time.monotonic()` value)."""
    record = {
        "task": task,
        "model": model,
        "train_examples": len(train_set),
        "train_data_sha256": data_digest(train_set, task),
        "dev_examples": len(dev_set),
        "dev_is_held_out": dev_is_held_out,
    }
    if dev_roc_auc is not None:
        record["dev_roc_auc"] = list(dev_roc_auc)
    return {**record, **specific, "seconds": round(time.monotonic() - started, 1)}


def torch_training(settings: Any, losses: Sequence[tuple[int, float]], kept_step: int) -> dict[str, Any]:
    """The record fields of a classifier trained by gradient steps: settings, loss by step, the
    step kept, the torch build and threads (CPU timings depend on both) and the GPU, if one ran it."""
    import torch

    return {
        "settings": dataclasses.asdict(settings),
        "loss": list(losses),
        "kept_step": kept_step,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
    }


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """Area under the ROC curve (scikit-learn); ties count one half, as in Mann-Whitney U."""
    from sklearn.metrics import roc_auc_score  # here: importing scikit-learn delayed the app's first page

    return float(roc_auc_score(np.asarray(labels, dtype=bool), np.asarray(scores, dtype=float)))


class BestOnDev:
    """The dev ROC AUC of a model trained by gradient steps, step by step, with a copy of its
    trainable parameters at the best step so far (a tie goes to the later step)."""

    def __init__(self, model, dev_size: int, log: Callable[[str], None]):
        self.model = model
        self.dev_size = dev_size
        self.log = log
        self.aucs: list[tuple[int, float | None]] = []
        self._best: tuple[float, int, dict[str, Any]] | None = None

    def record(self, step: int, auc: float | None) -> None:
        self.aucs.append((step, auc))
        self.log(f"step {step}: dev ROC AUC {'n/a' if auc is None else f'{auc:.3f}'} ({self.dev_size} examples)")
        if auc is not None and (self._best is None or auc >= self._best[0]):
            trainable = {name: p.detach().clone() for name, p in self.model.named_parameters() if p.requires_grad}
            self._best = (auc, step, trainable)

    def keep_best(self, last_step: int) -> int:
        """Put the best step's parameters back into the model; returns the step kept
        (`last_step` when no dev AUC could be computed)."""
        import torch

        if self._best is None:
            return last_step
        _, step, kept = self._best
        with torch.no_grad():
            for name, parameter in self.model.named_parameters():
                if name in kept:
                    parameter.copy_(kept[name])
        return step


def write_record(record: Mapping[str, Any], out: Path) -> None:
    """Write a trained classifier's training record beside its weights, whole or not at all."""
    write_text(Path(out) / TRAINING_FILE, json.dumps(record, indent=1) + "\n")


def encoder_lora(base, rank: int, task: str) -> tuple[Any, dict[str, Any]]:
    """`base` (a MiniLM classifier) wrapped in LoRA adapters of `rank` on every attention and dense
    layer (alpha twice the rank, dropout 0.1) for PEFT task type `task` ("SEQ_CLS", "TOKEN_CLS"),
    and the settings as the training record keeps them."""
    from peft import LoraConfig, TaskType, get_peft_model

    lora = {"r": rank, "alpha": 2 * rank, "dropout": 0.1, "targets": ["query", "key", "value", "dense"]}
    config = LoraConfig(
        task_type=TaskType[task],
        r=lora["r"],
        lora_alpha=lora["alpha"],
        lora_dropout=lora["dropout"],
        target_modules=lora["targets"],
    )
    return get_peft_model(base, config), lora


def save_peft(model, record: Mapping[str, Any], out: Path) -> None:
    """Write a PEFT model's trained weights (adapter or soft prompt) and its record to folder `out`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # PEFT records the base model's local path; the record's identity names it on any machine.
    model.peft_config["default"].base_model_name_or_path = record["model"]
    model.save_pretrained(out, save_embedding_layers=False)
    # PEFT's model-card template says nothing about this model; training.json does.
    (out / "README.md").unlink(missing_ok=True)
    weights = sorted(out.glob("*.safetensors"))
    digest = {"weights_sha256": hashlib.sha256(weights[0].read_bytes()).hexdigest()} if len(weights) == 1 else {}
    write_record({**record, **digest}, out)


@dataclasses.dataclass(frozen=True)
class ForeignTraining:
    """What a detector trained on Perspectrum (`python -m explorer.data.perspectrum`) learns from
    and is chosen on: Perspectrum train (+ the sample train split), Perspectrum dev."""

    train_set: list[Example]
    dev_set: list[Example]
    error_types: list[str]
    out: Path
    provenance: dict[str, Any]
    options: Any = None  # what the caller's own options (`add_options`) parsed to

    def stamp(self, record: dict[str, Any], module: str, dev_note: str = "") -> None:
        """Add to `record` the data it was trained and chosen on and the command that trains it."""
        record["train_data"] = self.provenance["train_data"]
        record["dev_data"] = self.provenance["dev_data"] + dev_note
        record["command"] = f"python -m {module} {self.provenance['arguments']}"


# Stacking without a leak: a stacked component trains on one half of Perspectrum train's claims,
# the stacked head on the other, so the head learns how far to trust scores of unseen text.
TRAIN_PARTS = ("all", "components", "head")


def reordered(example: Example, seed: int) -> Example:
    """`example` with each perspective's arguments shuffled (`with_argument_orders`), seeded by
    `seed` and the example's id."""
    rng = random.Random(f"{seed}:{example.id}")
    orders = [rng.sample(range(len(p.arguments)), len(p.arguments)) for p in example.perspectives]
    return with_argument_orders(example, orders)


def partly_reordered(examples: Sequence[Example], share: float, seed: int) -> list[Example]:
    """`examples` with a `share` of them (drawn by `seed` and each id) `reordered` in place: the
    set keeps its size, so a fixed number of steps sees the given orders as often as the shuffled."""
    return [reordered(e, seed) if random.Random(f"{seed}:share:{e.id}").random() < share else e for e in examples]


def claim_half(example: Example) -> str:
    """`components` or `head`: a fixed half of the claims (by the sha256 of the topic), so both
    halves of one claim's examples land together and the split never changes with the seed."""
    return topic_half(example.topic or example.id)


def topic_half(topic: str) -> str:
    """`claim_half` of an example on `topic`."""
    digest = hashlib.sha256(topic.encode("utf-8")).digest()
    return TRAIN_PARTS[1 + digest[0] % 2]


def foreign_parser(
    module: str,
    description: str,
    shipped: Path,
    add_options: Callable[[Any], None] | None = None,
    *,
    writes: bool = True,
) -> Any:
    """The command line of a Perspectrum-trained detector's `python -m module`, its files declared
    to the guard (`explorer.cli.guard`): `--out FOLDER` or `--ship` (into `shipped`), required
    when it `writes`. `--part components|head` keeps one half of Perspectrum train's claims
    (`claim_half`); the sample train split goes with the components (the head's half must be
    unseen by them). `add_options(parser)` adds the caller's own options."""
    import argparse

    from explorer.cli.guard import Files, add_output_folder, declare
    from explorer.config import SAMPLE_DIR

    parser = argparse.ArgumentParser(prog=f"python -m {module}" if module else None, description=description)
    parser.add_argument("--data", type=Path, required=True, help="output of python -m explorer.data.perspectrum")
    parser.add_argument(
        "--organic",
        type=Path,
        nargs="*",
        default=[],
        help="team-written corpus files (python -m explorer.data.written --out): every labelled train example, "
        "organic errors included, is training data",
    )
    parser.add_argument("--dev", type=Path, help="the dev file chosen on (default: the dev split of --data)")
    parser.add_argument(
        "--sample", type=Path, default=SAMPLE_DIR / "synthetic.jsonl", help="sample data added to train"
    )
    parser.add_argument("--no-sample", action="store_true", help="train on Perspectrum train only")
    add_output_folder(parser, shipped, "trained weights", required=writes)
    parser.add_argument(
        "--error-types",
        "--tasks",
        dest="error_types",
        default=",".join(ERROR_TYPES),
        help="comma-separated (--tasks: alias)",
    )
    parser.add_argument(
        "--part",
        choices=TRAIN_PARTS,
        default="all",
        help="all of Perspectrum train, or the half of its claims for a stacked component or for the stacked head",
    )
    if add_options:
        add_options(parser)
    # The caller's own path options name more files it reads (the stacked heads' --also-dev).
    inputs = [action.dest for action in parser._actions if action.type is Path and action.dest != "out"]
    declare(parser, Files(inputs=tuple(inputs), output="out", folder=True, may_replace=(shipped,)))
    return parser


def foreign_training(
    description: str, shipped: Path, argv: Sequence[str] | None, add_options: Callable[[Any], None] | None = None
) -> ForeignTraining:
    """The sets a Perspectrum-trained detector's command line names, read without running it
    (`--out` may be left out): what a bench or a test reads of a recorded command."""
    parser = foreign_parser("", description, shipped, add_options, writes=False)
    return foreign_sets(parser.parse_args(argv), argv)


def foreign_sets(args: Any, argv: Sequence[str] | None) -> ForeignTraining:
    """Read the training and dev sets `foreign_parser`'s parsed `args` name (`argv` is recorded
    as the command); torch runs on one thread (two busy-waiting threads were 4x slower beside
    another job). Raises `TrainingInputError` for an unknown error type, or a set without
    examples with and without an error of a type trained."""
    import sys

    import torch

    from explorer.training import TrainingInputError

    error_types = args.error_types.split(",")
    unknown = [name for name in error_types if name not in ERROR_TYPES]
    if unknown:
        raise TrainingInputError(f"--error-types: {', '.join(unknown)} is not one of {', '.join(ERROR_TYPES)}")
    torch.set_num_threads(1)
    foreign = parse_jsonl(args.data).examples
    train_set = training_examples(foreign, ["train"])
    for path in args.organic:
        train_set += [e for e in parse_jsonl(path).examples if e.split == "train" and is_labelled(e.labels)]
    if args.part != "all":
        train_set = [example for example in train_set if claim_half(example) == args.part]
    with_sample = not args.no_sample and args.part != "head"
    if with_sample:
        train_set += training_examples(parse_jsonl(args.sample).examples, ["train"])
    part = "" if args.part == "all" else f", the {args.part} half of its claims (explorer.training.data.claim_half)"
    provenance = {
        "train_data": [f"perspectrum train (explorer.data.perspectrum, seed 0){part}"]
        + ([f"team-written corpus (explorer.data.written){part}"] if args.organic else [])
        + (["sample_data/synthetic.jsonl train"] if with_sample else []),
        "dev_data": f"{args.dev.name} (every labelled example)"
        if args.dev
        else "perspectrum dev (explorer.data.perspectrum, seed 0)",
        # Quoted where needed, so the record's command runs as given ("--coverage-features 'all but voice'").
        "arguments": shlex.join(sys.argv[1:] if argv is None else argv),
    }
    if args.dev:
        dev_set = [e for e in parse_jsonl(args.dev).examples if is_labelled(e.labels)]
    else:
        dev_set = training_examples(foreign, ["dev"])
    for name, examples in (("training", train_set), ("dev", dev_set)):
        for error_type in error_types:
            with_error = sum(target(e, error_type) for e in examples)
            if not 0 < with_error < len(examples):
                raise TrainingInputError(
                    f"the {name} set has {with_error} of {len(examples)} example(s) with a {error_type} error; "
                    "it needs examples with and without one"
                )
    return ForeignTraining(train_set, dev_set, error_types, args.out, provenance, args)
