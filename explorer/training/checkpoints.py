"""Resumable training runs: a `--work` folder of per-step checkpoints named by `state.json`.

Each checkpoint (a PEFT adapter, the optimizer and the schedule) is written whole in a folder of
its own before `state.json`, replaced whole, names its step: a run killed at any point resumes
from the last complete checkpoint. Only the last and the best step's folders are kept.
`run_steps` is the loop of a run chosen on dev ROC AUC (the tagger, the LM classifier).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer import console
from explorer.config import shared_data_dir
from explorer.files import write_text
from explorer.models.trained import ADAPTER_FILE
from explorer.training import TrainingInputError, TrainingRequest

STATE_FILE = "state.json"


def work_of(request: TrainingRequest) -> Path:
    """The checkpoint folder `explorer train --work` gives a resumable trainer."""
    if request.work is None:
        raise TrainingInputError(
            "this detector trains resumably from checkpoints: give --work, a folder a rerun resumes from"
        )
    return request.work


def checkpoint(work: Path, step: int) -> Path:
    return Path(work) / f"step-{step}"


def save_checkpoint(work: Path, model, optimizer, scheduler, state: dict[str, Any]) -> None:
    """Write this step's checkpoint, then `state` (whose `step` and `best[0]`, when there is a best
    step yet, name folders)."""
    import torch

    folder = checkpoint(work, state["step"])
    model.save_pretrained(folder, save_embedding_layers=False)
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    torch.save(scheduler.state_dict(), folder / "scheduler.pt")
    write_text(Path(work) / STATE_FILE, json.dumps(state))
    kept = {folder.name} | ({checkpoint(work, state["best"][0]).name} if state.get("best") else set())
    for old in Path(work).glob("step-*"):
        if old.name not in kept:
            shutil.rmtree(old)


def load_adapter(model, folder: Path) -> None:
    """Put the adapter saved in `folder` into the PEFT `model`."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    set_peft_model_state_dict(model, load_file(Path(folder) / ADAPTER_FILE))


def resume(work: Path, model, optimizer, scheduler, state: dict[str, Any]) -> dict[str, Any]:
    """The saved state of the run in `work` with its last checkpoint loaded, or `state` when the
    run is new (the folder is made)."""
    import torch

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    if not (work / STATE_FILE).is_file():
        return state
    state = json.loads((work / STATE_FILE).read_text())
    last = checkpoint(work, state["step"])
    load_adapter(model, last)
    optimizer.load_state_dict(torch.load(last / "optimizer.pt"))
    scheduler.load_state_dict(torch.load(last / "scheduler.pt"))
    return state


def past(minutes: float, started: float) -> bool:
    """Whether a session limited to `minutes` (0: no limit) that began at `started`
    (`time.monotonic()`) has run out of time."""
    return minutes > 0 and time.monotonic() - started > minutes * 60


def run_steps(
    work: Path,
    model,
    optimizer,
    scheduler,
    *,
    settings: Any,
    step_loss: Callable[[random.Random], float],
    evaluate: Callable[[], dict[str, float]],
    started: float,
    log: Callable[[str], None],
    log_every: int = 1,
    save_every: int | None = None,
    minutes: float = 0.0,
    metric_names: tuple[str, ...] = ("hallucination", "coverage"),
) -> dict[str, Any]:
    """The loop of a run chosen on dev ROC AUC, resumed from `work` when it holds one: up to
    `settings.steps` optimizer steps, each on the gradients `step_loss(rng)` leaves (it returns the
    step's loss; `rng` is seeded by `settings.seed` and the step the session starts at), with
    progress and an ETA every `log_every` steps. Every `settings.eval_every` steps and at the
    last, `evaluate()` gives the dev ROC AUC per `metric_names` (by default per error type) and the
    best mean is remembered;
    a checkpoint is saved then and every `save_every` steps. With `minutes`, this session stops
    (evaluated and saved) at the first step that ends after that much time. Returns the run's state: `losses`,
    `aucs`, `best` ([step, mean AUC]) and `seconds`, counted over every session of the run
    (`started` is this session's `time.monotonic()` at its start)."""
    state = resume(work, model, optimizer, scheduler, {"step": 0, "losses": [], "aucs": [], "best": None})
    if state["step"]:
        log(f"resumed at step {state['step']}")
    started -= state.get("seconds", 0.0)
    rng = random.Random(f"{settings.seed}:{state['step']}")
    session_started, first_step = time.monotonic(), state["step"]
    while state["step"] < settings.steps:
        model.train()
        optimizer.zero_grad()
        loss = step_loss(rng)
        optimizer.step()
        scheduler.step()
        state["step"] += 1
        step = state["step"]
        state["losses"].append((step, round(loss, 5)))
        if step % log_every == 0:
            rate = (time.monotonic() - session_started) / (step - first_step)
            recent = float(np.mean([value for _, value in state["losses"][-10:]]))
            eta = rate * (settings.steps - step) / 60
            log(f"step {step}/{settings.steps}: loss {recent:.4f}, {rate:.2f} s/step, ETA {eta:.0f} min")
        out_of_time = past(minutes, session_started)
        evaluated = step % settings.eval_every == 0 or step == settings.steps or out_of_time
        if evaluated:
            model.eval()
            aucs = evaluate()
            mean = float(np.mean(list(aucs.values())))
            state["aucs"].append((step, aucs))
            log(f"step {step}: dev ROC AUC " + ", ".join(f"{name} {aucs[name]:.3f}" for name in metric_names))
            if state["best"] is None or mean >= state["best"][1]:
                state["best"] = (step, mean)
        if evaluated or (save_every and step % save_every == 0):
            state["seconds"] = round(time.monotonic() - started, 1)
            save_checkpoint(work, model, optimizer, scheduler, state)
        if out_of_time:
            log(f"stopped at step {step}: the {minutes:g}-minute limit is reached")
            break
    state["seconds"] = round(time.monotonic() - started, 1)
    if state["best"] is None:
        raise ValueError("no dev evaluation was made: train at least --eval-every steps")
    load_adapter(model, checkpoint(work, state["best"][0]))
    model.eval()
    return state


