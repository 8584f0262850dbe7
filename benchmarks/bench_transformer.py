"""Transformer training steps, minigrad against PyTorch (CPU), and generation with and
without a KV cache.

    python benchmarks/bench_transformer.py [--quick] [--repeat 5] [--seconds 1.0]
                                           [--cases encoder,gpt,generate,shakespeare]
                                           [--row-kernels-off] [--threads N]
                                           [--no-torch-1] [--profile STEPS]

- encoder: a 2-layer pre-norm encoder, `nn.TransformerEncoder(nn.TransformerEncoderLayer(
  128, 4, 512, dropout=0, batch_first=True, norm_first=True), 2)`, causal (the square
  mask with is_causal=True), on float32 inputs (32, 64, 128); a training step is
  forward, MSE loss, backward and AdamW.
- gpt: `minigrad-train --model gpt`'s model and step: `models.GPT(65, 128, 4, 4, 64,
  bias=False)` (nanoGPT's "baby GPT": 4 pre-norm layers, 4 heads, d_model 128, context 64, 4x GELU
  MLP, rotary positions, tied output layer), batches of 12 x 64 character ids, forward,
  cross-entropy, backward, gradient clipping at 1, AdamW with weight decay on the
  matrices (betas 0.9, 0.99). PyTorch runs the same model (`TorchGPT` below), loaded
  with minigrad's initial weights; the script checks that both give the same logits.
- shakespeare: the same GPT in nanoGPT's Shakespeare-char configuration (6 layers, 6
  heads, d_model 384, context 256, batches of 64; no dropout), the same step. Not in the
  default list: a step takes seconds on a few cores (issue #24 measures it on 16).
- generate: minigrad's GPT generating tokens after a 1-token prompt, with the KV cache
  (each new token attends to the cached keys: O(T) per token) and without it (the whole
  window again for every token: O(T^2)), in tokens per second: the baby GPT (context 64,
  200 tokens), and the same model with a context of 512 (500 tokens), where the
  difference shows.

Both frameworks run in this process, as a user runs them: minigrad under its thread
policy (`minigrad.threads`: one BLAS thread, large products cut by rows over every
core, Numba's kernels on every core), PyTorch with its default threads (one per core),
and PyTorch on one thread ("torch-1": a copy of the model, with
torch.set_num_threads(1) around each of its steps). They take turns of about --seconds
each (minigrad, PyTorch, PyTorch, minigrad, ...), so that load from elsewhere on a shared
machine falls on both alike; each turn gives ms per step (wall clock) and the CPU time
of this process per step (time.process_time: all its threads, none of other programs').
Printed: median (min-max) over --repeat turns, and the ratio minigrad / PyTorch of each.
--row-kernels-off adds a fourth turn to the training steps: minigrad with the layer_norm
and softmax kernel families kept on their NumPy reference (minigrad before issue #24,
point 2), in the same process, so that the two are compared under the same load.
--threads N pins both frameworks to N threads (`mg.set_num_threads(N)`: the kernels and
the large products; `torch.set_num_threads(N)`); "torch-1" stays on one. --no-torch-1
leaves "torch-1" out (on many cores the Shakespeare-char step takes over 10 s on one thread).
--profile STEPS runs minigrad's step STEPS more times under cProfile after the turns and
prints the 30 functions with the most time of their own: where a step goes.
--quick checks that the script runs, in seconds: one short turn each, the same models on
2 sequences of 16 (QUICK), and a few tokens generated.
"""

import argparse
import cProfile
import os
import pstats
import statistics
import time

import numpy as np

ENCODER = {"d_model": 128, "heads": 4, "ff": 512, "layers": 2, "T": 64, "batch": 32}
GPT = {"vocab": 65, "d_model": 128, "layers": 4, "heads": 4, "T": 64, "batch": 12}
# nanoGPT's config/train_shakespeare_char.py (dropout 0.2 there; 0 here, as for GPT)
SHAKESPEARE = {"vocab": 65, "d_model": 384, "layers": 6, "heads": 6, "T": 256, "batch": 64}
QUICK = {"T": 16, "batch": 2}  # --quick: the same models on 2 sequences of 16


# ---- the encoder step: the same modules in both frameworks --------------------------------
def encoder_step(lib, c=ENCODER):
    """A closure running one training step of `c` (ENCODER) in `lib` (minigrad or torch)."""
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(
        c["d_model"], c["heads"], c["ff"], dropout=0.0, batch_first=True, norm_first=True
    )
    # torch: no nested tensors
    model = lib.nn.TransformerEncoder(layer, c["layers"], enable_nested_tensor=False)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((c["batch"], c["T"], c["d_model"]), dtype=np.float32))
    target = lib.from_numpy(
        rng.standard_normal((c["batch"], c["T"], c["d_model"]), dtype=np.float32)
    )
    mask = lib.from_numpy(np.triu(np.full((c["T"], c["T"]), -np.inf, dtype=np.float32), k=1))

    def step():
        opt.zero_grad()
        out = model(x, mask=mask, is_causal=True)
        lib.nn.functional.mse_loss(out, target).backward()
        opt.step()

    return step


