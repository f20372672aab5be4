"""`python -m spacy_joint_sbd.experiments.replicate STEP ...`: the steps of the replication.

    prepare   --data assets/ud --corpus corpus/replicate [--limit-train N --limit-eval M]
    tag       --setting ewt-star --tagger PIPELINE --senter PIPELINE
    train     --setting ewt-star --systems joint,nosyntax,gold --epochs 12 --beam 20 --jobs 2
    pipelines --setting ewt-star                 (senter / NOSYNTAX / JOINT boundaries → GOLD parser)
    curves    --setting gum-star --runs joint:dlaso:20,sentence:early:20,... --epochs 8 --name fig3
    report    --out results/RESULTS.md           (tables, significance marks, PNG figures)
    export    --tagger PIPELINE --model training/replicate/ewt-star/joint --out DIR   (a spaCy pipeline)

Every step that trains writes its JSON only when it is complete, and `train`/`curves` skip a run
whose JSON already exists with the same configuration, so an interrupted workflow resumes where it
stopped. `--jobs 2` runs independent trainings in parallel processes (one per core).
"""
import argparse
import sys
from pathlib import Path


import srsly

from .jobs import curve_job, run_jobs, train_job, write_json
from .settings import SETTINGS


def _tagged_path(corpus: Path, setting: str) -> Path:
    return corpus / "tagged" / f"{setting}.msgpack"


def _done(path: Path, key: str) -> bool:
    if not path.exists():
        return False
    try:
        return srsly.read_json(path).get("config_key") == key
    except ValueError:
        return False


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m spacy_joint_sbd.experiments.replicate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="write the corpus splits as DocBins")
    p.add_argument("--data", type=Path, default=Path("assets/ud"))
    p.add_argument("--corpus", type=Path, default=Path("corpus/replicate"))
    p.add_argument("--corpora", default="en_ewt,en_gum")
    p.add_argument("--limit-train", type=int, default=0)
    p.add_argument("--limit-eval", type=int, default=0)
    for name in ("tag", "train", "pipelines", "curves"):
        q = sub.add_parser(name)
        q.add_argument("--setting", required=True, choices=sorted(SETTINGS))
        q.add_argument("--corpus", type=Path, default=Path("corpus/replicate"))
        q.add_argument("--metrics", type=Path, default=Path("metrics/replicate"))
        if name == "tag":
            q.add_argument("--tagger", required=True)
            q.add_argument("--senter", required=True)
        if name in ("train", "curves"):
            q.add_argument("--epochs", type=int, default=12)
            q.add_argument("--jobs", type=int, default=2)
        if name in ("train", "pipelines"):
            q.add_argument("--beam", type=int, default=20)
        if name == "train":
            q.add_argument("--systems", default="joint,nosyntax,gold")
            q.add_argument("--models", type=Path, default=Path("training/replicate"))
        if name == "curves":
            q.add_argument("--runs", required=True, help="comma-separated mode:strategy:beam")
            q.add_argument("--name", required=True, help="output name, e.g. fig3")
        if name == "pipelines":
            q.add_argument("--models", type=Path, default=Path("training/replicate"))
    e = sub.add_parser("export", help="a JOINT model + the setting's tagger as a spaCy pipeline")
    e.add_argument("--tagger", required=True)
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report")
    r.add_argument("--metrics", type=Path, default=Path("metrics/replicate"))
    r.add_argument("--out", type=Path, default=Path("results/RESULTS.md"))
    r.add_argument("--plots", type=Path, default=None, help="folder of the PNGs (default: beside --out)")
    r.add_argument("--title", default="")
    r.add_argument("--readme", type=Path, default=None, help="also fill Tables 3-4 into this README's results block")
    args = ap.parse_args(argv)

    if args.step == "prepare":
        from .data import prepare

        prepare(args.data, args.corpus, args.corpora.split(","), args.limit_train, args.limit_eval)
    elif args.step == "tag":
        from .data import tag

        tag(args.setting, args.corpus, args.tagger, args.senter, _tagged_path(args.corpus, args.setting),
            args.metrics / args.setting)
    elif args.step == "train":
        from .systems import SYSTEMS, config_key

        tagged = _tagged_path(args.corpus, args.setting)
        jobs = []
        for pos, system in enumerate(args.systems.split(",")):
            if system not in SYSTEMS:
                ap.error(f"unknown system {system!r}; expected {SYSTEMS}")
            out = args.metrics / args.setting / f"{system}.json"
            key = config_key({"setting": args.setting, "system": system, "epochs": args.epochs, "beam": args.beam,
                              "tagged_mtime": tagged.stat().st_mtime})
            if _done(out, key):
                print(f"{out}: done, skipped")
                continue
            jobs.append((train_job, (str(tagged), args.setting, system, args.epochs, args.beam,
                                      str(args.models / args.setting / system), str(out), key, pos)))
        run_jobs(jobs, args.jobs)
    elif args.step == "curves":
        from .systems import config_key

        tagged = _tagged_path(args.corpus, args.setting)
        jobs = []
        for pos, run in enumerate(args.runs.split(",")):
            mode, strategy, beam = run.split(":")
            out = args.metrics / args.setting / args.name / f"{mode}-{strategy}-beam{beam}.json"
            key = config_key({"setting": args.setting, "run": run, "epochs": args.epochs,
                              "tagged_mtime": tagged.stat().st_mtime})
            if _done(out, key):
                print(f"{out}: done, skipped")
                continue
            jobs.append((curve_job, (str(tagged), mode, strategy, int(beam), args.epochs, str(out), key,
                                      f"{args.name} {run}", pos)))
        # the longest runs first, so that two workers finish together
        jobs.sort(key=lambda j: -j[1][3] * (1 if j[1][2] == "greedy" else 2))
        run_jobs(jobs, args.jobs)
    elif args.step == "pipelines":
        from .pipelines import run_pipelines

        out = args.metrics / args.setting / "pipelines.json"
        write_json(out, run_pipelines(args.setting, _tagged_path(args.corpus, args.setting),
                                       args.metrics / args.setting, args.models / args.setting, args.beam))
    elif args.step == "export":
        from .export import export_pipeline

        export_pipeline(args.tagger, args.model, args.out)
    elif args.step == "report":
        from .report import write_report

        write_report(args.metrics, args.out, args.plots or args.out.parent, title=args.title, readme=args.readme)


if __name__ == "__main__":
    main(sys.argv[1:])
