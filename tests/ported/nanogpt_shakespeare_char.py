"""A small GPT trained on the characters of Tiny Shakespeare, written for this project in the
style of nanoGPT (its model.py, train.py, sample.py and data/shakespeare_char/prepare.py in
one file): a `GPTConfig` dataclass, a LayerNorm with an optional bias, causal self-attention
from one `c_attn` projection split into heads (PyTorch's fused `scaled_dot_product_attention`
or the masked softmax written out), pre-norm residual blocks, tied input and output
embeddings, AdamW with weight decay on the matrices only, a warm-up + cosine learning-rate
schedule set by hand, gradient accumulation, loss scaling and clipping, checkpoints that are
resumed, and generation with temperature and top-k.

Sized for a test: a few thousand characters, two layers of width 32, tens of iterations.
`main(data)` takes the text, a folder for the data and checkpoints, and NumPy seeds.
"""

import inspect
import math
import os
import pickle
import time
from contextlib import nullcontext
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F


# ---- the model (model.py) ----------------------------------------------------------------
class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (nn.LayerNorm's `bias=False` is recent)."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        # one projection gives the queries, keys and values of every head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        # the fused kernel where PyTorch has it (2.0 and later), unless the config asks for the
        # attention written out
        self.flash = config.flash and hasattr(torch.nn.functional, "scaled_dot_product_attention")
        if not self.flash:
            print("WARNING: using slow attention")
            # position t may look at positions 0..t: a lower-triangular mask
            mask = torch.tril(torch.ones(config.block_size, config.block_size))
            self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()  # batch, sequence length, embedding width

        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)

        if self.flash:
            y = F.scaled_dot_product_attention(
                q,
                k,
                v,
                attn_mask=None,
                dropout_p=self.dropout if self.training else 0,
                is_causal=True,
            )
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # the heads side by side again

        y = self.resid_dropout(self.c_proj(y))
        return y


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304  # GPT-2's 50257, padded up to a multiple of 64
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True  # biases in the Linears and LayerNorms, as GPT-2
    flash: bool = True  # this project: False takes the attention written out (the test runs both)


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.config = config

        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        # weight tying: the token embedding and the output layer are one matrix
        self.transformer.wte.weight = self.lm_head.weight

        self.apply(self._init_weights)
        # GPT-2's scaled init of the projections that write into the residual stream
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        print("number of parameters: %.2fM" % (self.get_num_params() / 1e6,))

    def get_num_params(self, non_embedding=True):
        """Parameters in the model; the position embeddings are left out by default (the token
        embeddings count, as they are the output layer's weights too)."""
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, (
            f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        )
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)

        tok_emb = self.transformer.wte(idx)  # (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # (t, n_embd)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)

        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
        else:
            # generating: only the last position's logits are needed (the list keeps the time dim)
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        # matrices (weights of Linears, embeddings) decay; biases and LayerNorm gains do not
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {"params": decay_params, "weight_decay": weight_decay},
            {"params": nodecay_params, "weight_decay": 0.0},
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print(
            f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} "
            "parameters"
        )
        print(
            f"num non-decayed parameter tensors: {len(nodecay_params)}, with "
            f"{num_nodecay_params:,} parameters"
        )
        # the fused AdamW is faster, where it exists and the model is on a GPU
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == "cuda"
        extra_args = dict(fused=True) if use_fused else dict()
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
        print(f"using fused AdamW: {use_fused}")
        return optimizer

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """Extend idx (b, t) by max_new_tokens tokens, each sampled from the model's prediction
        for the next position. Call it with the model in eval mode."""
        for _ in range(max_new_tokens):
            # past block_size tokens of context, keep the most recent ones
            idx_cond = (
                idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size :]
            )
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


