"""Training the NPOV response generator (Chang et al. 2024, §2.1): a LoRA adapter on SmolLM2.

    python -m explorer.data.written --out ~/.cache/rag-error-explorer/written.jsonl
    python -m explorer build-data --out ~/.cache/rag-error-explorer/perspectrum.jsonl
    python -m explorer.training.generator --data ~/.cache/rag-error-explorer/written.jsonl \
        --dev ~/.cache/rag-error-explorer/perspectrum.jsonl --work ~/.cache/rag-error-explorer/generator-run \
        --out FOLDER

The paper prompt-tunes a 5-token soft prompt on about 80 hand-written responses; here a 5-token
soft prompt lowered the dev loss a little and changed no answer we read, so the generator learns
a LoRA adapter (Hu et al. 2021; PEFT, rank `rank`, on every attention and MLP projection) instead.
It reads the NPOV prompt (`explorer.text.prompts.npov_prompt`) and learns the error-free
responses of the train split (the team-written corpus: `explorer.data.written`), with the
next-token loss on the response and its end-of-turn token only. A batch averages per-example
gradients, so nothing is padded.

Chosen on Perspectrum dev (selection only: no gradient step reads it): every `eval_every` steps
the dev loss (mean negative log-likelihood per response token of `dev_losses` error-free dev
responses, one per claim) is measured and the step with the lowest kept (the last step without a
dev set). Beside it the record holds the detector-faithful count: greedy answers to
`dev_answers` dev inputs that the verdict detector (`stacked`, through its calibration) finds
neither a likely hallucination nor a likely coverage error in (P(error) < 0.5 for both). It does
not choose: it passed answers that a hand check fails (`docs/generator-eval.md`). The check
reads the verdict detector's calibration, a layer above training, so it comes in
(`TrainingRequest.check_answer`): `explorer train --task generator` passes it; this module's
command, below evaluation, records none (`bench/generator_eval.py` checks the kept adapter's
answers). The run is
resumable (`explorer.training.checkpoints`); one torch thread by default; progress and an ETA
are printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer import detectors
from explorer.data.example import Example, Perspective
from explorer.data.labels import is_error_free
from explorer.data.perspectrum import SOURCE_FIELD
from explorer.generation.npov import GENERATOR, STYLE, NpovGenerator
from explorer.models.language_model import LanguageModel, ModelNotFoundError, load_language_model
from explorer.text.prompts import end_of_turn_id
from explorer.training import TrainingInputError, TrainingRequest, checkpoints
from explorer.training.data import save_peft, torch_training, training_record

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass(frozen=True)
class GeneratorSettings:
    steps: int = 80
    batch_size: int = 4
    learning_rate: float = 1e-3
    eval_every: int = 20
    rank: int = 4
    dev_losses: int = 20
    dev_answers: int = 4
    seed: int = 0


def generator_examples(examples: Sequence[Example], splits: Sequence[str]) -> list[Example]:
    """The error-free responses of the given splits: what the generator should write."""
    return [e for e in examples if e.split in splits and is_error_free(e.labels) and e.response.strip()]


def stated_inputs(examples: Sequence[Example], texts: Mapping[int, str]) -> list[Example]:
    """The Perspectrum-built examples with each argument replaced by the cluster member its answer
    states (`stated_pid`, text from `texts`), so every answer restates its input nearly word for
    word: what a model this small can do faithfully (it loses meaning when it paraphrases,
    `docs/generator-eval.md`). Examples that record no stated member (the written corpus) are left out."""
    made = []
    for example in examples:
        entries = (example.extra.get(SOURCE_FIELD) or {}).get("arguments") or []
        stated = {(e["perspective"], e["argument"]): texts.get(e.get("stated_pid")) for e in entries}
        refs = [(p, a) for p, perspective in enumerate(example.perspectives) for a in range(len(perspective.arguments))]
        if not refs or not all(stated.get(ref) for ref in refs):
            continue
        perspectives = tuple(
            Perspective(perspective.name, tuple(stated[(p, a)] for a in range(len(perspective.arguments))))
            for p, perspective in enumerate(example.perspectives)
        )
        made.append(example.replace(perspectives=perspectives))
    return made


def with_arguments(examples: Sequence[Example], least: int) -> list[Example]:
    """The examples whose input gives at least `least` arguments. The builds give most claims one
    argument a side, and the packaged model drops arguments from longer inputs (`docs/generator-eval.md`)."""
    return [e for e in examples if sum(len(p.arguments) for p in e.perspectives) >= least]


def one_per_claim(examples: Sequence[Example], count: int) -> list[Example]:
    """The first example of each of the first `count` claims (topics), in file order."""
    seen: dict[str, Example] = {}
    for example in examples:
        seen.setdefault(example.topic or example.id, example)
    return list(seen.values())[:count]


def sequence(language_model: LanguageModel, example: Example):
    """(token ids of prompt + response + end of turn, shape (1, n); the response's token count)."""
    import torch

    prompt = NpovGenerator(language_model).prompt_ids(example)
    tokenizer = language_model.tokenizer
    response = tokenizer(example.response, add_special_tokens=False, return_tensors="pt").input_ids
    response = torch.cat([response, torch.tensor([[end_of_turn_id(tokenizer)]])], dim=1).to(prompt.device)
    if prompt.shape[1] + response.shape[1] > language_model.context_length:
        raise TrainingInputError(
            f"{example.id}: the prompt ({prompt.shape[1]} tokens) and the response ({response.shape[1]}) are "
            f"more than the model's context of {language_model.context_length}"
        )
    return torch.cat([prompt, response], dim=1), int(response.shape[1])


def response_loss(model, item: tuple[Any, int]):
    """Mean negative log-likelihood of the response tokens given all before them."""
    import torch

    ids, length = item
    # Logits only where a response token is predicted: the prompt's would be computed and dropped.
    logits = model(input_ids=ids, logits_to_keep=length + 1).logits[:, :-1]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[0, -length:])


