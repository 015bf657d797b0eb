"""Commands beyond scoring, registered by `explorer.cli`: `explorer generate` and
`explorer train --task generator` (the NPOV response generator, Chang et al. 2024 §2.1),
`explorer claims` (RefChecker-style claim checking, Hu et al. 2024), `explorer eval
--ablation` (the paper's Table 2) and `explorer build-data` (training and dev examples built from
Perspectrum, `explorer.data.perspectrum`).

Each command is one `run_*` function; `add_parsers` adds their subcommands.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from explorer import console
from explorer.cli.common import (
    EXIT_IO,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_SERVER,
    EXIT_USAGE,
    CliError,
    checked_step_options,
    load,
    load_training_files,
)
from explorer.cli.guard import Files, declare
from explorer.files import write_text

ADAPTER_CHOICES = ("auto", "none")


def add_parsers(commands) -> None:
    add_generate_parser(commands)
    add_claims_parser(commands)
    add_build_data_parser(commands)


def run_generate(args: argparse.Namespace) -> int:
    from explorer.data.jsonl import dumps
    from explorer.generation.backends import Backend, load_generator
    from explorer.generation.base import GenerationSettings
    from explorer.generation.npov import ContextTooLongError
    from explorer.generation.server import ServerError

    loaded = load(args.input)
    try:
        settings = GenerationSettings(
            max_new_tokens=args.max_new_tokens,
            sample=args.sample,
            temperature=args.temperature,
            top_p=args.top_p,
            seed=args.seed,
        )
    except ValueError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    if args.base_url is None and args.api_key_env is not None:
        raise CliError("--api-key-env: only with --base-url (a model run here needs no key)", EXIT_USAGE)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    backend = Backend(
        model=args.model or "",
        base_url=args.base_url or "",
        api_key_env=args.api_key_env or "",
        timeout=args.timeout,
        retries=args.retries,
        deadline=args.deadline,
        adapter=args.adapter,
        guard=not args.no_guard,
    )
    try:
        generator = load_generator(backend)
    except ValueError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    if not args.quiet:
        print(f"generating with {', '.join(f'{k} {v}' for k, v in generator.generated_by.items())}", file=sys.stderr)
    written, refused = [], 0
    for example in tqdm(loaded.examples, unit="example", file=sys.stderr, disable=args.quiet):
        try:
            written.append(dumps(generator.generated_example(example, settings)))
        except ContextTooLongError as error:
            refused += 1
            tqdm.write(f"{example.id}: refused: {error}", file=sys.stderr)
        except ServerError as error:  # the server's answers would all fail alike: stop
            raise CliError(f"{example.id}: {error}; nothing was written", EXIT_SERVER) from error
    write_text(args.out, "".join(line + "\n" for line in written))
    if not args.quiet:
        print(f"wrote {len(written)} response(s) to {args.out}; {refused} refused", file=sys.stderr)
    return EXIT_OK if loaded.ok and not refused else EXIT_PARTIAL


def given_adapter(args: argparse.Namespace) -> Path | None:
    """The adapter folder `--adapter` names, None for auto or none."""
    return None if args.adapter in ADAPTER_CHOICES else Path(args.adapter)


def local_model(args: argparse.Namespace) -> Path | None:
    """The model folder or file `--model` names when the model runs here; with `--base-url` it is
    the server's name for its model, not a path."""
    return Path(args.model) if args.model and args.base_url is None else None


