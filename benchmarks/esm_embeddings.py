"""Cost of the ESM-2 t12 protein embeddings (``molecules.protein_representation: esm2_t12``) on a 2-D dataset.

The real weights need a download, so this measures a randomly initialised ESM-2 of the same architecture as
esm2_t12_35M_UR50D (12 layers, 480 dimensions, 20 heads): the arithmetic, and so the time and memory, are those
of the real model. The proteins are the dataset's, read from the mirror as its rule reads them; the embedding is
:func:`benchdesign.molexp.protein_embeddings.esm2_embeddings` with its defaults (sequences longer than 1022
residues averaged over windows) on the CPU with ``--threads`` torch threads. Prints JSON: proteins, residues,
passes over 1022 residues, wall and CPU seconds (this process), peak RSS. Run from the repository root:

    python benchmarks/esm_embeddings.py --mirror ../shared/data --dataset davis --threads 1
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import tempfile
import time
from pathlib import Path

import numpy as np


def dataset_sequences(mirror: Path, dataset: str) -> list[str]:
    """The target sequences of a DeepDTA dataset (davis, kiba) as the dataset rule reads them."""
    from benchdesign.molexp.datasets import dataset_info, load_pairs

    info = dataset_info(dataset)
    tables = load_pairs(info, *[mirror / p for p in info.files])
    return tables.targets["sequence"].tolist()


def random_t12_checkpoint(directory: Path, seed: int = 0) -> Path:
    """A fair-esm ESM-2 checkpoint with esm2_t12_35M_UR50D's architecture and seeded random weights."""
    import esm
    import torch

    torch.manual_seed(seed)
    alphabet = esm.data.Alphabet.from_architecture("ESM-1b")
    model = esm.model.esm2.ESM2(num_layers=12, embed_dim=480, attention_heads=20, alphabet=alphabet)
    state = {
        f"encoder.sentence_encoder.{k}": v for k, v in model.state_dict().items() if not k.startswith("contact_head.regression")
    }
    cfg = argparse.Namespace(encoder_layers=12, encoder_embed_dim=480, encoder_attention_heads=20, token_dropout=True)
    path = directory / "random_t12.pt"
    torch.save({"model": state, "cfg": {"model": cfg}}, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("--dataset", default="davis", choices=["davis", "kiba"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-proteins", type=int, default=None, help="the first N proteins only")
    args = parser.parse_args()

    from benchdesign.molexp.protein_embeddings import ESM_MAX_RESIDUES, esm2_embeddings

    sequences = dataset_sequences(args.mirror, args.dataset)[: args.max_proteins]
    lengths = np.array([len(s) for s in sequences])
    with tempfile.TemporaryDirectory() as tmp:
        weights = random_t12_checkpoint(Path(tmp))
        wall, cpu = time.perf_counter(), time.process_time()
        emb = esm2_embeddings(sequences, weights=weights, device="cpu", n_jobs=args.threads)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        json.dumps(
            {
                "dataset": args.dataset,
                "proteins": len(sequences),
                "threads": args.threads,
                "shape": list(emb.shape),
                "residues": {"total": int(lengths.sum()), "median": float(np.median(lengths)), "max": int(lengths.max())},
                "longer_than_1022": int((lengths > ESM_MAX_RESIDUES).sum()),
                "passes": int(sum(math.ceil(n / ESM_MAX_RESIDUES) for n in lengths)),
                "wall_seconds": round(wall, 1),
                "cpu_seconds": round(cpu, 1),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