# ---- the data (data/shakespeare_char/prepare.py) -----------------------------------------
def prepare(text, data_dir):
    """Characters to ids; 90% of the text to train.bin and the rest to val.bin (uint16), and
    the vocabulary to meta.pkl."""
    chars = sorted(list(set(text)))
    vocab_size = len(chars)
    print(f"all the unique characters: {''.join(chars)!r}")
    print(f"vocab size: {vocab_size:,}")
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}

    n = len(text)
    train_ids = np.array([stoi[c] for c in text[: int(n * 0.9)]], dtype=np.uint16)
    val_ids = np.array([stoi[c] for c in text[int(n * 0.9) :]], dtype=np.uint16)
    print(f"train has {len(train_ids):,} tokens")
    print(f"val has {len(val_ids):,} tokens")
    train_ids.tofile(os.path.join(data_dir, "train.bin"))
    val_ids.tofile(os.path.join(data_dir, "val.bin"))
    with open(os.path.join(data_dir, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": vocab_size, "itos": itos, "stoi": stoi}, f)


# ---- training (train.py) -----------------------------------------------------------------
# config/train_shakespeare_char.py's settings, made small; train() takes overrides as
# configurator.py takes them from the command line
DEFAULTS = dict(
    out_dir="out-shakespeare-char",
    data_dir="data/shakespeare_char",
    eval_interval=10,
    log_interval=1,
    eval_iters=4,
    always_save_checkpoint=False,
    init_from="scratch",  # or "resume"
    gradient_accumulation_steps=2,
    batch_size=8,
    block_size=16,
    n_layer=2,
    n_head=2,
    n_embd=32,
    dropout=0.0,
    bias=False,
    flash=True,
    learning_rate=3e-3,
    max_iters=20,
    weight_decay=1e-1,
    beta1=0.9,
    beta2=0.99,
    grad_clip=1.0,
    decay_lr=True,
    warmup_iters=4,
    lr_decay_iters=30,
    min_lr=3e-4,
    device="cpu",
    seed=1337,
    init_seed=0,
    batch_seed=1,
)


def train(**overrides):
    cfg = SimpleNamespace(**{**DEFAULTS, **overrides})
    os.makedirs(cfg.out_dir, exist_ok=True)
    torch.manual_seed(cfg.seed)
    device_type = "cuda" if "cuda" in cfg.device else "cpu"
    # float16 needs the loss scaled; bfloat16 has float32's range and does not
    dtype = (
        "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
    )
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        dtype
    ]
    ctx = (
        nullcontext()
        if device_type == "cpu"
        else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
    )

    # poor man's data loader: random windows of the token files
    # port: nanoGPT draws the window offsets with torch.randint; NumPy's generator (seed in
    # the config) gives torch and minigrad the same batches
    batch_rng = np.random.default_rng(cfg.batch_seed)

    def get_batch(split):
        # a fresh memmap every batch, as nanoGPT does, so the file's pages do not pile up
        path = os.path.join(cfg.data_dir, "train.bin" if split == "train" else "val.bin")
        data = np.memmap(path, dtype=np.uint16, mode="r")
        ix = torch.from_numpy(
            batch_rng.integers(0, len(data) - cfg.block_size, size=(cfg.batch_size,))
        )
        x = torch.stack(
            [torch.from_numpy((data[i : i + cfg.block_size]).astype(np.int64)) for i in ix]
        )
        y = torch.stack(
            [torch.from_numpy((data[i + 1 : i + 1 + cfg.block_size]).astype(np.int64)) for i in ix]
        )
        if device_type == "cuda":
            x, y = (
                x.pin_memory().to(cfg.device, non_blocking=True),
                y.pin_memory().to(cfg.device, non_blocking=True),
            )
        else:
            x, y = x.to(cfg.device), y.to(cfg.device)
        return x, y

    iter_num = 0
    best_val_loss = 1e9

    meta_path = os.path.join(cfg.data_dir, "meta.pkl")
    meta_vocab_size = None
    if os.path.exists(meta_path):
        with open(meta_path, "rb") as f:
            meta = pickle.load(f)
        meta_vocab_size = meta["vocab_size"]
        print(f"found vocab_size = {meta_vocab_size} (inside {meta_path})")

    model_args = dict(
        n_layer=cfg.n_layer,
        n_head=cfg.n_head,
        n_embd=cfg.n_embd,
        block_size=cfg.block_size,
        bias=cfg.bias,
        vocab_size=None,
        dropout=cfg.dropout,
        flash=cfg.flash,
    )
    if cfg.init_from == "scratch":
        print("Initializing a new model from scratch")
        model_args["vocab_size"] = meta_vocab_size if meta_vocab_size is not None else 50304
        gptconf = GPTConfig(**model_args)
        model = GPT(gptconf)
        # port: GPT's _init_weights draws from torch's generator; the same distributions,
        # drawn from NumPy (seed in the config), give torch and minigrad the same model
        init_rng = np.random.default_rng(cfg.init_seed)
        with torch.no_grad():
            for pn, p in model.named_parameters():
                if p.dim() >= 2:
                    std = (
                        0.02 / math.sqrt(2 * cfg.n_layer) if pn.endswith("c_proj.weight") else 0.02
                    )
                    p.copy_(
                        torch.from_numpy(
                            (init_rng.standard_normal(tuple(p.shape)) * std).astype(np.float32)
                        )
                    )
    elif cfg.init_from == "resume":
        print(f"Resuming training from {cfg.out_dir}")
        ckpt_path = os.path.join(cfg.out_dir, "ckpt.pt")
        checkpoint = torch.load(ckpt_path, map_location=cfg.device)
        checkpoint_model_args = checkpoint["model_args"]
        # the model's shape comes from the checkpoint, whatever the command line said
        for k in ["n_layer", "n_head", "n_embd", "block_size", "bias", "vocab_size"]:
            model_args[k] = checkpoint_model_args[k]
        gptconf = GPTConfig(**model_args)
        model = GPT(gptconf)
        state_dict = checkpoint["model"]
        # a model saved from torch.compile has its names prefixed; take the prefix off
        unwanted_prefix = "_orig_mod."
        for k in list(state_dict.keys()):
            if k.startswith(unwanted_prefix):
                state_dict[k[len(unwanted_prefix) :]] = state_dict.pop(k)
        model.load_state_dict(state_dict)
        iter_num = checkpoint["iter_num"]
        best_val_loss = checkpoint["best_val_loss"]
    model.to(cfg.device)

    # a no-op unless dtype is float16 (on the CPU here it scales by powers of two, exactly)
    scaler = torch.amp.GradScaler(device_type, enabled=(dtype == "float16"))

    optimizer = model.configure_optimizers(
        cfg.weight_decay, cfg.learning_rate, (cfg.beta1, cfg.beta2), device_type
    )
    if cfg.init_from == "resume":
        optimizer.load_state_dict(checkpoint["optimizer"])
    checkpoint = None  # let it go

    @torch.no_grad()
    def estimate_loss():
        """The mean loss over eval_iters batches of each split, in eval mode."""
        out = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(cfg.eval_iters)
            for k in range(cfg.eval_iters):
                X, Y = get_batch(split)
                with ctx:
                    logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    def get_lr(it):
        # linear warm-up, then cosine decay to min_lr, then min_lr
        if it < cfg.warmup_iters:
            return cfg.learning_rate * (it + 1) / (cfg.warmup_iters + 1)
        if it > cfg.lr_decay_iters:
            return cfg.min_lr
        decay_ratio = (it - cfg.warmup_iters) / (cfg.lr_decay_iters - cfg.warmup_iters)
        assert 0 <= decay_ratio <= 1
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))  # from 1 down to 0
        return cfg.min_lr + coeff * (cfg.learning_rate - cfg.min_lr)

    X, Y = get_batch("train")  # the first batch
    t0 = time.time()
    local_iter_num = 0
    raw_model = model
    iter_losses, eval_losses = [], []
    while True:
        lr = get_lr(iter_num) if cfg.decay_lr else cfg.learning_rate
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr

        if iter_num % cfg.eval_interval == 0:
            losses = estimate_loss()
            print(
                f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}"
            )
            eval_losses.append((losses["train"].item(), losses["val"].item()))
            if losses["val"] < best_val_loss or cfg.always_save_checkpoint:
                best_val_loss = losses["val"]
                if iter_num > 0:
                    checkpoint = {
                        "model": raw_model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "model_args": model_args,
                        "iter_num": iter_num,
                        "best_val_loss": best_val_loss,
                        "config": dict(vars(cfg)),
                    }
                    print(f"saving checkpoint to {cfg.out_dir}")
                    torch.save(checkpoint, os.path.join(cfg.out_dir, "ckpt.pt"))

        # forward and backward over the micro-batches, the gradients adding up
        for _ in range(cfg.gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / cfg.gradient_accumulation_steps  # the mean over all micro-batches
            # fetch the next batch while the GPU would still be busy
            X, Y = get_batch("train")
            scaler.scale(loss).backward()
        if cfg.grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)

        t1 = time.time()
        dt = t1 - t0
        t0 = t1
        if iter_num % cfg.log_interval == 0:
            # .item() waits for the device; the loss is scaled back to the whole batch
            lossf = loss.item() * cfg.gradient_accumulation_steps
            print(f"iter {iter_num}: loss {lossf:.4f}, time {dt * 1000:.2f}ms")
            iter_losses.append(lossf)
        iter_num += 1
        local_iter_num += 1

        if iter_num > cfg.max_iters:
            break
    return iter_losses, eval_losses


