"""Indexing: turn parsed turns into stored, searchable chunks (chunk, redact, embed, write)."""
