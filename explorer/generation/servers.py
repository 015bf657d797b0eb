"""The generation servers the operator of an app offers its visitors, and whether a visitor may
name a server of their own.

An app may be served to a team or to stakeholders: a visitor must never choose which of the
app's environment variables is sent where (the command line's `--api-key-env` is fine: there the
person running it names their own). So the operator lists the servers, in Streamlit's secrets
(`.streamlit/secrets.toml` beside the app, `~/.streamlit/secrets.toml`, or the files
`--secrets.files` names), under `[generation]`:

    [generation]
    free_form = false          # may visitors type an address and paste their own key?

    [generation.servers.team-vllm]
    base_url = "http://10.0.0.5:8000/v1"
    model = "meta-llama/Llama-3.1-8B-Instruct"
    api_key_env = "TEAM_VLLM_KEY"   # the key: this variable of the app's environment,
    # api_key = "sk-..."            # or the key itself, here (one of the two, or neither)

A visitor picks a server by its name; its key goes to its `base_url` only (redirects are not
followed: `explorer.generation.server`). `free_form` lets visitors type any address instead,
with a key they paste for their session (never one of the app's); by default it is allowed only
when the app listens on this machine alone (`server.address` a loopback address), since
otherwise any visitor could make the app send requests anywhere it can reach.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.generation.backends import Backend
from explorer.generation.server import check_server_options, public_url

SECTION = "generation"  # the secrets' table
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_FIELDS = {"base_url", "model", "api_key_env", "api_key"}


class ServerConfigError(ValueError):
    """The operator's list of servers cannot be used; the message names the entry and field
    (never a key)."""


@dataclass(frozen=True)
class OperatorServer:
    """One server the operator lists: `name` is what visitors see and pick."""

    name: str
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)

    @property
    def shown(self) -> str:
        """The server as a visitor may see it: its name, model and address without credentials."""
        return f"{self.name}: {self.model} at {public_url(self.base_url)}"

    def backend(self) -> Backend:
        return Backend(model=self.model, base_url=self.base_url, api_key=self.api_key)


def operator_servers(config: Mapping) -> tuple[OperatorServer, ...]:
    """The servers of the `[generation]` table `config`, in its order; raises `ServerConfigError`."""
    servers = config.get("servers", {})
    if not isinstance(servers, Mapping):
        raise ServerConfigError(f"{SECTION}.servers: must be a table of servers, one [{SECTION}.servers.NAME] each")
    return tuple(_server(str(name), entry) for name, entry in servers.items())


def _server(name: str, entry: object) -> OperatorServer:
    where = f"{SECTION}.servers.{name}"
    if not isinstance(entry, Mapping):
        raise ServerConfigError(f"{where}: must be a table with base_url and model")
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise ServerConfigError(f"{where}: unknown field {', '.join(unknown)} (known: {', '.join(sorted(_FIELDS))})")
    values = {}
    for key in ("base_url", "model", "api_key_env", "api_key"):
        value = entry.get(key, "")
        if not isinstance(value, str):
            raise ServerConfigError(f"{where}.{key}: must be a string")
        values[key] = value.strip()
    if values["api_key"] and values["api_key_env"]:
        raise ServerConfigError(f"{where}: give api_key or api_key_env, not both")
    try:
        check_server_options(values["base_url"], values["model"], values["api_key_env"] or None, 60, 0)
    except ValueError as error:
        raise ServerConfigError(f"{where}: {error}") from None
    key = os.environ[values["api_key_env"]] if values["api_key_env"] else values["api_key"]
    return OperatorServer(name, values["base_url"], values["model"], key)


def free_form_allowed(config: Mapping, address: str | None) -> bool:
    """Whether visitors may type a server address: `free_form` when the operator set it, else
    only when the app listens on a loopback `address` (unset: every interface)."""
    allowed = config.get("free_form")
    if allowed is None:
        return (address or "").strip().lower() in LOOPBACK
    if not isinstance(allowed, bool):
        raise ServerConfigError(f"{SECTION}.free_form: must be true or false")
    return allowed
