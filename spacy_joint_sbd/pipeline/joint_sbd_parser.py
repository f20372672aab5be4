"""The `joint_sbd_parser` component: sentence boundaries and dependency trees of a whole Doc
(bjorkelund2016: ArcStandard + SWAP + SB over the entire document, beam search, §2–§4).

The component owns the spaCy side only: configuration, labels, `update` from Examples and
serialization. Docs become engine inputs in `doc_encoding` (token attributes as spaCy computed or
PREDICTED them; gold trees and boundaries come from `Example.reference` during `update` only), and
the search itself runs in `spacy_joint_sbd.transition`.
"""
import dataclasses
import inspect
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import numpy
import srsly
from spacy import util
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc, Token
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..context.clusters import ContextClusters, with_tensor
from ..corpus.docs import doc_name
from ..persist.checksums import verify_bytes, verify_checksums, with_checksums, write_checksums
from ..scoring import score_examples
from ..transition import DEFAULT_ATTRS, Parse, TransitionParser, head_attrs, n_classes_for  # noqa: F401  (public here too)
from .joint import calibration, sentence_limits
from .joint.doc_encoding import UnusableExample, gold_engine_doc, label_hashes, planned_engine_doc, set_parse
from .joint.final_punct import has_final_punct
from .joint.prior_scores import PRIOR_ATTR, prior_sb_scores
from .joint.settings import (KEPT_FROM_BYTES, LOAD_DEFAULTS, PREDICTION_SETTINGS, SETTINGS, Learner,  # noqa: F401
                             SBOracle, Setting, Update, check_settings, defaults, factory_signature)
from .joint.unmarked import unmarked_sb_scores

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_joint_sbd.HashedPerceptron.v1"
n_rows = 131072
"""
DEFAULT_PARSER_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]
"""The Thinc config of the component's weights (its `model` setting by default)."""
if not Token.has_extension("sent_start_prob"):
    Token.set_extension("sent_start_prob", default=None)
"""`token._.sent_start_prob`, set by the component in whole-document mode: the probability that a
sentence starts at the token. With a fitted calibration (`cfg["calibration"]`, `pipeline.joint.calibration`:
fitted on dev documents, as the default pipeline's is) a calibrated probability from the parser's
decision, the boundary prior and the beam; without one, the summed softmax weight of the final
beam items that make a boundary there, which saturates to 0 / 1 on all but short documents. 1.0 /
0.0 at forced / forbidden boundaries, 1.0 at the first token, 0.0 on whitespace tokens."""


def _write_sent_start_probs(doc: Doc, probs: Sequence[float]) -> None:
    """``token._.sent_start_prob = p`` for every token in one pass: straight into
    ``doc.user_data`` under the key spaCy's `Underscore` gives a token attribute,
    ``("._.", name, token.idx, None)``, without making a Token object per token (the tests read the
    values back through ``token._``, which pins that layout)."""
    ud = doc.user_data
    for idx, p in zip(doc.to_array([IDX]).tolist(), probs):
        ud[("._.", "sent_start_prob", idx, None)] = p


