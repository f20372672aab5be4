"""Shared by the graph-based components (`constrained_parser`, `fragment_parser`): their scorer,
the gold sentences of an `Example` for training, applying a parse to the Doc, and serialization (a
``cfg`` JSON file and the averaged model's bytes in ``model``).

A subclass sets ``self.vocab``, ``self.name``, ``self.cfg``, ``self.parser`` and
``self._predictor`` in ``__init__``, names its model class in ``model_class`` (its
``to_bytes()`` / ``from_bytes(data)`` hold the whole model) and defines ``_label_list()``,
``_sentences(doc)`` and ``_parse_sentence(model, words, tags, pos)``. Tags are passed as the Doc has them: a missing fine
tag falls back to the UPOS in the engine (`graph.parser.make_sentence`).
Bad saved data (a missing ``cfg`` / ``model``, truncated or foreign bytes) raises a
``ValueError`` saying "truncated or foreign" and naming the file.
"""
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Tuple, Union

import srsly
from spacy import util
from spacy.attrs import DEP, HEAD
from spacy.pipeline import Pipe
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example

from ..corpus.labels import UD_ROOT, to_spacy_dep
from ..persist.checksums import verify_checksums, write_checksums


def _dep_getter(token, attr):
    return token.vocab.strings.as_string(getattr(token, attr)).lower()


@util.registry.scorers("spacy_joint_sbd.graph_dep_scorer.v1")
def make_graph_dep_scorer() -> Callable[..., Dict]:
    """spaCy's ``dep_uas`` / ``dep_las`` / ``dep_las_per_type`` (punctuation arcs ignored)."""

    def score(examples: Iterable[Example], **kwargs) -> Dict:
        kwargs.setdefault("getter", _dep_getter)
        kwargs.setdefault("ignore_labels", ("p", "punct"))
        return Scorer.score_deps(examples, "dep", **kwargs)

    return score


def gold_sentences(example: Example) -> Iterator[Tuple[int, int, List[int], List[str]]]:
    """``(start, end, heads, deps)`` of each gold sentence of ``example.reference`` that can be
    parsed inside its boundaries: heads sentence-relative (-1 = root), deps as the Doc has them."""
    for sent in example.reference.sents:
        s, e = sent.start, sent.end
        gold = [t.head.i - s if t.head.i != t.i else -1 for t in sent]
        if any(h < -1 or h >= e - s for h in gold):
            continue
        yield s, e, gold, [t.dep_ for t in sent]


