"""`python -m spacy_deid vectors CORPUS OUT_DIR`: train floret vectors on the corpus."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, run_guarded


@app.command("vectors")
def vectors_cmd(
    corpus: Path = typer.Argument(..., help="Corpus JSONL ({id, text, patient_id?})"),
    output_dir: Path = typer.Argument(..., help="Output directory (a spaCy pipeline with floret vectors)"),
    dim: int = typer.Option(100, "--dim", min=1, help="Vector width"),
    seed: int = typer.Option(0, "--seed", help="Seed (document order; floret runs deterministic with --threads 1)"),
    k: int = typer.Option(5, "--k", min=0, help="Frequency rule: items seen for fewer than k patients become [RARE] (0: off)"),
    count_by: str = typer.Option("patient", "--count-by", help="Counting unit for --k: patient, doc or occurrence"),
    mask_config: Optional[Path] = typer.Option(Path("default"), "--mask-config", help="De-identification config fitted on CORPUS first (a file or a shipped name): what its detectors (NER, patterns, gazetteers) and rarity edit becomes [RARE]; its resampling/swap components are left out"),
    mask_pipeline: Optional[Path] = typer.Option(None, "--mask-pipeline", help="A fitted masking pipeline directory (instead of --mask-config)"),
    model: str = typer.Option("cbow", "--model", help="floret model: cbow or skipgram"),
    epoch: int = typer.Option(10, "--epoch", min=1, help="Training epochs"),
    lr: float = typer.Option(0.1, "--lr", min=0.0, help="Learning rate"),
    minn: int = typer.Option(3, "--minn", min=1, help="Shortest character n-gram"),
    maxn: int = typer.Option(5, "--maxn", min=1, help="Longest character n-gram"),
    bucket: int = typer.Option(50000, "--bucket", min=1, help="Rows of the hashed vector table"),
    hash_count: int = typer.Option(2, "--hash-count", min=1, max=4, help="Hashes per n-gram (1-4)"),
    threads: int = typer.Option(1, "--threads", min=1, help="floret threads (>1 is faster, not deterministic)"),
    limit: int = typer.Option(0, "--limit", min=0, help="Read at most this many records (0: all)"),
    keep_floret: bool = typer.Option(False, "--keep-floret", help="Also keep floret's vectors.floret text table"),
    word_list: bool = typer.Option(False, "--word-list", help="Also write deid_frequent_words.json (frequent words of the de-identified text), needed by `augment --method neighbor_pseudonyms`"),
    no_mask: bool = typer.Option(False, "--no-mask", help="Train on the raw text, frequency rule only (only for a corpus without identifiers)"),
    for_profile: Optional[str] = typer.Option(None, "--for-profile", help="Train only if this profile (config name or path) uses word vectors; else write OUTPUT_DIR/NOT_NEEDED.txt"),
):
    """Train floret vectors (subword hashing: every word has a vector) and convert
    them with spaCy's `init vectors --mode floret` path. Use the output directory as
    the initialize.vectors setting of a config (paths.vectors)."""
    from spacy_deid.train.vectors import train_vectors

    if mask_pipeline is not None or no_mask:
        mask_config = None
    if not corpus.is_file():
        fatal(f"Corpus not found: {corpus}")
    from spacy_deid.resources import skip_for_profile

    note = run_guarded(skip_for_profile, output_dir, for_profile, "paths.vectors", "word vectors")
    if note is not None:
        msg.info(f"Profile {for_profile} uses no word vectors: nothing to train ({note})")
        return
    out = run_guarded(
        train_vectors,
        corpus,
        output_dir,
        dim=dim,
        seed=seed,
        mask_pipeline=mask_pipeline,
        mask_config=mask_config,
        k=k,
        count_by=count_by,
        model=model,
        epoch=epoch,
        lr=lr,
        minn=minn,
        maxn=maxn,
        bucket=bucket,
        hash_count=hash_count,
        threads=threads,
        limit=limit,
        keep_floret=keep_floret,
        word_list=word_list,
        user_errors=(ValueError,),
    )
    msg.good(f"Saved floret vectors ({bucket} x {dim}) to {out}")
