"""Salience speed and exactness: this project's token map against Captum's, on one example.

    python bench/salience.py [--example ID] [--response-tokens 120] [--model PATH]

Runs, each in its own process (so each peak RSS is its own), on the same model, prompt and
response:
- ours: `explorer.detectors.ops.salience_map.token_salience` (log-probability target, as Captum's);
- Captum: `LLMGradientAttribution(LayerGradientXActivation(model, embedding layer), tokenizer)`
  with the response's token ids as the target.
Prints seconds per example, their ratio, the max abs difference of the token maps over the
prompt columns (Captum attributes only to the prompt) and peak RSS. Default example: the
first sample, its response cut to 120 tokens (Captum's cost grows with the response length
times the sequence length, so the full responses take many minutes).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from explorer.models.language_model import LanguageModel, load_language_model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.samples import load_samples  # noqa: E402
from explorer.detectors.salience import token_offsets  # noqa: E402
from explorer.text import prompts


def inputs(args) -> tuple[LanguageModel, str, list[int], list[int]]:
    model = load_language_model(args.model, device="cpu")
    examples = load_samples()
    example = next((e for e in examples if e.id == args.example), None) if args.example else examples[0]
    if example is None:
        sys.exit(f"no sample example with id {args.example!r}")
    prompt = prompts.npov_prompt(example, model.tokenizer)
    prompt_ids, _ = token_offsets(model.tokenizer, prompt.text)
    response_ids, _ = token_offsets(model.tokenizer, example.response)
    return model, prompt.text, prompt_ids, response_ids[: args.response_tokens]


def run_ours(args) -> np.ndarray:
    from explorer.detectors.ops.salience_map import token_salience

    model, _, prompt_ids, response_ids = inputs(args)
    start = time.perf_counter()
    salience = token_salience(model, prompt_ids, response_ids, target="log_prob")
    seconds = time.perf_counter() - start
    return salience[: len(prompt_ids)].T, seconds, len(prompt_ids), len(response_ids)


def run_captum(args) -> np.ndarray:
    import torch
    from captum.attr import LayerGradientXActivation, LLMGradientAttribution, TextTokenInput

    model, prompt_text, prompt_ids, response_ids = inputs(args)
    attribution = LLMGradientAttribution(
        LayerGradientXActivation(model.model, model.model.get_input_embeddings()), model.tokenizer
    )
    text_input = TextTokenInput(prompt_text, model.tokenizer)
    if text_input.to_model_input().tolist()[0] != prompt_ids:
        sys.exit("Captum tokenized the prompt differently; the maps would not be comparable")
    start = time.perf_counter()
    result = attribution.attribute(text_input, target=torch.tensor(response_ids))
    seconds = time.perf_counter() - start
    return result.token_attr.float().cpu().numpy(), seconds, len(prompt_ids), len(response_ids)


def child(args) -> None:
    token_map, seconds, prompt_tokens, response_tokens = (run_ours if args.only == "ours" else run_captum)(args)
    np.save(args.save, token_map)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "prompt": prompt_tokens, "response": response_tokens}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", help="sample example id (default: the first)")
    parser.add_argument("--response-tokens", type=int, default=120)
    parser.add_argument("--model", help="a .gguf file or model folder (default: packaged SmolLM2-135M)")
    parser.add_argument("--only", choices=("ours", "captum"), help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        child(args)
        return

    runs, maps = {}, {}
    with tempfile.TemporaryDirectory() as folder:
        for name in ("ours", "captum"):
            save = str(Path(folder) / f"{name}.npy")
            command = [sys.executable, __file__, "--only", name, "--save", save]
            command += ["--response-tokens", str(args.response_tokens)]
            command += ["--example", args.example] if args.example else []
            command += ["--model", args.model] if args.model else []
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            runs[name] = json.loads(output.strip().splitlines()[-1])
            maps[name] = np.load(save)
    ours, captum = runs["ours"], runs["captum"]
    difference = float(np.abs(maps["ours"] - maps["captum"]).max())
    print(f"example: prompt {ours['prompt']} tokens + response {ours['response']} tokens, CPU, float32")
    print(f"{'':8} {'s/example':>10} {'peak RSS MB':>12}")
    for name in ("ours", "captum"):
        print(f"{name:8} {runs[name]['seconds']:10.1f} {runs[name]['peak_mb']:12.0f}")
    print(f"speed-up: {captum['seconds'] / ours['seconds']:.2f}x")
    print(f"max abs difference of the token maps: {difference:.2e} (largest value {np.abs(maps['captum']).max():.2f})")


if __name__ == "__main__":
    main()
