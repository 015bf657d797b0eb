"""Where the third-party reference data lies (Perspectrum, ArgKP): never copied into the repo.

`explorer.config.shared_data_dir` (`$EXPLORER_SHARED_DATA`, else `../shared/data` beside the
checkout), with an error that says so when the wanted subfolder is missing.
"""

from __future__ import annotations

from pathlib import Path

from explorer import config


class SharedDataNotFoundError(FileNotFoundError):
    pass


def shared_data_dir(required: str | None = None) -> Path:
    """The shared data folder; with `required` ("perspectrum", "argkp"), one that holds that subfolder."""
    folder = config.shared_data_dir()
    if folder is not None and folder.is_dir() and (required is None or (folder / required).is_dir()):
        return folder
    raise SharedDataNotFoundError(
        f"shared data{f' ({required}/)' if required else ''} not found (set $EXPLORER_SHARED_DATA or put it in "
        "../shared/data beside the checkout)"
    )
