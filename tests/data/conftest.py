"""A fake Perspectrum folder shared by the data builders' tests, and a watch on the files they open."""

import builtins
import io
import json
import os
import pathlib

import pytest

from explorer.data import perspectrum_claims

SECRET = "Reserved"  # every test-split text in the fake data contains it


def _fake_claim(cid, text, clusters):
    return {
        "cId": cid,
        "text": text,
        "perspectives": [
            {"pids": pids, "stance_label_3": stance, "stance_label_5": stance, "voter_counts": [], "evidence": []}
            for stance, pids in clusters
        ],
    }


@pytest.fixture
def fake_perspectrum(tmp_path):
    """Three train, two dev and two test claims; pid 3 is shared by a train claim and a test claim,
    pid 40 by a train and a dev claim."""
    pool, claims, split = {}, [], {}
    next_pid = [100]

    def cluster(stance, texts, pids=()):
        ids = list(pids)
        for _ in texts[len(ids) :]:
            ids.append(next_pid[0])
            next_pid[0] += 1
        for pid, text in zip(ids, texts):
            pool[pid] = text
        return stance, ids

    topics = {
        1: ("train", "Zoos should be banned", "animals"),
        2: ("train", "Homework should be abolished", "homework"),
        3: ("train", "Cities should ban cars", "cars"),
        4: ("dev", "Voting should be compulsory", "voting"),
        5: ("dev", "Nuclear power is the future", "reactors"),
        6: ("test", f"{SECRET} claim about taxes", "taxes"),
        7: ("test", f"{SECRET} claim about cheese", "cheese"),
    }
    for cid, (which, text, word) in topics.items():
        split[str(cid)] = which
        secret = f"{SECRET} " if which == "test" else ""
        shared = {1: [3], 6: [3], 2: [40], 4: [40]}.get(cid, [])
        clusters = []
        for k, stance in enumerate(("SUPPORT", "SUPPORT", "SUPPORT", "UNDERMINE", "UNDERMINE", "UNDERMINE")):
            texts = [f"{secret}The {word} point number {k} member {m} holds true." for m in range(3)]
            if k == 0 and shared:
                pool_text = pool.get(shared[0], texts[0])
                clusters.append(cluster(stance, [pool_text] + texts[1:], pids=shared))
            else:
                clusters.append(cluster(stance, texts))
        clusters.append(cluster("UNDERMINE", [f"{secret}A lone {word} objection without any paraphrase."]))
        claims.append(_fake_claim(cid, text, clusters))
    folder = tmp_path / "perspectrum"
    folder.mkdir()
    (folder / perspectrum_claims.SPLIT_FILE).write_text(json.dumps(split))
    (folder / perspectrum_claims.CLAIMS_FILE).write_text(json.dumps(claims))
    (folder / perspectrum_claims.POOL_FILE).write_text(
        json.dumps([{"pId": pid, "text": text, "source": "fake"} for pid, text in pool.items()])
    )
    test_pids = {pid for c in claims if split[str(c["cId"])] == "test" for p in c["perspectives"] for pid in p["pids"]}
    dev_pids = {pid for c in claims if split[str(c["cId"])] == "dev" for p in c["perspectives"] for pid in p["pids"]}
    return folder, test_pids, dev_pids


@pytest.fixture
def claim_text_reads(monkeypatch):
    """`watch(ids)` returns a list that fills with each claim id among `ids` whose text a builder
    then reads from the claims file (records are read for their ids and perspective ids too)."""

    def watch(ids) -> list[int]:
        touched = []

        class Watched(dict):
            def __getitem__(self, key):
                if key == "text" and dict.__getitem__(self, "cId") in ids:
                    touched.append(dict.__getitem__(self, "cId"))
                return dict.__getitem__(self, key)

            def get(self, key, default=None):
                return self[key] if key in self else default

        real_loads = json.loads

        def loads(text, **kwargs):
            data = real_loads(text, **kwargs)
            if isinstance(data, list) and data and "cId" in data[0]:
                return [Watched(record) for record in data]
            return data

        monkeypatch.setattr(perspectrum_claims.json, "loads", loads)
        return touched

    return watch


@pytest.fixture
def opened_files(monkeypatch) -> list[str]:
    """A list that fills with every path then opened or read (open, io.open, os.open, Path.read_text/read_bytes)."""
    opened: list[str] = []
    for module, name in ((builtins, "open"), (io, "open"), (os, "open")):
        real = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda file, *a, _real=real, **k: opened.append(str(file)) or _real(file, *a, **k)
        )
    for name in ("read_text", "read_bytes"):
        real = getattr(pathlib.Path, name)
        monkeypatch.setattr(
            pathlib.Path, name, lambda self, *a, _real=real, **k: opened.append(str(self)) or _real(self, *a, **k)
        )
    return opened
