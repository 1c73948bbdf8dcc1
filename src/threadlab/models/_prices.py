"""What a model step cost, in US dollars, from the maintained `genai-prices` tables: the
provider, the model id and the step's usage (cache reads and writes priced as such). A model
that runs here (offline, scripted, a function, a replay) costs nothing; a remote one whose
price the tables do not know costs None — unknown, never a guess. A server at a `base_url` is
priced by its URL when that names a known provider, else by the provider it was declared
with (`provider="openai"` behind a local gateway serving "gpt-4o" is priced as OpenAI's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import PricedModel, supports

__all__ = ["step_cost"]

# threadlab's usage words → genai-prices' names.
_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cached_tokens": "cache_read_tokens",
    "cache_write_tokens": "cache_write_tokens",
}
# The providers threadlab defines → genai-prices' provider ids (when no base_url says more).
_PROVIDER_IDS = {"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic"}


def step_cost(model: Any, usage: Mapping[str, int] | None) -> float | None:
    """The cost of one step of `model` that used `usage`.

    Examples:
        >>> from threadlab.models import OfflineModel
        >>> step_cost(OfflineModel(), {"input_tokens": 10})
        0.0
    """
    if not supports(model, PricedModel):
        return 0.0  # it ran in this process
    endpoint = model.endpoint
    if not usage:
        return None
    import genai_prices  # its tables load when a remote step is first priced, not at import

    counts = {_USAGE_KEYS[k]: v for k, v in usage.items() if k in _USAGE_KEYS}
    used = genai_prices.Usage(**counts)
    provider = _PROVIDER_IDS.get(model.provider, "")
    if endpoint.base_url:  # a compatible server: its URL tells the provider, if it is known
        try:
            price = genai_prices.calc_price(used, model.model, provider_api_url=endpoint.base_url)
            return float(price.total_price)
        except LookupError:
            pass  # a gateway or a local server: the provider it was declared with says
    try:
        price = genai_prices.calc_price(used, model.model, provider_id=provider)
    except LookupError:
        return None
    return float(price.total_price)
