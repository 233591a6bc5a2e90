"""Project and team memory: what a memory holds beyond one machine's history.

- `privacy`: `<private>…</private>` spans never reach a memory.
- `tombstones` / `forget`: take sessions, folders or a period back out of a memory, for good.
- `curate`: choose which of a repository's sessions a project memory publishes.
- `declared`: the project memory a repository names in a file it commits.
- `multi`: recall from several memories at once, one ranked list.
"""
