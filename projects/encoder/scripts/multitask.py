"""The multi-task encoder in torch: one BERT, four heads read from each word's first piece.

- `boundary`: one logit, the word starts a sentence (the boundary encoder's classifier, kept).
- arcs: a biaffine scorer (Dozat & Manning 2017): MLPs of `arc_dim` for a word as dependent and as
  head, score(i → j) = d_i · W · h_j + h_j · u. Candidates are the window's words and [CLS], which
  stands for the root.
- labels: a biaffine classifier of `label_dim` over (dependent, head) pairs, with a linear term on
  both and a bias.
- `upos`: a linear layer.

Its state dict keeps the boundary encoder's names (`bert.*`, `classifier.*`) so that
`spacy_joint_sbd.encoder.export` reads the encoder part unchanged; the heads' tensors are named
`arc_dep.*`, `arc_head.*`, `arc_W`, `arc_u`, `lab_dep.*`, `lab_head.*`, `lab_W`, `lab_V.*`,
`upos.*`.
"""
from typing import Dict, Tuple

import torch
from torch import nn

NEG = -1e4
"""Score of a candidate that is not one (padding, a word's later pieces, the word itself)."""


class MultiTaskEncoder(nn.Module):
    def __init__(self, bert: nn.Module, n_labels: int, n_upos: int, *, arc_dim: int = 256,
                 label_dim: int = 128, dropout: float = 0.2) -> None:
        super().__init__()
        h = bert.config.hidden_size
        self.bert = bert
        self.classifier = nn.Linear(h, 1)
        self.drop = nn.Dropout(dropout)
        self.arc_dep = nn.Linear(h, arc_dim)
        self.arc_head = nn.Linear(h, arc_dim)
        self.arc_W = nn.Parameter(torch.zeros(arc_dim, arc_dim))
        self.arc_u = nn.Parameter(torch.zeros(arc_dim))
        self.lab_dep = nn.Linear(h, label_dim)
        self.lab_head = nn.Linear(h, label_dim)
        self.lab_W = nn.Parameter(torch.zeros(n_labels, label_dim, label_dim))
        self.lab_V = nn.Linear(2 * label_dim, n_labels)
        self.upos = nn.Linear(h, n_upos)

    def encode(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.bert(input_ids=ids, attention_mask=mask).last_hidden_state

    def boundary_logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(x)[..., 0]

    def arc_scores(self, x: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
        """(B, T, T): score of piece j as the head of piece i; `candidates` (B, T) bool marks [CLS]
        and words' first pieces; other columns and the diagonal get NEG."""
        d = nn.functional.gelu(self.arc_dep(self.drop(x)))
        h = nn.functional.gelu(self.arc_head(self.drop(x)))
        s = torch.einsum("bid,de,bje->bij", d, self.arc_W, h) + (h @ self.arc_u)[:, None, :]
        t = x.shape[1]
        bad = ~candidates[:, None, :] | torch.eye(t, dtype=torch.bool, device=x.device)[None]
        return s.masked_fill(bad, NEG)

    def label_logits(self, x: torch.Tensor, b: torch.Tensor, dep: torch.Tensor, head: torch.Tensor) -> torch.Tensor:
        """(N, L) label logits of the N arcs (window b, dependent piece dep, head piece head)."""
        d = nn.functional.gelu(self.lab_dep(self.drop(x)))[b, dep]
        h = nn.functional.gelu(self.lab_head(self.drop(x)))[b, head]
        return torch.einsum("nd,lde,ne->nl", d, self.lab_W, h) + self.lab_V(torch.cat([d, h], dim=-1))

    def upos_logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.upos(self.drop(x))


def losses(model: MultiTaskEncoder, batch: Dict[str, torch.Tensor], *, frozen: bool = False,
           boundary_weight: float = 1.0) -> Tuple[torch.Tensor, Dict[str, float]]:
    """The summed loss of a batch and each head's mean loss. `batch`: `ids`, `mask` (B, T);
    `boundary` (B, T) float, -1 where unscored; `heads` (B, T) long: the head's piece (0: [CLS],
    the root), -1 unscored (later pieces, text windows, heads outside the window); `labels`, `upos`
    (B, T) long, -1 unscored; `candidates` (B, T) bool. `frozen`: the encoder and the boundary
    head are not trained (the new heads warm up without disturbing what the encoder knows);
    `boundary_weight` scales the boundary loss in the sum."""
    if frozen:
        with torch.no_grad():
            x = model.encode(batch["ids"], batch["mask"])
    else:
        x = model.encode(batch["ids"], batch["mask"])
    out: Dict[str, float] = {}
    total = x.new_zeros(())
    y = batch["boundary"]
    sel = y >= 0
    if sel.any() and not frozen:
        lb = nn.functional.binary_cross_entropy_with_logits(model.boundary_logits(x)[sel], y[sel])
        total = total + boundary_weight * lb
        out["boundary"] = lb.item()
    heads = batch["heads"]
    sel = heads >= 0
    if sel.any():
        s = model.arc_scores(x, batch["candidates"])
        la = nn.functional.cross_entropy(s[sel], heads[sel])
        b, dep = sel.nonzero(as_tuple=True)
        lab = batch["labels"][b, dep]
        ok = lab >= 0
        ll = nn.functional.cross_entropy(model.label_logits(x, b[ok], dep[ok], heads[b, dep][ok]), lab[ok])
        total = total + la + ll
        out["arc"], out["label"] = la.item(), ll.item()
    up = batch["upos"]
    sel = up >= 0
    if sel.any():
        lu = nn.functional.cross_entropy(model.upos_logits(x)[sel], up[sel])
        total = total + lu
        out["upos"] = lu.item()
    return total, out
