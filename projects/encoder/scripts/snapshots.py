"""The word counts at which `finetune.py` saves the weights (no torch, so it is tested anywhere)."""


def pending_snapshots(spec: str, budget: int, words_done: int = 0) -> list[int]:
    """Ascending snapshot word counts still to write: those of `spec` ("250000,1000000") within
    `budget`, then `budget` itself; a resumed run (`words_done` > 0) skips those it has passed,
    which were saved before its checkpoint, so their weights are not overwritten by later ones."""
    counts = sorted({int(s) for s in spec.split(",") if s.strip()} | {budget})
    return [s for s in counts if s <= budget and s > words_done]


def snapshot_is_consistent(name_words: int, recorded_words: int) -> bool:
    """Whether a `words_N` folder holds the weights of about N words: a snapshot is saved at the first
    step that reaches N, or at the last step (whose count the steps' mean length sets, a little under
    or over the budget), so its `train.json` records N within one batch or 1 %."""
    return abs(recorded_words - name_words) < max(10000, name_words // 100)
