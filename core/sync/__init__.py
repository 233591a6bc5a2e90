"""A memory as a Hugging Face dataset the user owns: push, remote open/cache, secret gate, scrub.

Remote layout (inside the dataset repo, under an optional prefix): append-only Parquet shards
`data/<push-id>.parquet`, one per push, each holding every chunk column including the vector and
the embedding model's stamps in its schema metadata; plus `README.md`, the dataset card. A reader
keeps a local Lance copy of the shards listed at the commit it read, so a warm recall is a local
query.
"""