def make_joint_sbd_parser(nlp: Language, name: str, model: Model, *, scorer: Optional[Callable],
                          **settings: Any) -> "JointSBDParser":
    """Joint sentence boundary detection and dependency parsing (bjorkelund2016).

    beam_width: beam size B at training and prediction (1 = greedy).
    update: `dlaso` (Algorithm 1), `laso` (its updates applied at once), `max_violation`, `early`
        or `greedy`.
    sb_oracle: join sentences by SB as `early` or as `late` as possible in the oracle.
    learner: `pa` (passive-aggressive, PA-I with aggressiveness `pa_c`) or `perceptron`.
    attrs: token attributes that feed the features (spaCy attribute names, e.g. NORM, TAG, SHAPE).
    document_level: True predicts boundaries and trees for the whole Doc; False keeps the Doc's
        existing sentence boundaries and parses within them (the paper's GOLD / REPARSED parser).
        In whole-document mode the boundaries set before the component are kept:
        `token.is_sent_start` True forces a boundary, False forbids one, None lets the model
        predict it; whitespace tokens never start a sentence unless forced and never head a word.
    sb_bias: added to the score of SB (a sentence boundary) at every step of the search at
        prediction time: > 0 splits more eagerly (recall), < 0 more lazily (precision), 0 = as
        trained. Training ignores it.
    sb_bias_unpunctuated: if set, used instead of `sb_bias` for Docs without any sentence-final
        punctuation mark (speech transcripts, unpunctuated chat): a model trained on mixed text can
        need a different operating point there. None = `sb_bias` everywhere.
    sb_bias_unmarked: added on top, in Docs with sentence-final punctuation, to SB's score at each
        token that no sentence-final mark or line break precedes (`pipeline.joint.unmarked`): < 0 keeps
        edited text whole where a capitalised word follows no mark. 0 = off (web text ends
        sentences without marks often enough that its dev set prefers 0).
    prior_weight: w ≥ 0: when an earlier component wrote boundary probabilities p
        (`doc._.boundary_probs`, e.g. `boundary_prior`), w · logit(p) is added to the score of the
        move that starts a sentence at each token (`pipeline.joint.prior_scores`); 0 = ignore them.
        Prediction only, chosen on dev data with the SB biases (they re-centre it).
    prior_features: read those probabilities as features too (`prior_scores.prior_column`: binned
        log-odds at b0, b0 − 1, s0, b1), learnt in training: the training Examples' predicted docs
        must carry probabilities from a model that never saw them (as noisy as on new text). A Doc
        without them is parsed without that evidence; a Doc with `doc._.boundary_feature_probs`
        (`encoder_boundaries`' `own_features`) is read from those instead.
    threshold: None = sentences as the search decided; P in (0, 1] = a sentence starts exactly where
        `token._.sent_start_prob` >= P (`pipeline.joint.sentence_limits`; trees repaired to one per
        sentence). Meaningful with a calibrated probability (`cfg["calibration"]`): P is then the
        least chance of being a true boundary that a kept boundary has, not a level that reproduces
        the search's boundaries. Where those are often wrong, many of them lie below 0.5: on
        unpunctuated text 0.5 keeps far fewer (the default pipeline on EWT dev without punctuation:
        recall 0.38 at P = 0.5, against about 0.6 for its own boundaries, which P ≈ 0.3 matches).
    max_length: None, or the longest sentence in characters: longer ones are cut at their most
        probable boundaries (a Viterbi over `sent_start_prob`); a single longer token stays whole.
    context_clusters: contextual features (`context.clusters`): the numbers of k-means
        clusters (e.g. [16, 128, 1024]) of the token vectors a tok2vec before this component
        leaves in `Doc.tensor`, fitted at `initialize`; each adds a feature column. [] = off.
        The tok2vec should be frozen (e.g. sourced from en_core_web_sm), so that training and
        test documents get vectors of the same quality.
    context_tree: fit the clusters as one tree (each k must divide the next, e.g. [16, 64, 256]):
        a token descends it comparing itself with a few children per level instead of every
        centroid (`ContextClusters`). Fitting only: a loaded model searches as it was fitted.
    head_candidates: K in [0, 8]: read the K best head candidates a multi-task encoder wrote
        (`doc._.head_candidates`, scores, labels; `pipeline.joint.head_evidence`) with the syntax
        feature templates (is s0 among s1's candidates and at which rank, the binned score, the
        proposed label, where each word's best head lies); 0 = off. As with `prior_features`, the
        training Examples' candidates must come from an encoder that never saw them.
    """
    return JointSBDParser(nlp.vocab, model, name, scorer=scorer, **settings)


make_joint_sbd_parser.__signature__ = factory_signature(  # type: ignore[attr-defined]
    [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t)
     for p, t in (("nlp", Language), ("name", str), ("model", Model))],
    [inspect.Parameter("scorer", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[Callable])],
    "JointSBDParser")
"""spaCy's config system validates the factory's arguments against this signature: every setting
typed as `JointSettings` declares it (e.g. `update` as a Literal of the strategies)."""
Language.factory(
    "joint_sbd_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": DEFAULT_PARSER_MODEL, **defaults(), "scorer": {"@scorers": "spacy_joint_sbd.joint_scorer.v1"}},
    default_score_weights={"sents_f": 0.5, "dep_las": 0.5, "dep_uas": 0.0, "sents_p": None, "sents_r": None},
)(make_joint_sbd_parser)


