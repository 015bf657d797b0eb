"""Text pools for answers written the way chat assistants write them (`explorer.data.answer_styles`,
`explorer.data.perspectrum_answers`): framing with no content, section headers, lead-ins, and the
invented content woven into an answer as an error.

All of it was written for this project. Framing lines say nothing a reader could check (a
restated question, "it depends on your values", an offer to say more), so they are never errors;
the invented pools say something checkable that no argument gives (a statistic, a study, a named
place, a reason, a court ruling, a quote), so they are always errors. Many templates take the
claim (`{c}`, lower-cased to follow "whether") so that invented content is as on-topic as real
answers make it: a tagger must not learn "off-topic means invented". Numbers, years and names are
drawn at build time (`fill`), so one template gives many different sentences.
"""

from __future__ import annotations

import random
import re

QUERIES = (
    "Is it true that {c}?",
    "Do you agree that {c}?",
    "What are the arguments for and against the claim that {c}?",
    "What do both sides say about whether {c}?",
    "Can you give me a balanced view on whether {c}?",
    "I keep hearing that {c}. What are the main arguments?",
    "Summarize the debate over whether {c}.",
    "Is there a good case that {c}?",
    "What do people think about the idea that {c}?",
    "Pros and cons: {c}?",
)
QUESTION_CHANCE = 0.4  # of the claims `yes_no_question` can turn, how many users ask that way

# The auxiliary a yes/no question fronts, as that question writes it ("must" reads as "should").
_FRONTED = {"is": "Is", "are": "Are", "should": "Should", "must": "Should", "can": "Can", "will": "Will"}
_AUXILIARY = re.compile(r"\b(is|are|should|must|can|will)\b(?! (?:not|n't)\b)")


def yes_no_question(claim: str) -> str | None:
    """The claim asked the way users ask ("school uniforms should be required" -> "Should school
    uniforms be required?"), or None when its first auxiliary does not follow a short subject.

    Real queries are questions like this far more often than "Is it true that ...?", and a
    generator must learn to restate such a question as the statement it asks about."""
    match = _AUXILIARY.search(claim)
    if match is None:
        return None
    subject, rest = claim[: match.start()].strip(), claim[match.end() :].strip()
    if not subject or not rest or len(subject.split()) > 8 or any(c in subject for c in ",;:()"):
        return None
    return f"{_FRONTED[match.group(1)]} {subject} {rest}?"


OPENERS = (
    "Whether {c} is a question people answer differently.",
    "The question of whether {c} doesn't have a single right answer.",
    "People disagree about whether {c}, and both sides have reasons.",
    "Here is an overview of the main arguments.",
    "Here's a balanced look at both sides.",
    "Great question! There are thoughtful arguments on each side.",
    "Short answer: it's contested.",
    "This is a genuinely debated topic.",
    "It depends a lot on your values and priorities.",
    "There's no consensus on this one.",
    "Reasonable people land in different places on whether {c}.",
    "The debate over whether {c} comes down to a few key points.",
    "Sure! Here are the main arguments people make.",
    "Good question, and a divisive one.",
    "Let's look at what each side says.",
    "Opinions on whether {c} are split.",
    "You asked whether {c}. Here is how the debate usually goes.",
    "Views differ, so here are the strongest points on each side.",
    "This one is complicated, and the answer depends on what you care about most.",
    "Below are the most common arguments on both sides.",
    "Here's a quick rundown.",
    "That {c} is a claim with committed supporters and critics.",
    "Happy to break this down.",
    "There are two broad camps on this question.",
)

CLOSERS = (
    "Ultimately, where you land depends on how you weigh these considerations.",
    "In short, both sides raise serious points.",
    "Let me know if you'd like more detail on either side.",
    "It comes down to your values.",
    "So whether {c} depends on which of these concerns matter most to you.",
    "Both views deserve a fair hearing.",
    "In summary, the debate turns on how these arguments are weighed against each other.",
    "Which side is more convincing is ultimately a judgement call.",
    "Hope this helps you think it through!",
    "Neither side has a knockout argument, which is why the debate continues.",
    "Overall, it's a trade-off rather than a clear-cut question.",
    "I can go deeper on any of these points if that's useful.",
    "Bottom line: it depends on your priorities.",
    "To sum up, there are reasonable arguments for and against.",
    "How you answer probably depends on what you value more.",
    "That's the gist of both positions.",
    "Thoughtful people continue to disagree on this.",
    "In the end, it's a question of priorities.",
)

