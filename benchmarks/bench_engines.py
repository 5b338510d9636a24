"""The same sanitize job on the local engine (1 process, n_process=2) and on Ray
Data (N workers): wall time, docs/s, ratios, peak memory; plus a streaming run
over a large generated input (default 1 GB) to show memory stays bounded.

    .venv/bin/python benchmarks/bench_engines.py --n-docs 20000 --out benchmarks/results/engines.json
    .venv/bin/python benchmarks/bench_engines.py --skip-engines --stream-mb 1024   # the 1 GB run alone

Every engine runs in a fresh subprocess (the CLI's own code path, imports and
pipeline load included); its process tree is sampled every 0.25 s from /proc
(Linux): peak PSS summed over the tree (shared pages counted once, the honest
total for forked or Ray workers) and peak RSS of the largest process. Ray's
object store lives in /dev/shm and is mapped by the workers, so it is in their
PSS. The large input is generated in --workdir (default /tmp) and deleted after.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


# ---------------------------------------------------------------- memory sampling


def _children_map() -> Dict[int, List[int]]:
    kids: Dict[int, List[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _tree(pid: int) -> List[int]:
    kids = _children_map()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def _kb(path: str, field: str) -> int:
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_ticks(pid: int) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of proc(5))


class TreeMemory(threading.Thread):
    """Samples the PSS (sum), RSS (max) and CPU time of a process tree until stopped.

    CPU seconds are summed over every process seen (its last sample): this
    includes Ray's workers, which the driver never waits for (so rusage of the
    children would miss them); a process loses at most one sampling interval.
    """

    def __init__(self, pid: int, every: float = 0.25):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peak_pss_kb = self.peak_rss_kb = self.peak_procs = 0
        self.samples: List[tuple] = []
        self.cpu_ticks: Dict[int, int] = {}  # utime + stime per process, last seen
        self._halt = threading.Event()

    def run(self) -> None:
        t0 = time.perf_counter()
        while not self._halt.is_set():
            pids = _tree(self.pid)
            for p in pids:
                ticks = _cpu_ticks(p)
                if ticks is not None:
                    self.cpu_ticks[p] = max(self.cpu_ticks.get(p, 0), ticks)
            pss = sum(_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids)
            rss = max((_kb(f"/proc/{p}/status", "VmRSS:") for p in pids), default=0)
            self.peak_pss_kb = max(self.peak_pss_kb, pss)
            self.peak_rss_kb = max(self.peak_rss_kb, rss)
            self.peak_procs = max(self.peak_procs, len(pids))
            self.samples.append((round(time.perf_counter() - t0, 2), pss))
            self._halt.wait(self.every)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def run_measured(cmd: List[str], env: Optional[dict] = None) -> dict:
    """Run a command; wall time, exit code, peak memory of its process tree, and
    the last line of stdout parsed as JSON (the runner's report)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(ROOT))
    mem = TreeMemory(proc.pid)
    mem.start()
    out, err = proc.communicate()
    mem.stop()
    wall = time.perf_counter() - t0
    # CPU seconds of the whole tree: unlike wall time, it hardly depends on what
    # else runs on the machine
    cpu = sum(mem.cpu_ticks.values()) / os.sysconf("SC_CLK_TCK")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-3000:]}")
    report = json.loads(out.strip().splitlines()[-1])
    report.update(
        wall_s=round(wall, 2),
        cpu_s=round(cpu, 1),
        peak_pss_mb=round(mem.peak_pss_kb / 1024, 1),
        peak_rss_largest_process_mb=round(mem.peak_rss_kb / 1024, 1),
        peak_processes=mem.peak_procs,
    )
    report["pss_mb_over_time"] = [(t, round(kb / 1024, 1)) for t, kb in mem.samples[:: max(1, len(mem.samples) // 40)]]
    return report


# ---------------------------------------------------------------- one run (subprocess side)


def run_one(args) -> None:
    """Runs in the subprocess: one engine, prints one JSON line."""
    from spacy_deid.engines.local import sanitize_file

    t0 = time.perf_counter()
    if args.engine == "ray":
        from spacy_deid.engines.ray import sanitize_file_ray

        stats = sanitize_file_ray(args.model, args.input, args.output, num_workers=args.num_workers,
                                  chunk_records=args.chunk_records, batch_size=args.batch_size, show_progress=False)
    else:
        stats = sanitize_file(args.model, args.input, args.output, n_process=args.n_process,
                              batch_size=args.batch_size, show_progress=False)
    print(json.dumps({
        "engine": args.engine, "n_process": args.n_process, "num_workers": args.num_workers,
        "n_in": stats.n_in, "n_ok": stats.n_ok, "n_error": stats.n_error, "n_edits": stats.n_edits,
        "api_s": round(time.perf_counter() - t0, 2), "timings": {k: round(v, 2) for k, v in stats.timings.items()},
    }))


# ---------------------------------------------------------------- driver


def _prepare(args, work: Path) -> Path:
    corpus = work / f"corpus_{args.n_docs}.jsonl"
    if not corpus.exists():
        t0 = time.perf_counter()
        subprocess.run([PY, "-m", "spacy_deid", "generate", str(corpus), "--n-docs", str(args.n_docs),
                        "--n-patients", str(max(50, args.n_docs // 10)), "--seed", "0"], check=True, cwd=str(ROOT))
        print(f"generated {args.n_docs} docs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    model = work / f"model_{Path(args.config).stem}_{args.n_docs}"
    if not model.exists():
        t0 = time.perf_counter()
        subprocess.run([PY, "-m", "spacy_deid", "init", str(ROOT / args.config), str(corpus), str(model)], check=True, cwd=str(ROOT))
        print(f"fitted {args.config} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return corpus


def _runner(args, engine: str, inp: Path, out: Path, model: Path, n_process: int = 1, num_workers: int = 2) -> List[str]:
    return [PY, str(Path(__file__).resolve()), "--run-one", "--engine", engine, "--model", str(model), "--input", str(inp),
            "--output", str(out), "--n-process", str(n_process), "--num-workers", str(num_workers),
            "--chunk-records", str(args.chunk_records), "--batch-size", str(args.batch_size)]


def _make_big(src: Path, dst: Path, mb: int) -> int:
    """Copies of the corpus (ids made unique) until ``mb`` megabytes."""
    target = mb * 1024 * 1024
    lines = src.read_bytes().splitlines()
    written = n = 0
    with dst.open("wb") as fh:
        while written < target:
            for line in lines:
                rec = json.loads(line)
                rec["id"] = f"{rec['id']}-{n}"
                rec.pop("spans", None)
                data = json.dumps(rec, ensure_ascii=False).encode("utf-8") + b"\n"
                fh.write(data)
                written += len(data)
                n += 1
                if written >= target:
                    break
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-docs", type=int, default=20000)
    parser.add_argument("--config", default="spacy_deid/configs/frequency.cfg")
    parser.add_argument("--workdir", default="/tmp/deid_bench_engines")
    parser.add_argument("--out", default="benchmarks/results/engines.json")
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--chunk-records", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--skip-engines", action="store_true", help="only the streaming run")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--stream-mb", type=int, default=1024, help="size of the streaming run's input (0: skip)")
    parser.add_argument("--stream-config", default="spacy_deid/configs/frequency.cfg", help="pipeline of the streaming run")
    # subprocess side
    parser.add_argument("--run-one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine", default="local", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--n-process", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_one:
        return run_one(args)

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    results: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "loadavg_before": os.getloadavg()},
        "n_docs": args.n_docs, "config": args.config,
    }
    out_path = ROOT / args.out
    if out_path.exists():  # a later run (e.g. --skip-engines) adds to the earlier results
        previous = json.loads(out_path.read_text())
        previous.setdefault("machine_history", []).append(previous.get("machine"))
        previous.update(machine=results["machine"])
        results = previous
    if not args.skip_engines:
        corpus = _prepare(args, work)
        model = work / f"model_{Path(args.config).stem}_{args.n_docs}"
        results["corpus_mb"] = round(corpus.stat().st_size / 1e6, 1)
        runs = {}
        plan = [("local_1proc", "local", 1, 0), ("local_n_process_2", "local", 2, 0)]
        if not args.skip_ray:
            plan.append((f"ray_{args.num_workers}_workers", "ray", 1, args.num_workers))
        outputs = {}
        for name, engine, n_process, workers in plan:
            out = work / f"out_{name}.jsonl"
            print(f"running {name} ...", file=sys.stderr)
            runs[name] = run_measured(_runner(args, engine, corpus, out, model, n_process, workers), env)
            runs[name]["docs_per_s"] = round(args.n_docs / runs[name]["wall_s"], 1)
            runs[name]["loadavg_after"] = os.getloadavg()
            outputs[name] = out
            print(json.dumps({k: v for k, v in runs[name].items() if k != "pss_mb_over_time"}), file=sys.stderr)
        base = runs["local_1proc"]["wall_s"]
        base_cpu = runs["local_1proc"]["cpu_s"]
        for r in runs.values():
            r["speedup_vs_1proc"] = round(base / r["wall_s"], 2)
            r["cpu_vs_1proc"] = round(r["cpu_s"] / max(base_cpu, 1e-9), 2)
            r["docs_per_cpu_s"] = round(args.n_docs / max(r["cpu_s"], 1e-9), 1)
        ref = outputs["local_1proc"].read_bytes()
        results["same_output_as_local_1proc"] = {k: outputs[k].read_bytes() == ref for k in outputs}
        if not args.skip_ray:
            ray_run = runs[f"ray_{args.num_workers}_workers"]
            t = ray_run["timings"]
            per_worker = args.n_docs / max(t["process_s"], 1e-9) / args.num_workers
            merge_rate = args.n_docs / max(t["merge_s"], 1e-9)
            fixed = ray_run["wall_s"] - t["process_s"] - t["merge_s"]
            # T(N) = fixed start-up + docs / (N * per-worker rate) + docs / merge rate (sequential on the driver)
            results["cluster_projection"] = {
                "per_worker_docs_per_s_measured": round(per_worker, 1),
                "merge_docs_per_s_measured": round(merge_rate, 1),
                "fixed_overhead_s_measured": round(fixed, 1),
                "model": "T(N, D) = fixed + D / (N * per_worker) + D / merge",
                "projected_s_for_1M_docs": {
                    str(n): round(fixed + 1e6 / (n * per_worker) + 1e6 / merge_rate, 0) for n in (2, 8, 32, 128)
                },
            }
        for o in outputs.values():
            o.unlink(missing_ok=True)
        results["runs"] = runs
    if args.stream_mb:
        src = _prepare(args, work)
        big = work / f"big_{args.stream_mb}mb.jsonl"
        model = work / f"model_{Path(args.stream_config).stem}_{args.n_docs}"  # the engines' model when the same config
        if not model.exists():
            subprocess.run([PY, "-m", "spacy_deid", "init", str(ROOT / args.stream_config), str(src), str(model)], check=True, cwd=str(ROOT))
        try:
            n = _make_big(src, big, args.stream_mb)
            print(f"streaming run over {big.stat().st_size / 1e6:.0f} MB ({n} records) ...", file=sys.stderr)
            run = run_measured(_runner(args, "local", big, work / "big_out.jsonl", model), env)
            run.update(input_mb=round(big.stat().st_size / 1e6, 1), n_records=n, config=args.stream_config,
                       docs_per_s=round(n / run["wall_s"], 1), mb_per_s=round(big.stat().st_size / 1e6 / run["wall_s"], 2))
            results.setdefault("streaming", {})[f"{args.stream_mb}mb"] = run
            print(json.dumps({k: v for k, v in run.items() if k != "pss_mb_over_time"}), file=sys.stderr)
        finally:
            big.unlink(missing_ok=True)
            (work / "big_out.jsonl").unlink(missing_ok=True)
            (work / "big_out.jsonl.partial").unlink(missing_ok=True)
    results["machine"]["loadavg_after"] = os.getloadavg()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    write_json(out_path, results, indent=1)
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
