"""`push`: publish the local memory's chunks that a remote lacks, as one parent-guarded commit.

Each push adds one immutable Parquet shard (`data/<time>-<ids-hash>.parquet`) plus the dataset
card. The commit names the head it was built on; if another machine pushed meanwhile the Hub
answers 412/409, and the push re-reads the remote and tries again, so concurrent pushes both
land. A push killed before its commit leaves the remote exactly as it was (uploaded LFS blobs are
invisible until committed, and reused by the next attempt since their content is the same).
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.index.lead_in import COLUMN as LEAD_IN
from funes.index.store import TOOL_USE_ID
from funes.memory_spec import RemoteSpec, parse_remote_spec
from funes.paths import funes_home, local_memory_dir, logs_dir
from funes.project.curate import MANIFEST
from funes.project.published import honour_tombstones, record_published, tombstone_file
from funes.project.purge import PurgeReport, purge
from funes.sync.card import CardStats, plan_card
from funes.sync.gate import HeldBack, block_key, find_dirty_blocks, reassemble_blocks
from funes.sync.hub import HubError, HubRemote, PushConflict, RepoMissing
from funes.sync.published_paths import home_relative_rows, publish_paths
from funes.sync.remote import SHARD_FOLDER, RemoteCache, record_push, sync_cache

MAX_ATTEMPTS = 10
log = logging.getLogger(__name__)


class PushRefused(HubError):
    """The push cannot go ahead (no local memory, declined repo creation, model mismatch)."""


@dataclass
class PushReport:
    uri: str
    pushed: int = 0
    commit: str | None = None
    remote_chunks: int = 0  # on the remote after this push
    created_repo: bool = False
    card: str = ""  # created | refreshed | unchanged | kept | ""
    bytes_uploaded: int = 0
    attempts: int = 0
    held: HeldBack = field(default_factory=HeldBack)
    project: str = ""  # the repository a project memory is named for ("" for a personal one)
    pending_review: int = 0  # project memory: sessions not (or no longer) reviewed
    tombstoned: int = 0  # forgotten chunk ids this push published
    purged: PurgeReport | None = None

    @property
    def everything_held(self) -> bool:
        return self.pushed == 0 and self.held.rows > 0


Progress = Callable[[str], None]


def push(
    spec: str,
    *,
    yes: bool = False,
    confirm: Callable[[str], bool] | None = None,
    progress: Progress | None = None,
    local_path: Path | None = None,
    purge_history: bool = False,
) -> PushReport:
    from funes.index.store import ChunkStore, MemoryNotFound

    say = progress or (lambda _msg: None)
    remote_spec = parse_remote_spec(spec)
    report = PushReport(uri=remote_spec.uri)
    try:
        local = ChunkStore.open(local_path or local_memory_dir())
    except MemoryNotFound as err:
        from funes.index.tombstones import forgotten_ids

        # `funes forget --memory ORG/REPO` on a machine that only reads it: publish that alone.
        if not forgotten_ids([remote_spec.uri]):
            raise PushRefused(
                f"no local memory to push — run `funes add <agent>` first ({err})"
            ) from err
        local = None

    remote = HubRemote(remote_spec)
    remote.require_token()
    try:
        remote.info()
    except RepoMissing:
        question = f"{remote_spec.uri} doesn't exist on the Hub. Create it as a private dataset?"
        if not (yes or (confirm is not None and confirm(question))):
            raise PushRefused(
                f"{remote_spec.uri} doesn't exist on the Hub; run `funes push {spec} --yes` "
                "to create it as a private dataset"
            ) from None
        remote.create_private()
        report.created_repo = True
        say(f"created private dataset {remote_spec.repo_id}")

    say("reading the local memory")
    rows = local.scan(list(local.table.schema.names)) if local is not None else None
    cache = RemoteCache(remote_spec)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report.attempts = attempt
        head = remote.head()
        sync_cache(cache, remote, head)
        with cache.locked():
            tombstones = honour_tombstones(cache, remote, head)
        if local is None:
            if not cache.has_copy():
                break  # nothing on the remote to take back
            local = cache.open_store()  # only its model and schema are used: no rows to send
            rows = local.scan(list(local.table.schema.names)).slice(0, 0)
        remote_ids, remote_sessions, remote_harnesses, period = _remote_facts(cache, local)
        report.remote_chunks = len(remote_ids)
        with tempfile.TemporaryDirectory() as tmp:
            project, manifest = _project(remote, remote_spec, head, Path(tmp), bool(remote_ids))
            candidates = rows
            if project:
                report.project = project
                candidates, report.pending_review = _curated_rows(rows, local, spec, project)
            outgoing = _missing_rows(candidates, remote_ids | tombstones.published)
            forgotten = set(tombstones.unpublished)
            if outgoing.num_rows == 0 and not forgotten and manifest is None:
                break
            clean = outgoing
            if outgoing.num_rows:
                say(f"scanning {outgoing.num_rows} chunk(s) for secrets")
                clean, report.held = _gate(rows, outgoing)
            if clean.num_rows == 0 and not forgotten and manifest is None:
                break
            files: dict[str, Path | bytes] = {}
            shard_path = ""
            if clean.num_rows:
                shard_path, shard_file = _write_shard(remote_spec.path_in_repo, clean, Path(tmp))
                files[shard_path] = shard_file
            tombstone_path = ""
            if forgotten:
                tombstone_path, content = tombstone_file(remote_spec.path_in_repo, forgotten)
                files[tombstone_path] = content
            if manifest is not None:
                files[remote_spec.path_in_repo(MANIFEST)] = manifest
            stats = _card_stats(
                clean, local, remote_ids, remote_sessions, remote_harnesses, period, project
            )
            card_text, report.card = _card(remote, remote_spec, head, stats, Path(tmp))
            if card_text is not None:
                files[remote_spec.path_in_repo("README.md")] = card_text.encode()
            say(_uploading(clean.num_rows, len(forgotten)))
            try:
                commit = remote.commit(files, _message(clean.num_rows, len(forgotten)), head)
            except PushConflict:
                say("the remote moved meanwhile; re-reading it and retrying")
                time.sleep(min(0.2 * attempt, 2.0))
                continue
            report.bytes_uploaded = sum(
                f.stat().st_size if isinstance(f, Path) else len(f) for f in files.values()
            )
            if shard_path:
                record_push(cache, head, commit, shard_path, shard_file)
            if tombstone_path:
                record_published(cache, tombstone_path, forgotten)
        report.pushed = clean.num_rows
        report.tombstoned = len(forgotten)
        report.commit = commit
        report.remote_chunks = len(remote_ids) + clean.num_rows
        break
    else:
        raise HubError(f"{remote_spec.uri} kept changing; gave up after {MAX_ATTEMPTS} attempts")
    if purge_history:
        report.purged = purge(remote, cache, say, _write_shard)
    stamp = push_stamp(remote_spec)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    return report


def push_stamp(remote_spec: RemoteSpec) -> Path:
    """The file whose time says when this machine last pushed to a Hub memory: touched by
    every push, and by the hook worker when it starts one in the background."""
    return funes_home() / "pushed" / f"{remote_spec.cache_name}.last"


def _uploading(rows: int, forgotten: int) -> str:
    parts = [f"{rows} chunk(s)"] if rows else []
    parts += [f"a tombstone for {forgotten} forgotten chunk(s)"] if forgotten else []
    return "uploading " + (" and ".join(parts) or "the project manifest")


def _message(rows: int, forgotten: int) -> str:
    parts = [f"+{rows} chunks"] if rows else []
    parts += [f"-{forgotten} forgotten"] if forgotten else []
    return "funes push: " + (", ".join(parts) or "project memory")


def _project(
    remote: HubRemote, remote_spec: Any, head: str, tmp: Path, has_rows: bool
) -> tuple[str, bytes | None]:
    """(project the memory is named for or "", manifest bytes to commit when it is new).

    The remote's `funes.json` names it; a dataset without one becomes a project memory when
    `funes curate` named it here and it holds nothing yet."""
    from funes.project.curate import load_decisions, manifest_bytes, read_manifest

    named = read_manifest(remote, remote_spec, head, tmp)
    decisions = load_decisions(remote_spec.uri)
    if named:
        if decisions.project and decisions.project != named:
            raise PushRefused(
                f"{remote_spec.uri} is the project memory of {named}, but it was curated here "
                f"for {decisions.project}"
            )
        return named, None
    if not decisions.project:
        return "", None
    if has_rows:
        raise PushRefused(
            f"{remote_spec.uri} already holds a personal memory; a project memory of "
            f"{decisions.project} needs a dataset of its own"
        )
    return decisions.project, manifest_bytes(decisions.project)


def _curated_rows(rows: Any, local: Any, spec: str, project: str) -> tuple[Any, int]:
    import pyarrow as pa
    import pyarrow.compute as pc

    from funes.project.curate import load_decisions, publishable

    ids, pending = publishable(local, project, load_decisions(parse_remote_spec(spec).uri))
    keep = pc.is_in(rows.column("id"), value_set=pa.array(sorted(ids), pa.string()))
    return rows.filter(keep), len(pending)


def _remote_facts(
    cache: RemoteCache, local: Any
) -> tuple[set[str], set[str], set[str], tuple[str, str]]:
    if not cache.has_copy():
        return set(), set(), set(), ("", "")
    store = cache.open_store()
    if store.model_id != local.model_id or store.model_hash != local.model_hash:
        raise PushRefused(
            f"{cache.spec.uri} holds embeddings from model {store.model_id}, the local memory "
            f"from {local.model_id}: push to another dataset"
        )
    facts = store.scan(["id", "session_id", "harness", "ts"])
    return (
        set(facts.column("id").to_pylist()),
        set(facts.column("session_id").to_pylist()),
        set(facts.column("harness").to_pylist()),
        _period(facts.column("ts").to_pylist()),
    )


def _period(stamps: list[str | None]) -> tuple[str, str]:
    dated = sorted(s[:10] for s in stamps if s)
    return (dated[0], dated[-1]) if dated else ("", "")


def _missing_rows(rows: Any, remote_ids: set[str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    if not remote_ids:
        return rows
    known = pc.is_in(rows.column("id"), value_set=pa.array(sorted(remote_ids), pa.string()))
    return rows.filter(pc.invert(known))


def _gate(rows: Any, outgoing: Any) -> tuple[Any, HeldBack]:
    """Outgoing rows minus every row of any block with a finding; blocks are reassembled from
    all local rows of the block, not only the outgoing ones."""
    import pyarrow as pa

    cols = ["session_id", "turn_uuid", "block_idx", "split_idx", "text"]
    outgoing_keys = {block_key(r) for r in outgoing.select(cols[:3]).to_pylist()}
    block_rows = [r for r in rows.select(cols).to_pylist() if block_key(r) in outgoing_keys]
    dirty = find_dirty_blocks(reassemble_blocks(block_rows))
    held = HeldBack(blocks=len(dirty))
    for kinds in dirty.values():
        held.by_kind.update(set(kinds))
    # Where each row ran goes through the gate too (and out home-relative): a path with a
    # secret is published redacted, or its row is held back when the redaction is not clean.
    paths = publish_paths(outgoing)
    held.by_kind.update(paths.by_kind)
    held.paths_redacted = paths.redacted
    keep = []
    for row, path_clean in zip(outgoing.select(cols[:3]).to_pylist(), paths.keep, strict=True):
        key = block_key(row)
        kept = key not in dirty and path_clean
        if not kept:
            held.rows += 1
            held.path_rows += not path_clean
            held.sessions.add(key[0])
        keep.append(kept)
    return paths.rows.filter(pa.array(keep, pa.bool_())), held


def _write_shard(path_in_repo: Callable[[str], str], clean: Any, folder: Path) -> tuple[str, Path]:
    import pyarrow.parquet as pq

    clean = home_relative_rows(clean)  # no home folder (user name, layout) leaves the machine
    # Lead-ins copy other rows' text, which the gate may have held back: they stay local (a
    # shared memory searches by text alone).
    if LEAD_IN in clean.column_names:
        clean = clean.drop_columns([LEAD_IN])
    # Tool-use ids stay local too: a shared copy is one table folded from every shard, older
    # shards lack the column, and its calls pair first in, first out as they always did.
    if TOOL_USE_ID in clean.column_names:
        clean = clean.drop_columns([TOOL_USE_ID])
    ids = sorted(clean.column("id").to_pylist())
    digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{digest}.parquet"
    file = folder / name
    pq.write_table(clean.sort_by("id"), file, compression="zstd")
    return path_in_repo(f"{SHARD_FOLDER}/{name}"), file


def _card_stats(
    clean: Any,
    local: Any,
    remote_ids: set[str],
    remote_sessions: set[str],
    remote_harnesses: set[str],
    period: tuple[str, str],
    project: str,
) -> CardStats:
    first, last = _period([*period, *clean.column("ts").to_pylist()])
    return CardStats(
        chunks=len(remote_ids) + clean.num_rows,
        sessions=len(remote_sessions | set(clean.column("session_id").to_pylist())),
        harnesses=tuple(sorted(remote_harnesses | set(clean.column("harness").to_pylist()))),
        model_id=local.model_id,
        updated=time.strftime("%Y-%m-%d", time.gmtime()),
        period=(first, last),
        project=project,
    )


def _card(
    remote: HubRemote, remote_spec: Any, head: str, stats: CardStats, tmp: Path
) -> tuple[str | None, str]:
    if remote_spec.prefix:
        return None, ""  # a card describes a whole repo; a memory under a prefix leaves it alone
    existing = remote.read_text("README.md", head, tmp / "card")
    return plan_card(existing, remote_spec.uri, remote_spec.repo_id, stats)


def publish_in_background(memory_spec: str) -> int:
    """Start `funes push <memory_spec>` detached (never blocks the caller); it logs to
    `$FUNES_HOME/logs/push.log`. Returns the child's pid."""
    folder = logs_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "push.log").open("ab") as log_file:
        log_file.write(
            f"--- {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} push "
            f"{memory_spec}\n".encode()
        )
        log_file.flush()
        child = subprocess.Popen(
            [sys.executable, "-c", "from funes.cli import main; main()", "push", memory_spec],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=os.environ.copy(),
        )
    return child.pid
