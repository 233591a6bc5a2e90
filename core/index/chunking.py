"""Turn → chunks: deterministic splitting with overlap and coordinate-derived ids.

A chunk id depends only on (session, turn, block index, split index), so a session that grows
keeps the ids of everything already indexed, and re-reading a transcript never duplicates.
"""

from __future__ import annotations

import hashlib

from funes.model import Chunk, Turn

MAX_CHARS = 1200
OVERLAP = 150
# A break (newline, else space) is only taken when it keeps at least half a window.
MIN_BREAK = MAX_CHARS // 2


def chunk_id(session_id: str, turn_uuid: str, block_idx: int, split_idx: int) -> str:
    key = f"{session_id}:{turn_uuid}:{block_idx}:{split_idx}"
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def render_block(block_type: str, text: str, tool_name: str | None) -> str:
    """The text that is embedded and searched: tool blocks carry their tool's name."""
    body = text.strip()
    if block_type == "tool_use":
        return f"[tool_use {tool_name or 'None'}] {body}".strip()
    if block_type == "tool_result":
        label = f"[tool_result {tool_name}]" if tool_name else "[tool_result]"
        return f"{label} {body}".strip()
    return body


def split_text(text: str, max_chars: int = MAX_CHARS, overlap: int = OVERLAP) -> list[str]:
    """Split into windows of at most `max_chars`, preferring line then word breaks."""
    text = text.strip()
    n = len(text)
    if n == 0:
        return []
    if n <= max_chars:
        return [text]
    pieces: list[str] = []
    start = 0
    min_break = max_chars // 2
    while True:
        end = min(start + max_chars, n)
        if end < n:
            brk = text.rfind("\n", start, end)
            if brk <= start + min_break:
                brk = text.rfind(" ", start, end)
            if brk > start + min_break:
                end = brk
        piece = text[start:end].strip()
        if piece:
            pieces.append(piece)
        if end >= n:
            return pieces
        start = max(end - overlap, start + 1)


def stitch(pieces: list[str], overlap: int = OVERLAP) -> str:
    """Inverse of `split_text`: join consecutive splits, dropping the shared overlap once."""
    if not pieces:
        return ""
    out = pieces[0]
    for nxt in pieces[1:]:
        limit = min(overlap, len(out), len(nxt))
        shared = 0
        for k in range(limit, 0, -1):
            if out.endswith(nxt[:k]):
                shared = k
                break
        if shared:
            out += nxt[shared:]
        else:
            # The window ended at a break that `strip()` removed: restore one separator.
            out += "\n" + nxt
    return out


def chunk_turn(turn: Turn, repo: str = "") -> list[Chunk]:
    chunks: list[Chunk] = []
    for block_idx, block in enumerate(turn.blocks):
        rendered = render_block(block.block_type, block.text, block.tool_name)
        for split_idx, piece in enumerate(split_text(rendered)):
            chunks.append(
                Chunk(
                    id=chunk_id(turn.session_id, turn.turn_uuid, block_idx, split_idx),
                    text=piece,
                    session_id=turn.session_id,
                    turn_uuid=turn.turn_uuid,
                    parent_uuid=turn.parent_uuid,
                    seq=turn.seq,
                    ts=turn.ts,
                    role=turn.role,
                    block_type=block.block_type,
                    tool_name=block.tool_name,
                    harness=turn.harness,
                    workdir=turn.workdir,
                    repo=repo,
                    source_path=turn.source_path,
                    block_idx=block_idx,
                    split_idx=split_idx,
                    tool_use_id=block.tool_use_id,
                )
            )
    return chunks
