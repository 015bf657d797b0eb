"""Every prompt a language model sees, built in one place, with character offsets.

Chang et al. 2024 give the model its input as curly-braces key-value pairs (Appendix A). The
NPOV task prompt here is the query, then each perspective's arguments:

    Write a neutral answer to the query that states every argument below and adds nothing else.
    {query: Should schools require uniforms?}
    {pro: {Uniforms reduce bullying.} {They save families money.}}
    {con: {They limit self-expression.}}

It is wrapped in the model's chat template when the tokenizer has one (the response is then
the assistant turn), else followed by a blank line; a server that applies the template itself
gets it as the user's chat message (`npov_messages`). Each argument's character span in the final
text is recorded, so salience can map prompt tokens back to argument words exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.data.example import Example

NPOV_INSTRUCTION = "Write a neutral answer to the query that states every argument below and adds nothing else."


@dataclass(frozen=True)
class ArgumentSpan:
    perspective: int
    argument: int
    start: int
    end: int


@dataclass(frozen=True)
class Prompt:
    """Prompt text and where each argument sits in it (`text[start:end]` is the argument)."""

    text: str
    arguments: tuple[ArgumentSpan, ...]


class _Builder:
    def __init__(self):
        self.parts: list[str] = []
        self.length = 0
        self.arguments: list[ArgumentSpan] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def add_argument(self, perspective: int, argument: int, text: str) -> None:
        self.arguments.append(ArgumentSpan(perspective, argument, self.length, self.length + len(text)))
        self.add(text)


def curly_braces_arguments(example: Example) -> Prompt:
    """The query and arguments as curly-braces key-value lines (no instruction, no template)."""
    builder = _Builder()
    builder.add(f"{{query: {example.query}}}")
    for p, perspective in enumerate(example.perspectives):
        builder.add(f"\n{{{perspective.name}:")
        for a, argument in enumerate(perspective.arguments):
            builder.add(" {")
            builder.add_argument(p, a, argument)
            builder.add("}")
        builder.add("}")
    return Prompt("".join(builder.parts), tuple(builder.arguments))


def user_turn(text: str) -> list[dict[str, str]]:
    """`text` as the user's message of a chat, the only message."""
    return [{"role": "user", "content": text}]


def end_of_turn_id(tokenizer) -> int:
    """The token that closes an assistant's turn in the tokenizer's chat template (its end of
    sequence without one). Read off the template rather than `eos_token`: converters disagree on
    a GGUF file's end token (transformers 5.17 and 5.23 gave SmolLM2 different ones), and a
    generator trained to end on the wrong one writes the next turn."""
    if getattr(tokenizer, "chat_template", None):
        marker = "\u2063answer\u2063"
        text = tokenizer.apply_chat_template(
            [*user_turn("question"), {"role": "assistant", "content": marker}], tokenize=False
        )
        after = text[text.rfind(marker) + len(marker) :]
        ids = tokenizer(after, add_special_tokens=False).input_ids if after.strip() else []
        if ids and ids[0] in turn_token_ids(tokenizer):
            return ids[0]
    return tokenizer.eos_token_id


def turn_token_ids(tokenizer) -> list[int]:
    """The end-of-sequence token and every special token the chat template uses (a turn's start
    or end): an answer never holds one, so generation stops at any of them."""
    template = getattr(tokenizer, "chat_template", None) or ""
    ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    ids |= {i for token, i in tokenizer.added_tokens_encoder.items() if token in template}
    return sorted(ids)


def wrap_in_chat(tokenizer, content: Prompt) -> Prompt:
    """`content` as the user turn of the tokenizer's chat template, ready for the answer.

    Without a chat template the content is followed by a blank line. Argument spans move with
    the content: the template is required to copy the user text verbatim.
    """
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(user_turn(content.text), add_generation_prompt=True, tokenize=False)
        offset = text.rfind(content.text)
        if offset < 0:
            raise ValueError("the model's chat template does not copy the user message verbatim")
    else:
        text, offset = content.text + "\n\n", 0
    moved = tuple(ArgumentSpan(s.perspective, s.argument, s.start + offset, s.end + offset) for s in content.arguments)
    return Prompt(text, moved)


