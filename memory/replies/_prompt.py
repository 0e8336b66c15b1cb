"""The reply prompt rendered and fitted: members' memories as XML within their share of the
budget, the window's turns, and the re-render loop that trims the window until the real
prompt (XML included) fits.
"""

from __future__ import annotations

from memory.core.models import Member
from memory.core.tokens import estimate_tokens, trim_to_tokens
from memory.replies._budget import PromptBudget
from memory.replies._message import IncomingMessage, ReplyConfig
from memory.replies._window import WindowView
from prompts.loader import Raw, element, join, render


def memories_xml(
    user_ids: list[int], members: dict[int, Member], memories: dict[int, str], budget: int
) -> Raw:
    """Each member's context in order of relevance, the last one cut to what is left."""
    fragments: list[Raw] = []
    used = 0
    for user_id in user_ids:
        context = memories.get(user_id)
        if not context:
            continue
        member = members.get(user_id)
        name = member.display_name if member else f"user {user_id}"
        cost = estimate_tokens(context) + estimate_tokens(name) + 12
        if used + cost > budget:
            context = trim_to_tokens(context, budget - used - estimate_tokens(name) - 12)
            if not context:
                break
            cost = budget - used
        fragments.append(element("member", context, id=user_id, name=name))
        used += cost
    return join(fragments)


def render_reply(
    config: ReplyConfig,
    message_text: str,
    message: IncomingMessage,
    memories: Raw,
    window: WindowView,
) -> str:
    """The reply prompt: persona, the members' memories, the window, the message."""
    turns = join(
        [
            element(
                "turn",
                turn.content,
                author_id=turn.author_id,
                author=turn.author_name,
                at=turn.at.isoformat(timespec="seconds"),
            )
            for turn in window.turns
        ]
    )
    return render(
        "reply",
        persona=config.persona,
        bot_name=config.bot_name,
        memories=memories,
        window_summary=window.summary,
        window_turns=turns,
        author_id=message.author_id,
        author_name=message.author_name,
        message=message_text,
    )


def fit_prompt(
    config: ReplyConfig,
    message_text: str,
    message: IncomingMessage,
    memories: Raw,
    fitted: WindowView,
    budget: PromptBudget,
) -> tuple[str, WindowView]:
    """The prompt within its token budget: estimates ignore XML overhead, so the real
    prompt is measured and the window trimmed in order (oldest turns, then its summary)."""
    prompt = render_reply(config, message_text, message, memories, fitted)
    while excess := budget.over(prompt):
        if fitted.turns:
            fitted = WindowView(fitted.summary, fitted.turns[1:])
        elif fitted.summary:
            keep = max(0, estimate_tokens(fitted.summary) - excess - 1)
            fitted = WindowView(trim_to_tokens(fitted.summary, keep) if keep else "", ())
        else:
            break  # only the fixed parts and memories are left
        prompt = render_reply(config, message_text, message, memories, fitted)
    return prompt, fitted
