"""The registry: every detector, listed explicitly, loaded by name.

Heavy detectors import torch and load models, so a registry entry names its class by import
path and the class is imported only when asked for; `rouge` alone never imports torch.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer import console
from explorer.data.labels import CONTENT_TASK, JUDGE_TASK, PAIR_TASK, SPAN_TASK
from explorer.detectors import details
from explorer.detectors.base import (
    ArgumentWordScore,
    Detector,
    DetectorError,
    DetectorResult,
    Progress,
    ResponseWordScore,
)
from explorer.detectors.details import Detail
from explorer.detectors.ops import attribution
from explorer.detectors.options import Option
from explorer.models.trained import MATCHER, Weights

if TYPE_CHECKING:
    from explorer.training import Trainer

__all__ = [
    "ArgumentWordScore",
    "Detector",
    "DetectorError",
    "Detail",
    "DetectorResult",
    "DetectorSpec",
    "FAST",
    "INSTANT",
    "Option",
    "SLOW",
    "Progress",
    "ResponseWordScore",
    "UnknownDetectorError",
    "VERDICT_DETECTOR",
    "Weights",
    "create",
    "detector_class",
    "names",
    "spec",
    "trainable",
    "trainer",
    "verdict_candidates",
    "weights",
]


INSTANT, FAST, SLOW = "instant", "fast", "slow"


@dataclass(frozen=True)
class DetectorSpec:
    """Everything the app, the CLI and reports know about a detector without importing it.

    `cost` decides where it runs: `instant` ones (milliseconds) are computed inline everywhere;
    `fast` ones (well under a second an example) inline for one example and in the background
    for a dataset; `slow` ones (seconds to minutes, a language model) always in the background.
    `uses_model` marks detectors that read the chosen causal LM (`--model`, the sidebar path).
    `options` are its settings the CLI and the sidebar offer (`explorer.detectors.options`);
    `details` lists the `Detail`s its results may keep (`explorer.detectors.details`).
    A learned detector declares where its weights live (`weights`, read by `Weights.find`) and
    the `explorer.training.Trainer` that makes them (`trainer`, "module:Class"). `origin` says
    where the method comes from (the paper's section, or what it follows), for its card.
    """

    name: str
    title: str
    import_path: str
    summary: str
    response_word_meaning: str
    argument_word_meaning: str
    cost: str = FAST
    uses_model: bool = False
    options: tuple[Option, ...] = ()
    details: tuple[Detail, ...] = ()
    weights: Weights | None = None
    trainer: str | None = None
    origin: str = ""

    def background_for_one(self) -> bool:
        return self.cost == SLOW

    def background_for_many(self) -> bool:
        return self.cost != INSTANT


def _tagger(name: str, title: str, class_name: str, summary: str) -> DetectorSpec:
    """A token tagger's entry: the taggers differ only in the data their weights were trained on."""
    return DetectorSpec(
        name,
        title,
        f"explorer.detectors.tagger:{class_name}",
        response_word_meaning="P(the word states something no argument gives), tagged token by token",
        argument_word_meaning="P(the word belongs to what the response leaves out), tagged token by token",
        cost=FAST,
        weights=Weights(name, tasks=(SPAN_TASK,)),
        trainer="explorer.training.tagger:TaggerTrainer",
        summary=summary,
        origin="not in the paper: token classification over arguments and response together, after LettuceDetect",
    )


_SALIENCE_OPTIONS = (
    Option(
        "attribution",
        f"attribution method of the salience detector (--salience-method is an accepted alias; default: "
        f"{attribution.DEFAULT_ATTRIBUTION}, the paper's); "
        + "; ".join(f"{m.name}: {m.title}" for m in attribution.ATTRIBUTIONS.values()),
        default=attribution.DEFAULT_ATTRIBUTION,
        choices={m.name: m.title for m in attribution.ATTRIBUTIONS.values()},
        about="\n\n".join(
            f"**{m.title}** (Captum `{m.captum}`): {m.summary}" for m in attribution.ATTRIBUTIONS.values()
        )
        + "\n\nOnly the paper's attribution has precomputed results for the sample data; the others compute "
        "in the background.",
        aliases=("--salience-method",),
    ),
    Option(
        "steps",
        f"integrated gradients: interpolation steps (default {attribution.DEFAULT_STEPS})",
        type=console.SALIENCE_STEPS,
    ),
    Option(
        "samples",
        f"argument Shapley values: sampled argument orders (default {attribution.DEFAULT_SAMPLES})",
        type=console.SALIENCE_SAMPLES,
    ),
)

_SPECS = (
    DetectorSpec(
        "rouge",
        "ROUGE-1",
        "explorer.detectors.rouge:RougeDetector",
        origin="Chang et al. 2024 §3.1 (ROUGE-1), word level as in §5.3",
        response_word_meaning="1 = the word's stem appears in no argument",
        argument_word_meaning="1 = the word's stem does not appear in the response",
        cost=INSTANT,
        summary="Word overlap: response words found in no argument; argument words absent from the response.",
    ),
    DetectorSpec(
        "semantic",
        "Semantic alignment",
        "explorer.detectors.semantic:SemanticDetector",
        origin="not in the paper: claims aligned with argument sentences by sentence-embedding similarity, after "
        "RefChecker's claim-level checking",
        response_word_meaning="1 - similarity of the word's claim to the best-matching argument sentence",
        argument_word_meaning="1 - similarity of the word's sentence or clause to the best-matching claim",
        cost=FAST,
        details=(details.ALIGNMENT,),
        summary="Meaning match (all-MiniLM-L6-v2): claims no argument sentence supports; arguments no claim covers.",
    ),
    DetectorSpec(
        "salience",
        "Salience",
        "explorer.detectors.salience:SalienceDetector",
        origin="Chang et al. 2024 §3.2 and App. C (gradient x input of a causal LM)",
        response_word_meaning="1 - the largest share of the word's gradient x input that one argument word holds",
        argument_word_meaning="1 - the largest share of any response word's gradient x input that this word holds",
        cost=SLOW,
        uses_model=True,
        options=_SALIENCE_OPTIONS,
        details=(details.HEATMAP, details.TOKENS, details.CONVERGENCE, details.ARGUMENT_SENTENCE),
        summary="Gradient x input of a local LM (default SmolLM2-135M): response words that draw on no argument "
        "word; argument words no response word draws on. Seconds to minutes per example on a CPU.",
    ),
    DetectorSpec(
        "classifier",
        "LM classifier (fine-tuned)",
        "explorer.detectors.classifier:LoraClassifierDetector",
        origin="Chang et al. 2024 §3.3's LM classifier, fine-tuned with LoRA instead of prompt-tuned, one question "
        "per sentence and argument",
        response_word_meaning="P(No) to 'is everything in this word's sentence given by the arguments, or framing?'",
        argument_word_meaning="P(No) to 'does the response state this word's argument?'",
        cost=SLOW,
        uses_model=True,
        weights=Weights("classifier", tasks=(PAIR_TASK,)),
        trainer="explorer.training.classifier:LoraClassifierTrainer",
        summary="LoRA adapters on the language model, fine-tuned on the team-written corpus of realistic answers "
        "and Perspectrum-built synthetic errors: P(No) to one question per response sentence ('given by the "
        "arguments, or framing?') and per argument ('stated?'), all asked in one pass; the largest is the "
        "example's score (python -m explorer.training.classifier).",
    ),
    DetectorSpec(
        "classifier_prompt",
        "LM classifier (prompt-tuned, the paper's)",
        "explorer.detectors.classifier_prompt:PromptClassifierDetector",
        origin="Chang et al. 2024 §3.3 (prompt tuning, 5 virtual tokens)",
        response_word_meaning="none: the classifier scores the whole example, not words",
        argument_word_meaning="none: the classifier scores the whole example, not words",
        cost=SLOW,
        uses_model=True,
        weights=Weights("classifier_prompt"),
        trainer="explorer.training.soft_prompt:SoftPromptTrainer",
        summary="The paper's prompt tuning: two 5-token soft prompts on the frozen language model, trained on "
        "synthetic errors of the sample data: P(No) to 'only the given arguments?' and 'every given argument?'. "
        "No word scores.",
    ),
    DetectorSpec(
        "alignment_classifier",
        "Alignment classifier",
        "explorer.detectors.alignment_classifier:AlignmentClassifierDetector",
        origin="not in the paper: a logistic regression on the semantic alignment, trained on the paper's synthetic "
        "errors (§4.2)",
        response_word_meaning="P(the word's claim states something the arguments do not), learned",
        argument_word_meaning="P(the word's argument is dropped from the response), learned",
        cost=FAST,
        weights=Weights("alignment_classifier"),
        trainer="explorer.training.logistic:LogisticTrainer",
        summary="Logistic regression trained on synthetic errors, reading the semantic alignment (MiniLM "
        "similarities) and word overlap: P(a claim is unsupported), P(an argument is dropped).",
    ),
    DetectorSpec(
        "cross_encoder",
        "Cross-encoder (MiniLM)",
        "explorer.detectors.cross_encoder:CrossEncoderDetector",
        origin="not in the paper: a LoRA cross-encoder trained on the paper's synthetic errors (§4.2)",
        response_word_meaning="P(the word's sentence is not backed by the arguments)",
        argument_word_meaning="P(the word's argument is not stated in the response)",
        cost=FAST,
        weights=Weights("cross_encoder"),
        trainer="explorer.training.cross_encoder:CrossEncoderTrainer",
        summary="all-MiniLM-L6-v2 with LoRA adapters trained on synthetic errors: P(a response sentence is not "
        "backed by the arguments), P(an argument is not in the response).",
    ),
    DetectorSpec(
        "semantic_tuned",
        "Semantic alignment (tuned matcher)",
        "explorer.detectors.semantic_tuned:SemanticTunedDetector",
        origin="not in the paper: the semantic alignment with an encoder tuned on ArgKP key-point matching (KPA 2021)",
        response_word_meaning="1 - tuned-matcher similarity of the word's claim to the best-matching argument sentence",
        argument_word_meaning="1 - tuned-matcher similarity of the word's sentence or clause to the best claim",
        cost=FAST,
        weights=MATCHER,
        trainer="explorer.training.matcher:MatcherTrainer",
        details=(details.ALIGNMENT,),
        summary="Semantic alignment with MiniLM + a LoRA matcher fine-tuned on ArgKP train matches "
        "(explorer/resources/matcher).",
    ),
    DetectorSpec(
        "voice",
        "Voice check (tuned matcher)",
        "explorer.detectors.voice:VoiceDetector",
        origin="not in the paper as a detector: it targets the paper's ambiguous perspective confusion",
        response_word_meaning="how much closer the word's claim is to the other side's arguments than to its camp's",
        argument_word_meaning="the same margin, on an argument the response states in the other side's voice",
        cost=FAST,
        details=(details.ALIGNMENT,),
        summary="Perspective confusion: a given argument stated in the other side's voice. Each sentence's camp is "
        'read from headers, subjects and turns ("Critics also note...", "**Arguments against**"), each camp '
        "is matched to the perspective it mostly states, and a claim closer to another perspective's arguments "
        "than to its camp's is confused by the difference. No coverage signal beyond that argument.",
    ),
    DetectorSpec(
        "qualifiers",
        "Qualifier check (tuned matcher)",
        "explorer.detectors.qualifiers:QualifierDetector",
        origin="not in the paper as a detector: it targets the paper's ambiguous partial hallucination",
        response_word_meaning="1 - 0.5^k for the k certainty words its claim adds to the argument it states "
        '("will" for "may", "only", "guarantees"), on those words',
        argument_word_meaning="the same score, on an argument the response states with more certainty",
        cost=FAST,
        details=(details.ALIGNMENT,),
        summary="Partial hallucination: a given argument stated with more certainty than it has. For each claim "
        "that states an argument (tuned matcher), the absolutes it adds (always, only, every, guarantees, proves, "
        'far more...) and a hedge it drops ("will" where the argument says "may"). English word lists.',
    ),
    DetectorSpec(
        "polarity",
        "Polarity check (tuned matcher)",
        "explorer.detectors.polarity:PolarityDetector",
        origin="not in the paper as a detector: a misstated argument (its meaning turned by a negation or an "
        "opposite word) read by rule over the tuned matcher's alignment",
        response_word_meaning="its claim's similarity to the argument it turns, on the words that turn it (a "
        "negation one of the two lacks, an opposite word)",
        argument_word_meaning="the same score, on an argument the response states with its meaning turned",
        cost=FAST,
        details=(details.ALIGNMENT, details.FINDINGS),
        summary="Misstatement by polarity: a given argument stated with a negation it lacks or an opposite word "
        '("decreases" for "increasing", "minority" for "majority", "less" for "more"), two turns cancelling '
        '("does not respect" for "violates"). For each claim that states an argument (tuned matcher), the words '
        "that turn it. English word lists; swapped roles are not seen.",
    ),
    DetectorSpec(
        "invention",
        "Invented content (judge + content head)",
        "explorer.detectors.invention:InventionDetector",
        origin="not in the paper: RefChecker's neutral claims, read per piece of the answer against every argument, "
        "with a head that tells content from framing",
        response_word_meaning="P(the word's piece says something) x P(no given argument is stated in it)",
        argument_word_meaning="none: the check scores the response only (0 on every argument word)",
        cost=FAST,
        weights=Weights("invention", tasks=(CONTENT_TASK,)),
        trainer="explorer.training.invention:InventionTrainer",
        summary="Invented content: a piece of the answer (cut at every comma, semicolon and colon) that says "
        "something, by a logistic head on its MiniLM embedding trained on the team-written corpus's invented spans "
        "against its framing pieces, and in which the meaning judge finds no given argument stated. Catches a "
        "background fact, a rebuttal, a consensus claim or a side-taking conclusion; no coverage signal.",
    ),
    DetectorSpec(
        "matching",
        "Matching check (tuned matcher)",
        "explorer.detectors.matching:MatchingDetector",
        origin="not in the paper: coverage as an assignment problem between arguments and pieces of the answer",
        response_word_meaning="none: the check scores arguments only (0 on every word)",
        argument_word_meaning="1 - tuned-matcher similarity of the argument to the piece of the response it is "
        "paired with, one piece per argument",
        cost=FAST,
        summary="Coverage, one to one: the response is cut at every comma and semicolon, and each argument is "
        "paired with its own piece so that the pairs' similarities (tuned matcher) add up to the most. An argument "
        "that only resembles a piece another argument states better is left unpaired or poorly paired. No "
        "hallucination signal.",
    ),
    DetectorSpec(
        "meaning",
        "Meaning check (judge)",
        "explorer.detectors.meaning:MeaningDetector",
        response_word_meaning="P(the word's piece misstates an argument) x how much the word turns its meaning",
        argument_word_meaning="1 - P(some piece of the response states the argument with its meaning)",
        cost=FAST,
        weights=Weights("meaning", tasks=(JUDGE_TASK,)),
        trainer="explorer.training.judge:JudgeTrainer",
        details=(details.FINDINGS,),
        origin="not in the paper: RefChecker's entailment / contradiction / neutral, judged per argument against the "
        "pieces of the answer that may state it, by a cross-encoder trained on the team's own misstatements",
        summary="Each argument judged against the pieces of the response that may state it (the tuned matcher's "
        "closest eight; the closest four can cover it, and every piece where those four do not) by a judge, "
        "all-MiniLM-L6-v2 with LoRA adapters and a "
        "three-way head trained on the team-written corpus, Perspectrum's clusters and rule-built misstatements "
        "(python -m explorer.training.judge): the piece states it, misstates it (negated, an opposite word, a flipped "
        "comparison, swapped roles) or leaves it out. Hallucination: the most misstated argument; coverage: the "
        "argument least stated.",
    ),
    DetectorSpec(
        "alignment_classifier_tuned",
        "Alignment classifier (tuned matcher)",
        "explorer.detectors.alignment_classifier_tuned:AlignmentClassifierTunedDetector",
        origin="not in the paper: the alignment classifier on the tuned matcher, trained on Perspectrum-built "
        "synthetic errors (§4.2)",
        response_word_meaning="P(the word's claim states something the arguments do not), learned",
        argument_word_meaning="P(the word's argument is dropped from the response), learned",
        cost=FAST,
        weights=Weights("alignment_classifier_tuned"),
        trainer="explorer.training.tuned_alignment_classifier:TunedLogisticTrainer",
        summary="The alignment classifier retrained on Perspectrum-built synthetic errors (+ sample train), reading "
        "the tuned matcher's alignment; C chosen on Perspectrum dev "
        "(python -m explorer.training.tuned_alignment_classifier).",
    ),
    DetectorSpec(
        "cross_encoder_tuned",
        "Cross-encoder (Perspectrum)",
        "explorer.detectors.cross_encoder_tuned:CrossEncoderTunedDetector",
        origin="not in the paper: the cross-encoder trained on Perspectrum-built synthetic errors (§4.2)",
        response_word_meaning="P(the word's sentence is not backed by the arguments), learned on human paraphrases",
        argument_word_meaning="P(the word's argument is not stated in the response), learned on human paraphrases",
        cost=FAST,
        weights=Weights("cross_encoder_tuned"),
        trainer="explorer.training.tuned_cross_encoder:TunedCrossEncoderTrainer",
        summary="The cross-encoder retrained on Perspectrum-built synthetic errors (+ sample train), step chosen "
        "on Perspectrum dev (python -m explorer.training.tuned_cross_encoder, ~33 min on one CPU thread).",
    ),
    _tagger(
        "tagger",
        "Token tagger (MiniLM)",
        "TaggerDetector",
        "all-MiniLM-L6-v2 with LoRA adapters reads the arguments and the response together and tags each "
        "token, as LettuceDetect does, both ways: response words no argument gives (invented clauses inside "
        "supported sentences, openers and closers included) and argument words the response leaves out. It reads each "
        "answer twice, as given and with each side's arguments reversed, and averages each word's two scores, so the "
        "order of the arguments does not change its scores. Trained on the team-written corpus of realistic answers "
        "and Perspectrum train (python -m explorer.training.tagger).",
    ),
    _tagger(
        "tagger_coverage",
        "Token tagger, coverage build (MiniLM)",
        "CoverageTaggerDetector",
        "The token tagger trained on its data plus assistant-style answers whose errors are arguments: "
        "dropped ones, and ones of the claim the input lacks (python -m explorer.data.perspectrum_answers "
        "--invented arguments). It reads both argument orders too, but keeps the reading that finds the answer more "
        "faithful. It ranks dropped arguments better than the tagger and invented facts worse; the stacked detector "
        "reads its coverage scores.",
    ),
    DetectorSpec(
        "stacked",
        "Stacked (ROUGE-1 + alignments + taggers + checks)",
        "explorer.detectors.stacked:StackedDetector",
        origin="not in the paper: stacking, a logistic regression over the other detectors' example scores",
        response_word_meaning="not learned: the token tagger's P(the word states something no argument gives), "
        "raised to the voice check's margin where the word's claim is voiced by the wrong side, and to the polarity "
        "check's score where the word turns a given argument's meaning",
        argument_word_meaning="not learned: the token tagger's P(the word belongs to what the response leaves out)",
        cost=FAST,
        weights=Weights("stacked"),
        trainer="explorer.training.stacked:StackedTrainer",
        details=(details.ALIGNMENT, details.LEFT_OUT, details.EVIDENCE, details.FINDINGS),
        summary="Logistic regression over ROUGE-1's, the semantic alignment's, the tuned matcher's, the tuned "
        "alignment classifier's, the token tagger's, its coverage build's, the matching check's, the voice check's, "
        "the qualifier check's, the polarity check's, the meaning check's and the invention check's example scores, "
        "fitted on the half of "
        "Perspectrum train and of the team-written corpora (both recipes) the taggers never saw, C and features "
        "chosen on the worst slice of both foreign NPOV dev sets and Perspectrum dev "
        "(python -m explorer.cli.stacked). The verdict's detector; where its heads read the meaning check, it keeps "
        "that check's findings, shown as cards under the verdict, and a misstatement that check is sure of "
        "(P(misstated) at least stacked.SURE) sets the least P(error) it gives; that check's doubt that an argument "
        "is stated joins P(coverage error) by noisy-or (weight stacked.DOUBT), as does the likeliest dropped "
        "argument's P(dropped) by a head that reads each argument's own word scores and the answer's size "
        "(weight stacked.ARGUMENT_WEIGHT).",
    ),
)
_BY_NAME = {s.name: s for s in _SPECS}

# The detector whose calibrated scores give the verdict (Inspect, reports, `explorer.inspect`)
# and whose tab opens first: among the `verdict_candidates`, the one that generalizes best
# beyond the sample data, by mean dev ROC AUC over the two error types on the data of
# resources/calibration.json (`bench/calibrate.py --data` prints the ranking; a test keeps this
# name and that file in step).
VERDICT_DETECTOR = "stacked"


def verdict_candidates() -> list[str]:
    """The detectors that may give the verdict: those not slow, since every example the app shows
    is judged at once, inline (a slow one, a language model on a long answer, takes seconds)."""
    return [s.name for s in _SPECS if not s.background_for_one()]


class UnknownDetectorError(KeyError):
    def __init__(self, name: str, available: list[str] | None = None):
        super().__init__(name)
        self.name = name
        self.available = available

    def __str__(self) -> str:
        return f"unknown detector {self.name!r}; available: {', '.join(self.available or names())}"


def names() -> list[str]:
    return [s.name for s in _SPECS]


def spec(name: str) -> DetectorSpec:
    if name not in _BY_NAME:
        raise UnknownDetectorError(name)
    return _BY_NAME[name]


def _load(import_path: str):
    module_name, class_name = import_path.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def detector_class(name: str) -> type[Detector]:
    return _load(spec(name).import_path)


def trainable() -> list[str]:
    """The learned detectors: those `explorer train` can train."""
    return [s.name for s in _SPECS if s.trainer]


def weights(name: str) -> Weights:
    """Where learned detector `name`'s weights live."""
    if not spec(name).weights:
        raise UnknownDetectorError(name, trainable())
    return spec(name).weights


def trainer(name: str) -> Trainer:
    """A new trainer for learned detector `name`."""
    if not spec(name).trainer:
        raise UnknownDetectorError(name, trainable())
    return _load(spec(name).trainer)()


def create(name: str, model: str | None = None, **options) -> Detector:
    """Instantiate detector `name`; `model` (a causal LM path) goes only to detectors that read
    one, other `options` to its constructor."""
    if model and spec(name).uses_model:
        options["model"] = model
    return detector_class(name)(**options)
