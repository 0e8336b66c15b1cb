"""What a model costs: US dollars per million input and output tokens, for estimates.

Defaults are the paid-tier list prices of the Gemini models the README names (the free tier
costs nothing, within its limits); `LLM_PRICES` adds or overrides models, e.g.
`gemini-2.5-flash=0.30/2.50; llama3.1=0/0`. The offline provider is free. An estimate, not a
bill: prices change, and thinking tokens are billed as output (they are counted as such).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-embedding-001": (0.15, 0.0),
}


@dataclass(frozen=True)
class Prices:
    per_million: dict[str, tuple[float, float]]

    @classmethod
    def parse(cls, text: str) -> Prices:
        """`model=in/out; ...` over the defaults; ValueError names a malformed entry."""
        prices = dict(DEFAULT_PRICES)
        for entry in text.replace("\n", ";").split(";"):
            if not entry.strip():
                continue
            model, sep, pair = entry.partition("=")
            price_in, slash, price_out = pair.partition("/")
            try:
                if not (sep and slash and model.strip()):
                    raise ValueError
                prices[model.strip()] = (float(price_in), float(price_out))
            except ValueError:
                raise ValueError(
                    f"LLM_PRICES entry {entry.strip()!r}: expected model=input/output"
                    " (dollars per million tokens), e.g. gemini-2.5-flash=0.30/2.50"
                ) from None
        return cls(prices)

    def cost(
        self, provider: str, model: str, input_tokens: int, output_tokens: int
    ) -> float | None:
        """Dollars, or None when the model has no price (unknown, not free)."""
        if provider == "offline":
            return 0.0
        price = self.per_million.get(model) or self.per_million.get(_base_model(model))
        if price is None:
            return None
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def _base_model(model: str) -> str:
    """`gemini-2.5-flash-001` or `models/gemini-2.5-flash` -> `gemini-2.5-flash`."""
    name = model.removeprefix("models/")
    head, _, tail = name.rpartition("-")
    return head if tail.isdigit() else name