def add_generate_parser(commands) -> None:
    from explorer.generation.server import DEFAULT_DEADLINE, DEFAULT_RETRIES, DEFAULT_TIMEOUT

    generate = commands.add_parser(
        "generate",
        help="write responses with the NPOV response generator (the paper's §2.1): a local LM, or a model on an "
        "OpenAI-compatible server (--base-url)",
    )
    generate.add_argument("input", type=Path, help="JSON Lines examples (their responses are not read)")
    generate.add_argument(
        "--out", type=Path, required=True, help="output JSON Lines: the examples, new responses, no labels"
    )
    generate.add_argument(
        "--model",
        help="causal LM: a local HF folder or .gguf file (default: packaged SmolLM2); with --base-url, the name "
        "the server gives its model",
    )
    generate.add_argument("--seed", type=console.SEED, default=0, help="random seed for --sample (default 0)")
    generate.add_argument(
        "--max-new-tokens", type=console.NEW_TOKENS, default=400, help="most tokens to write (default 400)"
    )
    generate.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    generate.add_argument("--temperature", type=console.TEMPERATURE, default=0.7, help="with --sample (default 0.7)")
    generate.add_argument("--top-p", type=console.TOP_P, default=0.9, help="with --sample (default 0.9)")
    generate.add_argument(
        "--adapter",
        default="auto",
        help="auto: the LoRA adapter trained for the model, if any (yours from `explorer train --task generator`, "
        "else the packaged one for the packaged SmolLM2); none; or a trained folder (default auto; a model run "
        "here only)",
    )
    generate.add_argument(
        "--no-guard",
        action="store_true",
        help="decode without the coverage guard (with an adapter, a side's section stays open until it states "
        "each of that side's arguments; explorer.generation.coverage_guard)",
    )
    generate.add_argument("--threads", type=console.THREADS, help="torch CPU threads (default: torch's choice)")
    server = generate.add_argument_group("OpenAI-compatible server (vLLM, Ollama, llama.cpp, TGI, transformers serve)")
    server.add_argument("--base-url", help="the server's API address, e.g. http://127.0.0.1:8000/v1")
    server.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable holding the API key (the key is never written anywhere; default: no key)",
    )
    server.add_argument(
        "--timeout",
        type=console.TIMEOUT,
        default=DEFAULT_TIMEOUT,
        help=f"seconds to wait to connect and for each piece of an answer (default {DEFAULT_TIMEOUT:g})",
    )
    server.add_argument(
        "--deadline",
        type=console.DEADLINE,
        default=DEFAULT_DEADLINE,
        help=f"seconds for a whole answer, all tries together (default {DEFAULT_DEADLINE:g})",
    )
    server.add_argument(
        "--retries",
        type=console.RETRIES,
        default=DEFAULT_RETRIES,
        help=f"retries of a failed connection, a time-out, 408, 409, 429 or 5xx, 0-{console.MAX_RETRIES} "
        f"(default {DEFAULT_RETRIES})",
    )
    generate.add_argument("--quiet", action="store_true", help="no progress bar")
    generate.set_defaults(run=run_generate)
    declare(
        generate,
        Files(inputs=("input",), also_read=lambda args: [given_adapter(args), local_model(args)], output="out"),
    )


def run_train_generator(args: argparse.Namespace) -> int:
    import torch

    from explorer.config import SAMPLE_DIR
    from explorer.evaluation.verdict import answer_check
    from explorer.generation.npov import GENERATOR, STYLE
    from explorer.models.trained import user_trained_dir
    from explorer.training import TrainingInputError, TrainingRequest
    from explorer.training.generator import GeneratorTrainer, generator_examples

    paths = args.data or [SAMPLE_DIR / "examples.jsonl"]
    if args.threads:
        torch.set_num_threads(args.threads)
    examples = load_training_files(paths)
    splits = ["train", "dev"] if args.with_dev else ["train"]
    train_set = generator_examples(examples, splits)
    dev_set = generator_examples(examples, ["dev"])
    print(
        f"training the generator's LoRA adapter on {len(train_set)} error-free responses ({'+'.join(splits)}), "
        f"dev {len(dev_set)}, {torch.get_num_threads()} thread(s)",
        file=sys.stderr,
    )
    trainer = GeneratorTrainer()
    steps = checked_step_options(args, "generator", trainer.settings, trainer.no_step_options)
    request = TrainingRequest(
        task="generator",
        train_set=train_set,
        dev_set=dev_set,
        dev_is_held_out=not args.with_dev,
        model=args.model,
        seed=args.seed,
        steps=steps,
        log=lambda line: print(line, file=sys.stderr, flush=True),
        check_answer=answer_check(),
    )
    try:
        model, record = trainer.train(request)
    except TrainingInputError as error:
        raise CliError(str(error), EXIT_USAGE) from error
    record["data"] = [path.name for path in paths]
    out = args.out or user_trained_dir(GENERATOR, record["model"], STYLE)
    try:
        trainer.save(model, record, out)
    except OSError as error:
        raise CliError(f"cannot write {out}: {error.strerror or error}", EXIT_IO) from error
    print(f"kept step {record['kept_step']}; wrote {out} ({record['seconds']:.0f} s)", file=sys.stderr)
    return EXIT_OK