def dev_loss(model, dev: Sequence[tuple[Any, int]]) -> float | None:
    """Mean negative log-likelihood per response token over the dev responses."""
    import torch

    if not dev:
        return None
    model.eval()
    with torch.no_grad():
        total = sum(float(response_loss(model, item)) * item[1] for item in dev)
    return total / sum(length for _, length in dev)


def answer(generator: NpovGenerator, example: Example) -> Example:
    """`example` with the generator's answer to its input, as `explorer generate` writes it by default."""
    return generator.generated_example(example)


def new_adapter(language_model: LanguageModel, settings: GeneratorSettings):
    """The PEFT model: LoRA layers put into `language_model.model` itself, so the language model
    (and an `NpovGenerator` on it) writes with the adapter as it trains."""
    from peft import LoraConfig, TaskType, get_peft_model

    config = LoraConfig(
        task_type=TaskType.CAUSAL_LM,
        r=settings.rank,
        lora_alpha=2 * settings.rank,
        lora_dropout=0.05,
        target_modules=LORA_TARGETS,
    )
    return get_peft_model(language_model.model, config)


def train(
    language_model: LanguageModel,
    train_set: Sequence[Example],
    dev_set: Sequence[Example],
    settings: GeneratorSettings,
    work: Path,
    *,
    check_answer: Callable[[Example], bool] | None = None,
    init: Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[Any, dict[str, Any]]:
    """Train the generator's adapter; returns the PEFT model (holding the kept step) and its record.
    `check_answer` (whether the verdict detector passes an answer) counts the detector-faithful
    dev answers; None counts none. `init` (an adapter folder of the same rank) is where a new run
    starts instead of a fresh adapter."""
    import torch

    started = time.monotonic()
    if not train_set:
        raise TrainingInputError("no error-free responses to train the generator on")
    torch.manual_seed(settings.seed)
    encoded = [sequence(language_model, e) for e in train_set]
    dev_claims = one_per_claim(dev_set, max(settings.dev_losses, settings.dev_answers))
    dev = [sequence(language_model, e) for e in dev_claims[: settings.dev_losses]]
    model = new_adapter(language_model, settings)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 10) * max(0.1, 1 - step / settings.steps)
    )
    state = {"step": 0, "losses": [], "dev": [], "best": None}
    state = checkpoints.resume(work, model, optimizer, scheduler, state)
    if state["step"]:
        log(f"resumed at step {state['step']}")
    elif init is not None:
        checkpoints.load_adapter(model, init)
        log(f"started from the adapter in {init}")
    checked = check_answer if settings.dev_answers and dev_claims else None

    def evaluate(step: int) -> None:
        loss = dev_loss(model, dev)
        faithful = None  # step 0 is the base model: docs/generator-eval.md checks its answers by hand
        if checked is not None and step:
            generator = NpovGenerator(language_model)
            checks = [checked(answer(generator, e)) for e in dev_claims[: settings.dev_answers]]
            faithful = sum(checks)
        state["dev"].append((step, loss, faithful))
        shown = "n/a" if loss is None else f"{loss:.4f}"
        log(f"step {step}: dev loss {shown}, detector-faithful answers {faithful}")
        losses = [(dev_loss_at, at) for at, dev_loss_at, _ in state["dev"] if at and dev_loss_at is not None]
        state["best"] = (min(losses)[1] if losses else step, None)

    if not state["dev"] and dev:
        evaluate(0)
    rng = random.Random(f"{settings.seed}:{state['step']}")
    queue: list[int] = []
    step_started, first_step = time.monotonic(), state["step"]
    while state["step"] < settings.steps:
        model.train()
        optimizer.zero_grad()
        total = 0.0
        for _ in range(settings.batch_size):
            if not queue:
                queue = rng.sample(range(len(encoded)), len(encoded))
            loss = response_loss(model, encoded[queue.pop()]) / settings.batch_size
            loss.backward()
            total += loss.item()
        optimizer.step()
        scheduler.step()
        state["step"] += 1
        step = state["step"]
        state["losses"].append((step, round(total, 5)))
        if step % 5 == 0:
            rate = (time.monotonic() - step_started) / (step - first_step)
            eta = rate * (settings.steps - step) / 60
            log(f"step {step}/{settings.steps}: loss {total:.4f}, {rate:.1f} s/step, ETA {eta:.0f} min (no evals)")
        if step % settings.eval_every == 0 or step == settings.steps:
            evaluate(step)
            checkpoints.save_checkpoint(work, model, optimizer, scheduler, state)
    checkpoints.load_adapter(model, checkpoints.checkpoint(work, state["best"][0]))
    model.eval()
    record = training_record(
        GENERATOR,
        language_model.identity,
        train_set,
        dev_set,
        dev_is_held_out=True,
        started=started,
        dev=[{"step": s, "dev_loss": loss, "detector_faithful": f} for s, loss, f in state["dev"]],
        dev_responses=len(dev),
        dev_answers=min(settings.dev_answers, len(dev_claims)) if checked else 0,
        verdict_detector=detectors.VERDICT_DETECTOR if checked else None,
        lora={"r": settings.rank, "alpha": 2 * settings.rank, "dropout": 0.05, "targets": LORA_TARGETS},
        **torch_training(settings, state["losses"], state["best"][0]),
    )
    return model, record


