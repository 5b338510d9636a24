"""Surrogates that read like the original PHI: dates, names, numbers, places,
and the operators (surrogate, shift, mask, redact, hash, encrypt, keep) that the
``phi_replacer`` component applies per PHI category."""