class GraphComponent(Pipe):
    model_class: type  # GraphParser, TwoStageParser: no-argument constructor, to_bytes, from_bytes

    def _label_list(self) -> List[str]:
        """The model's labels (its labeler's, or the last stage's)."""
        raise NotImplementedError

    @property
    def labels(self) -> List[str]:
        return list(self._label_list())

    def add_label(self, label: str) -> int:
        if label in self._label_list():
            return 0
        self.parser.add_label(label)
        self._predictor = None
        return 1

    def _model(self):
        """The averaged model, used for prediction and saving (cached until the next update)."""
        if self._predictor is None:
            self._predictor = self.parser.averaged()
        return self._predictor

    @staticmethod
    def _tags(doc: Doc) -> List[str]:
        return [t.tag_ for t in doc]

    def _training_tags(self, eg) -> Tuple[List[str], List[str]]:
        """(tags, POS) the model learns from: those of `eg.predicted`, i.e. what prediction will
        see (a tagger earlier in the pipeline), never the reference's gold tags. Without a tagger
        both are empty, at training and at prediction time alike; that is said once, loudly."""
        pred = eg.predicted
        if not (pred.has_annotation("TAG") or pred.has_annotation("POS")) and not getattr(self, "_said_no_tags", False):
            warnings.warn(f"[{self.name}] the predicted docs carry no tags (no tagger before this component): "
                          f"it learns and predicts without tag features; gold tags are never used", stacklevel=3)
            self._said_no_tags = True
        return self._tags(pred), [t.pos_ for t in pred]

    def predict(self, docs: Iterable[Doc]) -> List[List[tuple]]:
        """Per doc, per sentence: (start, heads, labels) with sentence-relative heads (-1 root)."""
        model = self._model()
        out = []
        for doc in docs:
            tags = self._tags(doc)
            pos = [t.pos_ for t in doc]
            words = [t.text for t in doc]
            parses = []
            for start, end in self._sentences(doc):
                heads, labels = self._parse_sentence(model, words[start:end], tags[start:end], pos[start:end])
                parses.append((start, heads, labels))
            out.append(parses)
        return out

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc], self.predict([doc]))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128):
        for docs in util.minibatch(stream, size=batch_size):
            self.set_annotations(docs, self.predict(docs))
            yield from docs

    def set_annotations(self, docs: Iterable[Doc], parses) -> None:
        """``parses``: per doc, per sentence (start, heads, labels), sentence-relative heads (-1 root)."""
        for doc, doc_parses in zip(docs, parses):
            if not len(doc):
                continue
            arr = doc.to_array([HEAD, DEP])
            strings = doc.vocab.strings
            for start, heads, labels in doc_parses:
                for i, (h, lab) in enumerate(zip(heads, labels)):
                    arr[start + i, 0] = ((h - i) if h >= 0 else 0) % (1 << 64)
                    arr[start + i, 1] = strings.add(to_spacy_dep(UD_ROOT) if h < 0 else lab)
            doc.from_array([HEAD, DEP], arr)

    # -- serialization ------------------------------------------------------------------------------

    def _error(self, where: str, what: str, why: Union[str, Exception]) -> ValueError:
        if isinstance(why, Exception):
            why = f"{type(why).__name__}: {why}"
        return ValueError(f"[{self.name}] {where}: truncated or foreign {what}, "
                          f"not a saved {type(self).__name__} ({why})")

    def _load_model(self, data: Any, where: str, what: str):
        if not isinstance(data, bytes):
            raise self._error(where, what, f"expected bytes, got {type(data).__name__}")
        try:
            return self.model_class().from_bytes(data)
        except Exception as e:  # noqa: BLE001 - msgpack / numpy raise many types on bad data
            raise self._error(where, what, e) from e

    def _apply(self, cfg: Dict, model) -> None:
        self.cfg.update(cfg)
        self.parser = model
        self._predictor = model  # saved weights are already averaged

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return srsly.msgpack_dumps({"cfg": self.cfg, "model": self._model().to_bytes()})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except Exception as e:  # noqa: BLE001
            raise self._error("bytes", "data", e) from e
        if not isinstance(msg, dict) or not isinstance(msg.get("cfg"), dict) or "model" not in msg:
            raise self._error("bytes", "data", "no cfg/model")
        self._apply(msg["cfg"], self._load_model(msg["model"], "bytes", "model data"))
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self.cfg)
        with (path / "model").open("wb") as f:
            f.write(self._model().to_bytes())
        write_checksums(path, ("cfg", "model"))

    def from_disk(self, path, *, exclude=tuple()):
        path = util.ensure_path(path)
        cfg_path, model_path = path / "cfg", path / "model"
        if not cfg_path.is_file() or not model_path.is_file():
            raise self._error(str(path), "folder", "cfg or model file missing")
        verify_checksums(path, self.name)
        cfg, data = self._read(cfg_path, model_path)
        self._apply(cfg, self._load_model(data, str(model_path), "model file"))
        return self

    def _read(self, cfg_path: Path, model_path: Path) -> Tuple[Dict, bytes]:
        try:
            cfg = srsly.read_json(cfg_path)
        except Exception as e:  # noqa: BLE001
            raise self._error(str(cfg_path), "cfg file", e) from e
        if not isinstance(cfg, dict):
            raise self._error(str(cfg_path), "cfg file", "not a JSON object")
        try:
            with model_path.open("rb") as f:
                return cfg, f.read()
        except OSError as e:
            raise self._error(str(model_path), "model file", e) from e
