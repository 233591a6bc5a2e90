"""A faster, equivalent way to run a BERT-tokenized static model: tokenize each word once.

A model2vec static embedding is the mean of its tokens' vectors. With a BERT normalizer and
pre-tokenizer every token stays inside one whitespace-separated word, and a word always yields
the same tokens, so a text's vector is the sum of its words' token-vector sums (the mean's
divisor disappears in the L2 normalisation). Transcripts repeat words endlessly; tokenizing each
distinct word once per process and summing cached rows costs a fraction of re-tokenizing every
text, which is what bounds indexing speed.
"""

from __future__ import annotations

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
        self._reset()

    def _reset(self) -> None:
        self._rows: dict[str, int] = {}
        self._table = np.zeros((4096, self.dim), dtype=np.float32)  # row 0: words with no token
        self._used = 1

    def _learn(self, words: list[str]) -> None:
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
        sums = _segment_sums(lengths, rows, weights, self._embedding)
        has_tokens = lengths > 0
        needed = self._used + len(words)
        if needed > len(self._table):
            size = max(needed, min(2 * len(self._table), MAX_WORDS + 1))
            grown = np.zeros((size, self.dim), dtype=np.float32)
            grown[: self._used] = self._table[: self._used]
            self._table = grown
        self._table[self._used : needed] = sums
        positions = np.where(has_tokens, np.arange(self._used, needed), 0)
        self._rows.update(zip(words, positions.tolist(), strict=True))
        self._used = needed

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unnormalised sums of token vectors, one row per text (zeros for no tokens)."""
        split = [text.split() for text in texts]
        unknown = {word for words in split for word in words}.difference(self._rows)
        if len(self._rows) + len(unknown) > MAX_WORDS:
            self._reset()
            unknown = {word for words in split for word in words}
        if unknown:
            self._learn(list(unknown))
        lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        row_of = self._rows.__getitem__
        rows = np.fromiter(
            (row_of(w) for words in split for w in words), np.int64, int(lengths.sum())
        )
        return _segment_sums(lengths, rows, None, self._table[: self._used])


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
