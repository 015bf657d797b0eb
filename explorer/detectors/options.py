"""A detector's settings, declared once on its `DetectorSpec`: the CLI offers each as
`--<detector>-<name>` and the sidebar each one with `choices` as a select box; both pass the
chosen value to the detector's constructor as keyword `name`. Neither names a detector."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    name: str  # the constructor keyword
    help: str  # the CLI's help, with the default
    type: Callable[[str], Any] = str  # the CLI's parser, which names the option and its range when it refuses
    default: Any = None
    choices: Mapping[str, str] = field(default_factory=dict)  # value -> title; the sidebar offers those with some
    about: str = ""  # the sidebar's help (Markdown)
    aliases: tuple[str, ...] = ()  # other CLI spellings, kept for old commands

    def flag(self, detector_name: str) -> str:
        return f"--{detector_name}-{self.name}".replace("_", "-")

    def dest(self, detector_name: str) -> str:
        """Its attribute on parsed CLI arguments, and its session-state key in the app."""
        return f"{detector_name}_{self.name}"
