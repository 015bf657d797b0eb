"""Where the third-party reference data lies (Perspectrum, ArgKP): never copied into the repo.

`EXPLORER_SHARED_DATA` names the folder that holds `perspectrum/` and `argkp/`; without it the
folder is looked for beside the checkout (`../shared/data`) and, for a git worktree one level
deeper, two levels up.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "EXPLORER_SHARED_DATA"
CHECKOUT = Path(__file__).resolve().parents[2]
CANDIDATES = (CHECKOUT.parent / "shared" / "data", CHECKOUT.parent.parent / "shared" / "data")


class SharedDataNotFoundError(FileNotFoundError):
    pass


def shared_data_dir(required: str | None = None) -> Path:
    """The shared data folder; with `required` ("perspectrum", "argkp"), one that holds that subfolder."""
    configured = os.environ.get(ENV_VAR)
    candidates = (Path(configured),) if configured else CANDIDATES
    for folder in candidates:
        if folder.is_dir() and (required is None or (folder / required).is_dir()):
            return folder
    where = f"${ENV_VAR}={configured}" if configured else ", ".join(map(str, CANDIDATES))
    raise SharedDataNotFoundError(f"shared data{f' ({required}/)' if required else ''} not found in {where}")
