"""The Ray Data engine: same output as the local engine, shards +
manifest + ordered merge, resume after kill -9, errors that name what failed.

Needs the ``ray`` extra (``pip install 'spacy-deid[ray]'``); the tests that start
Ray are skipped without it. A local Ray with 2 CPUs is started once for the
module and shut down at its end (~10 s on 2 busy cores, so they are all ``slow``).
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fault_components import build_pipeline, make_lines, write_lines
from spacy_deid.io.records import FatalError
from spacy_deid.engines.local import sanitize_file

try:
    import ray  # noqa: F401
    import ray.data  # noqa: F401

    HAS_RAY = True
except ImportError:
    HAS_RAY = False

needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed: pip install 'spacy-deid[ray]'")
CODE = Path(__file__).resolve().parent / "fault_components.py"


def _read(path: Path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray with 2 CPUs for the whole module."""
    if not HAS_RAY:
        pytest.skip("Ray is not installed: pip install 'spacy-deid[ray]'")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    yield ray
    ray.shutdown()


def _input_and_outputs(tmp_path, n_lines: int, seed: int):
    """An input file of ``n_lines`` generated lines, and the local and Ray output paths."""
    lines = make_lines(n_lines, seed=seed)
    inp = tmp_path / "in.jsonl"
    write_lines(inp, lines)
    return lines, inp, tmp_path / "local.jsonl", tmp_path / "ray.jsonl"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray_model") / "model"
    build_pipeline().to_disk(path)
    return path


@pytest.fixture(scope="module")
def slow_model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("ray_model") / "slow_model"
    build_pipeline(delay=0.004).to_disk(path)
    return path


def test_without_ray_the_error_names_the_extra(tmp_path):
    """Ray is imported lazily; without it, --engine ray says what to install."""
    code = (
        "import sys\n"
        "sys.modules['ray'] = None\n"
        "from spacy_deid.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(3, bad=False))
    model = tmp_path / "model"
    build_pipeline().to_disk(model)
    res = subprocess.run(
        [sys.executable, "-c", code, "sanitize", str(model), str(inp), str(tmp_path / "o.jsonl"), "--engine", "ray",
         "--code", str(CODE)],
        capture_output=True, text=True,
    )
    output = " ".join((res.stdout + res.stderr).split())  # wasabi wraps long lines
    assert res.returncode != 0
    assert "pip install 'spacy-deid[ray]'" in output
    assert "Traceback" not in output


@needs_ray
@pytest.mark.slow
def test_ray_output_equals_local_output(tmp_path, ray_local, model_dir):
    from spacy_deid.engines.ray import sanitize_file_ray, shard_dir_for

    lines, inp, local, remote = _input_and_outputs(tmp_path, 400, seed=11)
    local_stats = sanitize_file(build_pipeline(), inp, local)
    stats = sanitize_file_ray(model_dir, inp, remote, num_workers=2, chunk_records=100, code_path=CODE)
    assert remote.read_bytes() == local.read_bytes()
    assert (stats.n_in, stats.n_ok, stats.n_error, stats.n_duplicate_ids, stats.n_edits) == (
        local_stats.n_in, local_stats.n_ok, local_stats.n_error, local_stats.n_duplicate_ids, local_stats.n_edits,
    )
    assert stats.errors_by_kind == local_stats.errors_by_kind
    assert stats.n_duplicate_ids > 0 and stats.n_error > 0  # duplicates across shards are flagged at the merge
    assert not shard_dir_for(remote).exists()  # shards are removed after the merge


@needs_ray
@pytest.mark.slow
def test_ray_resume_reprocesses_only_missing_shards(tmp_path, ray_local, model_dir):
    from spacy_deid.engines.ray import list_shards, sanitize_file_ray, shard_dir_for

    lines, inp, local, remote = _input_and_outputs(tmp_path, 300, seed=12)
    sanitize_file(build_pipeline(), inp, local)
    sanitize_file_ray(model_dir, inp, remote, num_workers=2, chunk_records=30, code_path=CODE, keep_shards=True)
    shards = list_shards(shard_dir_for(remote))
    assert len(shards) == 10
    manifest = json.loads((shard_dir_for(remote) / "manifest.json").read_text())
    assert manifest["n_records"] == sum(1 for line in lines if line.strip())
    assert "Note 1:" not in json.dumps(manifest)  # the manifest holds byte ranges and options, never text
    # as if the run had been killed: two shards lost, a temporary file left over, output gone
    for shard in shards[3:5]:
        shard.path.unlink()
    (shard_dir_for(remote) / "shard-000000000090-000000000120.jsonl.tmp").write_text("torn")
    remote.unlink()
    stats = sanitize_file_ray(model_dir, inp, remote, num_workers=2, chunk_records=30, code_path=CODE, resume=True)
    assert stats.n_resumed == 240
    assert remote.read_bytes() == local.read_bytes()


def test_merge_refuses_missing_records(tmp_path):
    """The merge needs no Ray: it checks that every record is there exactly once."""
    from spacy_deid.engines.ray import merge_shards, write_shard

    shard_dir = tmp_path / "out.jsonl.shards"
    shard_dir.mkdir()
    header = json.dumps({"first": 0, "end": 2, "ids": ["a", "b"], "stats": {}})
    write_shard(shard_dir, 0, 2, header, '{"id": "a"}\n{"id": "b"}\n')
    header = json.dumps({"first": 3, "end": 4, "ids": ["d"], "stats": {}})
    write_shard(shard_dir, 3, 4, header, '{"id": "d"}\n')
    (tmp_path / "out.jsonl").write_text("previous\n")
    with pytest.raises(FatalError, match="Records 2 to 4 are missing"):
        merge_shards(shard_dir, tmp_path / "out.jsonl", 4)
    assert (tmp_path / "out.jsonl").read_text() == "previous\n"


@needs_ray
@pytest.mark.slow
def test_ray_resume_refuses_another_input(tmp_path, ray_local, model_dir):
    from spacy_deid.engines.ray import sanitize_file_ray

    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(30, bad=False))
    out = tmp_path / "out.jsonl"
    sanitize_file_ray(model_dir, inp, out, num_workers=1, chunk_records=10, code_path=CODE, keep_shards=True)
    write_lines(inp, make_lines(31, bad=False))  # the input changed since
    with pytest.raises(FatalError, match="input changed"):
        sanitize_file_ray(model_dir, inp, out, num_workers=1, chunk_records=10, code_path=CODE, resume=True)


