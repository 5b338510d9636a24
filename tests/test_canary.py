"""The canary: invented identifiers planted in a generated corpus WITHOUT gold
spans (as real corpora come), every artefact-producing step run, every byte each
step wrote read back.

Planted, in the forms that leak from real notes (in notes of every style: prose, and
ICU nursing notes in ALL CAPS or lower case, the identifiers in the note's case):
- clinicians' names after titles, in notes of many patients (not rare: only the
  detectors can see them);
- relatives' names in lower case after role words;
- a rare word of one patient;
- record numbers;
- hospitals and towns in context, for several patients.

Checks: no planted identifier in any file a step wrote other than the sanitised
output (pipelines, vectors and word list, the MLM and its tokenizer, the report,
metrics, logs); ``audit`` finds them where they are; at least 98 % of their
occurrences are gone from the sanitised text.
"""
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CLINICIANS = ["Zorvathy", "Quillbury", "Mandrevik"]
RELATIVES = ["brivessa", "talvorn", "oskelind"]
HOSPITALS = ["Gravemoor General Hospital", "Saint Ulvenna Medical Center"]
TOWNS = ["Tollinsby", "Karvelport"]
RARE_WORD = "snorkelwort"


def _plant(records, seed=0):
    """The records, without spans, with the identifiers planted; and the planted
    strings with their planted occurrence counts."""
    rng = random.Random(seed)
    patients = sorted({r["patient_id"] for r in records})
    mrn = {p: str(4_000_000 + 7919 * i) for i, p in enumerate(patients)}
    out = []
    for i, rec in enumerate(records):
        pid = rec["patient_id"]
        extra = [f"Seen today by Dr. {CLINICIANS[i % len(CLINICIANS)]} on the ward."]
        if i % 2 == 0:
            role = ["wife", "son", "daughter"][i % 3]
            extra.append(f"Plan discussed with his {role} {RELATIVES[i % len(RELATIVES)]} at the bedside.")
        if i % 3 == 0:
            extra.append(f"MRN: {mrn[pid]}.")
        if i % 4 == 0:
            extra.append(f"Transferred from {HOSPITALS[(i // 4) % len(HOSPITALS)]} yesterday.")
        if i % 5 == 0:
            extra.append(f"She lives in {TOWNS[(i // 5) % len(TOWNS)]} with her family.")
        if pid == patients[0]:
            extra.append(f"Patient mentions her pet {RARE_WORD} again.")
        rng.shuffle(extra)
        planted = " ".join(extra)
        # in the note's own letter case: ICU notes in ALL CAPS or lower case get their
        # identifiers in that case too
        letters = [c for c in rec["text"] if c.isalpha()]
        if letters and sum(c.isupper() for c in letters) > 0.9 * len(letters):
            planted = planted.upper()
        elif letters and sum(c.islower() for c in letters) > 0.95 * len(letters):
            planted = planted.lower()
        text = rec["text"] + "\n" + planted
        out.append({"id": rec["id"], "patient_id": pid, "label": rec.get("label"), "text": text})
    tokens = set(CLINICIANS) | set(RELATIVES) | set(TOWNS) | {RARE_WORD} | {"Gravemoor", "Ulvenna"}
    tokens |= {m for p, m in mrn.items() if any(r["patient_id"] == p for r in out[::3])}
    return out, sorted(t.lower() for t in tokens)


def _occurrences(texts, tokens):
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(t) for t in tokens) + r")(?!\w)", re.IGNORECASE)
    return sum(len(pattern.findall(t)) for t in texts)


def _cli(*args, cwd):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SPACY_DEID_SALT="canary-salt")
    res = subprocess.run([sys.executable, "-m", "spacy_deid", *args], capture_output=True, text=True, env=env, cwd=cwd)
    return res


@pytest.fixture(scope="module")
def canary(tmp_path_factory):
    from conftest import TINY_MLM, TINY_VECTORS
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.synth import generate_records
    from spacy_deid.train.pretrain import pretrain_mlm
    from spacy_deid.train.vectors import train_vectors

    root = tmp_path_factory.mktemp("canary")
    records, tokens = _plant(list(generate_records(160, 40, seed=21, style="mixed")))
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records))
    work = root / "work"
    work.mkdir()
    logs = {}
    # every step that writes something a user would share
    init_pipeline("default", corpus, work / "pipeline_default")
    train_vectors(corpus, work / "vectors", seed=0, mask_config="default", **TINY_VECTORS)
    pretrain_mlm(corpus, work / "mlm", TINY_MLM, mask_config="default", show_progress=False)
    init_pipeline(
        "datasifter", corpus, work / "pipeline_datasifter",
        overrides={"paths.mlm": str(work / "mlm"), "paths.vectors": str(work / "vectors"),
                   "components.doc_swapper.n_clusters": 2, "components.doc_swapper.min_df": 2},
    )
    sanitized = {}
    for profile in ("default", "datasifter"):
        out = root / f"sanitized_{profile}.jsonl"
        res = _cli("sanitize", str(work / f"pipeline_{profile}"), str(corpus), str(out), cwd=root)
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
        logs[f"sanitize_{profile}.log"] = res.stdout + res.stderr
        sanitized[profile] = out
    res = _cli("evaluate", str(corpus), str(sanitized["default"]), "--report", str(work / "report"), "--no-classify",
               "--n-examples", "20", cwd=root)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    logs["evaluate.log"] = res.stdout + res.stderr
    for name, text in logs.items():
        (work / name).write_text(text)
    return {"root": root, "work": work, "corpus": corpus, "records": records, "tokens": tokens, "sanitized": sanitized}


def test_no_planted_identifier_in_any_artefact(canary):
    from spacy_deid.eval.audit import RARE, Sensitive, scan

    sensitive = {t: Sensitive(RARE, 0, "planted", 0) for t in canary["tokens"]}
    report = scan([canary["work"]], sensitive)
    assert report.n_files >= 20, report.n_files  # pipelines, MLM, vectors, report, logs
    where = sorted({(f.where().replace(str(canary["work"]), ""), f.record_id) for f in report.findings})
    assert not report.findings, f"planted identifiers found in: {where}"


def test_audit_finds_the_planted_identifiers(canary, tmp_path):
    from spacy_deid.eval.audit import audit, token_id

    leak = tmp_path / "leak"
    leak.mkdir()
    (leak / "strings.json").write_text(json.dumps(canary["tokens"]))
    report = audit([leak], canary["corpus"], k=5)
    found = {f.token_id for f in report.findings}
    missed = [t for t in canary["tokens"] if token_id(t) not in found]
    assert not missed, f"audit missed {len(missed)} of {len(canary['tokens'])} planted identifiers"
    # the artefacts: none of the planted identifiers (audit may still name a word a
    # detector flagged somewhere, e.g. "nephrology" of "Nephrology Clinic")
    in_artefacts = {f.token_id for f in audit([canary["work"]], canary["corpus"], k=5).findings}
    assert not in_artefacts & {token_id(t) for t in canary["tokens"]}


@pytest.mark.parametrize("profile", ["default", "datasifter"])
def test_planted_occurrences_gone_from_sanitised_text(canary, profile):
    outs = [json.loads(l) for l in canary["sanitized"][profile].read_text().splitlines()]
    assert all(o["status"] == "ok" for o in outs)
    before = _occurrences([r["text"] for r in canary["records"]], canary["tokens"])
    after = _occurrences([o["deid_text"] for o in outs], canary["tokens"])
    assert before > 300
    assert after / before <= 0.02, f"{after} of {before} planted occurrences left ({profile})"