class GeneratorTrainer:
    """`explorer train --task generator`: the generator's LoRA adapter (§2.1), in a fresh work
    folder (`python -m explorer.training.generator --work` resumes a run)."""

    description = "the NPOV response generator's LoRA adapter (§2.1), on error-free responses"
    settings = GeneratorSettings
    no_step_options = None
    reads_organic_errors = False
    model_help = "a causal LM, a local HF folder or .gguf file (default: the packaged SmolLM2)"

    def train(self, request: TrainingRequest) -> tuple[Any, dict[str, Any]]:
        try:
            model = load_language_model(request.model)
        except ModelNotFoundError as error:
            raise TrainingInputError(str(error)) from error
        with tempfile.TemporaryDirectory(prefix="generator-run-") as work:
            return train(
                model,
                request.train_set,
                request.dev_set if request.dev_is_held_out else [],
                GeneratorSettings(seed=request.seed, **request.steps),
                Path(work),
                check_answer=request.check_answer,
                log=request.log,
            )

    def save(self, model: Any, record: Mapping[str, Any], out: Path) -> None:
        save_peft(model, record, out)


def init_digest(folder: Path) -> str | None:
    """The weights digest the training record of the `--init` adapter gives (None if it gives none)."""
    from explorer.data.jsonl import loads
    from explorer.files import MAX_INPUT_BYTES, read_regular

    path = Path(folder) / "training.json"
    try:
        record = loads(read_regular(path, MAX_INPUT_BYTES).decode("utf-8"))
    except ValueError as error:
        raise TrainingInputError(f"--init: {path} is not a training record ({error})") from error
    if not isinstance(record, dict):
        raise TrainingInputError(f"--init: {path} is not a training record (not a JSON object)")
    return record.get("weights_sha256")


