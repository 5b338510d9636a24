"""The evaluation: metrics over a gold and a sanitised JSONL, and the local HTML report.

``evaluate_files`` computes everything that can be computed from the two files
(privacy: leakage per label, anywhere-leakage, entity recall, cross-patient rate;
utility: non-PHI kept share, label classification macro-F1, same-cluster share),
``write_report`` writes ``metrics.json``, PNG plots and ``report.html``. The HTML
shows a few notes with every edited span as a ``[CATEGORY]`` placeholder, so it
can be shared with the sanitised output; ``show_original`` shows their original
text instead, for a local audit only, under a banner (and the file is 0600).
"""
import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy_deid.io.atomic import write_json, write_text
from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.eval.metrics import evaluate_pairs
from spacy_deid.eval.utility import classification_f1, cross_patient_rate, entity_recall, same_cluster_share

Pair = Tuple[dict, dict]


def load_pairs(gold_path: Union[str, Path], sanitized_path: Union[str, Path]) -> Tuple[List[Pair], int]:
    """Pair gold and sanitised records by id; RETURNS (pairs, number of error outputs)."""
    for p in (gold_path, sanitized_path):
        if not Path(p).is_file():
            raise FatalError(f"File not found: {p}")
    gold = {r["id"]: r for r in iter_records(gold_path)}
    pairs: List[Pair] = []
    n_err = 0
    with Path(sanitized_path).open(encoding="utf-8") as fh:
        for line in fh:
            out = json.loads(line)
            if out.get("status") != "ok":
                n_err += 1
                continue
            g = gold.get(str(out["id"]))
            if g is not None:
                pairs.append((g, out))
    if not pairs:
        raise FatalError(f"No sanitised record of {sanitized_path} matches an id of {gold_path}")
    return pairs, n_err


def evaluate_files(
    gold_path: Union[str, Path],
    sanitized_path: Union[str, Path],
    classify: bool = True,
    seed: int = 0,
) -> Dict[str, Any]:
    """All metrics of a sanitised corpus against its original.

    Without gold spans only utility (and over-masking of all tokens) is reported.
    RETURNS (dict): the metrics, as written to metrics.json.
    """
    pairs, n_err = load_pairs(gold_path, sanitized_path)
    has_spans = any(g.get("spans") for g, _ in pairs)
    leak = evaluate_pairs(pairs)
    metrics: Dict[str, Any] = {
        "gold": str(gold_path),
        "sanitized": str(sanitized_path),
        "n_docs": len(pairs),
        "n_error_records": n_err,
        "has_gold_spans": has_spans,
    }
    if has_spans:
        metrics["privacy"] = {
            "leakage": leak["phi"],
            "leakage_all": leak["phi_all"],
            "entity_recall": entity_recall(pairs),
            "cross_patient": cross_patient_rate(pairs),
        }
    metrics["utility"] = {"non_phi": leak["non_phi"]}
    if classify:
        metrics["utility"]["classification"] = classification_f1(pairs, seed=seed)
        metrics["utility"]["same_cluster"] = same_cluster_share(pairs, seed=seed)
    return metrics


def plot_leakage(metrics: Dict[str, Any], path: Path) -> Optional[Path]:
    """Bar chart of leak rate per PHI label (at place and anywhere)."""
    leakage = (metrics.get("privacy") or {}).get("leakage")
    if not leakage:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = sorted(leakage)
    at = [leakage[l]["leak_rate"] * 100 for l in labels]
    anywhere = [leakage[l]["anywhere_rate"] * 100 for l in labels]
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.55), 3.6))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], at, width=0.4, label="at its place")
    ax.bar([x + 0.2 for x in xs], anywhere, width=0.4, label="anywhere in the note")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("PHI tokens leaked (%)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_tradeoff(points: Sequence[dict], path: Path) -> Optional[Path]:
    """Privacy-utility curve: PHI leak rate vs non-PHI kept share, one point per setting."""
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4))
    for series in sorted({p["series"] for p in points}):
        pts = sorted((p for p in points if p["series"] == series), key=lambda p: p["kept_share"])
        ax.plot([p["kept_share"] * 100 for p in pts], [p["leak_rate"] * 100 for p in pts], "o-", label=series)
        for p in pts:
            ax.annotate(p["setting"], (p["kept_share"] * 100, p["leak_rate"] * 100), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("non-PHI tokens kept (%)  — utility")
    ax.set_ylabel("PHI tokens leaked (%)  — privacy risk")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _edit_label(edit: Dict[str, Any]) -> str:
    return str(edit.get("category") or edit.get("reason") or edit.get("label") or "EDIT")


def _marked(text: str, edits: Sequence[Dict[str, Any]], show_original: bool) -> str:
    """The note as HTML: every edited span highlighted, shown as ``[CATEGORY]``
    (or, with ``show_original``, as its original text with the category beside
    it). Every piece of text is HTML-escaped."""
    parts: List[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e["start"], -e["end"])):
        start, end = int(e["start"]), int(e["end"])
        if start < pos or not 0 <= start <= end <= len(text):
            continue  # overlapping or out of range: the rendering of the earlier one stands
        label = html.escape(_edit_label(e))
        parts.append(html.escape(text[pos:start]))
        if show_original:
            parts.append(f"<mark title='{label}'>{html.escape(text[start:end])} <b>{label}</b></mark>")
        else:
            parts.append(f"<mark>[{label}]</mark>")
        pos = end
    parts.append(html.escape(text[pos:]))
    return "".join(parts)


