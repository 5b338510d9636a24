"""Components for the fault tests, importable with ``--code tests/fault_components.py``
(the CLI, a killed subprocess and every Ray worker load them the same way)."""
import os
import time

from spacy.language import Language

from spacy_deid.edits import add_edit

_MAIN_PID = os.getpid()  # the process that imported this file first (a fork keeps the value)


class SlowMask:
    """Masks ``doc.ents`` with ``[LABEL]``, sleeps ``delay`` seconds per doc (so a
    run is slow enough to be killed mid-way) and raises on a doc containing
    ``explode_on`` (a component that fails on one record)."""

    def __init__(self, delay: float, explode_on: str, die_on: str = ""):
        self.delay = delay
        self.explode_on = explode_on
        self.die_on = die_on

    def __call__(self, doc):
        if self.explode_on and self.explode_on in doc.text:
            raise RuntimeError("boom on purpose")
        if self.die_on and self.die_on in doc.text and os.getpid() != _MAIN_PID and os.environ.get("FAULT_DIE") == "1":
            # a worker process dies (as if killed by the OOM killer); never the main process, and
            # only while FAULT_DIE=1 (the fault is transient: the same pipeline resumes the run)
            os._exit(3)
        if self.delay:
            time.sleep(self.delay)
        for ent in doc.ents:
            add_edit(doc, ent.start, ent.end, "PHI", f"[{ent.label_}]")
        return doc


@Language.factory(
    "deid_test_slow_mask",
    default_config={"delay": 0.0, "explode_on": "EXPLODE", "die_on": ""},
    assigns=["doc._.deid_text"],
)
def make_slow_mask(nlp: Language, name: str, delay: float, explode_on: str, die_on: str) -> SlowMask:
    return SlowMask(delay, explode_on, die_on)


def build_pipeline(delay: float = 0.0, die_on: str = ""):
    """blank English + the shipped PHI patterns (with their filter, as the README adds them:
    a cue's words stay out of its value) + the slow mask."""
    import spacy

    from spacy_deid.io.readers import phi_patterns_v1

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={
        "spans_key": None, "annotate_ents": True, "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}})
    ruler.add_patterns(phi_patterns_v1())
    nlp.add_pipe("deid_test_slow_mask", config={"delay": delay, "die_on": die_on})
    return nlp


def make_lines(n: int, seed: int = 0, bad: bool = True):
    """``n`` input lines (bytes): notes with dates and phone numbers, and, when
    ``bad``, every fault of the JSONL contract spread through the file: invalid
    JSON, wrong types, a missing id, duplicate ids, non-UTF-8 bytes, blank lines, a
    record the component raises on."""
    import json
    import random

    rng = random.Random(seed)
    words = "patient seen today for chest pain follow up in clinic labs stable plan continue".split()
    lines = []
    for i in range(n):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(5, 30)))
        text = f"Note {i}: {body}. Seen on {rng.randint(1, 12)}/{rng.randint(1, 28)}/20{rng.randint(10, 23)}, call 555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}."
        rec = {"id": f"r{i}", "patient_id": f"p{i % 37}", "text": text}
        if bad and i % 97 == 13:
            rec["id"] = f"r{i - 10}"  # duplicate of an earlier id
        if bad and i % 89 == 7:
            rec.pop("id")  # missing id: the line number is used
        line = json.dumps(rec).encode("utf-8")
        if bad:
            kind = i % 101
            if kind == 17:
                line = b'{"id": "broken", "text": '
            elif kind == 29:
                line = json.dumps({"id": f"r{i}", "text": ["not", "a", "string"]}).encode()
            elif kind == 41:
                line = b'{"id": "latin1", "text": "caf\xe9"}'
            elif kind == 53:
                line = json.dumps({"id": f"r{i}", "text": "EXPLODE " + text}).encode()
            elif kind == 67:
                lines.append(b"   ")
        lines.append(line)
    return lines


def write_lines(path, lines):
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line + b"\n")
