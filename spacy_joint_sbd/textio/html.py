"""`segment --format html`: one self-contained page to look at the sentences (no network, no script
library: the CSS and a small script are inline; the trees are drawn by the page's script).

Each sentence is shaded by its start probability (`token._.sent_start_prob` of its first token).
A slider re-draws the sentences as `segment --threshold P` does (a sentence starts at the first
token and wherever the probability is >= P; whitespace alone is no sentence); a box goes back to
the pipeline's own sentences, which the page shows first (as many as `--format jsonl` writes).
Clicking a sentence draws the dependency trees of the pipeline's sentences it covers.

The page stays usable at any input size:
- It is written as the sentences arrive, in chunks of about `CHUNK_CHARS` characters (whole
  sentences), so writing it takes the memory of one chunk.
- The data is compact: each chunk holds its text once, the offsets of its sentences, and only
  the tokens the slider can make a start (probability >= the slider's lowest value, `SLIDER_MIN`);
  the trees' data (word offsets, heads, labels, tags as small integers) sits in a block of its own
  that the script reads only when a tree is asked for, and draws then (none is drawn ahead).
- The text is in the page as plain text (the browser's find works on all of it; chunks off the
  screen are not laid out: `content-visibility`), and the sentences are drawn only in the chunks
  near the screen, as they scroll into view (all at once on a page of at most `EAGER_CHARS`).
The text is shown as it is (text nodes, never markup: a NUL or a CR stays); a text of whitespace
alone says that it has no sentence. A page over `LARGE_PAGE_CHARS` is announced by `note`.
"""
import html
import json
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, TextIO

from ..segment import Sentence
from .reading import STDIN
from .tokens import solid_tokens

CHUNK_CHARS = 4_000
"""Characters of text per chunk (whole sentences: a longer sentence is a chunk of its own)."""
SLIDER_MIN = 0.001
"""The slider's lowest threshold: a token less likely to start a sentence never starts one on
the page, so its probability is not stored."""
CANDIDATE_MIN = 0.1
"""Inside a sentence, a token whose start probability is at least this is marked: a boundary the
pipeline (or the threshold) left out."""
MAX_TREE_WORDS = 250
"""Longer sentences get a note instead of a tree: an SVG wider than many screens is no help."""
MAX_TREES_PER_CLICK = 12
"""A click on a sentence of the slider's that covers more of the pipeline's draws this many."""
EAGER_CHARS = 300_000
"""Pages of at most this much text draw every sentence at once; larger ones as they scroll into view."""
LARGE_PAGE_CHARS = 20_000_000
"""A page larger than this is announced (`note`): it opens, but jsonl is the format for a program."""

