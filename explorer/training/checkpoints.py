"""Resumable training runs: a `--work` folder of per-step checkpoints named by `state.json`.

Each checkpoint (a PEFT adapter, the optimizer and the schedule) is written whole in a folder of
its own before `state.json`, replaced whole, names its step: a run killed at any point resumes
from the last complete checkpoint. Only the last and the best step's folders are kept.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from explorer.files import atomic_writer

STATE_FILE = "state.json"
ADAPTER_FILE = "adapter_model.safetensors"


def checkpoint(work: Path, step: int) -> Path:
    return Path(work) / f"step-{step}"


def save_checkpoint(work: Path, model, optimizer, scheduler, state: dict[str, Any]) -> None:
    """Write this step's checkpoint, then `state` (whose `step` and `best[0]` name folders)."""
    import torch

    folder = checkpoint(work, state["step"])
    model.save_pretrained(folder, save_embedding_layers=False)
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    torch.save(scheduler.state_dict(), folder / "scheduler.pt")
    with atomic_writer(Path(work) / STATE_FILE) as out:
        out.write(json.dumps(state))
    kept = {folder.name, checkpoint(work, state["best"][0]).name}
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


def add_settings_options(parser, settings_class) -> None:
    """One `--name` option per field of a settings dataclass, defaulting to the field's default."""
    for field in dataclasses.fields(settings_class):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(field.default), default=field.default)


def settings_from(args, settings_class):
    return settings_class(**{field.name: getattr(args, field.name) for field in dataclasses.fields(settings_class)})


def save_run(model, record: dict[str, Any], module: str, argv, out: Path, log) -> None:
    """Stamp the record with the command that made it and save the kept adapter with it in `out`."""
    import sys

    from explorer.training.data import save_peft

    record["command"] = f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)
    save_peft(model, record, out)
    log(f"kept step {record['kept_step']}, written to {out}")
