"""`python -m spacy_deid augment GOLD OUT --method ...`: label-aligned augmentation."""
import json
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, run_guarded


@app.command("augment")
def augment_cmd(
    gold: Path = typer.Argument(..., help="Gold JSONL ({id, text, spans})"),
    output: Path = typer.Argument(..., help="Output JSONL: every original record, then its augmented copy (and case variants)"),
    method: Optional[str] = typer.Option(None, "--method", help="filtered_mlm or neighbor_pseudonyms (none: only --case-variants)"),
    case_variants: bool = typer.Option(False, "--case-variants", help="Also write an ALL-CAPS and an all-lower-case copy of every record, same offsets"),
    model: Optional[Path] = typer.Option(None, "--model", help="Local masked-LM directory (filtered_mlm)"),
    vectors: Optional[Path] = typer.Option(None, "--vectors", help="Vectors directory made by `spacy_deid vectors`"),
    n: int = typer.Option(5, "--n", min=0, help="Words replaced per document (filtered_mlm)"),
    neighbors: int = typer.Option(100, "--neighbors", min=1, help="N nearest neighbours to choose from (neighbor_pseudonyms)"),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same output)"),
    epsilon: float = typer.Option(0.0, "--epsilon", help="Similarity filter threshold (filtered_mlm)"),
    max_tries: int = typer.Option(10, "--max-tries", min=1, help="Candidates scored per position (filtered_mlm)"),
    n_candidates: int = typer.Option(10, "--n-candidates", min=1, help="MLM candidates drawn per position (filtered_mlm)"),
    min_count: int = typer.Option(0, "--min-count", min=0, help="Stricter frequency cut on the neighbour vocabulary"),
    device: str = typer.Option("cpu", "--device", help="cpu or cuda (filtered_mlm)"),
    batch_size: int = typer.Option(16, "--batch-size", min=1, help="Documents per batch"),
    limit: int = typer.Option(0, "--limit", min=0, help="Read at most this many records (0: all)"),
):
    """Write originals plus one augmented copy per record, gold spans re-computed;
    with --case-variants, UPPER and lower copies of each."""
    from spacy_deid.train.augment import augment_file

    if not gold.is_file():
        fatal(f"Gold file not found: {gold}")
    stats = run_guarded(
        augment_file,
        gold,
        output,
        method,
        model=model,
        vectors=vectors,
        n=n,
        n_neighbors=neighbors,
        seed=seed,
        epsilon=epsilon,
        max_tries=max_tries,
        n_candidates=n_candidates,
        min_count=min_count,
        device=device,
        batch_size=batch_size,
        limit=limit,
        case_variants=("upper", "lower") if case_variants else (),
        show_progress=True,
        user_errors=(ValueError,),
    )
    msg.good(f"{stats['records']} records + {stats['augmented']} augmented + {stats['case_variants']} case variants -> {output}")
    msg.info(json.dumps(stats))
