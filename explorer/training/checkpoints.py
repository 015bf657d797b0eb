"""Resumable training runs: a checkpoint folder per saved step, named by an atomic `state.json`.

A run killed at any point resumes from the last complete checkpoint: the step's adapter,
optimizer and schedule are written into a folder of their own first, and only then does
`state.json` (replaced whole) name that step. Only the last and the best step's folders are kept.
`state` is the run's JSON-able progress: at least `step` and `best` (`[step, figure]` or None).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch

from explorer.files import atomic_writer

STATE_FILE = "state.json"
ADAPTER_FILE = "adapter_model.safetensors"


def checkpoint_folder(work: Path, step: int) -> Path:
    return work / f"step-{step}"


def save_checkpoint(work: Path, model, optimizer, scheduler, state: dict) -> None:
    folder = checkpoint_folder(work, state["step"])
    model.save_pretrained(folder, save_embedding_layers=False)
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    torch.save(scheduler.state_dict(), folder / "scheduler.pt")
    with atomic_writer(work / STATE_FILE) as out:
        out.write(json.dumps(state))
    kept = {folder.name} | ({checkpoint_folder(work, state["best"][0]).name} if state["best"] else set())
    for old in work.glob("step-*"):
        if old.name not in kept:
            shutil.rmtree(old)


def load_adapter(work: Path, model, step: int) -> None:
    """Put the adapter saved at `step` into the PEFT `model`."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    set_peft_model_state_dict(model, load_file(checkpoint_folder(work, step) / ADAPTER_FILE))


def resume(work: Path, model, optimizer, scheduler, log) -> dict | None:
    """The saved state of the run in `work` with its last checkpoint loaded, or None for a new run."""
    work.mkdir(parents=True, exist_ok=True)
    if not (work / STATE_FILE).is_file():
        return None
    state = json.loads((work / STATE_FILE).read_text())
    last = checkpoint_folder(work, state["step"])
    load_adapter(work, model, state["step"])
    optimizer.load_state_dict(torch.load(last / "optimizer.pt"))
    scheduler.load_state_dict(torch.load(last / "scheduler.pt"))
    log(f"resumed at step {state['step']}")
    return state