@needs_ray
@pytest.mark.slow
def test_ray_pipeline_that_cannot_load_is_a_clear_error(tmp_path, ray_local, model_dir):
    """The workers cannot load a pipeline whose component is unknown to them (no
    --code): one clear error, the previous output untouched."""
    from spacy_deid.engines.ray import sanitize_file_ray

    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(20, bad=False))
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    code = (
        "import sys\n"
        "from spacy_deid.engines.ray import sanitize_file_ray\n"
        "from spacy_deid.io.records import FatalError\n"
        "try:\n"
        f"    sanitize_file_ray({str(model_dir)!r}, {str(inp)!r}, {str(out)!r}, address={ray_local.get_runtime_context().gcs_address!r}, num_workers=1)\n"
        "except FatalError as err:\n"
        "    print('FATAL', err)\n"
    )
    # a fresh driver process: this test process has the component registered already
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "FATAL Ray run failed" in res.stdout, res.stdout[-2000:] + res.stderr[-2000:]
    # the cause is asked of the cluster: Ray does not always name it in its own error
    assert "workers cannot load the pipeline" in res.stdout, res.stdout[-2000:]
    assert "deid_test_slow_mask" in res.stdout and "--resume" in res.stdout
    assert out.read_text() == "previous\n"


@needs_ray
@pytest.mark.slow
def test_ray_kill9_mid_run_then_resume(tmp_path, ray_local, slow_model_dir):
    """A driver killed with SIGKILL mid-run (connected to the running cluster, as
    on a real cluster); --resume keeps its complete shards and gives the output of
    an uninterrupted run."""
    from spacy_deid.engines.ray import list_shards, sanitize_file_ray, shard_dir_for

    lines = make_lines(1500, seed=13)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    reference = tmp_path / "reference.jsonl"
    sanitize_file(build_pipeline(), inp, reference)
    address = ray_local.get_runtime_context().gcs_address
    cmd = [sys.executable, "-m", "spacy_deid", "sanitize", str(slow_model_dir), str(inp), str(out),
           "--engine", "ray", "--address", address, "--num-workers", "2", "--chunk-records", "100", "--code", str(CODE)]
    env = dict(os.environ, PYTHONPATH=str(CODE.parent))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    shard_dir = shard_dir_for(out)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and len(list_shards(shard_dir)) < 2:
            if proc.poll() is not None:
                pytest.fail(f"the Ray run ended (rc {proc.returncode}) before it could be killed: {proc.stdout.read()[-3000:]}")
            time.sleep(0.1)
        assert len(list_shards(shard_dir)) >= 2, "no shard was written in 300 s"
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not out.exists()
    done = len(list_shards(shard_dir))
    assert 2 <= done < 15
    stats = sanitize_file_ray(slow_model_dir, inp, out, num_workers=2, chunk_records=100, code_path=CODE, resume=True)
    assert stats.n_resumed >= 200
    assert out.read_bytes() == reference.read_bytes()
    assert len(_read(out)) == sum(1 for line in lines if line.strip())


