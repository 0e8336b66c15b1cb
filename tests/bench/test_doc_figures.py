"""The measurements docs/design.md, docs/operations.md, docs/llm.md and docs/performance.md's
prose quote are those the benches stored in docs/figures (issue 44: figures typed by hand went
stale). Re-running a bench with --write-docs and not the sentence that quotes it fails here,
with the sentence as it should now read."""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

from bench import house_history
from bench.docs import load
from bench.targets import TARGETS
from tests.bench.figure_support import measured_under, says, stored_figure, value_of
from tests.doc_support import ROOT
from tests.doc_support import doc as _doc


def _target(bench: str, metric: str, **params: object) -> float:
    (target,) = [t for b, m, p, t, _ in TARGETS if (b, m, p) == (bench, metric, params)]
    return target


def _pct(value: float) -> str:
    return f"{value:.0%}"


def _splits(figures: list[str], what: str) -> str:
    """'93% of x on both splits', or each split's figure when they differ."""
    tuned, dev = figures
    if tuned == dev:
        return f"{tuned}{what} on both splits"
    return f"{tuned}{what} on the tuned split and {dev} on dev"


def test_design_quotes_the_recall_benchs_search_with_the_local_vectors() -> None:
    scope = {"scope": "reply", "config": "simple", "channels": 8}
    fused = [
        value_of("recall", m, vectors="local", **scope) for m in ("search_p50_ms", "search_p99_ms")
    ]
    alone = [
        value_of("recall", m, vectors="none", **scope) for m in ("search_p50_ms", "search_p99_ms")
    ]
    messages = measured_under("recall", "search_p50_ms", "guild_messages", vectors="local", **scope)
    says(
        f"on the recall bench's {messages:,}-message guild a reply's search with the local"
        f" vectors fused takes {fused[0]:,.0f} ms p50 / {fused[1]:,.0f} ms p99, against"
        f" {alone[0]:,.0f} ms / {alone[1]:,.0f} ms for full text alone",
        "docs/design.md",
    )


def test_design_quotes_the_template_benchs_episode_cuts() -> None:
    found = [
        _pct(value_of("quality", "episode_boundaries_found", split=s)) for s in ("tuned", "dev")
    ]
    spurious = [_pct(value_of("quality", "episode_spurious", split=s)) for s in ("tuned", "dev")]
    sessions = measured_under(
        "quality", "episode_boundaries_found", "sessions_planted", split="dev"
    )
    boundaries = f" of the {sessions} planted sessions' boundaries"
    says(
        f"it finds {_splits(found, boundaries)},"
        f" with {_splits(spurious, ' of its cuts spurious')}.",
        "docs/design.md",
    )


def test_design_sets_the_template_bench_beside_locomo_as_both_stand() -> None:
    template = [
        _pct(value_of("quality", "evidence_in_prompt", kind="all", split=s))
        for s in ("tuned", "dev")
    ]
    locomo = _pct(value_of("locomo", "evidence_all_in_memories", category="all", embedder="local"))
    says(
        f"finds every evidence line in the prompt for"
        f" {_splits(template, ' of its questions')}, while on long real conversations"
        f" (LoCoMo-dev, below) every evidence turn is in the memories for {locomo} of questions.",
        "docs/design.md",
    )
    conversations = int(
        measured_under(
            "locomo", "evidence_all_in_memories", "conversations", category="all", embedder="local"
        )
    )
    words = {5: "five"}
    assert f"{words[conversations]} real multi-session conversations" in _doc("docs/design.md")


def test_design_quotes_the_dashboards_first_render() -> None:
    cold = value_of("dashboard", "page_render_cold_ms", page="slowest")
    target = _target("dashboard", "page_render_cold_ms", page="slowest")
    month = int(measured_under("dashboard", "page_render_cold_ms", "days", page="slowest"))
    says(f"The charts sum about {round(month * 24 * 4, -2):,} rows for a month", "docs/design.md")
    assert (
        int(measured_under("dashboard", "page_render_cold_ms", "guild_messages", page="slowest"))
        >= 1_000_000
    )
    says(
        f"the slowest page's first render after a start takes {cold:,.0f} ms on the dashboard"
        f' bench\'s 1M-message guild (docs/performance.md, "dashboard"; target {target:.0f} ms)',
        "docs/design.md",
    )


