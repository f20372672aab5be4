"""Corpus-scale segmentation: one output shard per input shard, written atomically, on any number
of worker processes (Dask distributed, optional extra `scale`) or in this process.

    from spacy_joint_sbd.scale import Settings, plan_shards, pending, run_serial
    shards = plan_shards(Path("corpus"), Path("out"), "*.txt", "jsonl")
    run_serial(pending(shards), Settings(model="en_joint_sbd"))            # this process
    from spacy_joint_sbd.scale.dask_runner import run_dask                 # needs dask[distributed]
    run_dask(pending(shards), Settings(model="en_joint_sbd"), scheduler="tcp://host:8786")

Parallel training by iterative parameter mixing (`mixing`; on Dask: `dask_training.train_dask`):

    from spacy_joint_sbd.scale import split_shards, train_serial
    train_serial(parser, split_shards(engine_docs, 2), epochs=4, beam_width=4)
    train_serial(parser, split_shards(engine_docs, 2), epochs=12, rounds=8, weighting="sum")  # mix 8x per epoch
"""
from .mixing import mix_params, mixed_rows, round_chunks, split_shards, train_serial, train_shard
from .shards import (EXTENSIONS, INPUT_FORMATS, Settings, Shard, ShardError, ShardResult, check_settings, pending,
                     plan_shards, process_shard, remove_stale_partials, run_serial)

__all__ = ["EXTENSIONS", "INPUT_FORMATS", "Settings", "Shard", "ShardError", "ShardResult", "check_settings",
           "pending", "plan_shards", "process_shard", "remove_stale_partials", "run_serial",
           "mix_params", "mixed_rows", "round_chunks", "split_shards", "train_serial", "train_shard"]
