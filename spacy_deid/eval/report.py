"""The evaluation: metrics over a gold and a sanitised JSONL, and the local HTML report.

``evaluate_files`` computes everything that can be computed from the two files
(privacy: leakage per label, anywhere-leakage, entity recall, cross-patient rate;
utility: non-PHI kept share, label classification macro-F1, same-cluster share),
``write_report`` writes ``metrics.json``, PNG plots and ``report.html``. The HTML
shows a few notes with every edited span as a ``[CATEGORY]`` placeholder and every
other word as its shape, so it holds no word of any note and can be shared;
``show_original`` shows their original text instead, for a local audit only, under
a banner (and the file is 0600).
"""
import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy_deid.io.atomic import write_json, write_text
from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.eval.metrics import DEFINITIONS, detection_scores, evaluate_pairs
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
    pipeline: Optional[Union[str, Path]] = None,
) -> Dict[str, Any]:
    """All metrics of a sanitised corpus against its original.

    Without gold spans only utility (and over-masking of all tokens) is reported.
    pipeline (Optional[Union[str, Path]]): the pipeline that sanitised it, whose
        profile, config and version are stamped on the metrics.
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
        "stamp": evaluation_stamp(pipeline),
        "definitions": DEFINITIONS,
    }
    if has_spans:
        metrics["privacy"] = {
            "leakage": leak["phi"],
            "leakage_all": leak["phi_all"],
            "entity_recall": entity_recall(pairs),
            "cross_patient": cross_patient_rate(pairs),
        }
        metrics["detection"] = detection_scores(pairs)
    metrics["utility"] = {"non_phi": leak["non_phi"]}
    if classify:
        metrics["utility"]["classification"] = classification_f1(pairs, seed=seed)
        metrics["utility"]["same_cluster"] = same_cluster_share(pairs, seed=seed)
    return metrics


def evaluation_stamp(pipeline: Optional[Union[str, Path]] = None) -> Dict[str, Any]:
    """What produced an evaluation: the spacy-deid version, and when the
    pipeline is given, its name, version, components, profile and a hash of its config."""
    import hashlib

    from spacy_deid.about import __version__

    stamp: Dict[str, Any] = {"spacy_deid_version": __version__}
    if pipeline is None:
        return stamp
    path = Path(pipeline)
    if not (path / "meta.json").is_file():
        import spacy

        path = Path(spacy.util.get_package_path(str(pipeline))) if spacy.util.is_package(str(pipeline)) else path
        path = next((p.parent for p in path.glob("*/meta.json")), path)
    meta = json.loads((path / "meta.json").read_text(encoding="utf-8")) if (path / "meta.json").is_file() else {}
    config = (path / "config.cfg").read_bytes() if (path / "config.cfg").is_file() else b""
    stamp["pipeline"] = {
        "path": str(pipeline),
        "name": f"{meta.get('lang', '')}_{meta.get('name', '')}",
        "version": meta.get("version"),
        "components": meta.get("pipeline", []),
        "profile": (meta.get("spacy_deid") or {}).get("profile"),
        "built_with": (meta.get("spacy_deid") or {}).get("version") or meta.get("spacy_deid_version"),
        "config_sha256": hashlib.sha256(config).hexdigest() if config else None,
    }
    return stamp


def plot_leakage(metrics: Dict[str, Any], path: Path) -> Optional[Path]:
    """Bar chart of leak rate per PHI label (at place and anywhere)."""
    leakage = (metrics.get("privacy") or {}).get("leakage")
    if not leakage:
        return None
    labels = sorted(leakage)
    at = [leakage[l]["leak_rate"] * 100 for l in labels]
    anywhere = [leakage[l]["anywhere_rate"] * 100 for l in labels]
    return _bar_chart(
        path, labels, {"at its place": at, "anywhere in the note": anywhere},
        "gold PHI tokens leaked (% of the label's tokens)", "gold PHI label",
    )


def plot_detection(metrics: Dict[str, Any], path: Path) -> Optional[Path]:
    """Bar chart of token-level precision, recall and F1 per PHI category."""
    categories = ((metrics.get("detection") or {}).get("token") or {}).get("categories")
    if not categories:
        return None
    names = sorted(categories)
    series = {m: [categories[c][m] * 100 for c in names] for m in ("precision", "recall", "f1")}
    return _bar_chart(path, names, series, "token-level score (%)", "PHI category")


def _bar_chart(path: Path, names: Sequence[str], series: Dict[str, Sequence[float]], ylabel: str, xlabel: str) -> Path:
    """Grouped bars on a full 0-100% axis, at a fixed size that fits the report."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series.items()):
        ax.bar([x + (i - (len(series) - 1) / 2) * width for x in range(len(names))], values, width=width, label=label)
    ax.set_xticks(list(range(len(names))))
    ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
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
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("non-PHI tokens kept (% of non-PHI tokens): utility")
    ax.set_ylabel("PHI tokens leaked (% of gold PHI tokens): risk")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _edit_label(edit: Dict[str, Any]) -> str:
    return str(edit.get("category") or edit.get("reason") or edit.get("label") or "EDIT")