# ---- the GPT step ---------------------------------------------------------------------------
def torch_gpt(vocab, d_model, n_layers, n_heads, max_len, bias=True, device="cpu"):
    """models.GPT(vocab, d_model, n_layers, n_heads, max_len) in PyTorch: the same modules
    under the same names (so a minigrad state dict loads), rotary positions (rotate-half,
    base 10000) and the output layer tied to the token embedding; `bias=False` as the
    training job's model (no biases in the Linears and LayerNorms). `device`: where the
    rotary tables live (the model's parameters move with `.to(device)`; the tables, held
    by a closure, do not; benchmarks/bench_gpu.py asks for 'cuda')."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    head_dim = d_model // n_heads
    inv_freq = 10000.0 ** (-np.arange(0, head_dim, 2) / head_dim)
    angles = np.outer(np.arange(max_len), inv_freq)
    angles = np.concatenate([angles, angles], axis=-1)
    cos, sin = (torch.from_numpy(f(angles).astype(np.float32)).to(device) for f in (np.cos, np.sin))

    def rotate(x):  # x (B, H, T, D): x * cos + rotate_half(x) * sin
        T, half = x.shape[-2], x.shape[-1] // 2
        return x * cos[:T] + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin[:T]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.proj = (
                nn.Linear(d_model, 3 * d_model, bias=bias),
                nn.Linear(d_model, d_model, bias=bias),
            )

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (
                t.reshape(B, T, n_heads, head_dim).transpose(1, 2)
                for t in self.qkv(x).split(C, dim=-1)
            )
            y = F.scaled_dot_product_attention(rotate(q), rotate(k), v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(B, T, C))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.proj = (
                nn.Linear(d_model, 4 * d_model, bias=bias),
                nn.Linear(4 * d_model, d_model, bias=bias),
            )

        def forward(self, x):
            return self.proj(F.gelu(self.fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = nn.LayerNorm(d_model, bias=bias), Attention()
            self.ln_2, self.mlp = nn.LayerNorm(d_model, bias=bias), MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class TorchGPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok_emb = nn.Embedding(vocab, d_model)
            self.blocks = nn.ModuleList(Block() for _ in range(n_layers))
            self.ln_f = nn.LayerNorm(d_model, bias=bias)
            self.lm_head = nn.Linear(d_model, vocab, bias=False)
            self.lm_head.weight = self.tok_emb.weight

        def forward(self, idx):
            x = self.tok_emb(idx)
            for block in self.blocks:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return TorchGPT()


def gpt_models(c=GPT):
    """(minigrad's GPT, PyTorch's with the same weights) of `c` (GPT), after checking that
    they agree."""
    import torch

    import minigrad as mg
    from minigrad.models import GPT as MinigradGPT

    mg.manual_seed(0)
    # bias=False on both sides: the model minigrad-train --model gpt builds
    mine = MinigradGPT(c["vocab"], c["d_model"], c["layers"], c["heads"], c["T"], bias=False)
    theirs = torch_gpt(c["vocab"], c["d_model"], c["layers"], c["heads"], c["T"], bias=False)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in mine.state_dict().items()}
    )
    idx = np.random.default_rng(1).integers(0, c["vocab"], (2, c["T"]))
    with mg.no_grad(), torch.no_grad():
        gap = np.abs(mine(mg.from_numpy(idx)).numpy() - theirs(torch.from_numpy(idx)).numpy()).max()
    if not gap < 1e-4:
        raise RuntimeError(
            f"bench_transformer: minigrad's and PyTorch's GPT disagree (logits differ by {gap:.2g})"
        )
    return mine, theirs


def gpt_step(lib, model, c=GPT):
    """A closure running minigrad-train --model gpt's training step (without the learning
    rate schedule) on `model`, in `lib`, on batches of `c` (GPT)."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    opt = lib.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.99))
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(8):
        ids = rng.integers(0, c["vocab"], (c["batch"], c["T"] + 1))
        batches.append((lib.from_numpy(ids[:, :-1].copy()), lib.from_numpy(ids[:, 1:].copy())))
    state = {"i": 0}

    def step():
        x, y = batches[state["i"] % len(batches)]
        state["i"] += 1
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits.reshape(-1, c["vocab"]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return step


# ---- timing -----------------------------------------------------------------------------------
def timed_turn(step, seconds):
    """(wall ms, CPU ms) per step over as many steps as fill `seconds` (at least one)."""
    n, wall, cpu = 0, time.perf_counter(), time.process_time()
    while n == 0 or time.perf_counter() - wall < seconds:
        step()
        n += 1
    return 1e3 * (time.perf_counter() - wall) / n, 1e3 * (time.process_time() - cpu) / n


def span(values, fmt="{:.1f}"):
    """'median (min-max)' of `values`."""
    mid, lo, hi = (fmt.format(x) for x in (statistics.median(values), min(values), max(values)))
    return mid if lo == hi else f"{mid} ({lo}-{hi})"


def with_torch_threads(step, n):
    """`step` run with PyTorch on n threads (its thread count restored afterwards)."""
    import torch

    def run():
        before = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            step()
        finally:
            torch.set_num_threads(before)

    return run


def without_row_kernels(step):
    """The step with the layer_norm and softmax kernel families on their NumPy reference
    (their thresholds out of reach): minigrad before issue #24's point 2, in this process."""
    from minigrad.kernels.cpu import layer_norm, softmax

    def run():
        saved = layer_norm.MIN_KERNEL, softmax.MIN_KERNEL
        layer_norm.MIN_KERNEL = softmax.MIN_KERNEL = 2**62
        try:
            step()
        finally:
            layer_norm.MIN_KERNEL, softmax.MIN_KERNEL = saved

    return run


def compare(name, steps, repeat, seconds):
    """Time the steps ({'minigrad': fn, 'torch': fn, 'torch-1': fn}) in turns and print a
    table, with the ratio minigrad / each PyTorch variant. Returns the median wall ms."""
    for step in steps.values():  # warm-up: kernels compiled or loaded, thread pools started
        for _ in range(2):
            step()
    wall = {k: [] for k in steps}
    cpu = {k: [] for k in steps}
    order = list(steps)
    for r in range(repeat):
        for k in order if r % 2 == 0 else order[::-1]:
            w, c = timed_turn(steps[k], seconds)
            wall[k].append(w)
            cpu[k].append(c)
            time.sleep(0.1)  # let the pool just used stop spinning
    print(f"\n{name}: ms per training step, median (min-max) of {repeat} turns")
    print(f"  {'':18s} {'wall':>24s} {'CPU (all threads)':>24s}")
    for k in steps:
        print(f"  {k:18s} {span(wall[k]):>24s} {span(cpu[k]):>24s}")
    for k in (k for k in steps if k != "minigrad"):
        # each round's turns against each other: the load from elsewhere was about the same
        ratio_wall = [a / b for a, b in zip(wall["minigrad"], wall[k])]
        ratio_cpu = [a / b for a, b in zip(cpu["minigrad"], cpu[k])]
        label = f"minigrad / {k}"
        print(f"  {label:18s} {span(ratio_wall, '{:.2f}x'):>24s} {span(ratio_cpu, '{:.2f}x'):>24s}")
    return {k: statistics.median(v) for k, v in wall.items()}


def profile(name, step, n_steps):
    """Run `step` n_steps times under cProfile and print the 30 functions with the most
    time of their own (the kernels' threads are not seen: their time falls on the call
    that waits for them)."""
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for _ in range(n_steps):
        step()
    profiler.disable()
    ms = 1e3 * (time.perf_counter() - start) / n_steps
    print(f"\n{name}: cProfile of {n_steps} minigrad steps ({ms:.0f} ms a step under the profiler)")
    pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(30)


def generation(n_tokens, repeat, context):
    """Tokens per second of GPT.generate with and without the KV cache, for the baby GPT
    with a context of `context` tokens."""
    import minigrad as mg
    from minigrad.models import GPT as MinigradGPT

    c = GPT
    mg.manual_seed(0)
    model = MinigradGPT(c["vocab"], c["d_model"], c["layers"], c["heads"], context)
    model.eval()
    prompt = mg.zeros(1, 1, dtype=mg.int64)
    rates = {True: [], False: []}
    model.generate(prompt, 4, use_cache=True)  # warm-up
    model.generate(prompt, 4, use_cache=False)
    for r in range(repeat):
        for use_cache in (True, False) if r % 2 == 0 else (False, True):
            start = time.perf_counter()
            model.generate(prompt, n_tokens, use_cache=use_cache)
            rates[use_cache].append(n_tokens / (time.perf_counter() - start))
    print(
        f"\ngenerate: {n_tokens} tokens after a 1-token prompt (context {context}), tokens/s, "
        "median (min-max)"
    )
    print(f"  with the KV cache      {span(rates[True], '{:.0f}')}")
    print(f"  without (whole window) {span(rates[False], '{:.0f}')}")
    ratio = [a / b for a, b in zip(rates[True], rates[False])]
    print(f"  speed-up               {span(ratio, '{:.1f}x')}")


def gpt_case(title, c, args):
    """Time the GPT step of config `c` in both frameworks; returns compare's medians."""
    import torch

    import minigrad as mg

    mine, theirs = gpt_models(c)
    _, theirs_1 = gpt_models(c)  # a copy of its own for PyTorch on one thread
    steps = {"minigrad": gpt_step(mg, mine, c), "torch": gpt_step(torch, theirs, c)}
    if not args.no_torch_1:
        steps["torch-1"] = with_torch_threads(gpt_step(torch, theirs_1, c), 1)
    if args.row_kernels_off:
        mine_2, _ = gpt_models(c)
        steps["mg no row kernels"] = without_row_kernels(gpt_step(mg, mine_2, c))
    name = (
        f"gpt ({title}: {c['layers']} layers, d {c['d_model']}, {c['heads']} heads, T "
        f"{c['T']}, batch {c['batch']}, vocab {c['vocab']})"
    )
    medians = compare(name, steps, args.repeat, args.seconds)
    if args.profile:
        profile(title, steps["minigrad"], args.profile)
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one short turn each: checks that the script runs"
    )
    parser.add_argument("--repeat", type=int, default=5, help="turns per framework (default: 5)")
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="length of a turn, whole steps (default: 1)"
    )
    parser.add_argument(
        "--cases",
        default="encoder,gpt,generate",
        help="comma-separated: encoder, gpt, generate, shakespeare",
    )
    parser.add_argument(
        "--tokens", type=int, default=200, help="tokens generated per run (default: 200)"
    )
    parser.add_argument(
        "--long-context", type=int, default=512, help="the second generation run's context"
    )
    parser.add_argument(
        "--long-tokens", type=int, default=500, help="tokens generated in it (default: 500)"
    )
    parser.add_argument(
        "--row-kernels-off",
        action="store_true",
        help="also time minigrad with layer norm and softmax on their NumPy reference",
    )
    parser.add_argument(
        "--threads", type=int, help="pin both frameworks to N threads (default: their own)"
    )
    parser.add_argument("--no-torch-1", action="store_true", help="leave out PyTorch on one thread")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="STEPS",
        help="profile STEPS more minigrad steps of each case (cProfile, own time)",
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.seconds, args.tokens, args.long_context, args.long_tokens = (
            1,
            0.01,
            8,
            16,
            12,
        )
    cases = args.cases.split(",")
    enc, gpt = ({**ENCODER, **QUICK}, {**GPT, **QUICK}) if args.quick else (ENCODER, GPT)
    large = {**SHAKESPEARE, **QUICK} if args.quick else SHAKESPEARE

    import torch
    import torch.optim  # noqa: F401  (lib.optim below)

    import minigrad as mg
    import minigrad.optim  # noqa: F401

    if args.threads:
        mg.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    threads = mg.threads.info()
    print(
        f"{os.cpu_count()} cores; minigrad: BLAS threads {threads['blas']}, large products cut "
        f"over {threads['matmul_split']}, kernel threads {threads['kernels']}; "
        f"PyTorch {torch.__version__}: {torch.get_num_threads()} threads; float32"
    )
    if "encoder" in cases:
        steps = {"minigrad": encoder_step(mg, enc), "torch": encoder_step(torch, enc)}
        if not args.no_torch_1:
            steps["torch-1"] = with_torch_threads(encoder_step(torch, enc), 1)
        if args.row_kernels_off:
            steps["mg no row kernels"] = without_row_kernels(encoder_step(mg, enc))
        name = (
            f"encoder ({enc['layers']} pre-norm layers, d {enc['d_model']}, {enc['heads']} heads, "
            f"ff {enc['ff']}, T {enc['T']}, batch {enc['batch']}, causal)"
        )
        compare(name, steps, args.repeat, args.seconds)
        if args.profile:
            profile("encoder", steps["minigrad"], args.profile)
    if "gpt" in cases:
        ms = gpt_case("baby GPT", gpt, args)
        print(
            "  2000 steps (minigrad-train --model gpt's run, without evaluation): "
            + ", ".join(f"{k} {2000 * v / 60e3:.1f} min" for k, v in ms.items())
        )
    if "shakespeare" in cases:
        gpt_case("nanoGPT Shakespeare-char", large, args)
    if "generate" in cases:
        generation(args.tokens, args.repeat, GPT["T"])  # the trained model's context
        # where O(T) against O(T^2) shows
        generation(args.long_tokens, args.repeat, args.long_context)


if __name__ == "__main__":
    main()
