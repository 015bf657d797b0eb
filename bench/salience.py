"""Salience speed, memory and exactness: every way of computing the map, on one example.

    python bench/salience.py [--example ID] [--response-tokens 120] [--variants a,b,...]
                             [--repeat 1] [--steps 64] [--samples 4] [--model PATH]

Each variant runs in its own process (so each peak RSS is its own) on the same model, prompt
and response, with the log-probability target (what Captum attributes) where the attribution
allows it, one torch thread unless its name says otherwise:

- captum: `LLMGradientAttribution(LayerGradientXActivation(model, embedding layer), tokenizer)`,
  the reference (one forward and one backward per response token);
- all: `token_salience` over every response token (the path before kept targets);
- kept: `token_salience` over the response tokens that overlap a content word (the detector's);
- kept-2threads: the same with torch's 2 threads;
- kept-2procs: the kept targets split between 2 one-thread processes (exact: each target's
  gradient is independent; the time is the slower process's, RSS the sum);
- grad_norm, integrated_gradients, argument_ablation, argument_shapley: the other attributions of
  `explorer.detectors.ops.attribution`, on the kept targets.

Prints seconds per example (model loading excluded; the median of `--repeat` rounds, which
interleave the variants), peak RSS, the speed ratio against Captum, the max abs difference of
token maps against Captum (prompt rows, kept columns: where the quantity is the same) and of
word maps against the all-targets path (the detector's aggregation; for the other attributions it
says how far they move from the paper's map).
The machine is whatever it is: say how loaded it was when you quote a figure.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.samples import load_samples  # noqa: E402
from explorer.detectors.ops import attribution  # noqa: E402
from explorer.detectors.salience import SalienceDetector, salience_inputs, token_offsets  # noqa: E402
from explorer.models.language_model import load_language_model, load_tokenizer  # noqa: E402

VARIANTS = (
    "captum",
    "all",
    "kept",
    "kept-2threads",
    "kept-2procs",
    "grad_norm",
    "integrated_gradients",
    "argument_ablation",
    "argument_shapley",
)
DEFAULT_VARIANTS = tuple(v for v in VARIANTS if v != "integrated_gradients")


def example_for(args, tokenizer):
    """The sample example with its response cut to the first `--response-tokens` tokens."""
    examples = load_samples()
    example = next((e for e in examples if e.id == args.example), None) if args.example else examples[0]
    if example is None:
        sys.exit(f"no sample example with id {args.example!r}")
    _, spans = token_offsets(tokenizer, example.response)
    end = spans[min(args.response_tokens, len(spans)) - 1][1]
    return example.replace(response=example.response[:end])


def inputs_for(example, lm, tokenizer, targets=None) -> attribution.SalienceInputs:
    return salience_inputs(example, lm, tokenizer=tokenizer, targets=targets, target="log_prob", chunk=32)


def compute(args, variant: str) -> tuple[np.ndarray, float]:
    import torch

    lm = load_language_model(args.model, device="cpu")
    example = example_for(args, lm.tokenizer)
    inputs = inputs_for(example, lm, lm.tokenizer)
    start = time.perf_counter()
    if variant == "captum":
        from captum.attr import LayerGradientXActivation, LLMGradientAttribution, TextTokenInput

        captum = LLMGradientAttribution(
            LayerGradientXActivation(lm.model, lm.model.get_input_embeddings()), lm.tokenizer
        )
        text_input = TextTokenInput(inputs.prompt.text, lm.tokenizer)
        if text_input.to_model_input().tolist()[0] != list(inputs.prompt_ids):
            sys.exit("Captum tokenized the prompt differently; the maps would not be comparable")
        result = captum.attribute(text_input, target=torch.tensor(list(inputs.response_ids)))
        token_map = inputs.empty_map()
        token_map[: len(inputs.prompt_ids)] = result.token_attr.float().numpy().T
    elif variant == "all":
        token_map = attribution.gradient_x_input(_with_targets(inputs, range(len(inputs.response_ids)))).token_map
    elif variant in ("kept", "kept-2threads"):
        token_map = attribution.gradient_x_input(inputs).token_map
    elif variant.startswith("kept-part"):
        part, parts = (int(n) for n in variant.removeprefix("kept-part").split("of"))
        token_map = attribution.gradient_x_input(_with_targets(inputs, inputs.targets[part::parts])).token_map
    else:
        chosen = attribution.get_attribution(variant)
        settings = {k: getattr(args, k) for k in chosen.settings}
        target = "log_prob" if "log_prob" in chosen.targets else chosen.targets[0]
        token_map = chosen.compute(_with_targets(inputs, inputs.targets, target=target), **settings).token_map
    return token_map, time.perf_counter() - start


def _with_targets(inputs, targets, **fields):
    return dataclasses.replace(inputs, targets=list(targets), **fields)


def child(args) -> None:
    import torch

    torch.set_num_threads(args.threads)
    token_map, seconds = compute(args, args.only)
    np.save(args.save, token_map)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb}))


def spawn(args, variant: str, save: Path, threads: int) -> subprocess.Popen:
    command = [sys.executable, __file__, "--only", variant, "--save", str(save), "--threads", str(threads)]
    command += [
        "--response-tokens",
        str(args.response_tokens),
        "--steps",
        str(args.steps),
        "--samples",
        str(args.samples),
    ]
    command += ["--example", args.example] if args.example else []
    command += ["--model", args.model] if args.model else []
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)


def finish(process: subprocess.Popen) -> dict:
    output, _ = process.communicate()
    if process.returncode:
        sys.exit(f"a variant failed (exit {process.returncode})")
    return json.loads(output.strip().splitlines()[-1])


def run_variant(args, variant: str, folder: Path) -> tuple[dict, np.ndarray]:
    if variant != "kept-2procs":
        save = folder / f"{variant}.npy"
        run = finish(spawn(args, variant, save, 2 if variant == "kept-2threads" else 1))
        return run, np.load(save)
    saves = [folder / f"part{i}.npy" for i in range(2)]
    processes = [spawn(args, f"kept-part{i}of2", saves[i], 1) for i in range(2)]
    runs = [finish(p) for p in processes]
    token_map = np.load(saves[0]) + np.load(saves[1])  # disjoint columns
    return {"seconds": max(r["seconds"] for r in runs), "peak_mb": sum(r["peak_mb"] for r in runs)}, token_map


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", help="sample example id (default: the first)")
    parser.add_argument("--response-tokens", type=int, default=120)
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS), help=f"any of {', '.join(VARIANTS)}")
    parser.add_argument("--steps", type=int, default=attribution.DEFAULT_STEPS, help="integrated gradients steps")
    parser.add_argument("--samples", type=int, default=attribution.DEFAULT_SAMPLES, help="Shapley sampled orders")
    parser.add_argument("--repeat", type=int, default=1, help="rounds over the variants; the median time is shown")
    parser.add_argument("--model", help="a .gguf file or model folder (default: packaged SmolLM2-135M)")
    parser.add_argument("--only", help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        child(args)
        return
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        sys.exit(f"unknown variant(s) {', '.join(sorted(unknown))}; choose from {', '.join(VARIANTS)}")

    tokenizer = load_tokenizer(args.model)
    example = example_for(args, tokenizer)
    inputs = inputs_for(example, None, tokenizer)
    detector = SalienceDetector(args.model)
    print(
        f"example {example.id}: prompt {len(inputs.prompt_ids)} tokens + response {len(inputs.response_ids)} tokens "
        f"({len(inputs.targets)} kept), CPU, float32; load average before: {load_average()}",
        flush=True,
    )
    runs, maps, times = {}, {}, {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeat):  # rounds interleave the variants, so a change of load hits them all
            for variant in variants:
                runs[variant], maps[variant] = run_variant(args, variant, Path(folder))
                times[variant].append(runs[variant]["seconds"])
                print(f"  {variant}: {runs[variant]['seconds']:.1f} s (load average {load_average()})", flush=True)
    for variant in variants:
        runs[variant]["seconds"] = float(np.median(times[variant]))

    def word_map(token_map):
        return detector.word_map(example, inputs.prompt, inputs.prompt_spans, inputs.response_spans, token_map)[2]

    prompt_rows, kept = slice(0, len(inputs.prompt_ids)), inputs.targets
    captum = maps.get("captum")
    reference = word_map(maps["all"]) if "all" in maps else None
    header = ("variant", "s/example", "peak RSS MB", "vs Captum", "token map diff", "word map diff")
    print(f"{header[0]:22} " + " ".join(f"{h:>14}" for h in header[1:]))
    for variant in variants:
        run, token_map = runs[variant], maps[variant]
        ratio = f"{runs['captum']['seconds'] / run['seconds']:.2f}x" if "captum" in runs else "-"
        same_quantity = variant in ("all", "kept", "kept-2threads", "kept-2procs")
        token_diff = (
            f"{np.abs(token_map[prompt_rows][:, kept] - captum[prompt_rows][:, kept]).max():.1e}"
            if captum is not None and same_quantity
            else "-"
        )
        word_diff = (
            f"{np.abs(word_map(token_map) - reference).max():.1e}"
            if reference is not None and variant != "captum"
            else "-"
        )
        print(
            f"{variant:22} {run['seconds']:10.1f} {run['peak_mb']:12.0f} {ratio:>10} {token_diff:>15} {word_diff:>14}"
        )
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