def build_parser() -> argparse.ArgumentParser:
    from explorer import console
    from explorer.cli import guard
    from explorer.config import shipped_weights

    shipped = shipped_weights(GENERATOR)
    parser = argparse.ArgumentParser(
        prog="python -m explorer.training.generator",
        description="Train the NPOV generator's LoRA adapter (explorer.generation.npov).",
    )
    parser.add_argument("--data", type=Path, nargs="+", required=True, help="example files; their train split is read")
    parser.add_argument("--dev", type=Path, required=True, help="example file whose dev split the step is chosen on")
    parser.add_argument("--work", type=Path, required=True, help="checkpoint folder; a rerun resumes from it")
    guard.add_output_folder(parser, shipped, "trained adapter")
    parser.add_argument("--threads", type=console.THREADS, default=1, help="torch CPU threads (default 1)")
    parser.add_argument(
        "--inputs",
        choices=("given", "stated"),
        default="given",
        help="stated: each argument becomes the Perspectrum sentence its answer states (stated_inputs)",
    )
    parser.add_argument("--init", type=Path, help="an adapter folder (same rank) a new run starts from")
    parser.add_argument(
        "--min-arguments",
        type=console.ARGUMENTS,
        default=1,
        help="train only on inputs giving at least this many arguments",
    )
    checkpoints.add_settings_options(parser, GeneratorSettings)
    files = guard.Files(inputs=("data", "dev", "init"), output="out", folder=True, may_replace=(shipped,), work="work")
    guard.declare(parser, files)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from explorer.cli import guard

    return guard.main(build_parser(), argv, lambda args: run(args, argv))


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    import torch

    from explorer.data.jsonl import parse_jsonl
    from explorer.data.perspectrum_claims import load_claims

    torch.set_num_threads(args.threads)
    settings = checkpoints.settings_from(args, GeneratorSettings)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    train_set = generator_examples([e for path in args.data for e in parse_jsonl(path).examples], ["train"])
    dev_set = generator_examples(parse_jsonl(args.dev).examples, ["dev"])
    if args.inputs == "stated":
        texts = {pid: text for claim in load_claims() for cluster in claim.clusters for pid, text in cluster.members}
        train_set, dev_set = stated_inputs(train_set, texts), stated_inputs(dev_set, texts)
    train_set = with_arguments(train_set, args.min_arguments)
    init = None if args.init is None else init_digest(args.init)  # read before hours of training, not after
    log(f"{len(train_set)} error-free train responses, {len(dev_set)} dev")
    model, record = train(load_language_model(), train_set, dev_set, settings, args.work, init=args.init, log=log)
    record["train_data"] = [str(p) for p in args.data]
    record["dev_data"] = f"{args.dev} (dev split)"
    record["inputs"] = args.inputs
    record["min_arguments"] = args.min_arguments
    if args.init is not None:
        record["init"] = init
    checkpoints.save_run(model, record, "explorer.training.generator", argv, args.out / STYLE, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