# ---- sampling (sample.py) ----------------------------------------------------------------
def sample(
    out_dir, data_dir, start, num_samples, max_new_tokens, temperature, top_k, seed, device="cpu"
):
    torch.manual_seed(seed)
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location=device)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    model.load_state_dict(checkpoint["model"])
    model.eval()
    model.to(device)

    with open(os.path.join(data_dir, "meta.pkl"), "rb") as f:
        meta = pickle.load(f)
    stoi, itos = meta["stoi"], meta["itos"]

    def encode(s):
        return [stoi[c] for c in s]

    def decode(ids):
        return "".join([itos[i] for i in ids])

    start_ids = encode(start)
    x = torch.tensor(start_ids, dtype=torch.long, device=device)[None, ...]
    samples = []
    with torch.no_grad():
        for _ in range(num_samples):
            y = model.generate(x, max_new_tokens, temperature=temperature, top_k=top_k)
            samples.append(decode(y[0].tolist()))
            print(samples[-1])
            print("---------------")
    return samples


def main(data):
    out_dir, data_dir = data["out_dir"], data["data_dir"]
    os.makedirs(data_dir, exist_ok=True)
    prepare(data["text"], data_dir)
    settings = dict(out_dir=out_dir, data_dir=data_dir, flash=data["flash"])
    # train from scratch, then resume from the last checkpoint and train on
    first = train(**settings, max_iters=data["first_iters"])
    resumed = train(**settings, init_from="resume", max_iters=data["max_iters"], batch_seed=2)
    # greedy (top_k=1 leaves one token to draw) and sampled continuations of a newline
    greedy = sample(out_dir, data_dir, "\n", 1, 40, temperature=1.0, top_k=1, seed=1337)
    sampled = sample(out_dir, data_dir, "\n", 2, 40, temperature=0.8, top_k=5, seed=1337)
    return {"first": first, "resumed": resumed, "greedy": greedy, "sampled": sampled}