def render_examples(pairs: Sequence[Pair], n: int = 3, show_original: bool = False) -> List[str]:
    """A few notes with their edits: each edited span as a ``[CATEGORY]``
    placeholder (nothing of the original that the pipeline replaced), or with
    ``show_original`` the original text of the note with the edits highlighted
    (local review only). All text is HTML-escaped.

    pairs (Sequence[Pair]): (gold record, sanitised record) pairs.
    n (int): how many notes.
    show_original (bool): show the original text of the edited spans.
    RETURNS (List[str]): one HTML fragment per note.
    """
    out = []
    for gold, rec in list(pairs)[:n]:
        view = _marked(gold["text"], rec.get("edits") or [], show_original)
        block = f"<h3>{html.escape(str(gold['id']))}</h3><pre class='note'>{view}</pre>"
        if show_original:
            block += f"<h4>sanitised</h4><pre>{html.escape(rec.get('deid_text', ''))}</pre>"
        out.append(block)
    return out


def _table(rows: List[List[Any]], header: List[str]) -> str:
    def fmt(v):
        return f"{v:.3f}" if isinstance(v, float) else html.escape(str(v))

    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{fmt(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def write_report(
    metrics: Dict[str, Any],
    report_dir: Union[str, Path],
    pairs: Optional[Sequence[Pair]] = None,
    sweep_points: Optional[Sequence[dict]] = None,
    n_examples: int = 3,
    show_original: bool = False,
) -> Path:
    """Write metrics.json, the plots and report.html into ``report_dir``.

    The examples show each edited span as a ``[CATEGORY]`` placeholder, so the
    report can be shared with the sanitised output; ``show_original`` shows the
    original text instead (local review only, under a banner saying so).

    RAISES (ValueError): ``n_examples`` is negative.
    """
    if n_examples < 0:
        raise ValueError(f"n_examples must be 0 or more, got {n_examples}")
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    if sweep_points:
        metrics = dict(metrics, tradeoff=list(sweep_points))
    write_json(report_dir / "metrics.json", metrics)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>spacy-deid evaluation</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;margin:8px 0}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}.banner{background:#b00020;color:#fff;padding:10px;"
        "font-weight:bold}pre{white-space:pre-wrap;background:#f6f6f6;padding:8px}</style></head><body>",
        "<h1>spacy-deid evaluation report</h1>",
        f"<p>{metrics['n_docs']} documents ({metrics['n_error_records']} error records) — gold "
        f"<code>{html.escape(metrics['gold'])}</code>, sanitised <code>{html.escape(metrics['sanitized'])}</code></p>",
    ]
    priv = metrics.get("privacy")
    if priv:
        rows = [[l, v["n"], v["leak_rate"], v["anywhere_rate"], priv["entity_recall"].get(l, {}).get("recall", "")] for l, v in priv["leakage"].items()]
        allv = priv["leakage_all"]
        rows.append(["ALL", allv["n"], allv["leak_rate"], allv["anywhere_rate"], priv["entity_recall"]["ALL"]["recall"]])
        parts.append("<h2>Privacy</h2>" + _table(rows, ["label", "PHI tokens", "leak rate (at place)", "leak rate (anywhere)", "entity recall"]))
        cp = priv.get("cross_patient")
        if cp:
            parts.append(f"<p>Cross-patient PHI: {cp['docs_with_foreign_phi']} of {cp['n_docs']} sanitised notes contain another patient's PHI string (rate {cp['rate']:.4f}); {cp['docs_with_unique_foreign_phi']} contain a string unique to one other patient (rate {cp['rate_unique']:.4f}).</p>")
        png = plot_leakage(metrics, report_dir / "leakage.png")
        if png:
            parts.append("<img src='leakage.png' alt='leakage per label'>")
    else:
        parts.append("<h2>Privacy</h2><p>The gold file has no PHI spans: leakage cannot be measured; utility only.</p>")
    util = metrics["utility"]
    rows = [["non-PHI tokens kept", util["non_phi"]["kept_share"]]]
    cl = util.get("classification")
    if cl:
        rows += [["label macro-F1, raw/raw", cl["macro_f1_raw"]], ["label macro-F1, sanitised/sanitised", cl["macro_f1_sanitized"]], ["F1 ratio", cl["ratio"]]]
    sc = util.get("same_cluster")
    if sc:
        rows.append([f"same-cluster share (K={sc['k']})", sc["share"]])
    parts.append("<h2>Utility</h2>" + _table(rows, ["measure", "value"]))
    if sweep_points:
        plot_tradeoff(sweep_points, report_dir / "tradeoff.png")
        parts.append("<h2>Privacy–utility trade-off</h2><img src='tradeoff.png' alt='trade-off'>")
        parts.append(_table([[p["series"], p["setting"], p["leak_rate"], p["kept_share"]] for p in sweep_points], ["series", "setting", "PHI leak rate", "non-PHI kept"]))
    if pairs and n_examples:
        if show_original:
            parts.insert(
                3,
                "<div class='banner'>LOCAL REVIEW ONLY: this report shows ORIGINAL, identifiable text "
                "(--show-original). Do not share it.</div>",
            )
            parts.append("<h2>Examples (original text, edits highlighted)</h2>")
        else:
            parts.append("<h2>Examples</h2><p>Each edited span is shown as a placeholder of its category.</p>")
        parts.extend(render_examples(pairs, n_examples, show_original=show_original))
    parts.append("</body></html>")
    path = report_dir / "report.html"
    write_text(path, "\n".join(parts), private=show_original)
    return path