def run_claims(args: argparse.Namespace) -> int:
    from collections import Counter

    from explorer.detectors.ops.alignment import TooLongError
    from explorer.scoring.refchecker import claim_report, dumps_reports

    loaded = load(args.input)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    extractor = None
    if args.granularity == "triplet":
        from explorer.generation.triplets import TripletExtractor
        from explorer.models.language_model import ModelNotFoundError, load_language_model

        try:
            extractor = TripletExtractor(load_language_model(args.model), max_new_tokens=args.max_new_tokens)
        except ModelNotFoundError as error:
            raise CliError(str(error), EXIT_USAGE) from error
    encoder, settings = claim_checker(args.encoder)
    reports, failed = [], 0
    for example in tqdm(loaded.examples, unit="example", file=sys.stderr, disable=args.quiet):
        try:
            reports.append(claim_report(example, args.granularity, encoder, extractor, settings))
        except TooLongError as error:
            failed += 1
            tqdm.write(f"{example.id}: {error}", file=sys.stderr)
    write_text(args.out, dumps_reports(reports, args.aggregator))
    labels = Counter(label for r in reports for label in r.to_refchecker()["ys"])
    print(
        f"wrote {len(reports)} report(s), {sum(labels.values())} {args.granularity} claim(s) "
        f"({', '.join(f'{n} {label}' for label, n in sorted(labels.items())) or 'none'}) to {args.out}",
        file=sys.stderr,
    )
    return EXIT_OK if loaded.ok and not failed else EXIT_PARTIAL


def claim_checker(encoder_path: str | None):
    """The encoder and reading settings claims are checked with: by default the Inspect claim
    view's (the encoder and match threshold chosen on Perspectrum dev at claim level); a given
    `--encoder` is read with the default settings, its threshold not being chosen for it."""
    from explorer import detectors
    from explorer.detectors.ops.alignment import DEFAULT_SETTINGS
    from explorer.evaluation.claim_level import claim_view_choice
    from explorer.models.encoder import shared_encoder

    if encoder_path:
        try:
            return shared_encoder(encoder_path), DEFAULT_SETTINGS
        except FileNotFoundError as error:
            raise CliError(str(error), EXIT_USAGE) from error
    choice = claim_view_choice()
    try:
        detector = detectors.create(choice.detector)
    except detectors.DetectorError as error:
        raise CliError(f"{choice.detector}: {error}", EXIT_USAGE) from error
    return detector.encoder, choice.settings(detector.settings)


def add_claims_parser(commands) -> None:
    claims = commands.add_parser(
        "claims",
        help="check each claim (a knowledge triplet or a sentence) against the arguments: entailment, neutral or "
        "contradiction, written as RefChecker JSON",
    )
    claims.add_argument("input", type=Path, help="JSON Lines examples")
    claims.add_argument("--out", type=Path, required=True, help="output: one JSON array of RefChecker items")
    claims.add_argument(
        "--granularity",
        choices=("triplet", "sentence"),
        default="triplet",
        help="triplet: (subject, predicate, object) extracted by the language model; sentence: each sentence "
        "(default triplet)",
    )
    claims.add_argument(
        "--aggregator",
        choices=("strict", "soft", "major"),
        default="soft",
        help="RefChecker's rule for the response's label Y (default soft); all three are under `aggregated`",
    )
    claims.add_argument(
        "--model", help="triplet extractor: a local HF folder or .gguf file (default: packaged SmolLM2)"
    )
    claims.add_argument(
        "--max-new-tokens", type=console.NEW_TOKENS, default=60, help="most tokens of triplets per sentence (60)"
    )
    claims.add_argument(
        "--encoder",
        help="sentence-transformers folder, read at match 0.67 (default: the claim view's encoder and threshold, "
        "chosen on Perspectrum dev: the tuned matcher at 0.63)",
    )
    claims.add_argument("--threads", type=console.THREADS, help="torch CPU threads (default: torch's choice)")
    claims.add_argument("--quiet", action="store_true", help="no progress bar")
    claims.set_defaults(run=run_claims)
    declare(claims, Files(inputs=("input", "model", "encoder"), output="out"))


def run_build_data(args: argparse.Namespace) -> int:
    from explorer.data import perspectrum

    try:
        return perspectrum.run(args)
    except ValueError as error:  # a test split asked for
        raise CliError(str(error), EXIT_USAGE) from error
    except OSError as error:  # a Perspectrum file missing or not a regular file; the output's folder cannot be made
        raise CliError(f"{error.filename or args.out}: {error.strerror or error}", EXIT_IO) from error