TLDR = (
    "TL;DR: it's contested, with real points on both sides.",
    "**In brief:** people disagree, and each side has a case.",
    "Quick summary: there are arguments both ways.",
    "**Short version:** it depends on what you prioritize.",
)

HEADERS = {
    "pro": (
        "## Arguments for",
        "### The case for",
        "**Pros**",
        "**In favour:**",
        "Arguments in support:",
        "### Why some say yes",
        "**Supporters argue:**",
        "## Pro",
        "**For:**",
        "Points in favour:",
        "### Arguments in favour",
        "**The case for it**",
    ),
    "con": (
        "## Arguments against",
        "### The case against",
        "**Cons**",
        "**Against:**",
        "Arguments against:",
        "### Why some say no",
        "**Critics argue:**",
        "## Con",
        "**Objections:**",
        "Points against:",
        "### Objections",
        "**The case against it**",
    ),
}

BULLETS = ("- ", "* ", "• ", "– ")

FIRST = {
    "pro": (
        "Supporters argue that {x}",
        "Those in favour point out that {x}",
        "Proponents say that {x}",
        "The main argument for it is that {x}",
        "Advocates contend that {x}",
        "People who agree note that {x}",
        "On the yes side, {x}",
        "One common argument is that {x}",
        "Those who back the idea say {x}",
        "The case for rests on the point that {x}",
        "Many who support it believe that {x}",
    ),
    "con": (
        "Critics respond that {x}",
        "Opponents argue that {x}",
        "On the other hand, {x}",
        "Those against it say that {x}",
        "Sceptics counter that {x}",
        "People who disagree point out that {x}",
        "On the no side, {x}",
        "The strongest objection is that {x}",
        "Others push back, arguing that {x}",
        "Those opposed worry that {x}",
        "Detractors maintain that {x}",
    ),
}

NEXT = {
    "pro": (
        "They also argue that {x}",
        "In addition, {x}",
        "Moreover, {x}",
        "They add that {x}",
        "Another point in its favour is that {x}",
        "Furthermore, {x}",
        "Supporters also note that {x}",
        "A related point is that {x}",
        "There's also the argument that {x}",
        "Beyond that, {x}",
    ),
    "con": (
        "They also warn that {x}",
        "Critics further argue that {x}",
        "In addition, {x}",
        "They point out, too, that {x}",
        "Another objection is that {x}",
        "Moreover, {x}",
        "Opponents also say that {x}",
        "A further concern is that {x}",
        "Some also argue that {x}",
        "Beyond that, {x}",
    ),
}

JOINERS = (", and they add that {x}", ", and {x}", "; they also say that {x}", ", while {x}", ", and also that {x}")

# -- invented content ------------------------------------------------------------------------

REASONS = (
    "since the costs tend to fall hardest on low-income families",
    "because most of the evidence comes from small pilot programmes",
    "since enforcement varies widely from one region to the next",
    "because the benefits usually take a decade or more to show up",
    "since similar rules were quietly reversed in several places",
    "because younger people are far more likely to be affected",
    "as the administrative burden mostly lands on small organisations",
    "since public funding for it has been cut repeatedly",
    "because the original rules were written before the internet existed",
    "given that most people never read the fine print",
    "since insurers already price this risk into their premiums",
    "because rural areas have far fewer alternatives",
    "as the same pattern shows up in almost every country that has tried it",
    "since the effect disappears once income is taken into account",
    "because the people most affected rarely get a say",
    "given that the market has consolidated into a handful of firms",
    "since the long-term health effects are still unknown",
    "because it was originally introduced as a temporary wartime measure",
    "as most of the money ends up going to administration",
    "since teachers report spending hours a week on it",
    "because public opinion has shifted sharply over the last twenty years",
    "given that the technology keeps getting cheaper",
    "since the courts have been reluctant to intervene",
    "because the savings are mostly eaten up by higher prices elsewhere",
    "as women are disproportionately affected",
    "since the rules are almost never enforced in practice",
    "because it takes years to train qualified staff",
    "given how much the population has aged",
    "since most of the damage happens in the first few months",
    "because the original studies were funded by industry groups",
)
REASON_JOINS = (", {r}", ", {r},", ", mainly {r}", ", especially {r}", ", partly {r}")

