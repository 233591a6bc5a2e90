"""A faster, equivalent way to run a BERT-tokenized static model: tokenize each word once.

A model2vec static embedding is the mean of its tokens' vectors. With a BERT normalizer and
pre-tokenizer every token stays inside one whitespace-separated word, and a word always yields
the same tokens, so a text's vector is the sum of its words' token-vector sums (the mean's
divisor disappears in the L2 normalisation). Transcripts repeat words endlessly; tokenizing each
distinct word once per process and summing cached rows costs a fraction of re-tokenizing every
text, which is what bounds indexing speed.

One encoder serves every thread of a process (the resident service answers several recalls at
once): the word cache is its only mutable state, read and extended under a lock; tokenizing and
summing happen outside it, on what the lock handed out.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

# Past this many cached words the cache is dropped and rebuilt (bounded memory: 256-d float32
# rows, about 1 KB a word, plus the word itself). Code-heavy histories have millions of distinct
# "words" (identifiers glued to punctuation); 400k of them made a 340k-chunk first index peak
# at 1.17 GB, most of it this cache and its doubling copies.
MAX_WORDS = 150_000
# Token rows gathered at once when summing a batch (see _segment_sums): 16 MB of 256-d rows.
BLOCK_ROWS = 16_384


def supports(model: Any) -> bool:
    """True when the model's tokenizer splits on whitespace before its word-piece model."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return False
    normalizer = type(tokenizer.normalizer).__name__ if tokenizer.normalizer else ""
    pre_tokenizer = type(tokenizer.pre_tokenizer).__name__ if tokenizer.pre_tokenizer else ""
    return normalizer == "BertNormalizer" and pre_tokenizer == "BertPreTokenizer"


class WordSumEncoder:
    def __init__(self, model: Any) -> None:
        self._tokenizer = model.tokenizer
        embedding = np.asarray(model.embedding)
        self._embedding = embedding.astype(np.float32, copy=False)
        self._weights = None if model.weights is None else np.asarray(model.weights, np.float32)
        self._mapping = None if model.token_mapping is None else np.asarray(model.token_mapping)
        self._unk = model.unk_token_id
        self.dim = int(self._embedding.shape[1])
        # Guards the cache (`_rows`, `_table`, `_used`): two threads extending it at once wrote
        # one word's row over another's and sized their slices from each other's counts.
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._rows: dict[str, int] = {}
        self._table = np.zeros((4096, self.dim), dtype=np.float32)  # row 0: words with no token
        self._used = 1

    def _word_sums(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(each word's token-vector sum, whether it has any token): reads only the model."""
        encodings = self._tokenizer.encode_batch_fast(words, add_special_tokens=False)
        ids = [encoding.ids for encoding in encodings]
        if self._unk is not None:
            ids = [[i for i in word_ids if i != self._unk] for word_ids in ids]
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter(
            (i for word_ids in ids for i in word_ids), dtype=np.int64, count=int(lengths.sum())
        )
        rows = self._mapping[flat] if self._mapping is not None else flat
        weights = (
            self._weights[flat] if self._weights is not None else np.ones(len(flat), np.float32)
        )
        return _segment_sums(lengths, rows, weights, self._embedding), lengths > 0

    def _store(self, words: list[str], sums: np.ndarray, has_tokens: np.ndarray) -> None:
        """Add `words` (none of them cached) and their sums to the cache; under the lock."""
        needed = self._used + len(words)
        if needed > len(self._table):
            size = max(needed, min(2 * len(self._table), MAX_WORDS + 1))
            grown = np.zeros((size, self.dim), dtype=np.float32)
            grown[: self._used] = self._table[: self._used]
            self._table = grown  # a new array: a snapshot handed out earlier stays valid
        self._table[self._used : needed] = sums
        positions = np.where(has_tokens, np.arange(self._used, needed), 0)
        self._rows.update(zip(words, positions.tolist(), strict=True))
        self._used = needed

    def _missing(self, split: list[list[str]]) -> list[str]:
        """The words of `split` not cached (all of them, after a reset, when adding them would
        pass MAX_WORDS); under the lock."""
        unknown = {word for words in split for word in words}.difference(self._rows)
        if len(self._rows) + len(unknown) > MAX_WORDS:
            self._reset()
            unknown = {word for words in split for word in words}
        return list(unknown)

    def _rows_of(self, split: list[list[str]]) -> tuple[np.ndarray, np.ndarray] | None:
        """(each word's cache row, the cache's rows so far), or None when a word is missing
        (another thread reset the cache meanwhile); under the lock. The rows handed out are
        never written again: the cache only appends, and a reset or growth makes a new array."""
        count = sum(map(len, split))
        try:
            rows = np.fromiter((self._rows[w] for words in split for w in words), np.int64, count)
        except KeyError:
            return None
        return rows, self._table[: self._used]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unnormalised sums of token vectors, one row per text (zeros for no tokens)."""
        split = [text.split() for text in texts]
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        with self._lock:
            unknown = self._missing(split)
            found = None if unknown else self._rows_of(split)
        if unknown:
            sums, has_tokens = self._word_sums(unknown)  # the slow part, outside the lock
            with self._lock:
                fresh = [i for i, word in enumerate(unknown) if word not in self._rows]
                if len(fresh) < len(unknown):  # another thread learnt some of them meanwhile
                    unknown, sums, has_tokens = (
                        [unknown[i] for i in fresh],
                        sums[fresh],
                        has_tokens[fresh],
                    )
                self._store(unknown, sums, has_tokens)
                found = self._rows_of(split)
        while found is None:  # a reset by another thread dropped some of our words: rarely
            with self._lock:
                missing = self._missing(split)
                self._store(missing, *self._word_sums(missing))
                found = self._rows_of(split)
        rows, table = found
        return _segment_sums(lengths, rows, None, table)


def _segment_sums(
    lengths: np.ndarray, rows: np.ndarray, weights: np.ndarray | None, table: np.ndarray
) -> np.ndarray:
    """out[i] = Σ weights·table[rows] over the i-th run of `lengths` consecutive rows.

    Segments of equal length are summed together, as a (segments × length × dim) gather
    summed over its middle axis, at most BLOCK_ROWS rows at a time (gathering a corpus-sized
    batch at once would move a gigabyte through memory). numpy alone, as fast as the sparse
    product it replaces: the default install needs no scipy (143 MB).
    """
    out = np.zeros((len(lengths), table.shape[1]), dtype=np.float32)
    starts = np.cumsum(lengths) - lengths
    order = np.argsort(lengths, kind="stable")
    for group in np.split(order, np.flatnonzero(np.diff(lengths[order])) + 1):
        length = int(lengths[group[0]]) if len(group) else 0
        if length == 0:
            continue  # no tokens: the sum stays zero
        step = max(1, BLOCK_ROWS // length)
        for first in range(0, len(group), step):
            segments = group[first : first + step]
            positions = starts[segments][:, None] + np.arange(length)
            gathered = table[rows[positions]].astype(np.float32, copy=False)
            if weights is not None:
                gathered *= weights[positions][..., None]  # a fresh copy: fancy indexing copies
            out[segments] = gathered.sum(axis=1)
    return out
