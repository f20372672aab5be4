"""`segment --format html`: one self-contained page to look at the sentences (no network, no script
library: the CSS and a small script are inline, the trees are displaCy's SVG rendered here).

Each sentence is shaded by its start probability (`token._.sent_start_prob` of its first token).
A slider re-draws the sentences as `segment --threshold P` does (a sentence starts at the first
token and wherever the probability is >= P; whitespace alone is no sentence), so the page carries
every token's probability; a box goes back to the pipeline's own sentences, which the page shows
first (as many as `--format jsonl` writes). Clicking a sentence shows the dependency trees of the
pipeline's sentences it covers.

The page is written as the sentences arrive (one small data block per sentence), so writing it
takes the memory of one sentence; trees are embedded for the first `MAX_TREES` sentences of no
more than `MAX_TREE_TOKENS` tokens each (a book's trees would make a page no browser opens). The
page is for looking: it holds about 20 bytes per token beside the text (300 KB of prose make a
7.5 MB page that Chromium opens in a second and re-draws in half of one); segment larger inputs
to `jsonl`, or look at a part of them.
"""
import html
import json
import re
from typing import Any, Dict, Iterator, List, Optional, TextIO

from ..corpus.record import ROOT
from ..segment import Sentence
from .reading import STDIN
from .writing import sentences_to_record