STATISTICS = (
    "A {year} {pollster} poll found that {pct} percent of respondents agree that {c}.",
    "Surveys suggest that roughly {pct}% of adults hold a view on whether {c}, and the share has grown since {year}.",
    "By one estimate, about {pct} percent of the cost is borne by households.",
    "Roughly {frac} people say they have changed their minds on this in the last decade.",
    "In {year}, around {big} people signed a petition on exactly this question.",
    "Government figures from {year} put the annual cost at about {money}.",
    "Support for the idea rose from {pct2} percent in {year} to {pct} percent a decade later.",
    "A {year} survey of {n} teachers found that {pct} percent had seen the effects first-hand.",
    "About {pct} percent of the public now says {c}, according to {pollster}.",
    "The practice already affects an estimated {big} people worldwide.",
    "Spending on it reached {money} in {year}, up {pct2} percent in five years.",
    "In countries that tried it, rates fell by about {pct2} percent within {k} years.",
)
STUDIES = (
    "A {year} study at {university} that followed {n} participants for {k} years reached a similar conclusion.",
    "Researchers at {university} found the effect only in {pct2} percent of cases.",
    "A {org} report published in {year} came to the same view.",
    "A {year} meta-analysis of {k2} studies backs this up.",
    "A long-running study from {university} is often cited in support of this.",
    "The {org} reviewed the evidence in {year} and called it inconclusive.",
    "A {year} paper in {journal} found no measurable difference after {k} years.",
    "One widely cited experiment at {university} compared {n} households and found the gap closed within {k} years.",
)
ATTRIBUTIONS = (
    "According to a {year} report by the {org}, ",
    "As a {year} {university} study found, ",
    "Citing {org} data, ",
    "Based on a {year} {pollster} survey, ",
    "As {name}, a {role} at {university}, puts it, ",
)
EXAMPLES = (
    "as {place} found after it changed its rules in {year}",
    "as happened in {place} in the {decade}",
    "which is what {place} saw when it tried a similar policy in {year}",
    "as the case of {place} shows",
    "as {company} learned the hard way in {year}",
    "as seen in {place}, which reversed course in {year}",
)
EXAMPLE_SENTENCES = (
    "{place} is often cited here: it adopted this approach in {year} and reported mixed results.",
    "{place} tried something similar in {year} and dropped it a few years later.",
    "{company} is a well-known example, having changed its policy on this in {year}.",
    "In {place}, a pilot scheme launched in {year} was later expanded nationwide.",
    "The {place} experience in the {decade} is the example most people point to.",
)
EVENTS = (
    "The issue came to a head in {year}, when {place}'s parliament voted on it.",
    "A {year} court ruling in {place} held that the current approach was unconstitutional.",
    "The Supreme Court of {place} ruled on a closely related case in {year}.",
    "A law passed in {place} in {year} was meant to settle the question but did not.",
    "The debate dates back to the {decade}, when the first national rules were written.",
    "The {year} {place} referendum on this question was decided by fewer than {pct2} points.",
)
QUOTES = (
    '"The evidence is clearer than people think," says {name}, a {role} at {university}.',
    'As {name} of {university} has put it, "this is a question of fairness before it is a question of cost."',
    '"We keep having the same argument because the data are thin," {name}, a {role}, told reporters in {year}.',
    '{name}, a {role} at {university}, has called it "the defining policy question of the decade."',
)
CONSEQUENCES = (
    "Analysts expect the issue to become more pressing within the next decade.",
    "If nothing changes, costs are projected to double by {future}.",
    "Several governments are expected to revisit the question before {future}.",
    "Experts predict the number of people affected will keep rising until at least {future}.",
    "Some forecasters think the debate will be settled by new technology within {k} years.",
)
# An invented framing line that sounds like a closer but says something checkable.
CONTENT_CLOSERS = (
    "Ultimately, the evidence from {place} suggests that {c}.",
    "In the end, most experts have come around to the view that {c}.",
    "Overall, the research published since {year} leans toward the conclusion that {c}.",
    "So, on balance, polls show that most people now believe {c}.",
    "To sum up, courts in {place} have already accepted that {c}.",
)
CONTENT_OPENERS = (
    "Most surveys since {year} show a majority believes that {c}.",
    "This question has been debated since at least {year}, when {place} first took it up.",
    "Around {pct} percent of people, according to {pollster}, have an opinion on whether {c}.",
)
UNPROVIDED_JOINS = (
    ", and some add that {y}",
    ", not to mention that {y}",
    ", especially since {y}",
    "; others note that {y}",
    ", and it is sometimes added that {y}",
)
UNPROVIDED_SENTENCES = {
    "pro": ("Some supporters also argue that {y}.", "Another argument often made is that {y}.", "Others add that {y}."),
    "con": ("Some critics also say that {y}.", "Another objection is that {y}.", "Others argue that {y}."),
}
RESTATEMENTS = (
    "In other words, {y}.",
    "Put simply, {y}.",
    "Again, the point is that {y}.",
    "To repeat, {y}.",
    "That is, {y}.",
    "Put differently, {y}.",
)

