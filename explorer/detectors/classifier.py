"""Prompt-tuned classifier detector (Chang et al. 2024, §3.3).

Two soft prompts on the same frozen causal LM (`explorer.prompt_tuning`), trained on synthetic
errors (`explorer train`), one per error type:

- `hallucination` = P("No") of the hallucination classifier on the whole example;
- `coverage` = P("No") of the coverage classifier on the whole example;
- `per_perspective[name]` = P("No") of the coverage classifier on the example with only that
  perspective's arguments (the question then asks whether the response states every argument
  of that perspective). The paper scores coverage per example only; this costs one forward
  pass per perspective and is the same as `coverage` for a one-perspective example. The
  classifier never saw single-perspective inputs in training, so `coverage` is not the max of
  these, unlike the other detectors.

There are no word-level scores: the classifier reads the example as a whole, and any
word-level proxy (occlusion, gradients) would be another method. Word lists stay empty.

The soft prompts ship in the package for the default model (SmolLM2-135M-Instruct); a prompt
the user trained for the chosen model (`explorer train`, saved in the cache) comes first. A
model without prompts for both tasks is a `DetectorError` at construction, naming what to run.
"""

from __future__ import annotations

from explorer import lm, prompt_tuning, training_data
from explorer.detectors.base import Detector, DetectorError, DetectorResult, Progress
from explorer.example import Example


class ClassifierDetector(Detector):
    name = "classifier"
    title = "Prompt-tuned classifier"
    version = "1"
    response_word_meaning = "none: the classifier scores the whole example, not words"
    argument_word_meaning = "none: the classifier scores the whole example, not words"

    def __init__(self, model: str | None = None):
        self.language_model = lm.load(model)
        try:
            prompt_dirs = {
                task: prompt_tuning.find_prompt(self.language_model.identity, task) for task in training_data.TASKS
            }
        except training_data.TrainedNotFoundError as error:
            raise DetectorError(str(error)) from error
        self.classifier = prompt_tuning.SoftPromptClassifier(self.language_model, prompt_dirs)

    def config(self) -> dict:
        return {"prompts": dict(self.classifier.digests), "per_perspective": "coverage classifier per perspective"}

    def model_identity(self) -> str:
        prompts = ",".join(f"{task}:{digest[:16]}" for task, digest in sorted(self.classifier.digests.items()))
        return f"{self.language_model.identity}+prompts({prompts})"

    def score(self, example: Example, progress: Progress | None = None) -> DetectorResult:
        several = len(example.perspectives) > 1
        total = 2 + (len(example.perspectives) if several else 0)
        done = 0

        def run(task: str, scored: Example) -> float:
            nonlocal done
            try:
                value = self.classifier.p_error(scored, task)
            except prompt_tuning.PromptTooLongError as error:
                raise DetectorError(str(error)) from error
            done += 1
            if progress is not None:
                progress(done, total)
            return value

        hallucination = run("hallucination", example)
        coverage = run("coverage", example)
        per_perspective = {
            perspective.name: run("coverage", example.replace(perspectives=(perspective,))) if several else coverage
            for perspective in example.perspectives
        }
        return DetectorResult(
            detector=self.name,
            hallucination=hallucination,
            coverage=coverage,
            per_perspective=per_perspective,
            response_words=(),
            argument_words=(),
            info=self.info(),
        )
