"""A BERT encoder's forward pass in plain numpy, from a model folder's safetensors.

Six or twelve small transformer layers are a few matrix products each; numpy runs them without
torch, whose import alone (about 7 s with sentence-transformers on a small machine) costs more
than a whole cold recall. Used by the MiniLM second pass (mean pooling, funes.retrieve.minilm)
and the cross-encoder second pass (the [CLS] row through a classifier,
funes.retrieve.cross_encoder). Reproduces transformers' `BertModel` to float32 rounding.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class BertShape:
    layers: int
    heads: int
    layer_norm_eps: float
    activation: str  # "gelu" (BERT's exact erf form), "gelu_new" (tanh form) or "relu"

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> BertShape:
        activation = str(config.get("hidden_act", "gelu"))
        if activation not in _ACTIVATIONS:
            raise ValueError(f"hidden_act {activation!r} is not supported")
        return cls(
            layers=int(config["num_hidden_layers"]),
            heads=int(config["num_attention_heads"]),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
            activation=activation,
        )


class BertEncoder:
    """The hidden states of a BERT model for batches of token ids (and segment ids)."""

    def __init__(self, weights: Mapping[str, Any], shape: BertShape, prefix: str = "") -> None:
        # `prefix`: "bert." for a task model's encoder (BertForSequenceClassification), "" for
        # a bare BertModel as sentence-transformers saves it.
        self._w = weights
        self._p = prefix
        self.shape = shape

    def hidden_states(
        self, ids_list: list[list[int]], type_ids_list: list[list[int]] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(hidden states n × length × hidden, attention mask n × length) for a padded batch."""
        import numpy as np

        w, p = self._w, self._p
        n = len(ids_list)
        length = max(len(ids) for ids in ids_list)
        ids = np.zeros((n, length), dtype=np.int64)
        types = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for row, seq in enumerate(ids_list):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
            if type_ids_list is not None:
                types[row, : len(seq)] = type_ids_list[row]
        x = (
            w[p + "embeddings.word_embeddings.weight"][ids]
            + w[p + "embeddings.position_embeddings.weight"][:length][None, :, :]
            + w[p + "embeddings.token_type_embeddings.weight"][types]
        )
        x = self._layer_norm(x, p + "embeddings.LayerNorm")
        heads = self.shape.heads
        head_dim = x.shape[-1] // heads
        attn_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        activation = _ACTIVATIONS[self.shape.activation]
        for layer in range(self.shape.layers):
            lp = f"{p}encoder.layer.{layer}."
            q, k, v = (
                self.linear(x, lp + f"attention.self.{name}")
                .reshape(n, length, heads, head_dim)
                .transpose(0, 2, 1, 3)
                for name in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(head_dim)) + attn_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, -1)
            x = self._layer_norm(
                x + self.linear(context, lp + "attention.output.dense"),
                lp + "attention.output.LayerNorm",
            )
            hidden = activation(self.linear(x, lp + "intermediate.dense"))
            x = self._layer_norm(
                x + self.linear(hidden, lp + "output.dense"), lp + "output.LayerNorm"
            )
        return x, mask

    def linear(self, x: np.ndarray, name: str) -> np.ndarray:
        """`x @ W.T + b` for the named dense layer (a full weight name, prefix included)."""
        # 2-D products go to BLAS in one call; numpy loops a stacked 3-D product (4-5× slower).
        flat = x.reshape(-1, x.shape[-1]) @ self._w[name + ".weight"].T + self._w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def _layer_norm(self, x: np.ndarray, name: str) -> np.ndarray:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        normed = (x - mean) / np.sqrt(var + self.shape.layer_norm_eps)
        return normed * self._w[name + ".weight"] + self._w[name + ".bias"]


def load_float32(path: str) -> dict[str, Any]:
    """A safetensors file's tensors as float32 numpy arrays (half-precision files are widened:
    numpy's float16 matrix products are slow and lose precision)."""
    import numpy as np
    from safetensors.numpy import load_file

    return {
        name: tensor.astype(np.float32) if tensor.dtype == np.float16 else tensor
        for name, tensor in load_file(path).items()
    }


def blas_threads(batch_size: int) -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread for small batches (a query): on a busy machine OpenBLAS's threads spin
    on each other and a 10-token query took 0.3-1.7 s instead of 50 ms."""
    if batch_size > 8:
        return contextlib.nullcontext()
    return _ONE_BLAS_THREAD.held()


class _SharedLimit:
    """BLAS's thread count is the process's, not a thread's: the first of several threads
    scoring at once (the resident service) sets it to one, the last one out restores it. Each
    setting and restoring it on its own left it at whatever the last one out had found."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._limit: Any = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            yield
            return
        with self._lock:
            if self._holders == 0:
                self._limit = threadpool_limits(limits=1, user_api="blas")
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0 and self._limit is not None:
                    self._limit.restore_original_limits()
                    self._limit = None


_ONE_BLAS_THREAD = _SharedLimit()


def length_batches(lengths: list[int], batch_tokens: int) -> list[list[int]]:
    """Indexes grouped into batches of similar length, each at most `batch_tokens` padded
    tokens (padding costs compute, so the shortest go together)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        longest = lengths[order[start]]
        end = start + 1
        while end < len(order):
            longest = max(longest, lengths[order[end]])
            if longest * (end - start + 1) > batch_tokens:
                break
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact (erf) GELU; erf by Abramowitz–Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np

    # Python floats (not numpy float64 scalars) keep the arithmetic in float32 under NEP 50.
    z = x * (1.0 / math.sqrt(2.0))
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = sign * (1.0 - poly * np.exp(-a * a))
    return 0.5 * x * (1.0 + erf)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    import numpy as np

    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _relu(x: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.maximum(x, 0.0)


_ACTIVATIONS = {
    "gelu": gelu,
    "gelu_new": _gelu_tanh,
    "gelu_pytorch_tanh": _gelu_tanh,
    "relu": _relu,
}