_CSS = """
:root { --ink: #1d2330; --muted: #5b6472; --line: #d5dae1; }
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0; background: #fbfbfc; }
header { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line);
         padding: .6em 1.2em; display: flex; flex-wrap: wrap; gap: .5em 2em; align-items: center; }
header h1 { font-size: 1.05em; margin: 0; }
#summary { color: var(--muted); }
.controls { display: flex; gap: 1.2em; align-items: center; flex-wrap: wrap; }
.controls input[type=range] { width: 14em; vertical-align: middle; }
#thr-val { font-variant-numeric: tabular-nums; display: inline-block; min-width: 3.2em; font-weight: 600; }
.legend { display: flex; align-items: center; gap: .4em; color: var(--muted); font-size: .9em; }
.legend .bar { width: 10em; height: .9em; border: 1px solid var(--line); border-radius: 2px; }
main { max-width: 60em; margin: 0 auto; padding: .5em 1.2em 3em; }
h2 { font-size: .95em; color: var(--muted); font-weight: 600; margin: 1.6em 0 .4em;
     border-bottom: 1px solid var(--line); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.chunk { content-visibility: auto; }
.empty { color: var(--muted); font-style: italic; }
.sent { border-radius: 3px; padding: 1px 0 1px 3px; cursor: pointer; border-left: 3px solid; }
.sent.cont { border-left: 0; padding-left: 0; border-radius: 0 3px 3px 0; }
.sent:hover { outline: 1px solid #7b8494; }
.sent.open { outline: 2px solid #3b4a63; }
.tree { display: block; white-space: normal; overflow-x: auto; background: #fff; margin: .3em 0 .6em;
        border: 1px solid var(--line); border-radius: 4px; padding: .2em; }
.tree p { color: var(--muted); margin: .3em .5em; font-size: .9em; }
.tree svg { display: block; font: 14px system-ui, sans-serif; }
.tree .w { fill: var(--ink); } .tree .g { fill: var(--muted); font-size: 12px; }
.tree .arc { fill: none; stroke: #3b4a63; stroke-width: 1.5; } .tree .head { fill: #3b4a63; }
.tree .lab { fill: #3b4a63; font-size: 11px; }
.cand { border-left: 2px dashed; padding-left: 1px; }
.off { opacity: .55; }
.legend .cand { border-color: var(--muted); }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  const body = document.body;
  const CANDIDATE_MIN = Number(body.dataset.candidateMin), MAX_WORDS = Number(body.dataset.maxTreeWords);
  const MAX_TREES = Number(body.dataset.maxTrees);
  const SPACE = /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
  const blank = ch => SPACE.test(ch);
  // the data's integers: base-45 digits, least significant first, each but the last from the
  // second half of the alphabet (Python's `_varints`)
  const ALPHABET = body.dataset.alphabet, CODE = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) CODE[ALPHABET.charCodeAt(i)] = i;
  function ints(s) {
    const out = [];
    let acc = 0, mul = 1;
    for (let i = 0; i < s.length; i++) {
      const v = CODE[s.charCodeAt(i)];
      if (v >= 45) { acc += (v - 45) * mul; mul *= 45; } else { out.push(acc + v * mul); acc = 0; mul = 1; }
    }
    return out;
  }
  const SCALE = Number(body.dataset.probScale);
  const docs = [];
  let total = 0;
  for (const box of document.querySelectorAll("div.data")) {
    const d = {el: document.getElementById("text-" + box.dataset.doc), chunks: [],
               n: Number(document.getElementById("n-" + box.dataset.doc).textContent)};
    for (const e of box.querySelectorAll("script.c")) {
      const raw = JSON.parse(e.textContent), c = {o: raw.o, t: raw.t, s: [], q: [], c: []};
      let at = 0;
      const s = ints(raw.s), q = ints(raw.q), cands = ints(raw.c);
      for (let i = 0; i < s.length; i += 2) { at += s[i]; c.s.push(at, at + s[i + 1]); at += s[i + 1]; }
      for (const v of q) c.q.push(v === 0 ? null : (v - 1) / SCALE);
      at = 0;
      for (let i = 0; i < cands.length; i += 3) { at += cands[i]; c.c.push(at, cands[i + 1], cands[i + 2] / SCALE); }
      c.id = e.id;
      c.len = c.t.length;
      // where the text is not blank from each candidate (and the chunk's start) on: a stretch
      // [x, y) holds a sentence iff its first non-blank character is before y
      const nb = x => { while (x < c.len && blank(c.t[x])) x++; return x; };
      c.nb0 = nb(0);
      c.nb = [];
      for (let i = 0; i < c.c.length; i += 3) c.nb.push(nb(c.c[i]));
      c.doc = d;
      c.k = d.chunks.length;
      total += c.len;
      d.chunks.push(c);
    }
    docs.push(d);
  }
  const hasProbs = docs.some(d => d.chunks.some(c => c.c.length || c.q.some(p => p !== null)));
  const eager = total <= Number(body.dataset.eagerChars);
  const own = document.getElementById("own"), thr = document.getElementById("thr");
  const thrVal = document.getElementById("thr-val"), summary = document.getElementById("summary");
  function shade(p) {
    if (p === null) return ["#eef0f3", "#9aa3af"];
    const h = 28 + 182 * p;
    return [`hsl(${h.toFixed(0)},85%,88%)`, `hsl(${h.toFixed(0)},70%,38%)`];
  }
  let P = null;
  // the threshold's sentences, counted over every chunk; for each chunk, whether a sentence is
  // already open at its start (its text there continues it) and that sentence's probability
  function count() {
    if (P === null) return docs.reduce((n, d) => n + d.n, 0);
    let n = 0;
    for (const d of docs) {
      let open = false, p = null;
      for (const c of d.chunks) {
        c.open = open; c.openP = p;
        let x = 0, nbx = c.nb0, start = c.k === 0 && c.o === 0;
        if (start) { open = false; p = c.q.length ? c.q[0] : null; }
        for (let i = 0; i <= c.c.length; i += 3) {
          const last = i === c.c.length;
          if (!last && (c.c[i + 2] < P || (c.c[i] === 0 && start))) continue;
          const y = last ? c.len : c.c[i];
          if (nbx < y && !open) { n++; open = true; }
          if (last) break;
          x = y; nbx = c.nb[i / 3]; open = false; p = c.c[i + 2];
        }
      }
    }
    return n;
  }
  const text = (el, s) => { if (s) el.appendChild(document.createTextNode(s)); };
  function sentence(frag, c, a, b, p, cont) {
    const span = document.createElement("span");
    const [bg, edge] = shade(p);
    span.className = cont ? "sent cont" : "sent";
    span.dataset.a = String(c.o + a); span.dataset.b = String(c.o + b); span.dataset.chunk = c.id;
    span.style.background = bg; span.style.borderColor = edge;
    span.title = (p === null ? "no start probability" : "start probability " + p.toFixed(3)) + " (click: tree)";
    let at = a;
    for (let i = 0; i < c.c.length; i += 3) {
      const x = c.c[i], q = c.c[i + 2];
      if (x <= a || x >= b || q < CANDIDATE_MIN) continue;
      text(span, c.t.slice(at, x));
      const m = document.createElement("span");
      m.className = "cand"; m.style.borderColor = shade(q)[1]; m.title = "start probability " + q.toFixed(3);
      at = Math.min(b, x + c.c[i + 1]);
      m.textContent = c.t.slice(x, at);
      span.appendChild(m);
    }
    text(span, c.t.slice(at, b));
    frag.appendChild(span);
  }
  // one stretch [x, y) of a chunk: its blank edges as text, the rest as a sentence
  function stretch(frag, c, x, y, p, cont) {
    let a = x, b = y;
    while (a < b && blank(c.t[a])) a++;
    while (b > a && blank(c.t[b - 1])) b--;
    text(frag, c.t.slice(x, a));
    if (a < b) sentence(frag, c, a, b, p, cont);
    text(frag, c.t.slice(b, y));
  }
  function draw(c) {
    const frag = document.createDocumentFragment();
    if (P === null) {
      let at = 0;
      for (let i = 0; i < c.s.length; i += 2) {
        text(frag, c.t.slice(at, c.s[i]));
        sentence(frag, c, c.s[i], c.s[i + 1], c.q[i / 2], false);
        at = c.s[i + 1];
      }
      text(frag, c.t.slice(at));
    } else {
      let x = 0, p = c.openP, cont = c.open;
      const start = c.k === 0 && c.o === 0;
      if (start) { p = c.q.length ? c.q[0] : null; cont = false; }
      for (let i = 0; i < c.c.length; i += 3) {
        if (c.c[i + 2] < P || (c.c[i] === 0 && start)) continue;
        stretch(frag, c, x, c.c[i], p, cont && x === 0);
        x = c.c[i]; p = c.c[i + 2]; cont = false;
      }
      stretch(frag, c, x, c.len, p, cont && x === 0);
    }
    c.el.replaceChildren(frag);
    c.drawn = P === null ? "own" : P;
  }
  function plain(c) { c.el.replaceChildren(document.createTextNode(c.t)); c.drawn = undefined; }
  const near = new Set();
  for (const d of docs) {
    if (!d.chunks.length) continue;
    d.el.replaceChildren();
    for (const c of d.chunks) {
      c.el = document.createElement("div");
      c.el.className = "chunk";
      c.el.style.containIntrinsicSize = `auto ${(1.55 * (c.t.split("\n").length + c.len / 90)).toFixed(1)}em`;
      c.el.chunk = c;
      c.el.appendChild(document.createTextNode(c.t));
      d.el.appendChild(c.el);
      if (eager) near.add(c);
    }
  }
  function render() {
    P = own.checked || !hasProbs ? null : Number(thr.value);
    thrVal.textContent = Number(thr.value).toFixed(3);
    thr.parentElement.classList.toggle("off", P === null);
    const n = count();
    for (const c of near) if (c.drawn !== (P === null ? "own" : P)) draw(c);
    summary.textContent = `${n} sentence${n === 1 ? "" : "s"} in ${docs.length} text` +
      (docs.length === 1 ? "" : "s") + (P === null ? " — the pipeline's own sentences" : ` — start probability ≥ ${P.toFixed(3)}`);
    summary.dataset.count = String(n);
  }
  if (!eager) {
    const seen = new IntersectionObserver(entries => {
      for (const e of entries) {
        const c = e.target.chunk;
        if (e.isIntersecting) { near.add(c); if (c.drawn !== (P === null ? "own" : P)) draw(c); }
        else { near.delete(c); if (c.drawn !== undefined) plain(c); }
      }
    }, {rootMargin: "1500px 0px"});
    for (const d of docs) for (const c of d.chunks) seen.observe(c.el);
  }
  // trees: drawn on a click, from the chunk's tree block (read once, when first needed)
  const SVG = "http://www.w3.org/2000/svg";
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function treeData(c) {
    if (c.trees === undefined) {
      const e = document.getElementById("k" + c.id);
      c.trees = e ? JSON.parse(e.textContent) : null;
    }
    return c.trees;
  }
  function tree(c, j) {
    const data = treeData(c);
    const flat = data && data.k[j] !== null ? ints(data.k[j]) : null;
    if (!flat) return null;
    const n = flat.length / 5, a = c.s[2 * j];
    if (n > MAX_WORDS) {
      const p = document.createElement("p");
      p.textContent = `A sentence of ${n} words: too long to draw its tree.`;
      return p;
    }
    const words = [], tags = [], heads = [], labels = [];
    let at = a;
    for (let i = 0; i < n; i++) {
      const s = at + flat[5 * i], z = flat[5 * i + 2];
      words.push(c.t.slice(s, s + flat[5 * i + 1]));
      at = s + flat[5 * i + 1];
      heads.push(z === 0 ? -1 : i + (z % 2 ? (z + 1) / 2 : -z / 2));
      labels.push(data.l[flat[5 * i + 3]]);
      tags.push(data.g[flat[5 * i + 4]]);
    }
    const xs = [], gap = 18;
    let x = 10;
    for (let i = 0; i < n; i++) {
      const w = Math.max(words[i].length * 8.5, tags[i].length * 7.5, 24);
      xs.push(x + w / 2);
      x += w + gap;
    }
    const arcs = [];
    for (let i = 0; i < n; i++) if (heads[i] >= 0) arcs.push({d: i, h: heads[i], lo: Math.min(i, heads[i]), hi: Math.max(i, heads[i])});
    arcs.sort((u, v) => (u.hi - u.lo) - (v.hi - v.lo));
    const level = new Array(n).fill(0);  // the highest level used over each gap so far
    let top = 0;
    for (const arc of arcs) {
      let l = 0;
      for (let g = arc.lo; g < arc.hi; g++) l = Math.max(l, level[g]);
      arc.level = l + 1;
      for (let g = arc.lo; g < arc.hi; g++) level[g] = arc.level;
      top = Math.max(top, arc.level);
    }
    const step = 26, base = 14 + top * step, height = base + 44;
    const svg = el("svg", {"class": "tree-svg", width: String(Math.ceil(x)), height: String(height),
                           viewBox: `0 0 ${Math.ceil(x)} ${height}`, role: "img"});
    for (const arc of arcs) {
      const x1 = xs[arc.lo] + (arc.lo === arc.d ? 0 : 4), x2 = xs[arc.hi] - (arc.hi === arc.d ? 0 : 4);
      const y = base - arc.level * step, r = Math.min(10, (x2 - x1) / 2);
      el("path", {"class": "arc", d: `M${x1},${base} L${x1},${y + r} Q${x1},${y} ${x1 + r},${y} L${x2 - r},${y} ` +
                                     `Q${x2},${y} ${x2},${y + r} L${x2},${base}`}, svg);
      const xd = xs[arc.d];
      el("path", {"class": "head", d: `M${xd},${base + 1} L${xd - 4},${base - 7} L${xd + 4},${base - 7} Z`}, svg);
      const lab = el("text", {"class": "lab", x: String((x1 + x2) / 2), y: String(y - 3), "text-anchor": "middle"}, svg);
      lab.textContent = arc.lab = labels[arc.d];
    }
    for (let i = 0; i < n; i++) {
      const w = el("text", {"class": "w", x: String(xs[i]), y: String(base + 20), "text-anchor": "middle"}, svg);
      w.textContent = words[i];
      const g = el("text", {"class": "g", x: String(xs[i]), y: String(base + 37), "text-anchor": "middle"}, svg);
      g.textContent = tags[i];
    }
    return svg;
  }
  function toggleTree(span) {
    const next = span.nextElementSibling;
    if (next && next.classList.contains("tree")) { next.remove(); span.classList.remove("open"); return; }
    const box = document.createElement("div");
    box.className = "tree";
    const a = Number(span.dataset.a), b = Number(span.dataset.b), d = span.closest(".chunk").chunk.doc;
    let shown = 0, more = 0;
    for (const c of d.chunks) {
      if (c.o + c.len <= a || c.o >= b) continue;
      for (let j = 0; 2 * j < c.s.length; j++) {
        if (c.o + c.s[2 * j + 1] <= a || c.o + c.s[2 * j] >= b) continue;
        if (shown >= MAX_TREES) { more++; continue; }
        const t = tree(c, j);
        if (t) { box.appendChild(t); shown++; }
      }
    }
    if (more) {
      const p = document.createElement("p");
      p.textContent = `${more} more of the pipeline's sentences in this one: lower the threshold to see their trees.`;
      box.appendChild(p);
    }
    if (!box.childNodes.length) {
      const p = document.createElement("p");
      p.textContent = "No parse for this sentence.";
      box.appendChild(p);
    }
    span.after(box);
    span.classList.add("open");
  }
  document.querySelector("main").addEventListener("click", e => {
    const span = e.target.closest(".sent");
    if (span) toggleTree(span);
  });
  let queued = false;
  const redraw = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; render(); }); } };
  thr.addEventListener("input", () => { own.checked = false; redraw(); });
  own.addEventListener("change", redraw);
  if (!hasProbs) { thr.disabled = true; own.disabled = true; }
  const stops = [0, .25, .5, .75, 1].map(p => shade(p)[0]).join(",");
  document.getElementById("legend-bar").style.background = `linear-gradient(to right,${stops})`;
  render();
  body.dataset.ready = "1";
})();
"""