def _earlier_stages(json_path: Path, record: dict) -> list:
    """The stages of the ablation record at `json_path` when it was run with the same detector,
    data and settings as `record` (a rerun after a time limit goes on from there), else none. A
    record that cannot be read back (not JSON, another shape, forged figures) is ignored with a
    warning: its stages are trained again."""
    from explorer.data.jsonl import loads
    from explorer.evaluation.ablation import stage_result
    from explorer.files import MAX_INPUT_BYTES, read_regular

    def ignored(problem: str) -> list:
        print(f"explorer: warning: {json_path}: {problem}; no stage is kept from it", file=sys.stderr)
        return []

    try:
        earlier = loads(read_regular(json_path, MAX_INPUT_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return []
    except OSError as error:
        return ignored(f"cannot be read ({error.strerror or error})")
    except ValueError as error:  # not UTF-8, not JSON
        return ignored(f"is not an ablation record ({error})")
    if not isinstance(earlier, dict):
        return ignored("is not an ablation record (not a JSON object)")
    if any(earlier.get(key) != value for key, value in record.items()):
        return []
    stages = earlier.get("stages", [])
    if not isinstance(stages, list):
        return ignored("its stages are not a list")
    kept = []
    for i, stage in enumerate(stages):
        try:
            kept.append(stage_result(stage))
        except ValueError as error:
            return ignored(f"stages[{i}]: {error}")
    if len({result.stage for result in kept}) < len(kept):
        return ignored("it gives a stage twice")
    return kept


def add_build_data_parser(commands) -> None:
    from explorer.data.perspectrum import add_arguments

    build = commands.add_parser(
        "build-data",
        help="build NPOV examples (error-free paraphrased + the paper's synthetic errors) from Perspectrum's "
        "train and dev splits (never its test split), written outside the repository",
    )
    add_arguments(build)
    build.set_defaults(run=run_build_data)
    declare(build, Files(inputs=("data",), output="out", third_party=True))


def run_ablation(args: argparse.Namespace) -> int:
    import hashlib
    import json

    from explorer import detectors
    from explorer.cli.score import report_paths
    from explorer.evaluation.ablation import markdown_table, stage_record
    from explorer.evaluation.ablation import run_ablation as ablate
    from explorer.training import TrainingInputError

    loaded = load(args.input)
    if not loaded.ok:
        raise CliError(f"{args.input} has invalid lines; fix them before training on it", EXIT_IO)
    if args.scores is not None:
        raise CliError(
            "--scores does not apply to --ablation: each stage trains and scores its own detector", EXIT_USAGE
        )
    trainer = detectors.trainer(args.ablation)
    steps = checked_step_options(args, args.ablation, trainer.settings, trainer.no_step_options)
    evaluated_file = args.evaluate_on or args.input
    split = args.split or (None if args.evaluate_on else "test")
    source = load(evaluated_file) if args.evaluate_on else loaded
    evaluated = [e for e in source.examples if split is None or e.split == split]
    if not evaluated:
        raise CliError(f"no {split or 'labelled'} examples in {evaluated_file} to evaluate on", EXIT_USAGE)
    markdown_path, json_path = report_paths(args.out)
    record = {
        "method": args.ablation,  # the detector; the record's field keeps its name (saved ablation records)
        "data": str(args.input),
        "data_sha256": hashlib.sha256(args.input.read_bytes()).hexdigest(),
        "evaluated_on": str(evaluated_file),
        "evaluated_sha256": hashlib.sha256(evaluated_file.read_bytes()).hexdigest(),
        "split": split,
        "settings": steps,
        "model": args.model,
        "seed": args.seed,
    }
    done = _earlier_stages(json_path, record)

    def save(results) -> str:
        which = f"the {len(evaluated)} {split} examples" if split else f"all {len(evaluated)} examples"
        table = markdown_table(results, args.ablation) + f"\nEvaluated on {which} of `{evaluated_file.name}`.\n"
        write_text(markdown_path, table)
        write_text(json_path, json.dumps({**record, "stages": [stage_record(r) for r in results]}, indent=2) + "\n")
        return table

    try:
        results = ablate(
            loaded.examples,
            evaluated,
            args.ablation,
            model=args.model,
            seed=args.seed,
            steps=steps,
            done=done,
            save=save,
            log=lambda line: None if args.quiet else print(line, file=sys.stderr, flush=True),
        )
    except (TrainingInputError, ValueError) as error:
        raise CliError(str(error), EXIT_USAGE) from error
    table = save(results)  # written again when every stage was kept
    if not args.quiet:
        print(table)
    return EXIT_OK