def _shape(text: str) -> str:
    """Letters as ``x``/``X``, digits as ``d``; spacing and punctuation kept: the
    layout of a note without any of its words (a word the pipeline missed is no
    more readable here than any other)."""
    return "".join("d" if c.isdigit() else ("X" if c.isupper() else "x") if c.isalpha() else c for c in text)


def _marked(text: str, edits: Sequence[Dict[str, Any]], show_original: bool) -> str:
    """The note as HTML: every edited span highlighted, shown as ``[CATEGORY]``
    and every other word as its shape (or, with ``show_original``, the original
    text with the category beside each edit). Every piece of text is HTML-escaped."""
    keep = (lambda t: t) if show_original else _shape
    parts: List[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e["start"], -e["end"])):
        start, end = int(e["start"]), int(e["end"])
        if start < pos or not 0 <= start <= end <= len(text):
            continue  # overlapping or out of range: the rendering of the earlier one stands
        label = html.escape(_edit_label(e))
        parts.append(html.escape(keep(text[pos:start])))
        if show_original:
            parts.append(f"<mark title='{label}'>{html.escape(text[start:end])} <b>{label}</b></mark>")
        else:
            parts.append(f"<mark>[{label}]</mark>")
        pos = end
    parts.append(html.escape(keep(text[pos:])))
    return "".join(parts)


def render_examples(pairs: Sequence[Pair], n: int = 3, show_original: bool = False) -> List[str]:
    """A few notes with their edits: each edited span as a ``[CATEGORY]``
    placeholder and every other word as its shape (``Xxxxx dd``), so no word of
    the note is shown, not even one the pipeline missed; or, with
    ``show_original``, before and after side by side: the original text with the
    edits highlighted beside the sanitised text (local review, or a corpus without
    real identifiers). All text is HTML-escaped.

    pairs (Sequence[Pair]): (gold record, sanitised record) pairs.
    n (int): how many notes.
    show_original (bool): show the original text of the edited spans.
    RETURNS (List[str]): one HTML fragment per note.
    """
    out = []
    for gold, rec in list(pairs)[:n]:
        view = _marked(gold["text"], rec.get("edits") or [], show_original)
        title = f"<h3>{html.escape(str(gold['id']))}</h3>"
        if show_original:
            after = html.escape(rec.get("deid_text", ""))
            out.append(
                f"{title}<div class='pair'><div><h4>before (edits highlighted)</h4><pre class='note'>{view}</pre></div>"
                f"<div><h4>after (sanitised)</h4><pre class='note'>{after}</pre></div></div>"
            )
        else:
            out.append(f"{title}<pre class='note'>{view}</pre>")
    return out


