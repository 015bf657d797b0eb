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