INIT_CONFIG = """
[paths]
corpus = null

[nlp]
lang = "en"
pipeline = ["phi_ruler", "frequency_masker", "doc_swapper"]

[components]

[components.phi_ruler]
factory = "span_ruler"
spans_key = null
annotate_ents = true
ents_filter = {"@misc": "spacy.first_longest_spans_filter.v1"}

[components.frequency_masker]
factory = "frequency_masker"
k = 3

[components.doc_swapper]
factory = "doc_swapper"
n_clusters = 3
min_df = 2
init_sample = 200
fit_batch_size = 100

[initialize]

[initialize.components]

[initialize.components.phi_ruler]
patterns = {"@misc": "spacy_deid.phi_patterns.v1"}

[initialize.components.frequency_masker]

[initialize.components.frequency_masker.corpus]
@readers = "spacy_deid.io.records.v1"
path = ${paths.corpus}

[initialize.components.frequency_masker.blacklist]
@misc = "spacy_deid.term_list.v1"
terms = ["chest pain", "aspirin"]

[initialize.components.doc_swapper]

[initialize.components.doc_swapper.corpus]
@readers = "spacy_deid.io.records.v1"
path = ${paths.corpus}
"""


def _dir_bytes(path: Path):
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@needs_ray
@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides",
    [
        {},  # count by patient (map: distinct keys per patient and block; reduce: DistinctCounter)
        {"components.frequency_masker.count_unit": "occurrence", "components.frequency_masker.keep_fraction": 0.9,
         "components.doc_swapper.method": "none"},  # reduce: summed counts; k chosen on the driver
    ],
    ids=["patient+swap", "occurrence+keep_fraction"],
)
def test_init_on_ray_equals_local_init(tmp_path, ray_local, small_corpus, overrides):
    """Corpus statistics as map/reduce on Ray: the saved pipeline is byte for byte
    the local engine's (frequency counts, k, allowed items; swap idf and centroids)."""
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.engines.ray_stats import init_pipeline_ray

    cfg = tmp_path / "init.cfg"
    cfg.write_text(INIT_CONFIG)
    local, remote = tmp_path / "local", tmp_path / "ray"
    init_pipeline(cfg, small_corpus, local, overrides)
    init_pipeline_ray(cfg, small_corpus, remote, overrides, num_workers=2, chunk_records=70)
    a, b = _dir_bytes(local), _dir_bytes(remote)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], f"{name} differs between the local and the Ray init"
    stats = json.loads((local / "frequency_masker" / "cfg").read_text())["stats"]
    assert stats["n_docs"] == 300 and stats["n_allowed"] > 0  # a real fit, not two empty ones


@pytest.mark.slow
def test_ray_operators_override_equals_local(tmp_path, ray_local, monkeypatch):
    """`sanitize --engine ray --operators '*=mask'`: every actor applies the override."""
    import json

    import spacy

    from spacy_deid.engines.ray import sanitize_file_ray

    monkeypatch.setenv("SPACY_DEID_SALT", "ray-test")
    nlp = spacy.blank("en")
    nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": "phi_patterns", "annotate_ents": False})
    nlp.get_pipe("phi_ruler").add_patterns([{"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d+/\d+/\d{4}$"}}]}])
    nlp.add_pipe("phi_replacer")
    nlp.to_disk(tmp_path / "pipe")
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": str(i), "text": f"Seen on 3/{i % 28 + 1}/2019."}) + "\n" for i in range(40)))
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    sanitize_file(tmp_path / "pipe", inp, local, operators={"*": "mask"})
    sanitize_file_ray(tmp_path / "pipe", inp, remote, num_workers=2, chunk_records=10, operators={"*": "mask"})
    assert remote.read_bytes() == local.read_bytes()
    assert all(json.loads(l)["deid_text"] == "Seen on [DATE]." for l in remote.open())