@util.registry.scorers("spacy_joint_sbd.joint_scorer.v1")
def make_joint_scorer() -> Callable[..., Dict]:
    """`sents_p/r/f` (token level, first token of each document excluded), `dep_uas`, `dep_las`."""
    return score_examples


class JointSBDParser(TrainablePipe):
    """Sentence boundaries and dependency trees of a whole document in one transition-based search
    (the SB move beside the arc-eager moves, a beam); `token._.sent_start_prob` in document mode."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "joint_sbd_parser", *,
                 scorer: Optional[Callable] = score_examples, **settings: Any) -> None:
        """`settings`: any of `JointSettings`' (the factory says what each does); the others
        take their defaults. An unknown name is a TypeError, a bad value a ValueError naming it."""
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"[{name}] no setting {', '.join(map(repr, unknown))}; the settings are "
                            f"{', '.join(SETTINGS)}")
        settings = check_settings({**defaults(), **settings}, name)
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict = {"labels": [], **settings, "context": None, "calibration": None}
        """The settings (`JointSettings`; the prediction settings are also attributes) beside what
        training learns: the labels, the fitted clusters (`context`) and the calibration."""
        self._context: Optional[ContextClusters] = None
        """The fitted contextual clusters (`cfg["context"]` is their saved form), None if off."""
        self._parser: Optional[TransitionParser] = None
        self._trained = False  # updates since the last load: predict with averaged weights
        self.last_epoch_stats: Dict = {}
        self.skipped_examples = 0
        """Training Examples skipped because the engine cannot learn from them (see `update`)."""
        self.dropped_presets = 0
        """Preset boundaries of training docs dropped because they contradicted the gold."""

    # ------------------------------------------------------------------ labels and set-up
    @property
    def labels(self) -> tuple:
        return tuple(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        if label in self.cfg["labels"]:
            return 0
        if self._parser is not None:
            raise ValueError(f"[{self.name}] cannot add label {label!r} after initialization")
        self.cfg["labels"] = sorted(self.cfg["labels"] + [label])
        return 1

    def _build_parser(self) -> TransitionParser:
        attrs = self.cfg["attrs"]
        word = next((a for a in ("NORM", "LOWER", "ORTH") if a in attrs), attrs[0])
        tag = next((a for a in ("TAG", "POS") if a in attrs), attrs[min(1, len(attrs) - 1)])
        context = self._context.names if self._context is not None else []
        prior = [PRIOR_ATTR] if self.cfg.get("prior_features") else []
        k = self.cfg.get("head_candidates") or 0
        parser = TransitionParser(
            self.cfg["labels"], attrs=[*attrs, *context, *prior, *head_attrs(k)], word=word, tag=tag,
            n_rows=self.model.attrs["n_rows"], learner=self.cfg["learner"], pa_c=self.cfg["pa_c"],
            sb_oracle=self.cfg["sb_oracle"], document_level=self.cfg["document_level"], head_candidates=k,
        )
        if not self.model.has_dim("nO") or self.model.get_dim("nO") is None:
            self.model.set_dim("nO", parser.n_classes)
        elif self.model.get_dim("nO") != parser.n_classes:
            raise ValueError(f"[{self.name}] model has nO={self.model.get_dim('nO')} but the labels need "
                             f"{parser.n_classes} classes")
        return parser

    def _bind(self) -> None:
        """Share the engine's live weight table with the Thinc model's `W` param (the float16
        table itself while the weights are half-only, as loaded)."""
        weights = self._parser.weights
        self.model.set_param("W", weights.half_table() if weights.half_only else weights.get_params()["W"])

    @property
    def parser(self) -> TransitionParser:
        if self._parser is None:
            raise ValueError(f"[{self.name}] is not initialized: call nlp.initialize() or load a trained pipeline")
        return self._parser

    @property
    def clusters(self) -> Optional[ContextClusters]:
        """The fitted contextual clusters (None without `context_clusters`): a tagger before this
        component may read the same ones (`perceptron_tagger.use_tagger(tagger, clusters)`)."""
        return self._context

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        """Collect the dependency labels from the examples' gold trees and create the weights.

        With `context_clusters`, fit the clusters on the token vectors of the examples' predicted
        docs: their `Doc.tensor` if set, else what the components before this one in `nlp` (e.g. a
        sourced tok2vec) give for a copy of each doc."""
        validate_examples(get_examples(), "JointSBDParser.initialize")
        if labels is None:
            found = set(self.cfg["labels"])
            for eg in get_examples():
                found.update(t.dep_ for t in eg.reference if t.dep_)
            labels = sorted(found)
        self.cfg["labels"] = sorted(set(labels) | {"root"}) if labels else ["dep", "root"]
        self._context = None
        self.cfg["context"] = None
        if self.cfg["context_clusters"]:
            docs = (with_tensor(eg.predicted, nlp, self.name) for eg in get_examples())
            self._context = ContextClusters.fit((d for d in docs if len(d)), self.cfg["context_clusters"],
                                                tree=bool(self.cfg.get("context_tree")))
            self.cfg["context"] = self._context.to_dict()
        self._parser = self._build_parser()
        self._bind()
        self._trained = False

    # ------------------------------------------------------------------------ prediction
    def predict(self, docs: Iterable[Doc]) -> List[Parse]:
        docs = list(docs)
        validate_settings(self.cfg, self.name)  # cfg may have been changed by hand since
        parser = self.parser
        level = self.cfg["document_level"]
        if self._context is not None:
            self._context.prime(docs)  # one cluster search for the batch (or the tagger's, cached)
        planned = [planned_engine_doc(d, self.cfg["attrs"], level, self._context, self.cfg["prior_features"],
                                      self.cfg["head_candidates"]) for d in docs]
        engine_docs = [e for e, _ in planned]
        if level and self.cfg["prior_weight"]:
            for d, (e, plan) in zip(docs, planned):
                e.sb_scores = prior_sb_scores(d, self.cfg["prior_weight"],
                                              plan.space if plan is not None else numpy.zeros((len(d),), dtype=bool))
        punctuated = [has_final_punct(d) for d in docs]
        unmarked = self.cfg.get("sb_bias_unmarked") or 0.0
        if level and unmarked:
            for d, e, p in zip(docs, engine_docs, punctuated):
                if p:
                    e.sb_scores = unmarked_sb_scores(d, unmarked, e.sb_scores)
        biases = [self.sb_bias_for(d, p) for d, p in zip(docs, punctuated)]
        parses: List[Optional[Parse]] = [None] * len(docs)
        for bias in sorted(set(biases)):  # one engine call per operating point
            idx = [i for i, b in enumerate(biases) if b == bias]
            for i, parse in zip(idx, parser.parse([engine_docs[i] for i in idx], beam_width=self.cfg["beam_width"],
                                                  use_averages=self._trained, sb_bias=bias)):
                parses[i] = parse
        return [p if plan is None else plan.expand(p) for p, (_, plan) in zip(parses, planned)]

    def sb_bias_for(self, doc: Doc, punctuated: Optional[bool] = None) -> float:
        """The SB bias used for `doc`: `sb_bias_unpunctuated` (when set) for a Doc without a
        sentence-final punctuation mark (a token made of spaCy's `Sentencizer.default_punct_chars`,
        e.g. . ! ? 。), else `sb_bias`. `punctuated`: `has_final_punct(doc)` if known."""
        unpunct = self.cfg.get("sb_bias_unpunctuated")
        if unpunct is not None and not (has_final_punct(doc) if punctuated is None else punctuated):
            return float(unpunct)
        return float(self.cfg.get("sb_bias", 0.0))

    def set_annotations(self, docs: Iterable[Doc], parses: List[Parse]) -> None:
        labels = self.parser.labels
        coefs = self.cfg.get("calibration")
        docs = list(docs)
        all_probs = [parse.sent_start_probs if self.cfg["document_level"] else None for parse in parses]
        if coefs:  # the whole batch calibrated at once, from the presets before the parses overwrite them
            todo = [k for k, (doc, probs) in enumerate(zip(docs, all_probs)) if probs is not None and len(doc)]
            done = calibration.calibrated_batch(
                [(docs[k], parses[k].sent_starts, all_probs[k], coefs[calibration.regime(has_final_punct(docs[k]))],
                  docs[k].to_array([SENT_START]).reshape((len(docs[k]),))) for k in todo])
            for k, probs in zip(todo, done):
                all_probs[k] = probs
        strings, hashes = None, None  # the labels' string ids: once per batch (per vocab), not per Doc
        for doc, parse, probs in zip(docs, parses, all_probs):
            if probs is not None and (self.cfg.get("threshold") is not None or self.cfg.get("max_length") is not None):
                parse = self._limit(doc, parse, probs)
            if doc.vocab.strings is not strings:
                strings = doc.vocab.strings
                hashes = label_hashes(strings, labels)
            set_parse(doc, parse, labels, hashes)
            if probs is not None:
                _write_sent_start_probs(doc, probs.tolist())

    def _limit(self, doc: Doc, parse: Parse, probs) -> Parse:
        """The parse with its sentences re-drawn by `threshold` / `max_length` (`sentence_limits`)."""
        starts = numpy.asarray(parse.sent_starts, dtype=bool)
        if self.cfg.get("threshold") is not None:
            starts = sentence_limits.threshold_starts(probs, self.cfg["threshold"])
        if self.cfg.get("max_length") is not None:
            arr = doc.to_array([IDX, LENGTH, IS_SPACE]).astype(numpy.int64)
            space = arr[:, 2].astype(bool)
            begin = arr[:, 0]
            end = numpy.where(space, 0, arr[:, 0] + arr[:, 1])
            end = numpy.maximum.accumulate(numpy.maximum(end, begin[0]))  # whitespace ends with the word before it
            starts = sentence_limits.cut_long(starts, probs, begin, end, ~space, self.cfg["max_length"])
        starts[0] = True
        if (starts == parse.sent_starts).all():
            return parse
        labels = self.parser.labels
        join = sentence_limits.join_label_id(labels.labels)
        heads, labs = sentence_limits.repair_trees(parse.heads, parse.labels, starts, labels.encode("root"),
                                                   labels.fallback if join is None else join)
        return dataclasses.replace(parse, heads=heads, labels=labs, sent_starts=starts)

    # -------------------------------------------------------------------------- training
    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Learn from whole documents with the configured strategy. `losses[name]` counts the
        violations (updates); `losses[name + '_used_pct']` is the mean percentage of the gold
        transition sequence the updates used (bjorkelund2016 Figure 3).

        An Example the engine cannot learn from (no gold parse, several roots or a cycle in a
        sentence, a gold head lost in the alignment) is skipped with a warning and counted in
        `skipped_examples` and `losses[name + '_skipped']`. Preset boundaries of the predicted docs
        that contradict the gold are dropped (`gold_engine_doc`) and counted in `dropped_presets`
        and `losses[name + '_dropped_presets']`."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "JointSBDParser.update")
        parser = self.parser
        docs = []
        skipped = []
        for eg in examples:
            try:
                doc = gold_engine_doc(eg, parser.labels, self.cfg["attrs"], self.cfg["document_level"],
                                      context=self._context, prior=self.cfg["prior_features"],
                                      heads=self.cfg["head_candidates"])
            except UnusableExample as e:
                skipped.append(f"{doc_name(eg.reference)}: {e}")
                continue
            if doc is not None:
                docs.append(doc)
                if doc.dropped_presets:
                    self.dropped_presets += doc.dropped_presets
                    key = f"{self.name}_dropped_presets"
                    losses[key] = losses.get(key, 0.0) + doc.dropped_presets
        if skipped:
            self.skipped_examples += len(skipped)
            losses[f"{self.name}_skipped"] = losses.get(f"{self.name}_skipped", 0.0) + len(skipped)
            warnings.warn(f"[{self.name}] skipped {len(skipped)} training example(s) it cannot learn from, "
                          f"e.g. {skipped[0]}", stacklevel=2)
        if docs:
            stats = parser.train_epoch(docs, update=self.cfg["update"], beam_width=self.cfg["beam_width"])
            self._trained = True
            self.last_epoch_stats = stats
            losses[self.name] += stats["violations"]
            losses[f"{self.name}_used_pct"] = stats["used_pct"]
        return losses

    def get_loss(self, examples, scores):
        raise NotImplementedError("the perceptron has no differentiable loss; see update()")

    def finish_update(self, sgd=None) -> None:
        """Nothing to do: perceptron / PA updates are applied inside `update`."""

    # ---------------------------------------------------------------------- serialization
    def _averaged_into_model(self) -> None:
        """The table to save, as the Thinc model's `W`: the averaged weights of a trained component
        rounded to float16 (`HashedWeights.half_table`: what its prediction scores with, half the
        bytes on disk and in memory once loaded; float32 where a weight lies beyond float16's
        range), a loaded table as it was loaded."""
        if self._parser is None:
            return
        weights = self._parser.weights
        if weights.half_only or self._trained:
            W = weights.half_table()  # None only beyond float16's range, never when half-only
            W = weights.averaged() if W is None else W
        else:  # a float32 table as loaded (saved before float16 weights): predicted and saved as it is
            W = weights.get_params()["W"]
        self.model.set_param("W", W)

    def _load_weights(self) -> None:
        self._parser = self._build_parser() if self.cfg["labels"] else None
        if self._parser is not None and self.model.has_param("W"):
            W = self.model.get_param("W")
            if getattr(W, "dtype", None) == numpy.float16:  # saved in float16: half-only
                self._parser.weights.set_half_params(W, copy=False)
            else:
                self._parser.set_params({"W": W}, copy=False)  # one table, shared with the Thinc model
            self._bind()
        self._trained = False

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._averaged_into_model()
        try:
            return with_checksums(super().to_bytes(exclude=exclude))
        finally:
            if self._parser is not None:
                self._bind()

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "JointSBDParser":
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except Exception as e:  # noqa: BLE001 - msgpack raises many types on foreign bytes
            raise ValueError(f"[{self.name}] not a joint_sbd_parser model (foreign or truncated bytes: {e})") from e
        if not isinstance(msg, dict) or "cfg" not in msg or "model" not in msg:
            raise ValueError(f"[{self.name}] not a joint_sbd_parser model (foreign or truncated bytes)")
        verify_bytes(msg, self.name)
        try:
            cfg = self._check_cfg(srsly.json_loads(msg["cfg"]), "bytes")
        except ValueError as e:
            raise ValueError(f"[{self.name}] not a joint_sbd_parser model (foreign or truncated bytes: {e})") from e
        self._load(cfg, lambda: super(JointSBDParser, self).from_bytes(bytes_data, exclude=exclude),
                   "not a joint_sbd_parser model: foreign or truncated bytes",
                   keep=KEPT_FROM_BYTES)
        return self

    def _load(self, cfg: Dict, load: Callable[[], object], problem: str,
              keep: Sequence[str] = PREDICTION_SETTINGS) -> None:
        """Adopt a checked `cfg` and the weights `load()` reads, or leave everything as it was
        and raise a ValueError starting with `problem`. The settings in `keep` stay as the
        component was built: from disk (`spacy.load`, whose config is the saved config.cfg with
        any override) all of `PREDICTION_SETTINGS`; from bytes (often into a component built
        with default settings) the SB biases only, the beam width is the saved one."""
        validate_settings(self.cfg, self.name)
        settings = {k: self.cfg[k] for k in keep}
        with self._atomic_load():
            self.cfg.update(cfg)
            self._set_nO()
            try:
                load()
            except Exception as e:  # noqa: BLE001 - thinc/msgpack raise many types on bad data
                raise ValueError(f"[{self.name}] {problem} ({type(e).__name__}: {e})") from e
            self.cfg.update(cfg)  # spaCy's loader re-reads the raw cfg: keep the checked one
            self.cfg.update(settings)
            saved = cfg.get("context")
            self._context = None if saved is None else ContextClusters.from_dict(saved)
            self.cfg["context_clusters"] = [] if self._context is None else self._context.ks
            self._load_weights()

    def _check_cfg(self, cfg, where: str) -> Dict:
        """A saved cfg as this component needs it, or a ValueError naming `where`."""
        def bad(why: str) -> ValueError:
            return ValueError(f"[{self.name}] {where}: truncated or foreign cfg ({why})")

        if not isinstance(cfg, dict):
            raise bad("not a JSON object")
        labels = cfg.get("labels")  # empty: saved before `initialize`
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise bad("no label list")
        for key, value in LOAD_DEFAULTS.items():  # saved before the setting existed
            cfg.setdefault(key, value)
        try:
            cfg.update(check_settings(cfg, self.name))
        except ValueError as e:
            raise bad(str(e)) from None
        try:  # saved before calibration existed: none
            cfg["calibration"] = calibration.check_calibration(cfg.get("calibration"), "calibration")
        except ValueError as e:
            raise bad(str(e)) from None
        if cfg.get("context") is not None:
            try:
                ContextClusters.from_dict(cfg["context"])
            except ValueError as e:
                raise bad(f"context: {e}") from None
        return cfg

    @contextmanager
    def _atomic_load(self):
        """Restore the component as it was if a load fails half-way (nothing half-loaded)."""
        cfg, parser, trained, context = dict(self.cfg), self._parser, self._trained, self._context
        W = self.model.get_param("W") if self.model.has_param("W") else None
        nO = self.model.get_dim("nO") if self.model.has_dim("nO") is True else None
        try:
            yield
        except BaseException:
            self.cfg, self._parser, self._trained, self._context = cfg, parser, trained, context
            self.model._dims["nO"] = nO  # Thinc refuses to change a set dim through set_dim
            self.model.set_param("W", W)
            raise

    def to_disk(self, path, *, exclude=tuple()) -> None:
        self._averaged_into_model()
        try:
            super().to_disk(path, exclude=exclude)
            write_checksums(util.ensure_path(path), ("cfg", "model"))
        finally:
            if self._parser is not None:
                self._bind()

    def from_disk(self, path, *, exclude=tuple()) -> "JointSBDParser":
        path = util.ensure_path(path)
        cfg_path = path / "cfg"
        if not cfg_path.exists() or not (path / "model").exists():
            raise ValueError(f"[{self.name}] {path} has no cfg/model: not a saved joint_sbd_parser")
        verify_checksums(path, self.name)
        try:
            cfg = srsly.read_json(cfg_path)
        except ValueError as e:
            raise ValueError(f"[{self.name}] {cfg_path}: unreadable ({e})") from e
        self._check_cfg(cfg, str(cfg_path))
        self._load(cfg, lambda: super(JointSBDParser, self).from_disk(path, exclude=exclude),
                   f"{path / 'model'}: truncated or foreign model file")
        return self

    def _set_nO(self) -> None:
        if self.cfg["labels"] and (not self.model.has_dim("nO") or self.model.get_dim("nO") is None):
            self.model.set_dim("nO", n_classes_for(len(self.cfg["labels"])))


for _setting in PREDICTION_SETTINGS:
    setattr(JointSBDParser, _setting, Setting(_setting))
"""The prediction settings as typed attributes (`settings.Setting`): ``parser.sb_bias = -0.5`` is
checked where it is written and saved with the pipeline."""


def __getattr__(name: str) -> Any:
    """`DEFAULT_MODEL`, the old name of `DEFAULT_PARSER_MODEL` (deprecated: `segment`'s
    DEFAULT_MODEL is a package name)."""
    if name == "DEFAULT_MODEL":
        warnings.warn("joint_sbd_parser.DEFAULT_MODEL is deprecated and goes in the next version: use "
                      "DEFAULT_PARSER_MODEL", DeprecationWarning, stacklevel=2)
        return DEFAULT_PARSER_MODEL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def validate_settings(cfg: Dict, name: str = "joint_sbd_parser") -> None:
    """Refuse, with a ValueError naming the component and the setting, a prediction setting of
    `cfg` that the search cannot use (`settings.check_setting`'s rules). Called at load and
    before each prediction: `cfg` may have been edited by hand since."""
    check_settings(cfg, name, PREDICTION_SETTINGS)
