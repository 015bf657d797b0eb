"""A probe of planned realization for the packaged NPOV generator (issue 29, not shipped): the
code decides which argument goes on which side, and the model writes one sentence per argument.

    python bench/generator_plan.py ../shared/data/npov_foreign/dev.jsonl --claims 8

For each claim's first example (`explorer.training.generator.one_per_claim`), each argument is
given alone as the generator's input, and the answer is forced to begin with the query in bold
and a lead-in for its side ("Supporters say that" / "Critics say that"); the model continues,
greedily, to the end of the line. Prints each argument beside its sentence for a hand check (the
figures in the issue's note: most sentences keep their argument, few answers keep all of
them). Only the inputs are read; the output restates third-party arguments: keep it out of
the repository.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.data.example import Example, Perspective  # noqa: E402
from explorer.data.jsonl import parse_jsonl  # noqa: E402
from explorer.generation.backends import Backend, load_generator  # noqa: E402
from explorer.text.prompts import turn_token_ids  # noqa: E402
from explorer.training.generator import one_per_claim  # noqa: E402

LEAD_INS = ("Supporters say that", "Critics say that")  # the first perspective's, the others'


def line_end_ids(tokenizer) -> list[int]:
    """The tokens whose text holds a line break: a sentence ends at the first one."""
    return [i for token, i in tokenizer.get_vocab().items() if "\n" in tokenizer.convert_tokens_to_string([token])]


def sentence(generator, example: Example, side: int, argument: str, stops: list[int]) -> str:
    """The model's sentence for one argument, after its side's lead-in; `stops` end it."""
    import torch

    tokenizer = generator.language_model.tokenizer
    lead_in = LEAD_INS[min(side, 1)]
    alone = example.replace(perspectives=(Perspective(example.perspectives[side].name, (argument,)),))
    forced = tokenizer(f"**{example.query}**\n\n{lead_in}", add_special_tokens=False, return_tensors="pt").input_ids
    ids = torch.cat([generator.prompt_ids(alone), forced], dim=1)
    with torch.no_grad():
        output = generator.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=60,
            do_sample=False,
            temperature=None,
            top_p=None,
            top_k=None,
            eos_token_id=stops,
            pad_token_id=tokenizer.eos_token_id,
        )
    text = tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True)
    return lead_in + text.split("\n")[0].rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="JSON Lines examples (only their inputs are read)")
    parser.add_argument("--claims", type=int, default=8, help="how many claims (default 8)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    generator = load_generator(Backend())
    tokenizer = generator.language_model.tokenizer
    stops = turn_token_ids(tokenizer) + line_end_ids(tokenizer)
    for number, example in enumerate(one_per_claim(parse_jsonl(args.data).examples, args.claims), 1):
        started = time.process_time()
        print(f"#{number} {example.id}: {example.query}")
        for side, perspective in enumerate(example.perspectives):
            for argument in perspective.arguments:
                written = sentence(generator, example, side, argument, stops)
                print(f"  [{perspective.name}] {argument}\n      -> {written}")
        print(f"  ({time.process_time() - started:.1f} s CPU)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