MAX_TREES = 500
"""Sentences per page that get their tree embedded (displaCy's SVG is a few KB per word)."""
MAX_TREE_TOKENS = 120
"""Longer sentences get no tree: an SVG wider than a few screens is no help."""
TREE_MIN_SCALE = 0.8
"""A tree wider than the page is shrunk to fit, down to this share of its size, then scrolls."""
CANDIDATE_MIN = 0.1
"""Inside a sentence, a token whose start probability is at least this is marked: a boundary the
pipeline (or the threshold) left out."""
TREE_OPTIONS: Dict[str, Any] = {"compact": True, "distance": 100, "word_spacing": 30, "font": "inherit"}
"""displaCy's dependency options for the embedded trees."""

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
.sent { border-radius: 3px; padding: 1px 0 1px 3px; cursor: pointer; border-left: 3px solid; }
.sent:hover { outline: 1px solid #7b8494; }
.sent.open { outline: 2px solid #3b4a63; }
.tree { display: block; white-space: normal; overflow-x: auto; background: #fff; margin: .3em 0 .6em;
        border: 1px solid var(--line); border-radius: 4px; padding: .2em; }
.tree p { color: var(--muted); margin: .3em .5em; font-size: .9em; }
.data { display: none; }
.cand { border-left: 2px dashed; padding-left: 1px; }
.off { opacity: .55; }
.legend .cand { border-color: var(--muted); }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  const docs = [];
  for (const box of document.querySelectorAll("div.data")) {
    const sents = [...box.querySelectorAll("script.s")].map(e => JSON.parse(e.textContent));
    const d = {el: document.getElementById(box.dataset.text), w: [], ws: [], p: [], own: [], tree: []};
    sents.forEach((s, k) => {
      s.w.forEach((w, i) => {
        d.w.push(w);
        d.ws.push(i + 1 < s.w.length ? s.s[i] : s.a);
        d.p.push(s.p ? s.p[i] : null);
        d.own.push(i === 0);
        d.tree.push(s.t === null ? null : box.dataset.doc + "-" + k);
      });
    });
    docs.push(d);
  }
  const hasProbs = docs.some(d => d.p.some(p => p !== null));
  const CANDIDATE_MIN = Number(document.body.dataset.candidateMin);
  const own = document.getElementById("own"), thr = document.getElementById("thr");
  const thrVal = document.getElementById("thr-val"), summary = document.getElementById("summary");
  const esc = t => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const blank = t => t.trim() === "";
  function shade(p) {
    if (p === null) return ["#eef0f3", "#9aa3af"];
    const h = 28 + 182 * p;
    return [`hsl(${h.toFixed(0)},85%,88%)`, `hsl(${h.toFixed(0)},70%,38%)`];
  }
  function starts(d, P) {
    return P === null ? d.own : d.p.map((p, i) => i === 0 || (p !== null && p >= P));
  }
  function render() {
    const P = own.checked || !hasProbs ? null : Number(thr.value);
    thrVal.textContent = Number(thr.value).toFixed(3);
    thr.parentElement.classList.toggle("off", P === null);
    let total = 0;
    for (const d of docs) {
      const st = starts(d, P), out = [], n = d.w.length;
      let a = 0;
      while (a < n) {
        let b = a + 1;
        while (b < n && !st[b]) b++;
        let x = a, y = b;
        while (x < y && blank(d.w[x])) x++;
        while (y > x && blank(d.w[y - 1])) y--;
        for (let i = a; i < x; i++) out.push(esc(d.w[i] + d.ws[i]));
        if (x < y) {
          total++;
          const p = d.p[x], [bg, edge] = shade(p);
          const title = p === null ? "no start probability" : "start probability " + p.toFixed(3);
          out.push(`<span class="sent" data-a="${x}" data-b="${y}" style="background:${bg};border-color:${edge}"` +
                   ` title="${title} (click: tree)">`);
          for (let i = x; i < y; i++) {
            const q = d.p[i], w = esc(d.w[i]);
            out.push(i > x && q !== null && q >= CANDIDATE_MIN ?
                     `<span class="cand" style="border-color:${shade(q)[1]}" title="start probability ${q.toFixed(3)}">${w}</span>` : w);
            if (i + 1 < y) out.push(esc(d.ws[i]));
          }
          out.push("</span>" + esc(d.ws[y - 1]));
        }
        for (let i = y; i < b; i++) out.push(esc(d.w[i] + d.ws[i]));
        a = b;
      }
      d.el.innerHTML = out.join("");
    }
    summary.textContent = `${total} sentence${total === 1 ? "" : "s"} in ${docs.length} text` +
      (docs.length === 1 ? "" : "s") + (P === null ? " — the pipeline's own sentences" : ` — start probability ≥ ${P.toFixed(3)}`);
    summary.dataset.count = String(total);
  }
  function toggleTree(span, d) {
    const next = span.nextElementSibling;
    if (next && next.classList.contains("tree")) { next.remove(); span.classList.remove("open"); return; }
    const box = document.createElement("div");
    box.className = "tree";
    const seen = new Set();
    for (let i = Number(span.dataset.a); i < Number(span.dataset.b); i++) {
      if (d.tree[i] === null || seen.has(d.tree[i])) continue;
      seen.add(d.tree[i]);
      const t = document.getElementById("tree-" + d.tree[i]);
      if (t) box.appendChild(t.content.cloneNode(true));
    }
    if (!seen.size) box.innerHTML = "<p>No tree embedded for this sentence (the page keeps trees for " +
                                    "the first sentences of moderate length only).</p>";
    span.after(box);
    span.classList.add("open");
  }
  docs.forEach(d => d.el.addEventListener("click", e => {
    const span = e.target.closest(".sent");
    if (span) toggleTree(span, d);
  }));
  let queued = false;
  const redraw = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; render(); }); } };
  thr.addEventListener("input", () => { own.checked = false; redraw(); });
  own.addEventListener("change", redraw);
  if (!hasProbs) { thr.disabled = true; own.disabled = true; }
  const stops = [0, .25, .5, .75, 1].map(p => shade(p)[0]).join(",");
  document.getElementById("legend-bar").style.background = `linear-gradient(to right,${stops})`;
  render();
  document.body.dataset.ready = "1";
})();
"""


def _json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no `<` to end it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def tree_svg(sentence: Sentence) -> Optional[str]:
    """displaCy's SVG of a parsed sentence (whitespace tokens left out), or None without a parse."""
    from spacy import displacy

    if not sentence.tokens or sentence.tokens[0]["head"] is None:
        return None
    rec = sentences_to_record("", [sentence])
    words = [{"text": w, "tag": t} for w, t in zip(rec.words, rec.xpos)]
    arcs = [{"start": min(i, h), "end": max(i, h), "label": dep, "dir": "left" if h > i else "right"}
            for i, (h, dep) in enumerate(zip(rec.heads, rec.deps)) if h != ROOT]
    svg = displacy.render({"words": words, "arcs": arcs}, style="dep", manual=True, jupyter=False,
                          options=TREE_OPTIONS)
    return _fit(svg)


