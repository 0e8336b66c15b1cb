# memorybot production image: slim, non-root, migrates then starts the bot.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY memory ./memory
COPY db ./db
COPY prompts ./prompts
RUN pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    LOG_DIR=/var/log/memorybot
COPY --from=build /install /usr/local
RUN useradd --create-home --uid 10001 memorybot \
    && mkdir -p /var/log/memorybot \
    && chown memorybot:memorybot /var/log/memorybot
USER memorybot
WORKDIR /home/memorybot
# DATABASE_URL must point at PostgreSQL (the Compose file provides one).
CMD ["sh", "-c", "memorybot migrate && exec memorybot run"]
