"""Content names of model files, for result-cache keys: the same files give the same name, and
editing any of them (weights, config, tokenizer, chat template, adapter settings) gives a new one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_digest(folder: Path) -> str:
    """sha256 over every regular file under `folder`, by relative path and content.

    Symlinked files count by their target's content (a Hugging Face hub snapshot is all
    symlinks). Hidden entries (`.git`, `.cache`) are skipped: transformers reads none of them,
    and a `.git` folder would double the bytes to hash.
    """
    digest = hashlib.sha256()
    files = [
        path
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    ]
    for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(file_digest(path).encode())
    return digest.hexdigest()


def model_identity(path: Path) -> str:
    """`NAME@HASH` for a model file or folder (the first 16 hex digits of its content digest)."""
    digest = file_digest(path) if path.is_file() else folder_digest(path)
    return f"{path.name}@{digest[:16]}"
