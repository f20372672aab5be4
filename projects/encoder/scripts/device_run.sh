#!/usr/bin/env bash
# Fine-tuning on a machine lent with an accelerator for minutes, which gets a small upload and
# sends back small files: unpack a pack (scripts/pack.py pack), fine-tune with dev-window scores at
# each snapshot, and write the final snapshot as float16 in parts of at most 15 MB to OUT, with its
# config and each snapshot's training record (the learning curve).
#   bash scripts/device_run.sh PACK_DIR OUT_DIR [WORDS] [SNAPSHOTS]
# Needs python3 with torch, transformers, tokenizers, safetensors, numpy and tqdm (no spaCy).
set -euo pipefail
pack=$1
out=$2
words=${3:-16000000}
snaps=${4:-1000000,2000000,4000000,8000000,16000000}
work=${ENCODER_WORK:-/tmp/encoder_work}
here="$(cd "$(dirname "$0")" && pwd)"
py=${PYTHON:-python3}
mkdir -p "$out" "$work"
"$py" "$here/pack.py" unpack "$pack" "$work"
"$py" "$here/finetune.py" "$work/windows.npz" "$work/base" "$work/run" --words "$words" --snapshots "$snaps" \
    --eval "$work/dev.npz" --checkpoint-every 1000000000 ${FINETUNE_ARGS:-} 2>&1 | tee "$work/finetune.log"
final="$work/run/words_$words"
"$py" "$here/pack.py" half "$final/model.safetensors" "$work/model_f16.safetensors"
"$py" "$here/pack.py" split "$work/model_f16.safetensors" "$out" --part-mb 16
cp "$final/config.json" "$out/config.json"
"$py" - "$work/run" "$out/curve.json" <<'PY'
import json, sys
from pathlib import Path
runs = sorted(Path(sys.argv[1]).glob("words_*/train.json"), key=lambda p: int(p.parent.name.split("_")[1]))
Path(sys.argv[2]).write_text(json.dumps([json.loads(p.read_text()) for p in runs], indent=1))
PY
ls -la "$out"
