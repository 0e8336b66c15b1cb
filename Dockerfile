# memorybot production image: slim, non-root, migrates then starts the bot.
#
# Stages: `deps` installs the locked dependencies into /opt/venv from pyproject.toml and
# requirements.lock only, so editing the code never reinstalls them; `build` turns the source into
# a wheel; the final stage copies the venv, installs that wheel and nothing else.
FROM python:3.11-slim-bookworm AS deps
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# Extras the image runs with. Not `embedded`: production reaches PostgreSQL through DATABASE_URL.
ARG EXTRAS="gemini openai"
RUN python -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml requirements.lock ./
# The requirements are read from pyproject.toml (base + EXTRAS) and pinned by the lock
# (constraints), so the image runs the exact versions CI tested, without the dev tools.
RUN python -c 'import sys, tomllib; \
p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
print("\n".join(p["dependencies"] + [r for e in sys.argv[1:] for r in p["optional-dependencies"][e]]))' \
        $EXTRAS > /tmp/requirements.txt \
    && /opt/venv/bin/pip install -c requirements.lock -r /tmp/requirements.txt

FROM deps AS build
COPY README.md LICENSE ./
COPY bot ./bot
COPY memory ./memory
COPY db ./db
COPY prompts ./prompts
RUN /opt/venv/bin/pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH \
    LOG_DIR=/var/log/memorybot \
    MEMORYBOT_IN_CONTAINER=1
RUN useradd --create-home --uid 10001 memorybot \
    && mkdir -p /var/log/memorybot \
    && chown memorybot:memorybot /var/log/memorybot
# The dependency layer first: it only changes when pyproject.toml or the lock does.
COPY --from=deps /opt/venv /opt/venv
COPY --from=build /wheels /tmp/wheels
# --no-deps: everything is already there; pip check fails the build if pyproject.toml asks for
# something the dependency layer lacks.
RUN pip install --no-deps /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && pip check
USER memorybot
WORKDIR /home/memorybot
# `memorybot health` checks the database and the gateway heartbeat; exit status 0 means healthy.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["memorybot", "health"]
# The bot closes the gateway and flushes the ingest queue on SIGTERM (compose: stop_grace_period).
STOPSIGNAL SIGTERM
# DATABASE_URL must point at PostgreSQL (the Compose file provides one). `exec` makes the bot the
# process that receives SIGTERM.
CMD ["sh", "-c", "memorybot migrate && exec memorybot run"]