def foreign_dev() -> Path | None:
    """The dev set a run is chosen on by default: `npov_foreign/dev.jsonl` in the shared data
    folder (`config.shared_data_dir()`, never the current folder); None without that folder."""
    shared = shared_data_dir()
    return shared / "npov_foreign" / "dev.jsonl" if shared else None


def run_parser(
    module: str,
    description: str,
    settings_type: type,
    shipped: Path,
    *,
    also_shipped: Sequence[Path] = (),
    model_help: str | None = None,
    also_dev: str | None = None,
) -> argparse.ArgumentParser:
    """The command line of `python -m module`, a run chosen on dev (`--data`, `--dev`, `--work`,
    `--out` or `--ship`, `--threads`, `--model` with `model_help`), with one option per field of
    the settings dataclass, defaulting to its default; its files declared to the guard
    (`explorer.cli.guard`). `--ship` writes into `shipped`; `--out` may name it or `also_shipped`
    (other detectors' weights the same trainer makes), no other folder of the repository. With
    `also_dev` (its help), `--also-dev` names more dev files the step is chosen on."""
    from explorer.cli.guard import Files, add_output_folder, declare

    dev = foreign_dev()
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=description)
    parser.add_argument("--data", type=Path, nargs="+", required=True, help="example files; their train split is read")
    parser.add_argument(
        "--dev",
        type=Path,
        default=dev,
        required=dev is None,
        help=f"dev file the step is chosen on (default: {dev or 'npov_foreign/dev.jsonl in the shared data folder'})",
    )
    parser.add_argument("--work", type=Path, required=True, help="checkpoint folder; a rerun resumes from it")
    add_output_folder(parser, shipped, "trained adapter")
    parser.add_argument("--threads", type=console.THREADS, default=1, help="torch CPU threads (default 1)")
    if model_help:
        parser.add_argument("--model", help=model_help)
    if also_dev:
        parser.add_argument("--also-dev", type=Path, nargs="*", default=[], help=also_dev)
    add_settings_options(parser, settings_type)
    inputs = ("data", "dev") + (("model",) if model_help else ()) + (("also_dev",) if also_dev else ())
    declare(parser, Files(inputs=inputs, output="out", folder=True, may_replace=(shipped, *also_shipped), work="work"))
    return parser


def parsed_settings(args: argparse.Namespace, settings_type: type):
    """The settings the parsed command line asks for; torch then runs on `--threads` threads."""
    import torch

    torch.set_num_threads(args.threads)
    return settings_from(args, settings_type)


def add_settings_options(parser, settings_class) -> None:
    """One `--name` option per field of a settings dataclass, defaulting to the field's default,
    in the field's range (`explorer.console.SETTING_RANGES`)."""
    for field in dataclasses.fields(settings_class):
        if field.name not in console.SETTING_RANGES:
            raise ValueError(f"{settings_class.__name__}.{field.name} has no range in explorer.console.SETTING_RANGES")
        option = f"--{field.name.replace('_', '-')}"
        parser.add_argument(option, type=console.SETTING_RANGES[field.name], default=field.default)


def settings_from(args, settings_class):
    return settings_class(**{field.name: getattr(args, field.name) for field in dataclasses.fields(settings_class)})


def save_run(model, record: dict[str, Any], module: str, argv, out: Path, log) -> None:
    """Stamp the record with the command that made it and save the kept adapter with it in `out`."""
    import sys

    from explorer.training.data import save_peft

    record["command"] = f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)
    save_peft(model, record, out)
    log(f"kept step {record['kept_step']}, written to {out}")
