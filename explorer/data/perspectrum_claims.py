"""Reading Perspectrum (Chen et al., NAACL 2019): the claims of its train and dev splits with
their clusters of paraphrased perspectives. Its test split is never read.

Perspectrum gives, for each debate claim, clusters (`pids`) of perspectives that a human judged
to state the same argument, each cluster supporting or undermining the claim.

**The test split is never read.** Claim ids are filtered by `dataset_split_v1.0.json` before any
claim's text is touched, and asking for `test` raises. Perspectrum reuses some perspectives
(`pid`s) across claims of different splits; a perspective that also belongs to a test claim is
never used (only ids are compared), and with `isolate_dev` (default) train examples use no
perspective of a dev claim, so dev text is unseen in training.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.data.shared_data import shared_data_dir
from explorer.files import MAX_INPUT_BYTES, read_regular

ALLOWED_SPLITS = ("train", "dev")
SPLIT_FILE = "dataset_split_v1.0.json"
CLAIMS_FILE = "perspectrum_with_answers_v1.0.json"
POOL_FILE = "perspective_pool_v1.0.json"
STANCES = {"SUPPORT": "pro", "UNDERMINE": "con"}


class TestSplitError(ValueError):
    """Someone asked for Perspectrum's reserved test split."""


@dataclass(frozen=True)
class Cluster:
    stance: str  # "pro" | "con"
    members: tuple[tuple[int, str], ...]  # (pid, text), usable members only, distinct texts


@dataclass(frozen=True)
class PerspectrumClaim:
    """One of Perspectrum's claims (what the app calls a topic) with its perspective clusters; not a
    claim of a response (`explorer.text.claims.Claim`)."""

    id: int
    split: str
    text: str
    clusters: tuple[Cluster, ...]


def check_splits(splits: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(splits))
    if "test" in chosen:
        raise TestSplitError("Perspectrum's test split is reserved for evaluation outside the team: never read it")
    unknown = [s for s in chosen if s not in ALLOWED_SPLITS]
    if unknown or not chosen:
        raise ValueError(f"splits must be among {', '.join(ALLOWED_SPLITS)}, got {', '.join(chosen) or 'none'}")
    return chosen


def perspectrum_dir(folder: Path | None = None) -> Path:
    return Path(folder) if folder else shared_data_dir("perspectrum") / "perspectrum"


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2019", "'").replace("\u2018", "'")).strip()


def _read_json(path: Path):
    """A Perspectrum file's JSON, read only when it is a regular file of bounded size (a FIFO or
    `/dev/zero` in its place is an `OSError` at once, not a hang or a full memory)."""
    return json.loads(read_regular(path, MAX_INPUT_BYTES))


def load_claims(
    splits: Sequence[str] = ALLOWED_SPLITS, folder: Path | None = None, *, isolate_dev: bool = True
) -> list[PerspectrumClaim]:
    """The claims of `splits` (train and/or dev, never test) with their usable clusters."""
    splits = check_splits(splits)
    folder = perspectrum_dir(folder)
    split_of = {int(cid): split for cid, split in _read_json(folder / SPLIT_FILE).items()}
    records = _read_json(folder / CLAIMS_FILE)
    # Only ids are compared before the filter: which perspectives a reserved (or dev) claim uses.
    reserved_pids: set[int] = set()
    dev_pids: set[int] = set()
    wanted = []
    for record in records:
        split = split_of.get(int(record["cId"]))
        pids = {int(pid) for cluster in record["perspectives"] for pid in cluster["pids"]}
        if split == "test" or split is None:
            reserved_pids |= pids
            continue
        if split == "dev":
            dev_pids |= pids
        if split in splits:
            wanted.append((split, record))
    banned = {"train": reserved_pids | (dev_pids if isolate_dev else set()), "dev": reserved_pids}
    needed = {int(pid) for _, record in wanted for cluster in record["perspectives"] for pid in cluster["pids"]}
    pool = {
        int(entry["pId"]): _normalize(entry["text"])
        for entry in _read_json(folder / POOL_FILE)
        if int(entry["pId"]) in needed
    }
    claims = []
    for split, record in wanted:
        clusters = []
        for cluster in record["perspectives"]:
            stance = STANCES.get(cluster.get("stance_label_3"))
            if stance is None:
                continue
            members, seen = [], set()
            for pid in map(int, cluster["pids"]):
                text = pool.get(pid, "")
                if pid in banned[split] or len(text.split()) < 3 or text.lower() in seen:
                    continue
                seen.add(text.lower())
                members.append((pid, text))
            if members:
                clusters.append(Cluster(stance, tuple(members)))
        claims.append(PerspectrumClaim(int(record["cId"]), split, _normalize(record["text"]), tuple(clusters)))
    return sorted(claims, key=lambda c: c.id)
