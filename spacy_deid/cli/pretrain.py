"""``python -m spacy_deid pretrain CORPUS OUT_DIR``: the corpus masked language model."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, parse_overrides, run_guarded


@app.command(
    "pretrain",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def pretrain_cmd(
    ctx: typer.Context,
    corpus: Path = typer.Argument(..., help="Corpus JSONL ({id, patient_id?, text})"),
    out_dir: Path = typer.Argument(..., help="Output directory: HF model + tokenizer, metrics.json, checkpoint/"),
    config: Optional[Path] = typer.Option(
        None, "--config", help="Hyperparameters (.cfg), a file or a shipped name: pretrain_cpu, pretrain_gpu"
    ),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", min=1, help="Training steps (overrides training.max_steps)"),
    max_minutes: Optional[float] = typer.Option(
        None,
        "--max-minutes",
        min=0.0,
        help="Wall-clock budget of the training loop in minutes (overrides training.max_minutes; 0: none); "
        "training stops at --max-steps or at the budget, whichever comes first",
    ),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed (overrides training.seed)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", min=-1, help="GPU id, -1 for CPU"),
    resume: bool = typer.Option(False, "--resume", help="Continue from OUT_DIR/checkpoint"),
    mask_config: Optional[Path] = typer.Option(
        Path("default"),
        "--mask-config",
        help="De-identification config fitted on CORPUS to de-identify it before training (detectors and rarity; its resampling/swap components are left out)",
    ),
    mask_pipeline: Optional[Path] = typer.Option(
        None, "--mask-pipeline", help="A fitted masking pipeline directory (instead of --mask-config)"
    ),
    no_mask: bool = typer.Option(
        False, "--no-mask", help="Train on the raw text (only for a corpus without identifiers)"
    ),
    stop_after: Optional[int] = typer.Option(
        None, "--stop-after", min=1, help="Stop after N steps of this run, keeping a checkpoint (continue with --resume)"
    ),
    for_profile: Optional[str] = typer.Option(
        None, "--for-profile", help="Train only if this profile (config name or path) uses a masked LM; else write OUT_DIR/NOT_NEEDED.txt"
    ),
):
    """Train a WordPiece tokenizer and a small BertForMaskedLM on the de-identified corpus.

    Extra options override the masking config, spaCy-style: --components.frequency_masker.k 5
    """
    from spacy_deid.train.pretrain import pretrain_mlm

    if not corpus.is_file():
        fatal(f"Corpus not found: {corpus}")
    from spacy_deid.resources import config_path, skip_for_profile

    note = run_guarded(skip_for_profile, out_dir, for_profile, "paths.mlm", "masked language model")
    if note is not None:
        msg.info(f"Profile {for_profile} uses no masked language model: nothing to train ({note})")
        return

    if config is not None:
        config = run_guarded(config_path, config)
    if mask_pipeline is not None or no_mask:
        mask_config = None
    elif mask_config is not None:
        try:
            mask_config = config_path(mask_config)
        except FileNotFoundError as err:
            fatal(
                f"{err}. Pass --mask-config CFG (the pipeline's de-identification config), "
                f"--mask-pipeline DIR, or --no-mask for a corpus without identifiers"
            )
    device = "cpu"
    if gpu_id >= 0:
        import torch

        if not torch.cuda.is_available():
            fatal(f"--gpu-id {gpu_id}: no CUDA GPU is available")
        device = f"cuda:{gpu_id}"
    metrics = run_guarded(
        pretrain_mlm,
        corpus,
        out_dir,
        config,
        max_steps=max_steps,
        max_minutes=max_minutes,
        seed=seed,
        device=device,
        resume=resume,
        mask_pipeline=mask_pipeline,
        mask_config=mask_config,
        mask_overrides=parse_overrides(ctx.args),
        no_mask=no_mask,
        stop_after_steps=stop_after,
        log=msg.info,
    )
    if metrics.get("interrupted"):
        msg.warn(f"Stopped at step {metrics['steps_done']} of {metrics['steps']}; continue with --resume")
        return
    held = metrics.get("heldout") or {}
    content = metrics.get("heldout_content") or {}
    if held and content:
        msg.good(
            f"Saved to {out_dir} after {metrics['steps']} steps: held-out content-word top-1 {content['top1']:.3f} "
            f"(unigram {content['unigram']['top1']:.3f}), top-5 {content['top5']:.3f}; all masked tokens top-1 "
            f"{held['top1']:.3f}; pseudo-perplexity {metrics['heldout_pseudo_perplexity']['pseudo_perplexity']:.1f} "
            f"({metrics['tokens_per_second']} tokens/s)"
        )
    else:
        msg.good(f"Saved to {out_dir} (no held-out notes to evaluate)")
