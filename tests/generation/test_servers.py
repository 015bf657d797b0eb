"""The operator's list of generation servers (`explorer.generation.servers`): read in order, each
key from where the operator says, mistakes named without a key, and free-form addresses only
where the app listens on its own machine unless the operator says otherwise."""

import pytest

from explorer.generation.servers import ServerConfigError, free_form_allowed, operator_servers

KEY = "sk-operator-5e6f7a8b9c0d1e2f"


def test_servers_are_read_in_order_with_their_keys_kept_out_of_sight(monkeypatch):
    monkeypatch.setenv("TEAM_KEY", KEY)
    config = {
        "servers": {
            "team": {"base_url": "http://10.0.0.5:8000/v1", "model": "llama", "api_key_env": "TEAM_KEY"},
            "local": {"base_url": "http://127.0.0.1:11434/v1/", "model": "llama3.1:8b"},
            "hosted": {"base_url": "https://u:p@models.example.org/v1", "model": "big", "api_key": "sk-in-file"},
        }
    }
    team, local, hosted = operator_servers(config)
    assert (team.name, team.api_key, local.api_key, hosted.api_key) == ("team", KEY, "", "sk-in-file")
    assert hosted.shown == "hosted: big at https://models.example.org/v1"
    backend = team.backend()
    assert (backend.base_url, backend.model, backend.api_key) == ("http://10.0.0.5:8000/v1", "llama", KEY)
    assert KEY not in repr(team) + repr(backend)
    assert operator_servers({}) == ()


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"base_url": "ftp://x/v1", "model": "m", "api_key": KEY}, "generation.servers.s: server URL 'ftp://x/v1'"),
        ({"base_url": "http://x/v1", "model": " "}, "generation.servers.s: no model name"),
        ({"base_url": "http://x/v1", "model": "m", "api_key": KEY, "api_key_env": "K"}, "not both"),
        ({"base_url": "http://x/v1", "model": "m", "api_key_env": "UNSET_KEY_VAR"}, "UNSET_KEY_VAR: that environment"),
        ({"base_url": "http://x/v1", "model": "m", "key": KEY}, "unknown field key (known: api_key, api_key_env,"),
        ({"base_url": "http://x/v1", "model": 3}, "generation.servers.s.model: must be a string"),
        ("http://x/v1", "generation.servers.s: must be a table"),
    ],
)
def test_a_mistake_names_the_entry_and_field_never_the_key(monkeypatch, entry, message):
    monkeypatch.delenv("UNSET_KEY_VAR", raising=False)
    with pytest.raises(ServerConfigError) as refused:
        operator_servers({"servers": {"s": entry}})
    assert message in str(refused.value) and KEY not in str(refused.value)


@pytest.mark.parametrize(
    "setting, address, allowed",
    [
        (None, "127.0.0.1", True),
        (None, "localhost", True),
        (None, "::1", True),
        (None, None, False),  # streamlit's default: every interface
        (None, "0.0.0.0", False),
        (None, "10.0.0.5", False),
        (True, "0.0.0.0", True),
        (False, "127.0.0.1", False),
    ],
)
def test_free_form_addresses_only_on_the_apps_own_machine_unless_the_operator_says(setting, address, allowed):
    config = {} if setting is None else {"free_form": setting}
    assert free_form_allowed(config, address) is allowed


def test_free_form_must_be_true_or_false():
    with pytest.raises(ServerConfigError, match="generation.free_form: must be true or false"):
        free_form_allowed({"free_form": "yes"}, "127.0.0.1")
