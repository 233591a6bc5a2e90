"""`scrub`: remove secrets from rows already stored in the local memory, so a push goes through.

Each block is reassembled and scanned by the same gate as push. A dirty block is redacted with
the built-in redactor; the redaction is kept only if the gate then finds nothing, in which case
the block is re-split (same coordinate ids) and re-embedded; otherwise every row of the block is
dropped. The replacement is one `merge_insert` commit, so a crash leaves the old rows intact.
The files funes keeps beside the rows that quote them (resume points, curation notes) are
cleaned as the rows are. Transcripts and remotes are never touched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from funes.index.lead_in import COLUMN as LEAD_IN
from funes.index.lead_in import LEAD_IN_BLOCKS, has_lead_ins, lead_in_for
from funes.sync.gate import find_dirty_blocks, reassemble_blocks, scan_block


@dataclass
class ScrubReport:
    rows: int = 0  # rows in the memory before scrubbing
    redacted_blocks: int = 0
    redacted_secrets: int = 0
    dropped_blocks: int = 0
    dropped_rows: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    lead_ins: int = 0  # lead-ins (funes.index.lead_in) redacted or cleared
    files: list[str] = field(default_factory=list)  # files beside the rows, cleaned

    @property
    def clean(self) -> bool:
        return self.redacted_blocks == 0 and self.dropped_blocks == 0 and not self.files


def unclean_files(path: Path | None = None, *, fix: bool = False) -> list[Path]:
    """Files funes keeps beside the memory at `path` (default: the local one) that hold text its
    rows would not (a credential, a private span): resume points and curation notes an older
    funes wrote. With `fix`, each is rewritten cleaned. `funes doctor` asks, `scrub` fixes."""
    from funes.index.state import state_path, unclean_resume_points
    from funes.project.curate import unclean_notes

    found = unclean_resume_points(state_path(path), fix=fix)
    if path is None:  # curation notes belong to the local memory's sessions
        found += unclean_notes(fix=fix)
    return found


def scrub(path: Path | None = None) -> ScrubReport:
    from funes.index.lock import writer_lock
    from funes.index.store import ChunkStore, memory_exists
    from funes.paths import local_memory_dir

    with writer_lock():
        files = [str(f) for f in unclean_files(path, fix=True)]
        if files and not memory_exists(path or local_memory_dir()):
            return ScrubReport(files=files)
        store = ChunkStore.open(path)
        rows = store.scan(list(store.table.schema.names)).to_pylist()
        report = ScrubReport(rows=len(rows), files=files)
        dirty = find_dirty_blocks(reassemble_blocks(rows))
        if not dirty:
            return report
        from funes.index.redact import redact

        blocks = reassemble_blocks(r for r in rows if _key(r) in dirty)
        replacements: list[dict[str, Any]] = []
        drop_ids: list[str] = []
        for key, kinds in dirty.items():
            report.by_kind.update(set(kinds))
            block_rows = sorted((r for r in rows if _key(r) == key), key=lambda r: r["split_idx"])
            drop_ids.extend(r["id"] for r in block_rows)
            redacted, findings = redact(blocks[key])
            if findings and not scan_block(redacted):
                report.redacted_blocks += 1
                report.redacted_secrets += len(findings)
                replacements.extend(_resplit(block_rows[0], redacted))
            else:
                report.dropped_blocks += 1
                report.dropped_rows += len(block_rows)
        _commit(store, replacements, drop_ids)
        # A lead-in quotes the chunk before it: scrubbed with the sessions of the dirty blocks.
        report.lead_ins = _scrub_lead_ins(store, {key[0] for key in dirty})
        store.ensure_indexes()
        return report


def _scrub_lead_ins(store: Any, sessions: set[str]) -> int:
    """Redact every lead-in of `sessions` in which the gate finds a secret (cleared when the
    redaction leaves one); returns how many changed."""
    from funes.index.redact import redact
    from funes.index.store import sql_quote

    if not has_lead_ins(store.table) or not sessions:
        return 0
    where = "session_id IN (" + ", ".join(sql_quote(s) for s in sorted(sessions)) + ")"
    changed = 0
    for row in store.scan(["id", LEAD_IN], where=where).to_pylist():
        quoted = row[LEAD_IN] or ""
        if not quoted or not scan_block(quoted):
            continue
        redacted, _ = redact(quoted)
        value = "" if scan_block(redacted) else redacted
        store.table.update(where=f"id = {sql_quote(row['id'])}", values={LEAD_IN: value})
        changed += 1
    return changed


def _key(row: dict[str, Any]) -> tuple[str, str, int]:
    return (row["session_id"], row["turn_uuid"], int(row["block_idx"]))


def _resplit(first: dict[str, Any], text: str) -> list[dict[str, Any]]:
    from funes.index.chunking import chunk_id, split_text

    out: list[dict[str, Any]] = []
    for split_idx, piece in enumerate(split_text(text)):
        row = dict(first)
        row.update(
            id=chunk_id(first["session_id"], first["turn_uuid"], first["block_idx"], split_idx),
            text=piece,
            split_idx=split_idx,
        )
        if split_idx and LEAD_IN in row and row["block_type"] in LEAD_IN_BLOCKS:
            # A later window's lead-in is the end of the window before.
            row[LEAD_IN] = lead_in_for(row["block_type"], out[-1]["text"])
        out.append(row)
    return out


def _commit(store: Any, replacements: list[dict[str, Any]], drop_ids: list[str]) -> None:
    """Replace the dirty blocks' rows in one commit: upsert the redacted rows, delete the rest."""
    import pyarrow as pa

    from funes.index.embed import load_embedder
    from funes.index.store import sql_quote

    keep = {r["id"] for r in replacements}
    stale = [i for i in drop_ids if i not in keep]
    where = "id IN (" + ", ".join(sql_quote(i) for i in stale) + ")" if stale else None
    if not replacements:
        if where:
            store.table.delete(where)
        return
    embedder = load_embedder(store.model_id or None)
    vectors = embedder.encode([r["text"] for r in replacements])
    for row, vector in zip(replacements, vectors, strict=True):
        row["vector"] = vector.tolist()
    table = pa.Table.from_pylist(replacements, schema=store.table.schema)
    merge = store.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
    if where:
        merge = merge.when_not_matched_by_source_delete(where)
    merge.execute(table)
