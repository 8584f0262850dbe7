"""A deeper character-level MLP with batch normalization, written for this project in the
style of the course notebook "makemore, part 3" (Neural Networks: Zero to Hero): `Linear`,
`BatchNorm1d` and `Tanh` written by hand as small classes in the manner of torch.nn, stacked
in a `layers` list; the last layer made less confident under `torch.no_grad()`; each layer's
output kept with `retain_grad()` so that the statistics of the activations and of their
gradients can be printed after a step, with histograms (`torch.histogram`) and the
update-to-data ratio of every parameter; the running statistics of batch norm used for
evaluation and for sampling.

Sized for a test: about a thousand words of Tiny Shakespeare, three hidden layers of 64,
a few hundred steps. `main(data)` takes the words, the step count and a NumPy seed.
"""

import random

import numpy as np
import torch
import torch.nn.functional as F


class Linear:
    def __init__(self, fan_in, fan_out, rng, bias=True):
        # port: the notebook draws torch.randn((fan_in, fan_out), generator=g); NumPy's
        # generator (rng) gives torch and minigrad the same weights
        self.weight = (
            torch.from_numpy(rng.standard_normal((fan_in, fan_out)).astype(np.float32))
            / fan_in**0.5
        )
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        # parameters, trained by backpropagation
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        # buffers, trained by a running average
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            xmean = x.mean(0, keepdim=True)  # the batch mean
            xvar = x.var(0, keepdim=True)  # the batch variance (unbiased, as torch's default)
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # unit variance
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


def main(data):
    words = list(data["words"])
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size = len(itos)

    block_size = 3  # how many characters predict the next one

    def build_dataset(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]
        return torch.tensor(X), torch.tensor(Y)

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n1])
    Xdev, Ydev = build_dataset(words[n1:n2])
    Xte, Yte = build_dataset(words[n2:])

    n_embd = 10  # the size of a character's embedding
    n_hidden = 64  # the neurons in each hidden layer
    # port: the notebook's g = torch.Generator().manual_seed(2147483647) draws the
    # parameters and the minibatches; here NumPy's generator does (seed in data)
    rng = np.random.default_rng(data["seed"])

    C = torch.from_numpy(rng.standard_normal((vocab_size, n_embd)).astype(np.float32))
    layers = [
        Linear(n_embd * block_size, n_hidden, rng, bias=False), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, n_hidden, rng, bias=False), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, n_hidden, rng, bias=False), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, vocab_size, rng, bias=False), BatchNorm1d(vocab_size),
    ]  # fmt: skip

    with torch.no_grad():
        # the last layer: less confident at the start
        layers[-1].gamma *= 0.1
        # the other layers: the tanh gain
        for layer in layers[:-1]:
            if isinstance(layer, Linear):
                layer.weight *= 5 / 3

    parameters = [C] + [p for layer in layers for p in layer.parameters()]
    print(sum(p.nelement() for p in parameters), "parameters")
    for p in parameters:
        p.requires_grad = True

    # ---- optimisation ----
    max_steps = data["max_steps"]
    batch_size = 32
    lossi = []
    ud = []  # the update-to-data ratios, one list per step

    for i in range(max_steps):
        # a minibatch
        ix = torch.from_numpy(rng.integers(0, Xtr.shape[0], (batch_size,)))
        Xb, Yb = Xtr[ix], Ytr[ix]

        # forward
        emb = C[Xb]  # embed the characters
        x = emb.view(emb.shape[0], -1)  # concatenate the vectors
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, Yb)

        # backward
        for layer in layers:
            layer.out.retain_grad()  # to look at the activations' gradients after the step
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < max_steps * 3 // 4 else 0.01  # step decay
        for p in parameters:
            p.data += -lr * p.grad

        # statistics
        if i % 50 == 0:
            print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
        lossi.append(loss.log10().item())
        with torch.no_grad():
            ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])

    # ---- what the last step saw: activations, gradients, ratios ----
    # (the notebook draws each as a figure; the numbers behind them are printed here)
    print("activation distribution")
    histograms = []
    for i, layer in enumerate(layers[:-1]):
        if isinstance(layer, Tanh):
            t = layer.out
            print(
                "layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%"
                % (
                    i,
                    layer.__class__.__name__,
                    t.mean(),
                    t.std(),
                    (t.abs() > 0.97).float().mean() * 100,
                )
            )
            hy, hx = torch.histogram(t, density=True)
            histograms.append((hx[:-1].detach().numpy(), hy.detach().numpy()))

    print("gradient distribution")
    for i, layer in enumerate(layers[:-1]):
        if isinstance(layer, Tanh):
            t = layer.out.grad
            print(
                "layer %d (%10s): mean %+f, std %e"
                % (i, layer.__class__.__name__, t.mean(), t.std())
            )

    print("weights gradient distribution")
    for p in parameters:
        t = p.grad
        if p.ndim == 2:
            print(
                "weight %10s | mean %+f | std %e | grad:data ratio %e"
                % (tuple(p.shape), t.mean(), t.std(), t.std() / p.std())
            )

    print("update to data ratio (log10) at the last step")
    for i, p in enumerate(parameters):
        if p.ndim == 2:
            print("param %d %10s: %.3f" % (i, tuple(p.shape), ud[-1][i]))

    # ---- evaluation, with the running statistics ----
    for layer in layers:
        layer.training = False

    @torch.no_grad()  # no graph is needed in here
    def split_loss(split):
        x, y = {"train": (Xtr, Ytr), "val": (Xdev, Ydev), "test": (Xte, Yte)}[split]
        emb = C[x]  # (N, block_size, n_embd)
        x = emb.view(emb.shape[0], -1)  # (N, block_size * n_embd)
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, y)
        print(split, loss.item())
        return loss.item()

    split_losses = {"train": split_loss("train"), "val": split_loss("val")}

    # ---- sample from the model ----
    g = torch.Generator().manual_seed(2147483647 + 10)
    samples = []
    for _ in range(10):
        out = []
        context = [0] * block_size
        while True:
            emb = C[torch.tensor([context])]  # (1, block_size, n_embd)
            x = emb.view(emb.shape[0], -1)
            for layer in layers:
                x = layer(x)
            logits = x
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        samples.append("".join(itos[i] for i in out))
        print(samples[-1])

    return {
        "log10_losses": lossi,
        "ud": ud,
        "split_losses": split_losses,
        "running_mean": layers[1].running_mean.numpy(),
        "running_var": layers[-1].running_var.numpy(),
        "histograms": histograms,
        "samples": samples,
        "vocab": sorted(stoi),
    }
