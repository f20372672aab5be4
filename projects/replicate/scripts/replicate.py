"""`python scripts/replicate.py STEP ...`: the steps of the replication (run from projects/replicate).

    prepare   --data ../../assets/ud --corpus corpus/full [--limit-train N --limit-eval M]
    tag       --setting ewt-star --tagger PIPELINE --senter PIPELINE --corpus corpus/full --metrics metrics/full
    train     --setting ewt-star --epochs 24 --beam 20 --jobs 2 [--systems joint,nosyntax,gold]
    pipelines --setting ewt-star                 (senter / NOSYNTAX / JOINT boundaries → GOLD parser)
    curves    --setting gum-star --name fig34 --runs joint:dlaso:20,sentence:early:20,...
    curves    --setting gum-star --name fig5 --updates dlaso,max_violation --beams 5,20,50,100
    report    --metrics metrics/full --out results/full/RESULTS.md   (tables, significance, PNG figures)
    export    --tagger PIPELINE --model training/full/ewt-star/joint --out DIR   (a spaCy pipeline)

Every step that trains writes its JSON only when it is complete, and `train`/`curves` skip a run
whose JSON already exists with the same configuration, so an interrupted workflow resumes where it
stopped. `--jobs 2` runs independent trainings in parallel processes (one per core).
"""
import argparse
import sys
from pathlib import Path

from replication.jobs import config_key, curve_job, done, run_jobs, train_job, write_json
from replication.settings import SETTINGS


def _tagged_path(corpus: Path, setting: str) -> Path:
    return corpus / "tagged" / f"{setting}.msgpack"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python scripts/replicate.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="write the corpus splits as DocBins")
    p.add_argument("--data", type=Path, default=Path("../../assets/ud"))
    p.add_argument("--corpus", type=Path, default=Path("corpus/full"))
    p.add_argument("--corpora", default="en_ewt,en_gum")
    p.add_argument("--limit-train", type=int, default=0, help="the first N training documents (0: all)")
    p.add_argument("--limit-eval", type=int, default=0, help="the first N tuning / test documents (0: all)")
    for name in ("tag", "train", "pipelines", "curves"):
        q = sub.add_parser(name)
        q.add_argument("--setting", required=True, choices=sorted(SETTINGS))
        q.add_argument("--corpus", type=Path, default=Path("corpus/full"))
        q.add_argument("--metrics", type=Path, default=Path("metrics/full"))
        if name == "tag":
            q.add_argument("--tagger", required=True)
            q.add_argument("--senter", required=True)
        if name in ("train", "curves"):
            q.add_argument("--epochs", type=int, default=12)
            q.add_argument("--jobs", type=int, default=2)
        if name in ("train", "pipelines"):
            q.add_argument("--models", type=Path, default=Path("training/full"))
        if name == "train":
            q.add_argument("--beam", type=int, default=20)
            q.add_argument("--systems", default="joint,nosyntax,gold")
        if name == "curves":
            q.add_argument("--name", required=True, help="output folder name, e.g. fig34")
            q.add_argument("--runs", default="", help="comma-separated joint|sentence:update:beam")
            q.add_argument("--updates", default="", help="with --beams: every joint:update:beam")
            q.add_argument("--beams", default="")
    e = sub.add_parser("export", help="a trained system + the setting's tagger as one spaCy pipeline")
    e.add_argument("--tagger", required=True)
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report")
    r.add_argument("--metrics", type=Path, default=Path("metrics/full"))
    r.add_argument("--out", type=Path, default=Path("results/full/RESULTS.md"))
    r.add_argument("--plots", type=Path, default=None, help="folder of the PNGs (default: beside --out)")
    r.add_argument("--title", default="")
    return ap


def main(argv=None) -> None:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.step == "prepare":
        from replication.data import prepare

        prepare(args.data, args.corpus, args.corpora.split(","), args.limit_train, args.limit_eval)
    elif args.step == "tag":
        from replication.data import tag

        tag(args.setting, args.corpus, args.tagger, args.senter, _tagged_path(args.corpus, args.setting),
            args.metrics / args.setting)
    elif args.step == "train":
        from replication.systems import SYSTEMS

        tagged = _tagged_path(args.corpus, args.setting)
        jobs = []
        for pos, system in enumerate(args.systems.split(",")):
            if system not in SYSTEMS:
                ap.error(f"unknown system {system!r}; expected {SYSTEMS}")
            out = args.metrics / args.setting / f"{system}.json"
            key = config_key({"setting": args.setting, "system": system, "epochs": args.epochs, "beam": args.beam,
                              "tagged_mtime": tagged.stat().st_mtime})
            if done(out, key):
                print(f"{out}: done, skipped")
                continue
            jobs.append((train_job, (str(tagged), args.setting, system, args.epochs, args.beam,
                                     str(args.models / args.setting / system), str(out), key, pos)))
        run_jobs(jobs, args.jobs)
    elif args.step == "curves":
        from replication.curves import parse_run

        runs = [r for r in args.runs.split(",") if r]
        runs += [f"joint:{u}:{b}" for u in args.updates.split(",") if u for b in args.beams.split(",") if b]
        if not runs:
            ap.error("curves: give --runs, or --updates and --beams")
        tagged = _tagged_path(args.corpus, args.setting)
        jobs = []
        for pos, run in enumerate(runs):
            kind, update, beam = parse_run(run)
            out = args.metrics / args.setting / args.name / f"{kind}-{update}-beam{beam}.json"
            key = config_key({"setting": args.setting, "run": run, "epochs": args.epochs,
                              "tagged_mtime": tagged.stat().st_mtime})
            if done(out, key):
                print(f"{out}: done, skipped")
                continue
            jobs.append((curve_job, (str(tagged), run, args.epochs, str(out), key, f"{args.name} {run}", pos)))
        # the longest runs first (beam searches cost about twice a greedy pass), so two workers finish together
        jobs.sort(key=lambda j: -parse_run(j[1][1])[2] * (1 if parse_run(j[1][1])[1] == "greedy" else 2))
        run_jobs(jobs, args.jobs)
    elif args.step == "pipelines":
        from replication.pipelines import run_pipelines

        out = args.metrics / args.setting / "pipelines.json"
        write_json(out, run_pipelines(args.setting, _tagged_path(args.corpus, args.setting),
                                      args.metrics / args.setting, args.models / args.setting))
    elif args.step == "export":
        from replication.export import export_pipeline

        export_pipeline(args.tagger, args.model, args.out)
    elif args.step == "report":
        from replication.report import write_report

        write_report(args.metrics, args.out, args.plots or args.out.parent, title=args.title)


if __name__ == "__main__":
    main(sys.argv[1:])