_SVG_SIZE = re.compile(r'<svg ([^>]*?)width="([\d.]+)" height="([\d.]+)"([^>]*?)style="max-width: none; height: [\d.]+px;')
_ARC_Y = re.compile(r'class="displacy-arc"[^>]*? d="M[\d.]+,[\d.]+ [\d.]+,([\d.]+)')
_WORD_Y = re.compile(r'class="displacy-token"[^>]*? y="([\d.]+)"')


def _fit(svg: str) -> str:
    """displaCy's SVG made to scale: a viewBox cropped to the arcs and words (displaCy leaves room
    above the highest arc and below for empty tags), its natural width at most, and down to
    `TREE_MIN_SCALE` of it to fit the page before it scrolls."""
    arcs = [float(y) for y in _ARC_Y.findall(svg)]
    words = [float(y) for y in _WORD_Y.findall(svg)]
    tagged = re.search(r'class="displacy-tag"[^>]*>[^<]', svg) is not None

    def size(m: "re.Match[str]") -> str:
        w, h = float(m.group(2)), float(m.group(3))
        top = max(0.0, min(arcs, default=0.0) - 12)
        bottom = min(h, max(words, default=h) + (44 if tagged else 14))
        return (f'<svg {m.group(1)}viewBox="0 {top:g} {w:g} {bottom - top:g}"{m.group(4)}style="max-width: {w:g}px; '
                f'width: max(100%, {w * TREE_MIN_SCALE:.0f}px); height: auto;')
    return _SVG_SIZE.sub(size, svg, count=1)


class HtmlWriter:
    """Writes the page: the head at the first source (or at `close`), then one text section per
    source, sentence by sentence; `close` adds the script and ends the page."""

    def __init__(self, out: TextIO, title: str = "Sentences"):
        self.out, self.title = out, title
        self.n_sources = 0
        self.n_trees = 0
        self.started = False

    def _start(self) -> None:
        if self.started:
            return
        self.started = True
        self.out.write(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>
<body data-candidate-min="{CANDIDATE_MIN}"><header><h1>{html.escape(self.title)}</h1><span id="summary"></span>
<div class="controls"><label><input type="checkbox" id="own" checked> the pipeline's own sentences</label>
<label>threshold <input type="range" id="thr" min="0.001" max="1" step="any" value="0.5"
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
        self.out.write(f'<h2>{html.escape(label)}</h2>\n<div class="text" id="text-{d}"></div>\n'
                       f'<div class="data" data-doc="{d}" data-text="text-{d}">\n')
        n = 0
        for s in sentences:
            svg = tree_svg(s) if self.n_trees < MAX_TREES and len(s.tokens or ()) <= MAX_TREE_TOKENS else None
            self.out.write(f'<script type="application/json" class="s">{_json(_record(s, svg is not None))}</script>')
            if svg is not None:
                self.out.write(f'<template id="tree-{d}-{n}">{svg}</template>')
                self.n_trees += 1
            self.out.write("\n")
            n += 1
        self.out.write("</div>\n")
        self.n_sources += 1
        return n

    def close(self) -> None:
        """End the page (a page with no source at all is a page that says so)."""
        self._start()
        self.out.write(f"</main><script>{_SCRIPT}</script></body></html>\n")


def _record(s: Sentence, tree: bool) -> Dict[str, Any]:
    """The page's data for one sentence: tokens `w`, the text after each but the last `s`, after
    the sentence up to the next `a`, start probabilities `p` (None without), tree `t` (1 or None)."""
    if not s.tokens:  # no token detail: the sentence as one piece
        return {"w": [s.text], "s": [], "a": s.after or "", "p": None, "t": None}
    toks = s.tokens
    between: List[str] = [s.text[a["end_char"] - s.start_char:b["start_char"] - s.start_char]
                          for a, b in zip(toks, toks[1:])]
    probs = s.probs if s.probs is not None and all(p is not None for p in s.probs) else None
    return {"w": [t["text"] for t in toks], "s": between, "a": s.after or "", "p": probs, "t": 1 if tree else None}
