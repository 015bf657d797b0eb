"""What the sidebar says about a visitor's own server: where Generate sends, whether a key goes."""

from explorer.generation.backends import Backend
from explorer.ui.generate import own_server_caption


def test_the_caption_says_a_key_is_held_but_shows_none_of_it_nor_the_urls_credentials():
    key = "sk-visitor-0123456789abcdef"
    said = own_server_caption(Backend(model="m", base_url="http://me:pw@example.org:8000/v1?token=t", api_key=key))
    assert said == "Generate sends to http://example.org:8000/v1 as model m, with the key you pasted."
    assert not any(key[i : i + 4] in said for i in range(len(key) - 3))


def test_without_a_key_or_a_url_the_caption_says_so():
    assert own_server_caption(Backend(model="", base_url="http://example.org/v1", api_key="")).endswith(
        "as model (none named), without a key."
    )
    assert own_server_caption(Backend(model="m", base_url="", api_key="k")) == "Generate needs the server's URL."


def _finishes_between_take_and_show():
    """A page that takes a finished answer, then (as a fast server's answer may, on a busy
    machine) sees one finish before it shows the progress."""
    import streamlit as st

    from explorer.data.samples import load_samples
    from explorer.generation.base import GenerationSettings, with_generated_response
    from explorer.ui import generate, state

    class Finished:  # what the page reads of a `BackgroundGeneration` that is done
        example = load_samples()[0]
        finished, started, echoed_key = True, 0.0, False

        def outcome(self):
            return with_generated_response(self.example, "An answer.", {"server": "s"}, GenerationSettings())

    generate.take_finished("race")
    if "raced" not in st.session_state:
        st.session_state["raced"] = True
        st.session_state[state.GENERATION] = Finished()
    generate.show_progress()


def test_an_answer_that_finishes_after_it_was_looked_for_is_still_taken_and_shown():
    """In CI the shared app's Generate once waited for ever: the answer came while the page ran."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_finishes_between_take_and_show, default_timeout=60)
    at.run()
    assert not at.exception
    [said] = [m.value for m in at.success]
    assert said.startswith("Written by server s in ")
    assert at.session_state["race.response"] == "An answer."
