"""Write the shipped structured-PHI span_ruler patterns to a JSONL file.

    python scripts/write_phi_patterns.py spacy_deid/assets/phi_patterns.jsonl
"""
import sys

from spacy_deid.detect.patterns import write_patterns

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "spacy_deid/assets/phi_patterns.jsonl"
    print(f"Wrote {write_patterns(out)} patterns to {out}")
