"""Ingestion: the batched writer for live chat events and the DiscordChatExporter importer."""

from __future__ import annotations

from memory.ingest._importer import ExportFormatError, ExportImporter, ImportResult
from memory.ingest._writer import BatchedWriter, is_transient

__all__ = ["BatchedWriter", "ExportFormatError", "ExportImporter", "ImportResult", "is_transient"]
