# memorybot production image: slim, non-root, migrates then starts the bot.
#
# Stages: `requirements` lists what the image needs from pyproject.toml; `deps` installs exactly
# that, pinned by requirements.lock, into /opt/venv, so editing the code (or an unrelated part of
# pyproject.toml) never reinstalls the dependencies; `build` turns the source into a wheel; the
# final stage copies the venv and installs that wheel, nothing else.
# The base image, pinned by digest (the tag names the version; the digest is what is built).
# To move on: `docker pull python:3.11-slim-bookworm`, then
# `docker image inspect --format '{{index .RepoDigests 0}}' python:3.11-slim-bookworm`.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

FROM ${PYTHON_IMAGE} AS requirements
# Extras the image runs with. Not `embedded`: production reaches PostgreSQL through DATABASE_URL.
# Only leaf extras (`all` names the project itself).
ARG EXTRAS="gemini openai"
WORKDIR /src
COPY pyproject.toml ./
RUN python -c 'import sys, tomllib; \
p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
print("\n".join(p["dependencies"] + [r for e in sys.argv[1:] for r in p["optional-dependencies"][e]]))' \
        $EXTRAS > /requirements.txt

FROM ${PYTHON_IMAGE} AS deps
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
WORKDIR /src
COPY requirements.lock ./
COPY --from=requirements /requirements.txt ./
# The lock is a constraints file: the image gets the exact versions CI tested, without dev tools.
RUN /opt/venv/bin/pip install -c requirements.lock -r requirements.txt

FROM deps AS build
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
COPY memory ./memory
COPY db ./db
COPY prompts ./prompts
RUN /opt/venv/bin/pip wheel --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH \
    LOG_DIR=/var/log/memorybot \
    MEMORYBOT_IN_CONTAINER=1
# uid and gid 10001: Compose's group_add and file secrets refer to them (docs/operations.md).
RUN groupadd --gid 10001 memorybot \
    && useradd --create-home --uid 10001 --gid 10001 memorybot \
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
