"""Back from Inspect to the place the user left in the failures list (or the examples table).

The browser cannot restore that place by itself: Back makes Streamlit run the dataset page
again on the server and draw it element by element, seconds after the address changed, inside
a scrolling element of its own rather than the document, so the browser's scroll restoration
finds a short page and restores nothing. Streamlit keeps no scroll position either.

So a script on the page remembers, in the tab's `sessionStorage`, which "Inspect" button was
clicked and how far from the top of the window it was. The next time the page is drawn in that
tab (Back, the "Back to the failures" link, the sidebar), it scrolls that button's row to the
same height, following the page as it grows until the run ends and the row stays put, unless the
user scrolls, clicks or types first. A row no longer listed (other filters) leaves the page at
the top.
"""

from __future__ import annotations

import streamlit as st

# Each "Inspect" button's element carries `st-key-` + its key, dots as dashes
# (`state.DATASET_OPEN`, `state.DATASET_OPEN_CHOSEN`).
_SCRIPT = """<script>
(() => {
  const KEY = "explorer.dataset.return";
  const ARRIVAL = "explorer.inspect.arrival";
  const OPENS = '[class*="st-key-dataset-open"]';
  const scroller = (element) => {
    for (let e = element.parentElement; e; e = e.parentElement) {
      const overflow = getComputedStyle(e).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && e.scrollHeight > e.clientHeight) return e;
    }
    return document.scrollingElement;
  };
  if (!window.explorerRemembersReturn) {  // once per tab: the page is drawn again on every visit
    window.explorerRemembersReturn = true;
    document.addEventListener("click", (event) => {
      const row = event.target.closest(OPENS);
      if (!row) return;
      const key = [...row.classList].find((name) => name.startsWith("st-key-dataset-open"));
      sessionStorage.setItem(KEY, JSON.stringify({key, top: row.getBoundingClientRect().top}));
      sessionStorage.setItem(ARRIVAL, "1");
    }, true);
  }
  const saved = JSON.parse(sessionStorage.getItem(KEY) || "null");
  if (!saved) return;
  sessionStorage.removeItem(KEY);
  let quit = false;
  const userMoved = () => { quit = true; };
  for (const kind of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(kind, userMoved, {once: true, capture: true, passive: true});
  }
  const started = Date.now();
  let still = 0;
  const follow = () => {
    if (quit || Date.now() - started > 60000) return;
    const row = document.querySelector("." + CSS.escape(saved.key));
    if (row) {
      const off = row.getBoundingClientRect().top - saved.top;
      if (Math.abs(off) > 1) {
        scroller(row).scrollTop += off;
        still = 0;
      } else if (++still >= 10 && !document.querySelector("[data-testid=stStatusWidget]")) {
        return;  // in place for a second and the run has ended
      }
    }
    setTimeout(follow, 100);
  };
  follow();
})();
</script>"""


# Inspect is drawn in the same scrolling element the failures list was scrolled in, and kept
# its offset now and then: the example opened with its top, "Back to the failures" included,
# above the window. So Inspect starts at the top when an "Inspect" button opened it (the flag
# the script above sets), following the page for a second as it is drawn, unless the user
# scrolls, clicks or types first.
_TOP_SCRIPT = """<script>
(() => {
  if (!sessionStorage.getItem("explorer.inspect.arrival")) return;
  sessionStorage.removeItem("explorer.inspect.arrival");
  let quit = false;
  for (const kind of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(kind, () => { quit = true; }, {once: true, capture: true, passive: true});
  }
  const main = () => document.querySelector("[data-testid=stMain]") || document.scrollingElement;
  const started = Date.now();
  const top = () => {
    if (quit || Date.now() - started > 1500) return;
    main().scrollTop = 0;
    setTimeout(top, 100);
  };
  top();
})();
</script>"""


def top_on_arrival() -> None:
    """On Inspect: start at the top when a failure's "Inspect" button opened it (see above)."""
    st.html(_TOP_SCRIPT, unsafe_allow_javascript=True)  # a fixed script: no user text in it


def return_to_place() -> None:
    """Remember where an example was opened from, and scroll back there on return (see above).

    Call it at the end of the page: its element draws nothing, and the rows are there by then."""
    st.html(_SCRIPT, unsafe_allow_javascript=True)  # a fixed script: no user text in it
