"""A character-level language model: embeddings, a causal context window, and sampling
with temperature and top-k."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CharModel(nn.Module):
    def __init__(self, vocab_size, context=8, embed=16, hidden=64):
        super().__init__()
        self.context = context
        self.embed = nn.Embedding(vocab_size, embed)
        self.hidden = nn.Linear(context * embed, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, idx):
        x = self.embed(idx).view(idx.shape[0], -1)
        return self.out(torch.tanh(self.norm(self.hidden(x))))


@torch.no_grad()
def sample(model, start, steps, temperature=0.8, top_k=5):
    idx = start.clone()
    for _ in range(steps):
        logits = model(idx[:, -model.context :]) / temperature
        values, _ = torch.topk(logits, top_k)
        logits[logits < values[:, [-1]]] = -float("inf")
        probs = F.softmax(logits, dim=-1)
        next_id = torch.multinomial(probs, num_samples=1)
        idx = torch.cat((idx, next_id), dim=1)
    return idx


def main(data):
    text = data["text"]
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    context = 8
    xs = torch.stack([ids[i : i + context] for i in range(len(ids) - context)])
    ys = ids[context:]

    model = CharModel(len(chars), context)
    rng = np.random.default_rng(2)
    state = {
        k: torch.from_numpy((rng.standard_normal(tuple(v.shape)) * 0.2).astype(np.float32))
        for k, v in model.state_dict().items()
    }
    state["norm.weight"] = torch.ones(64)
    state["norm.bias"] = torch.zeros(64)
    model.load_state_dict(state)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)

    losses = []
    for step in range(60):
        start = (step * 64) % (len(xs) - 64)
        logits = model(xs[start : start + 64])
        loss = F.cross_entropy(logits, ys[start : start + 64])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())

    torch.manual_seed(0)
    out = sample(model, xs[:1], steps=40)
    generated = "".join(chars[i] for i in out[0].tolist())
    return {"losses": losses, "generated": generated, "vocab": chars}