PROB_SCALE = 10_000
"""Start probabilities are kept to 4 decimals (the page shows 3; the slider cannot be set finer)."""
_ALPHABET = "".join(chr(c) for c in range(33, 127) if chr(c) not in '"\\<')[:90]
"""The digits of the page's integers: 45 that end a number, 45 that go on (none needs escaping in JSON
or ends a <script>)."""


def _varints(values: Iterable[int]) -> str:
    """Non-negative integers as base-45 digits, least significant first, every digit but a
    number's last from the second half of `_ALPHABET`: most take one character."""
    out: List[str] = []
    for v in values:
        while v >= 45:
            out.append(_ALPHABET[45 + v % 45])
            v //= 45
        out.append(_ALPHABET[v])
    return "".join(out)


def _prob(p: float) -> int:
    return int(round(min(max(p, 0.0), 1.0) * PROB_SCALE))


def _json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no `<` to end it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


class _Chunk:
    """The data of whole sentences of one source, as the page's script reads it: `o` where its text
    starts in the source, `t` the text; as `_varints`: `s` each sentence's (start - the previous
    one's end, length), `q` each sentence's start probability (`_prob` + 1, 0 for none), `c`
    (offset - the previous one's, length, `_prob`) of each token at least `SLIDER_MIN` likely to
    start a sentence. The trees, one string per sentence: per word (offset - the previous word's
    end, length, head - index zigzagged (0 for the root), label, tag), labels and tags as indices
    into `l` and `g`."""

    def __init__(self, offset: int):
        self.o = offset
        self.parts: List[str] = []
        self.length = 0
        self.s: List[int] = []
        self.q: List[int] = []
        self.c: List[int] = []
        self.last_end = 0
        self.last_cand = 0
        self.k: List[Optional[str]] = []
        self.labels: Dict[str, int] = {}
        self.tags: Dict[str, int] = {}

    @property
    def end(self) -> int:
        return self.o + self.length

    def add(self, s: Sentence) -> None:
        if s.before and not self.parts:
            self.o = s.start_char - len(s.before)
        if s.before and self.end == s.start_char - len(s.before):
            self._text(s.before)
        a = s.start_char - self.o
        self._text(s.text)
        self._text(s.after or "")
        self.s += [a - self.last_end, len(s.text)]
        self.last_end = a + len(s.text)
        probs = s.probs if s.probs is not None and len(s.probs) == len(s.tokens or ()) else None
        self.q.append(_prob(probs[0]) + 1 if probs and probs[0] is not None else 0)
        if not s.tokens:
            self.k.append(None)
            return
        if probs:
            for t, p in zip(s.tokens, probs):
                if p is not None and p >= SLIDER_MIN:
                    pos = t["start_char"] - self.o
                    self.c += [pos - self.last_cand, t["end_char"] - t["start_char"], _prob(p)]
                    self.last_cand = pos
        if s.tokens[0]["head"] is None:
            self.k.append(None)
            return
        flat: List[int] = []
        end = s.start_char
        for k, (i, h) in enumerate(solid_tokens(s.tokens)):
            t = s.tokens[i]
            d = h - k
            zigzag = 0 if h < 0 else 2 * d - 1 if d > 0 else -2 * d
            flat += [t["start_char"] - end, t["end_char"] - t["start_char"], zigzag,
                     self.labels.setdefault(t["dep"] or "dep", len(self.labels)),
                     self.tags.setdefault(t["tag"] or "", len(self.tags))]
            end = t["end_char"]
        self.k.append(_varints(flat))

    def _text(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def write(self, out: TextIO, cid: str) -> int:
        data = _json({"o": self.o, "t": "".join(self.parts), "s": _varints(self.s), "q": _varints(self.q),
                      "c": _varints(self.c)})
        trees = _json({"l": list(self.labels), "g": list(self.tags), "k": self.k})
        block = (f'<script type="application/json" class="c" id="{cid}">{data}</script>'
                 f'<script type="application/json" id="k{cid}">{trees}</script>\n')
        out.write(block)
        return len(block)


class HtmlWriter:
    """Writes the page: the head at the first source (or at `close`), then one text section per
    source, a chunk of sentences at a time; `close` adds the script and ends the page.

    note: called with one line when the page is large (`LARGE_PAGE_CHARS`)."""

    def __init__(self, out: TextIO, title: str = "Sentences", note: Optional[Callable[[str], None]] = None):
        self.out, self.title, self.note = out, title, note
        self.n_sources = 0
        self.n_sentences = 0
        self.text_chars = 0
        self.written = 0
        self.started = False

    def _put(self, text: str) -> None:
        self.out.write(text)
        self.written += len(text)

    def _start(self) -> None:
        if self.started:
            return
        self.started = True
        self._put(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>
<body data-candidate-min="{CANDIDATE_MIN}" data-max-tree-words="{MAX_TREE_WORDS}" data-max-trees="{MAX_TREES_PER_CLICK}"
 data-eager-chars="{EAGER_CHARS}"
 data-prob-scale="{PROB_SCALE}" data-alphabet="{html.escape(_ALPHABET)}">
<header><h1>{html.escape(self.title)}</h1><span id="summary"></span>
<div class="controls"><label><input type="checkbox" id="own" checked> the pipeline's own sentences</label>
<label>threshold <input type="range" id="thr" min="{SLIDER_MIN}" max="1" step="any" value="0.5"
 aria-label="start probability threshold"> <output id="thr-val"></output></label>
<span class="legend">start probability <span>0</span><span class="bar" id="legend-bar"></span><span>1</span>
 <span class="cand">&nbsp;</span>a start left out (p &ge; {CANDIDATE_MIN:g}); click a sentence for its tree</span>
</div></header><main>
""")

    def write(self, source: str, sentences: Iterator[Sentence]) -> int:
        """Write the sentences of one source; returns how many."""
        self._start()
        d = self.n_sources
        label = "standard input" if source == STDIN else source
        self._put(f'<h2>{html.escape(label)}</h2>\n<div class="text" id="text-{d}">'
                  f'<p class="empty">No sentences: the text is empty or whitespace alone.</p></div>\n'
                  f'<div class="data" data-doc="{d}">\n')
        n = k = 0
        chunk: Optional[_Chunk] = None
        for s in sentences:
            if chunk is not None and (chunk.length >= CHUNK_CHARS or chunk.end != s.start_char - len(s.before or "")):
                self._put_chunk(chunk, f"{d}-{k}")
                k += 1
                chunk = None
            if chunk is None:
                chunk = _Chunk(s.start_char)
            chunk.add(s)
            n += 1
        if chunk is not None:
            self._put_chunk(chunk, f"{d}-{k}")
        self._put(f'<span hidden id="n-{d}">{n}</span></div>\n')
        self.n_sources += 1
        self.n_sentences += n
        return n

    def _put_chunk(self, chunk: _Chunk, cid: str) -> None:
        self.written += chunk.write(self.out, cid)
        self.text_chars += chunk.length

    def close(self) -> None:
        """End the page (a page with no source at all is a page that says so)."""
        self._start()
        self._put(f"</main><script>{_SCRIPT}</script></body></html>\n")
        if self.note is not None and self.written > LARGE_PAGE_CHARS:
            self.note(f"the page is {self.written / 1e6:.1f} MB ({self.n_sentences:,} sentences, "
                      f"{self.text_chars:,} characters): a browser opens it and draws the sentences as they "
                      f"scroll into view; --format jsonl is the format for a program")