def npov_request(example: Example) -> Prompt:
    """The NPOV task as the user's message: the instruction, then the curly-braces input."""
    arguments = curly_braces_arguments(example)
    shift = len(NPOV_INSTRUCTION) + 1
    return Prompt(
        f"{NPOV_INSTRUCTION}\n{arguments.text}",
        tuple(ArgumentSpan(s.perspective, s.argument, s.start + shift, s.end + shift) for s in arguments.arguments),
    )


def npov_prompt(example: Example, tokenizer) -> Prompt:
    """The task prompt whose answer is the example's response (salience teacher-forces it)."""
    return wrap_in_chat(tokenizer, npov_request(example))


def npov_messages(example: Example) -> list[dict[str, str]]:
    """The NPOV task as chat messages, for a server that applies the model's chat template
    itself (an OpenAI-compatible chat-completions endpoint): the same user turn that
    `npov_prompt` wraps in the template here."""
    return user_turn(npov_request(example).text)


# Chang et al. 2024 (§3.3) train one prompt-tuned classifier per error type on curly-braces input.
# The question asks for the error-free answer, so "Yes" means no error and P("No") is the error score.
CLASSIFIER_QUESTIONS = {
    "hallucination": "Does the response state only the arguments above, adding no other argument or fact? "
    "Answer Yes or No.",
    "coverage": "Does the response state every argument above? Answer Yes or No.",
}
# "Yes" and "No" are single tokens for SmolLM2 right after the chat template's
# "<|im_start|>assistant\n" (" YES" would be two), so one next-token distribution scores them.
CLASSIFIER_LABELS = ("Yes", "No")


def classifier_prompt(example: Example, tokenizer, error_type: str) -> Prompt:
    """The classifier's input for one error type, ending where the label token comes next.

    The query and each perspective's arguments in curly braces (as in the NPOV prompt), then
    `{response: ...}`, then the error type's question, as the user turn of the chat template:

        {query: Should schools require uniforms?}
        {pro: {Uniforms reduce bullying.} {They save families money.}}
        {con: {They limit self-expression.}}
        {response: Uniforms cut bullying and costs, critics say they limit self-expression.}
        Does the response state every argument above? Answer Yes or No.

    The paper does not print its classifier input; the question (so that an instruction-tuned
    model starts from a sensible prior) and putting the response after the arguments are ours.
    To score one perspective's coverage, pass the example with only that perspective.
    """
    arguments = curly_braces_arguments(example)
    content = Prompt(
        f"{arguments.text}\n{{response: {example.response}}}\n{CLASSIFIER_QUESTIONS[error_type]}", arguments.arguments
    )
    return wrap_in_chat(tokenizer, content)


# The fine-tuned classifier asks one question per response sentence and per argument, each
# answered right after it, so one example trains one label per sentence and argument (the
# example-level questions give one bit each, and 1,000 examples of them taught SmolLM2 nothing).
CLASSIFIER_UNIT_QUESTIONS = {
    "hallucination": 'Is everything in "{}" given by the arguments above, or mere framing? Answer Yes or No.',
    "coverage": 'Does the response state "{}"? Answer Yes or No.',
}


def classifier_units_prompt(example: Example, tokenizer, sentences: Sequence[str]) -> list[str]:
    """The fine-tuned classifier's input, pieces whose ends are where its labels are read.

    The classifier prompt's content with the hallucination question about each of `sentences`
    (the response's, in order), then the coverage question about each argument (in perspective
    order), as the user turn; the first piece ends with the first question, each further piece
    with the next (the last one with the chat template's turn to answer). A causal LM's reading
    of a question cannot see the ones after it, so one forward pass answers them all as separate
    prompts would, except that each sees the questions before it.
    """
    arguments = curly_braces_arguments(example)
    questions = [CLASSIFIER_UNIT_QUESTIONS["hallucination"].format(s) for s in sentences] + [
        CLASSIFIER_UNIT_QUESTIONS["coverage"].format(a) for p in example.perspectives for a in p.arguments
    ]
    if not questions:
        raise ValueError("nothing to ask: the example has no response sentence and no argument")
    head = f"{arguments.text}\n{{response: {example.response}}}"
    text = wrap_in_chat(tokenizer, Prompt(head + "".join(f"\n{q}" for q in questions), arguments.arguments)).text
    ends, at = [], text.rfind(head) + len(head)
    for question in questions:
        at += 1 + len(question)
        ends.append(at)
    ends[-1] = len(text)
    return [text[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
