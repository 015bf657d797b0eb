"""HTML for the meaning and polarity checks' findings, free of Streamlit: a misstated argument
beside the words that misstate it, the turning words marked (on both sides, where the check knows).

Inspect and the exported report show the same card: "Misstates con argument 2", the argument as
given and the statement as the response puts it, each word that turns the meaning underlined and
shaded by how much it turns it (`explorer.detectors.ops.judge.Judge.turning_words`). Every piece
of user text goes through `html.escape`; styles are inline.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from explorer.data.example import Example
from explorer.detectors import VERDICT_DETECTOR, spec
from explorer.detectors.base import DetectorResult
from explorer.detectors.details import misstatements

_MARK = "background:rgba(239,68,68,{alpha:.2f});text-decoration:underline;text-decoration-color:#991b1b"


def misstatements_among(results: Mapping[str, DetectorResult]) -> list[Mapping]:
    """The misstatements every result of `results` keeps, one per argument: the verdict's
    detector's first, then the others' in their order (what the cards and the claim view show)."""
    ordered = sorted(results.items(), key=lambda item: item[0] != VERDICT_DETECTOR)
    found: dict[tuple[int, ...], Mapping] = {}
    for _, result in ordered:
        for finding in misstatements(result):
            found.setdefault(tuple(finding["argument"]), finding)
    return list(found.values())


def check_title(finding: Mapping) -> str:
    """The check that found it ("Meaning check (judge)", "Polarity check (tuned matcher)")."""
    return spec(finding.get("by", "meaning")).title


def sureness(finding: Mapping) -> str:
    """ "P(misstated) 0.91", or "closeness 0.87 · antonym": what the finding's score is, and how it turns."""
    how = " · " + ", ".join(finding["how"]) if finding.get("how") else ""
    return f"{finding.get('measure', 'P(misstated)')} {finding['misstated']:.2f}{how}"


def marked(text: str, words: Sequence[Sequence[float]], offset: int = 0) -> str:
    """`text` escaped, each `(start, end, score)` of `words` (offsets into the text `text` starts at
    `offset` of) marked with a shade of its score."""
    out, cursor = [], 0
    for start, end, score in sorted((s - offset, e - offset, v) for s, e, v in words):
        if start < cursor or end > len(text) or start < 0:
            continue
        out.append(html.escape(text[cursor:start]))
        style = _MARK.format(alpha=0.15 + 0.45 * max(0.0, min(1.0, score)))
        out.append(f'<span style="{style}">{html.escape(text[start:end])}</span>')
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def misstatement_card(example: Example, finding: Mapping) -> str:
    """One misstated argument: its name and P(misstated), then the argument as given and the
    response's statement side by side, the turning words marked."""
    p, a = finding["argument"]
    argument = example.perspectives[p].arguments[a]
    start, end = finding["piece"]
    turning = finding.get("turning") or {}
    name = html.escape(example.argument_name(*finding["argument"]))
    cell = "flex:1;min-width:14em;padding:0.4em 0.6em;border-radius:0.4em;background:rgba(156,163,175,0.12)"
    return (
        f'<div data-finding="misstates" style="margin:0.4em 0;padding:0.5em 0.7em;border-left:3px solid #991b1b">'
        f"<div><b>Misstates {name}</b> · {html.escape(sureness(finding))} · {html.escape(check_title(finding))}</div>"
        f'<div style="display:flex;gap:0.6em;flex-wrap:wrap;margin-top:0.3em">'
        f'<div style="{cell}"><div style="font-size:0.8em;color:#6b7280">The argument</div>'
        f"{marked(argument, turning.get('argument', []))}</div>"
        f'<div style="{cell}"><div style="font-size:0.8em;color:#6b7280">The response says</div>'
        f"{marked(example.response[start:end], turning.get('response', []), offset=start)}</div>"
        f"</div></div>"
    )


def misstatements_html(example: Example, found: Sequence[Mapping]) -> str:
    """A card per misstatement of `found` (`misstatements`, `misstatements_among`), or ""."""
    return "".join(misstatement_card(example, f) for f in found)
