"""Every token split of a reply prompt, in one place.

A reply prompt has fixed parts (persona, rules, the message: never trimmed) and four that share
what is left: the members' contexts (three eighths), recalled messages (a half: on LoCoMo-dev
more recalled lines carry more answers, bench/locomo.py; once recalled hits became transcripts,
and again once questions to the bot left the day notes, the room saved went back to them,
within the prompt's p50 target; the members' contexts gave up a twenty-fourth they did not
use), the channel's episode (an eighth): the three add up to the whole, so together they never
overrun the budget. The conversation window gets what the others did not use (at most the
window's own cap, less a small margin for its XML). Estimates ignore XML overhead, so the
rendered prompt is measured at the end and the window trimmed until it fits (`over`).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.core.tokens import estimate_tokens

# Shares of the tokens the fixed parts leave, by part.
MEMBERS_SHARE = (3, 8)
RECALLED_SHARE = (1, 2)
EPISODE_SHARE = (1, 8)
# The window's XML tags, left out of the estimates of its turns.
WINDOW_MARGIN = 16


def _share(tokens: int, share: tuple[int, int]) -> int:
    return tokens * share[0] // share[1]


@dataclass(frozen=True)
class PromptBudget:
    """The token budget of one reply prompt: `total` for the whole prompt, `window_cap` at
    most for the conversation window."""

    total: int
    window_cap: int
    fixed: int = 0  # tokens of the fixed parts, once measured (`with_fixed`)

    def with_fixed(self, fixed_prompt: str) -> PromptBudget:
        """The budget once the fixed parts are rendered (the prompt with nothing else)."""
        return PromptBudget(self.total, self.window_cap, estimate_tokens(fixed_prompt))

    @property
    def remaining(self) -> int:
        """What the fixed parts leave for memories, recall, the episode and the window."""
        return max(0, self.total - self.fixed)

    @property
    def members(self) -> int:
        return _share(self.remaining, MEMBERS_SHARE)

    @property
    def recalled(self) -> int:
        return _share(self.remaining, RECALLED_SHARE)

    @property
    def episode(self) -> int:
        return _share(self.remaining, EPISODE_SHARE)

    def window(self, memories_tokens: int) -> int:
        """The window's tokens once memories, recall and the episode took `memories_tokens`."""
        return max(0, min(self.window_cap, self.remaining - memories_tokens - WINDOW_MARGIN))

    def over(self, prompt: str) -> int:
        """How many tokens the rendered `prompt` is over the whole budget (0: it fits)."""
        return max(0, estimate_tokens(prompt) - self.total)
