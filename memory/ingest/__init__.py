"""Ingestion: the batched writer for live chat events and the DiscordChatExporter importer."""

from __future__ import annotations

from memory.ingest._batch import is_transient
from memory.ingest._export_rows import ExportFormatError
from memory.ingest._importer import ExportImporter, ImportResult
from memory.ingest._stored_reads import StoredMessages
from memory.ingest._writer import BatchedWriter

__all__ = [
    "BatchedWriter",
    "ExportFormatError",
    "ExportImporter",
    "ImportResult",
    "StoredMessages",
    "is_transient",
]