def _table(rows: List[List[Any]], header: List[str]) -> str:
    def fmt(v):
        return f"{v:.3f}" if isinstance(v, float) else html.escape(str(v))

    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{fmt(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _stamp_html(stamp: Dict[str, Any]) -> str:
    """The version, profile and config that produced the sanitised file."""
    items = [f"spacy-deid {html.escape(str(stamp.get('spacy_deid_version', '?')))}"]
    pipe = stamp.get("pipeline")
    if pipe:
        items.append(f"pipeline <code>{html.escape(str(pipe.get('path')))}</code> "
                     f"({html.escape(', '.join(pipe.get('components') or []))})")
        items.append(f"profile {html.escape(str(pipe.get('profile') or 'unknown'))}, "
                     f"built with spacy-deid {html.escape(str(pipe.get('built_with') or '?'))}")
        if pipe.get("config_sha256"):
            items.append(f"config sha256 <code>{pipe['config_sha256'][:16]}</code>")
    else:
        items.append("pipeline not given (evaluate --pipeline DIR stamps its profile and config)")
    return "<p>" + "; ".join(items) + ".</p>"


def _detection_html(metrics: Dict[str, Any], report_dir: Path) -> str:
    """Token- and entity-level precision, recall and F1 per category (definitions at the end)."""
    det = metrics.get("detection")
    if not det:
        return ""
    token = det["token"]
    rows = [["any PHI (binary)", token["binary"]["gold"], token["binary"]["precision"], token["binary"]["recall"], token["binary"]["f1"]]]
    rows += [[c, v["gold"], v["precision"], v["recall"], v["f1"]] for c, v in token["categories"].items()]
    out = ["<h2>Detection, token level</h2>", _table(rows, ["category", "gold tokens", "precision", "recall", "F1"])]
    if plot_detection(metrics, report_dir / "detection.png"):
        out.append("<img src='detection.png' alt='token-level precision, recall and F1 per category'>")
    entity = det["entity"]
    if entity.get("overall"):
        rows = [["all", s, v["possible"], v["precision"], v["recall"], v["f1"]] for s, v in entity["overall"].items()]
        for c, schemes in entity["categories"].items():
            rows += [[c, s, v["possible"], v["precision"], v["recall"], v["f1"]] for s, v in schemes.items() if s in ("strict", "partial")]
        out += ["<h2>Detection, entity level</h2>", _table(rows, ["category", "matching", "gold entities", "precision", "recall", "F1"])]
    return "\n".join(out)


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
        "font-weight:bold}pre{white-space:pre-wrap;background:#f6f6f6;padding:8px}img{max-width:100%;height:auto}"
        "dt{font-weight:bold}.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px}</style></head><body>",
        "<h1>spacy-deid evaluation report</h1>",
        f"<p>{metrics['n_docs']} documents ({metrics['n_error_records']} error records) — gold "
        f"<code>{html.escape(metrics['gold'])}</code>, sanitised <code>{html.escape(metrics['sanitized'])}</code></p>",
    ]
    parts.append(_stamp_html(metrics.get("stamp") or {}))
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
        parts.append(_detection_html(metrics, report_dir))
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
                "(--examples original). Do not share it.</div>",
            )
            parts.append("<h2>Examples: before and after</h2>")
        else:
            parts.append(
                "<h2>Examples</h2><p>Each edited span is shown as a placeholder of its category, every other "
                "word as its shape (x: letter, d: digit); evaluate --examples original shows before and after.</p>"
            )
        parts.extend(render_examples(pairs, n_examples, show_original=show_original))
    parts.append("<h2>Definitions</h2><dl>" + "".join(
        f"<dt>{html.escape(name)}</dt><dd>{html.escape(text)}</dd>" for name, text in (metrics.get("definitions") or {}).items()
    ) + "</dl>")
    parts.append("</body></html>")
    path = report_dir / "report.html"
    write_text(path, "\n".join(parts), private=show_original)
    return path
