"""Which provider served a model step, in OpenTelemetry's GenAI words (`gen_ai.provider.name`):
a known host's provider for a `base_url` server, else the API's own, and "threadlab" for a
model that runs in this process."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ._base import PricedModel, supports

__all__ = ["provider_name"]

# Hosts of OpenAI-compatible (or Anthropic) endpoints whose provider the conventions name.
_HOSTS = {
    "api.openai.com": "openai",
    "api.anthropic.com": "anthropic",
    "api.groq.com": "groq",
    "api.deepseek.com": "deepseek",
    "api.mistral.ai": "mistral_ai",
    "api.x.ai": "x_ai",
    "api.perplexity.ai": "perplexity",
    "generativelanguage.googleapis.com": "gcp.gemini",
    "openrouter.ai": "openrouter",
}
_APIS = {"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic"}


def provider_name(model: Any) -> str:
    """The provider of `model`'s steps.

    Examples:
        >>> from threadlab.models import OfflineModel
        >>> provider_name(OfflineModel())
        'threadlab'
    """
    if not supports(model, PricedModel):
        return "threadlab"
    endpoint = model.endpoint
    if endpoint.base_url:
        host = (urlsplit(endpoint.base_url).hostname or "").lower()
        known = _HOSTS.get(host) or next(
            (name for suffix, name in _HOSTS.items() if host.endswith("." + suffix)), None
        )
        if known:
            return known
    return _APIS.get(model.provider, "openai")