def _ignores(path: Path) -> int:
    """The `# type: ignore` comments of a module (not the words in its strings)."""
    with path.open("rb") as source:
        return sum(
            token.type == tokenize.COMMENT and token.string.startswith("# type: ignore")
            for token in tokenize.tokenize(source.readline)
        )


def test_design_counts_the_type_ignores_left() -> None:
    checked = re.search(r"^files = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    assert checked
    folders = [name.strip(' "\n') for name in checked.group(1).split(",") if name.strip()]
    left = sum(
        _ignores(path)
        for folder in folders
        for path in (
            (ROOT / folder).rglob("*.py") if (ROOT / folder).is_dir() else ROOT.glob(folder)
        )
    )
    says(f"Every `# type: ignore` left names its error code ({left},", "docs/design.md")


def test_operations_quotes_the_dead_endpoint_bench() -> None:
    worst = value_of("dead_endpoint", "reply_overhead_max_ms")
    replies = measured_under("dead_endpoint", "reply_overhead_max_ms", "replies")
    says(
        f"(bench `dead_endpoint`: at most {worst:,.0f} ms over {replies} replies)",
        "docs/operations.md",
    )


def test_operations_quotes_the_memory_and_scale_benches() -> None:
    cached = value_of("memory", "bytes_per_cached_member", ascii_only=False)
    members = measured_under("memory", "bytes_per_cached_member", "members", ascii_only=False)
    says(
        f"| per member whose memory is cached | ~{cached / 1000:.1f} KB |"
        f" `bench/memory_footprint.py` at {members:,} members",
        "docs/operations.md",
    )
    says(f" MB for members plus {cached / 1000:.1f} KB per member", "docs/operations.md")
    sweep = {"sweep": "messages", "members_per_guild": 50}
    calls = {
        value_of("scale", "daily_calls_per_guild_day", messages_per_day=n, **sweep)
        for n in (1000, 10_000)
    }
    tokens = [
        value_of("scale", "daily_tokens_per_guild_day", messages_per_day=n, **sweep)
        for n in (1000, 10_000)
    ]
    assert calls == {1.0}, "a guild-day is no longer one call: rewrite the row"
    says(
        f"| closing a guild-day nobody asked about | 1 LLM call | 1,000 messages: {tokens[0]:,.0f}"
        f" tokens; 10,000 messages: {tokens[1]:,.0f} (the scale bench's messages sweep, 50 members",
        "docs/operations.md",
    )


def test_operations_quotes_the_processes_bench() -> None:
    """The RSS rows of "Measured sizes", and the guilds-per-process estimate made from them."""
    _run, stored = load()["processes"]
    sizes = sorted(f["members"] for f in stored if f["metric"] == "run_idle_rss_mb")
    assert len(sizes) == 3, sizes
    rss = [value_of("processes", "run_idle_rss_mb", members=m) for m in sizes]
    settle = measured_under("processes", "run_idle_rss_mb", "settle_s", members=sizes[0])
    slope = value_of("processes", "run_rss_per_member_kb", members=f"{sizes[1]}-{sizes[2]}")
    worker = stored_figure("processes", "worker_idle_rss_mb")
    says(
        f"| `memorybot run`, idle, one guild of {sizes[0]:,} members | {rss[0]:.0f} MB RSS |"
        f" process RSS against the fleet's fake Discord, {settle:g} s after READY",
        "docs/operations.md",
    )
    says(
        f"| per guild member known to the bot | ~{slope:.1f} KB RSS | the same guild with"
        f" {sizes[1]:,} members: {rss[1]:.0f} MB; {sizes[2]:,}: {rss[2]:.0f} MB",
        "docs/operations.md",
    )
    says(
        f"| `memorybot worker`, idle | {worker['value']:.0f} MB RSS | process RSS,"
        f" {worker['settle_s']:g} s after it said it takes jobs |",
        "docs/operations.md",
    )
    members_mb = round(2_500 * 100 * round(slope, 1) / 1024, -1)
    says(f"2,500 x 100 x {slope:.1f} KB = {members_mb:,.0f} MB for members", "docs/operations.md")
    assert "measured by hand" not in _doc("docs/operations.md")
    says(
        f"serving one guild of {sizes[0]:,}, {sizes[1]:,} and {sizes[2]:,} members, its RSS"
        f" {settle:g} s after READY",
        "docs/performance.md",
    )


def test_the_slow_local_model_is_the_live_runs() -> None:
    reply = value_of("live_model", "latency_p50_ms", purpose="reply") / 1000
    says(f"(the live run's SmolLM2-135M on 2 cores: {reply:.0f} s p50,", "docs/llm.md")
    says(f"{reply:.0f} s p50 for the live run's SmolLM2-135M, docs/llm.md;", "README.md")
    precision = value_of("locomo", "learner_precision")
    says(
        f"precision {precision:.2f} on a labelled sample of LoCoMo's real conversations",
        "docs/llm.md",
    )


def test_performance_says_what_each_bench_measured_at() -> None:
    messages = measured_under(
        "recall", "search_p50_ms", "guild_messages", vectors="none", scope="guild", channels=8
    )
    says(f"**recall**: search on a {messages:,}-message guild", "docs/performance.md")
    members = measured_under("memory", "bytes_per_cached_member", "members", ascii_only=False)
    says(f"process memory per cached member at {members:,} members", "docs/performance.md")
    _run, economy = load()["economy"]
    rates = sorted({item["request_rate"] for item in economy if "request_rate" in item})
    said = ", ".join(f"{r:.0%}" for r in rates[:-1]) + f" and {rates[-1]:.0%}"
    says(f"at {said} of messages addressed to the bot", "docs/performance.md")


def test_usage_quotes_the_quality_reply_and_recall_benches() -> None:
    def dev(metric: str, kind: str) -> str:
        return _pct(value_of("quality", metric, kind=kind, split="dev"))

    tokens = value_of("quality", "prompt_tokens_p50", kind="all", split="dev")
    tuned = _pct(value_of("quality", "evidence_in_prompt", kind="all", split="tuned"))
    assert value_of("quality", "false_evidence", kind="never_said", split="dev") == 0
    says(
        f"in the reply prompt for {dev('evidence_in_prompt', 'all')} of questions,"
        f" {dev('evidence_in_prompt', 'two_messages')} when the answer spans two messages, the"
        f" answer's words for {dev('answer_words_in_prompt', 'all')}, at {tokens:,.0f} prompt"
        f" tokens p50; on the split the code was tuned on, {tuned}; never a never-said",
        "docs/usage.md",
    )
    locomo = _pct(value_of("locomo", "evidence_all_in_memories", category="all", embedder="local"))
    says(f"in the prompt's memories for {locomo} of questions", "docs/usage.md")
    one = value_of("reply_e2e", "reply_e2e_p99_ms", memories="cold")
    many = stored_figure("reply_e2e", "reply_e2e_concurrent100_p99_ms", memories="cold")
    says(
        f"p99 {one:,.0f} ms one at a time for members asking their first question, and"
        f" {many['value']:,.0f} ms when {many['members']} new members ask at once in"
        f" {many['channels']} channels",
        "docs/usage.md",
    )
    fused = [
        value_of("recall", m, vectors="local", scope="reply", config="simple")
        for m in ("search_p50_ms", "search_p99_ms")
    ]
    says(
        f"a reply's search takes {fused[0]:,.0f} ms p50 and {fused[1]:,.0f} ms p99 with the local"
        " vectors fused",
        "docs/usage.md",
    )


def test_design_tells_the_houses_story_as_the_bench_read_it() -> None:
    _run, stored = load()["house_history"]
    assert [(f["at"], f["moment"]) for f in stored if f["metric"] == "rooms"] == [
        *house_history.MOMENTS
    ], "the moments changed: run `python -m bench.house_history --write-docs`"

    def at(commit: str, metric: str) -> int:
        return int(value_of("house_history", metric, at=commit))

    def reading(commit: str) -> str:
        rooms, floors = at(commit, "rooms"), at(commit, "floors")
        return f"{rooms} rooms on {floors} floors and {at(commit, 'arrows')} arrows"

    wave1 = stored_figure("house_history", "circles", at="ccf90cd")
    assert wave1["value"] == 1, "wave 1 no longer reads as one circle: rewrite the sentence"
    circle = " <-> ".join(f"`{room}`" for room in wave1["rooms"].split(" <-> "))
    longest = stored_figure("house_history", "memory_flat_longest", at="8596ad9")
    says(
        f"the flat `memory/` of wave 1 had {at('ccf90cd', 'memory_flat_modules')} modules side"
        f" by side and an import circle ({circle}, read at ccf90cd",
        "docs/design.md",
    )
    says(
        f"after issue 35 (48eaa77), {reading('48eaa77')}; since `db/` reads the English word"
        f" lists of `memory/language/` (7274d3d), {at('7274d3d', 'floors')} floors. When issue"
        f" 35 was filed (7cbc01e): {reading('7cbc01e')}, with the wiring spread over"
        f" {at('7cbc01e', 'memory_flat_modules')} modules at the top of `memory/`; just before"
        f" `bot/` was given the ports (8596ad9), {reading('8596ad9')} (the composition root was"
        f" {at('8596ad9', 'memory_flat_modules')} modules, `{longest['module']}` alone"
        f" {longest['value']} lines).",
        "docs/design.md",
    )


def test_design_weighs_the_two_embedders_as_the_embeddings_bench_did() -> None:
    local = value_of("embeddings", "messages_per_s", model="local")
    encoder = value_of("embeddings", "messages_per_s", model="all-MiniLM-L6-v2")
    triples = measured_under("embeddings", "answer_in_top5", "triples", model="local")
    assert local / encoder >= 100, "no longer 'a few orders of magnitude': rewrite design.md"
    says(
        "the sentence encoder embeds a few orders of magnitude fewer messages a second",
        "docs/design.md",
    )
    says(f"(bench/embeddings_data.py): {triples} questions, each with", "docs/design.md")
    says(f"embeds about {encoder:,.0f} message", "docs/design.md")


def test_operations_says_when_past_one_postgresql_with_the_fleet_benchs_figures() -> None:
    lag = value_of("fleet", "sustained_lag_p99_s")
    rate = value_of("fleet", "sustained_messages_per_s")
    breaks = value_of("fleet", "breaks_at_messages_per_s")
    guilds = measured_under("fleet", "sustained_messages_per_s", "guilds")
    says(
        f"two shard processes serving {guilds:,} guilds kept ingest lag p99 at {lag:.2f} s at"
        f" {rate:,.0f} messages/s and broke at {breaks:,.0f} messages/s",
        "docs/operations.md",
    )
    per_million = [
        value_of("fleet", "db_mb_per_million_messages", vectors=v) for v in ("none", "local")
    ]
    at_100k = [value_of("fleet", "db_gb", guilds=100_000, vectors=v) for v in ("none", "local")]
    says(
        f"about {per_million[0]:,.0f} MB per million messages stored, {per_million[1]:,.0f} MB"
        " with the local vectors",
        "docs/operations.md",
    )
    says(
        f"would hold about {at_100k[0]:.1f} GB, {at_100k[1]:.1f} GB with vectors",
        "docs/operations.md",
    )


def test_design_says_what_a_live_batch_costs_the_embedder() -> None:
    lines = measured_under("embeddings", "live_batch_embed_p50_ms", "lines")
    p50 = value_of("embeddings", "live_batch_embed_p50_ms")
    says(
        f"a live batch of {lines:.0f} lines is then embedded in {p50:.1f} ms p50",
        "docs/design.md",
    )


def test_design_says_what_the_local_vectors_cost_an_import() -> None:
    messages = measured_under("embeddings", "import_s", "messages", vectors="none")
    without = value_of("embeddings", "import_s", vectors="none")
    with_vectors = value_of("embeddings", "import_s", vectors="local")
    says(
        f"a {messages:,.0f}-message export imports in {without:.1f} s without vectors and "
        f"{with_vectors:.0f} s with them",
        "docs/design.md",
    )
