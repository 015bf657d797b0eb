"""What every NPOV response generator shares, whichever backend writes: the decoding settings,
the interface, and the record a generated example carries.

Two backends implement `Generator`: a causal LM run in this process
(`explorer.generation.npov.NpovGenerator`) and a model behind an OpenAI-compatible
chat-completions server (`explorer.generation.server.ServerGenerator`). Both read the same NPOV
task (`explorer.text.prompts`), stream the text as it comes and stop when cancelled, so the
command line and the Inspect page use either without knowing which.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from explorer.data.example import Example, Labels
from explorer.data.synthetic import VERBALIZATIONS

GENERATED_BY = "generated_by"  # the record field naming the backend and model that wrote the response
GENERATION = "generation"  # the record field holding the decoding settings


@dataclass(frozen=True)
class GenerationSettings:
    max_new_tokens: int = 400
    sample: bool = False
    temperature: float = 0.7
    top_p: float = 0.9
    seed: int = 0

    def __post_init__(self):
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if self.sample and not (self.temperature > 0 and 0 < self.top_p <= 1):
            raise ValueError("sampling needs temperature > 0 and 0 < top_p <= 1")

    def to_dict(self) -> dict[str, Any]:
        settings = asdict(self)
        if not self.sample:  # greedy decoding reads neither
            del settings["temperature"], settings["top_p"]
        return settings


DEFAULT_SETTINGS = GenerationSettings()  # greedy, 400 new tokens


class Generator(ABC):
    """Writes the response to an example's query from its perspectives (its own response is not read)."""

    @property
    @abstractmethod
    def generated_by(self) -> dict[str, str]:
        """Which backend and model write, as recorded with each response: never a credential."""

    @abstractmethod
    def generate(
        self,
        example: Example,
        settings: GenerationSettings = DEFAULT_SETTINGS,
        *,
        on_text: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> str:
        """The response, stripped. `on_text` receives the text as it comes (for streaming); once
        `cancelled()` turns true, generation stops at the next token and the text so far is returned."""

    def generated_example(self, example: Example, settings: GenerationSettings = DEFAULT_SETTINGS) -> Example:
        return with_generated_response(example, self.generate(example, settings), self.generated_by, settings)


def with_generated_response(
    example: Example, response: str, generated_by: dict[str, str], settings: GenerationSettings
) -> Example:
    """`example` with a generated response, no labels and no `verbalizations` (both described the
    old response), and who wrote it and how under `generated_by` and `generation`."""
    extra = {
        **{key: value for key, value in example.extra.items() if key != VERBALIZATIONS},
        GENERATED_BY: dict(generated_by),
        GENERATION: settings.to_dict(),
    }
    return example.replace(response=response, labels=Labels(), extra=extra)
