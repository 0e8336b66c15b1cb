"""The member directory as prompts see it: names for ids, name lookups, mention rendering."""

from __future__ import annotations

from db.consent import Consent
from memory.members._directory import MemberDirectory
from memory.members._held import (
    ForgottenStatements,
    HeldMembers,
    MemberConsent,
    MemberReads,
    ReadForgotten,
)
from memory.members._names import NameIndexCache, mentioned_ids, render_mentions
from memory.members._render import (
    USER_MENTION,
    display_name,
    distinct_names,
    prompt_member,
    referenced_ids,
    render_messages,
)
from memory.members._resolve import MemberResolver, Resolution, describe

__all__ = [
    "USER_MENTION",
    "Consent",
    "ForgottenStatements",
    "HeldMembers",
    "MemberConsent",
    "MemberDirectory",
    "MemberReads",
    "MemberResolver",
    "NameIndexCache",
    "ReadForgotten",
    "Resolution",
    "describe",
    "display_name",
    "distinct_names",
    "mentioned_ids",
    "prompt_member",
    "referenced_ids",
    "render_mentions",
    "render_messages",
]
