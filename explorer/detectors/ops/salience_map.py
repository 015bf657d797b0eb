"""Token-to-token salience of a teacher-forced response (Chang et al. 2024, §3.2, App. C).

For each response token t, the gradient of its target score with respect to every earlier
input embedding, reduced per token: gradient x input (the dot product with the embedding,
the paper's choice) or the gradient's L2 norm (App. C's variant). The target score is the
raw logit of the response token (the paper) or its log-probability (what Captum's
`LLMGradientAttribution` attributes; offered so the two can be compared exactly).

This is what Captum's `LayerGradientXActivation` on the embedding layer computes for one
target, and `bench/salience.py` and the tests check the result against it to 1e-4. It is
computed here with autograd directly because Captum runs one forward pass per target: on a
CPU that forward costs as much as the backward pass, and the exact map needs only one forward
per chunk of targets. The ways that make it fast, all exact:

- parameters are frozen, so each backward pass computes input gradients only;
- targets go in chunks of `chunk` consecutive tokens, and a chunk's forward pass reads only
  the prefix its last target needs (a causal LM's earlier logits do not see later tokens);
- on a CPU, one forward per chunk is shared by the chunk's backward passes (`retain_graph`);
  on a GPU the chunk's prefix is copied once per target and a single backward pass computes
  all of the chunk's gradients at once, which the GPU runs in parallel (`batched`). On a CPU
  the copies cost as much as separate passes and batched attention backward is slower;
- only the targets the aggregation keeps are computed (`targets`): after columns are merged
  into words, every response token that overlaps no content word is dropped, and column
  normalization is per column, so those columns never change a score (`used_targets`). The
  chunks stay chunks of positions, so each forward pass is the one the all-targets path runs
  and the kept columns are bitwise the same; only backward passes are skipped.

The result is a `[P + T, T]` array for a P-token prompt and a T-token response: entry
`[s, t]` is input token s's attribution to response token t, and 0 where `s >= P + t`
(a token cannot attribute to itself or to earlier positions' targets) and in the columns
of targets that were not asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.detectors.base import Progress
from explorer.detectors.ops import aggregate
from explorer.models.language_model import LanguageModel

Span = tuple[int, int]

GRADIENT_ATTRIBUTIONS = ("grad_x_input", "grad_norm")  # the attributions this fast path computes
TARGETS = ("logit", "log_prob")


def used_targets(response_spans: Sequence[Span], word_spans: Sequence[Span]) -> list[int]:
    """The response tokens whose columns survive word merging: those overlapping a word span."""
    return sorted({i for group in aggregate.token_groups(response_spans, word_spans) for i in group})


def token_salience(
    lm: LanguageModel,
    prompt_ids: Sequence[int],
    response_ids: Sequence[int],
    *,
    targets: Sequence[int] | None = None,
    attribution: str = "grad_x_input",
    target: str = "logit",
    chunk: int = 16,
    batched: bool | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """The raw `[P + T, T]` salience map (see the module docstring); float32.

    `targets` are the response positions (0-based) whose columns are computed, all by default;
    `progress(done, total)` counts them.
    """
    import torch

    if attribution not in GRADIENT_ATTRIBUTIONS:
        raise ValueError(
            f"unknown gradient attribution {attribution!r}; choose from {', '.join(GRADIENT_ATTRIBUTIONS)}"
        )
    if target not in TARGETS:
        raise ValueError(f"unknown salience target {target!r}; choose from {', '.join(TARGETS)}")
    if not prompt_ids:
        raise ValueError("the prompt must have at least one token")
    targets = sorted(set(range(len(response_ids)) if targets is None else targets))
    if targets and not 0 <= targets[0] <= targets[-1] < len(response_ids):
        raise ValueError(f"targets must be response positions 0..{len(response_ids) - 1}, got {targets}")
    batched = lm.device != "cpu" if batched is None else batched
    model, embed = lm.model, lm.model.get_input_embeddings()
    prompt_length, response_length = len(prompt_ids), len(response_ids)
    ids = torch.tensor([*prompt_ids, *response_ids], device=lm.device)
    salience = np.zeros((prompt_length + response_length, response_length), dtype=np.float32)

    def reduce(gradient, inputs):
        values = (gradient * inputs).sum(-1) if attribution == "grad_x_input" else gradient.norm(dim=-1)
        return values.float().cpu().numpy()

    done = 0
    for first in range(0, response_length, chunk):
        last = min(response_length, first + chunk)
        chunk_targets = [t for t in targets if first <= t < last]
        if not chunk_targets:
            continue
        # Chunks of positions, not of kept targets: the forward pass is then the very one the
        # all-targets path runs (same length, same logits), so the kept columns are bitwise its
        # columns. The logits that predict response tokens first..last-1 sit at positions
        # P+first-1 .. P+last-2, so the chunk needs inputs 0 .. P+last-2 and its last `count` logits.
        count = last - first
        length = prompt_length + last - 1
        with torch.enable_grad():
            inputs = embed(ids[:length]).detach()
            copies = len(chunk_targets) if batched else 1
            inputs = inputs.unsqueeze(0).repeat(copies, 1, 1).requires_grad_(True)
            logits = model(inputs_embeds=inputs, logits_to_keep=count).logits.float()
            if target == "log_prob":
                logits = logits.log_softmax(-1)
            scores = logits.gather(
                -1, ids[prompt_length + first : prompt_length + last].expand(copies, count)[..., None]
            )
            scores = scores[..., 0][:, [t - first for t in chunk_targets]]  # [copies, targets in chunk]
            if batched:
                (gradients,) = torch.autograd.grad(scores.diagonal().sum(), inputs)
                values = reduce(gradients, inputs.detach())
                for k, t in enumerate(chunk_targets):
                    visible = prompt_length + t
                    salience[:visible, t] = values[k, :visible]
            else:
                for k, t in enumerate(chunk_targets):
                    last_one = k == len(chunk_targets) - 1
                    (gradient,) = torch.autograd.grad(scores[0, k], inputs, retain_graph=not last_one)
                    visible = prompt_length + t
                    salience[:visible, t] = reduce(gradient[0, :visible], inputs[0, :visible].detach())
        done += len(chunk_targets)
        if progress is not None:
            progress(done, len(targets))
    return salience
