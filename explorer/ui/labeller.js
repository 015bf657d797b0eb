// The labelling view (explorer/ui/labelling.py): the response and the arguments word by word.
// Select words with the mouse (or click one) to mark them; click a marked word to take its mark
// back; "uncovered" marks a whole argument. Keys: see SHORTCUTS. Every move goes to Python as a
// trigger value; nothing is kept here, so the view always shows what Python holds.
// Text goes in with textContent only: the user's text is never parsed as HTML.

const SHORTCUTS = {
  ArrowRight: "next", n: "next", ArrowLeft: "previous", p: "previous",
  "0": "no_errors", "1": "accept_hallucination", "2": "reject_hallucination",
  "3": "accept_coverage", "4": "reject_coverage",
};

function inside(start, end, spans) {
  return spans.some(([s, e]) => start < e && s < end);
}

function words(block, text, spans, marked, className) {
  // `spans`: every word's [start, end); the text between words is kept as it is.
  let last = 0;
  for (const [start, end] of spans) {
    if (start > last) block.append(document.createTextNode(text.slice(last, start)));
    const word = document.createElement("span");
    word.className = "rx-w" + (inside(start, end, marked) ? " " + className : "");
    word.dataset.s = start;
    word.dataset.e = end;
    word.textContent = text.slice(start, end);
    block.append(word);
    last = end;
  }
  if (last < text.length) block.append(document.createTextNode(text.slice(last)));
}

function chosen(block, event) {
  // The words the mouse selected in `block` (or the word clicked): [start, end), or null.
  const selection = window.getSelection();
  if (selection && !selection.isCollapsed) {
    const hit = [...block.querySelectorAll(".rx-w")].filter((w) => selection.containsNode(w, true));
    selection.removeAllRanges();
    if (hit.length) return { start: +hit[0].dataset.s, end: +hit[hit.length - 1].dataset.e, click: false };
    return null;
  }
  const word = event.target.closest(".rx-w");
  return word ? { start: +word.dataset.s, end: +word.dataset.e, click: true, marked: word.classList.length > 1 } : null;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const send = (name, value) => setTriggerValue(name, { ...value, nonce: `${Date.now()}-${Math.random()}` });
  const root = document.createElement("div");
  root.className = "rx-labeller";
  root.dataset.example = data.example;
  // Styles travel with the view: the page's own CSS mechanism did not reach an unisolated component.
  const style = document.createElement("style");
  style.textContent = data.css;
  root.append(style);

  const response = document.createElement("div");
  response.className = "rx-response";
  response.dataset.target = "response";
  words(response, data.response.text, data.response.words, data.response.marks, "rx-marked");
  const responseTitle = document.createElement("div");
  responseTitle.className = "rx-title";
  responseTitle.textContent = data.titles.response;
  root.append(responseTitle, response);

  const argumentsTitle = document.createElement("div");
  argumentsTitle.className = "rx-title";
  argumentsTitle.textContent = data.titles.arguments;
  root.append(argumentsTitle);
  for (const argument of data.arguments) {
    const row = document.createElement("div");
    row.className = "rx-argument" + (argument.whole ? " rx-whole" : "");
    row.dataset.perspective = argument.p;
    row.dataset.argument = argument.a;
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "rx-toggle";
    toggle.textContent = argument.whole ? data.titles.covered : data.titles.uncovered;
    toggle.title = argument.whole ? data.titles.covered_help : data.titles.uncovered_help;
    toggle.addEventListener("click", () => send("action", { move: "whole", p: argument.p, a: argument.a }));
    const name = document.createElement("span");
    name.className = "rx-name";
    name.textContent = argument.name;
    const text = document.createElement("span");
    text.className = "rx-text";
    text.dataset.target = "argument";
    words(text, argument.text, argument.words, argument.lost, "rx-lost");
    row.append(toggle, name, text);
    root.append(row);
  }

  root.addEventListener("mouseup", (event) => {
    const block = event.target.closest("[data-target]");
    if (!block || event.button !== 0) return;
    const picked = chosen(block, event);
    if (!picked) return;
    const move = picked.click && picked.marked ? "unmark" : "mark";
    if (block.dataset.target === "response") {
      send("action", { move, p: null, a: null, start: picked.start, end: picked.end });
    } else {
      const row = block.closest(".rx-argument");
      send("action", { move, p: +row.dataset.perspective, a: +row.dataset.argument, start: picked.start, end: picked.end });
    }
  });

  parentElement.replaceChildren(root);

  const onKey = (event) => {
    const target = event.target;
    const typing = target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    const name = SHORTCUTS[event.key];
    // Only a labeller on screen listens (Inspect keeps an expander's content mounted when closed).
    if (!name || typing || event.ctrlKey || event.metaKey || event.altKey || !root.offsetParent) return;
    if ((name === "next" || name === "previous") && !data.queue) return;
    event.preventDefault();
    send("key", { move: name });
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