# Qualifiers an argument may hedge with and what an overconfident answer turns them into.
STRENGTHEN = {
    "may": ("will", "always will"),
    "might": ("will", "certainly will"),
    "could": ("will", "would"),
    "can": ("will", "always"),
    "some": ("all", "most"),
    "often": ("always",),
    "sometimes": ("always", "usually"),
    "many": ("most", "all"),
    "possibly": ("certainly",),
    "likely": ("certain",),
    "probably": ("certainly",),
    "most": ("all",),
    "perhaps": ("clearly",),
    "usually": ("always",),
    "few": ("no",),
    "less": ("far less",),
    "more": ("far more",),
    "rarely": ("never",),
    "tend": ("always",),
    "tends": ("always",),
}

# -- slot fillers ------------------------------------------------------------------------------

SLOTS = {
    "pollster": ("Gallup", "Pew Research", "YouGov", "Ipsos", "Eurobarometer", "Harris", "Morning Consult"),
    "org": (
        "OECD",
        "World Health Organization",
        "RAND Corporation",
        "Brookings Institution",
        "World Bank",
        "National Academy of Sciences",
        "European Commission",
        "Institute for Fiscal Studies",
        "UNESCO",
        "Cato Institute",
        "Urban Institute",
        "King's Fund",
    ),
    "university": (
        "Stanford",
        "the University of Leeds",
        "Harvard",
        "the University of Toronto",
        "ETH Zurich",
        "Yale",
        "the London School of Economics",
        "the University of Melbourne",
        "MIT",
        "Oxford",
        "the University of Chicago",
        "Uppsala University",
        "the University of Michigan",
        "McGill",
        "the University of Cape Town",
    ),
    "journal": ("The Lancet", "Nature", "Science", "the BMJ", "the American Economic Review", "PNAS", "JAMA"),
    "place": (
        "Finland",
        "Canada",
        "New Zealand",
        "Germany",
        "Japan",
        "Brazil",
        "South Korea",
        "Norway",
        "Chile",
        "the Netherlands",
        "Australia",
        "Singapore",
        "Portugal",
        "Kenya",
        "Ireland",
        "Sweden",
        "Uruguay",
        "Denmark",
        "California",
        "Scotland",
        "Texas",
        "Ontario",
        "Estonia",
        "India",
        "France",
    ),
    "company": ("Google", "Walmart", "Nike", "Amazon", "Toyota", "Unilever", "Microsoft", "Nestlé", "Shell"),
    "name": (
        "Dr. Helen Marsh",
        "Professor David Okafor",
        "Dr. Lena Fischer",
        "Professor Mark Ellison",
        "Dr. Priya Raman",
        "Professor Tomás Ruiz",
        "Dr. Sarah Whitfield",
        "Professor Kenji Mori",
        "Dr. Amal Haddad",
        "Professor Ruth Calloway",
    ),
    "role": (
        "economist",
        "sociologist",
        "public health researcher",
        "legal scholar",
        "political scientist",
        "historian",
        "ethicist",
        "education researcher",
    ),
}


def fill(template: str, rng: random.Random, c: str = "", y: str = "") -> str:
    """`template` with its slots drawn from `rng` (the claim `c` and an argument `y` as given)."""
    values = {key: rng.choice(options) for key, options in SLOTS.items()}
    year = rng.randint(1995, 2023)
    pct = rng.randint(51, 89)
    values.update(
        c=c,
        y=y,
        year=year,
        pct=pct,
        pct2=rng.randint(8, 45),
        k=rng.randint(2, 12),
        k2=rng.randint(14, 90),
        n=f"{rng.choice((120, 450, 800, 1200, 2300, 3400, 5000, 12000)):,}",
        big=f"{rng.choice((1.2, 2.5, 3, 4.8, 7, 15, 40))} million",
        frac=rng.choice(("one in three", "one in five", "two in five", "one in four", "nearly half of")),
        money=f"${rng.choice((1.4, 2, 3.7, 12, 45, 120))} billion",
        decade=f"{rng.choice((1970, 1980, 1990, 2000))}s",
        future=rng.randint(2030, 2050),
    )
    text = template.format(**values)
    return text[0].upper() + text[1:]
