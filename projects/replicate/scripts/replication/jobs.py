"""Training jobs of the replication, run in worker processes (one per core) by `run_jobs`.

They live in an importable module because spawned workers cannot see the functions of `__main__`.
Each job writes its JSON atomically only when complete, tagged with a `config_key`, so a rerun
skips what is done."""
import hashlib
import json
import multiprocessing
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import srsly


def config_key(cfg: Dict) -> str:
    return hashlib.sha1(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:12]


def done(path: Path, key: str) -> bool:
    """True if `path` holds a finished result of the configuration `key`."""
    if not path.exists():
        return False
    try:
        return srsly.read_json(path).get("config_key") == key
    except ValueError:
        return False


def write_json(path: Path, data: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    srsly.write_json(tmp, data)
    tmp.replace(path)


def run_jobs(jobs: List[Tuple[Callable, tuple]], n_jobs: int) -> None:
    if n_jobs <= 1 or len(jobs) <= 1:
        for fn, args in jobs:
            fn(*args)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(min(n_jobs, len(jobs)), maxtasksperchild=1) as pool:
        results = [pool.apply_async(fn, args) for fn, args in jobs]
        for r in results:
            r.get()  # re-raise a worker's error here


def train_job(tagged_path: str, setting: str, system: str, epochs: int, beam: int, model_dir: str,
              out: str, key: str, position: int) -> None:
    from .data import load_tagged
    from .systems import train_system

    tagged = load_tagged(Path(tagged_path))
    result = train_system(tagged, setting, system, epochs, beam, Path(model_dir), position=position)
    result["config_key"] = key
    write_json(Path(out), result)
    tune = result["tune"]
    print(f"{setting} {system}: best epoch {result['best_epoch']} (tune F1 {100 * tune['sents_f']:.2f}"
          f", LAS {100 * (tune['dep_las'] or 0):.2f}); {result['train_cpu_seconds']:.0f} CPU s", flush=True)


def curve_job(tagged_path: str, run: str, epochs: int, out: str, key: str, label: str, position: int) -> None:
    from .curves import RUN_KINDS, curve_run, parse_run
    from .data import load_tagged

    kind, update, beam = parse_run(run)
    result = curve_run(load_tagged(Path(tagged_path)), RUN_KINDS[kind], update, beam, epochs, label=label,
                       position=position)
    result["config_key"] = key
    write_json(Path(out), result)
