"""A character-level MLP that makes up words, written for this project in the style of the
course notebook "makemore, part 2" (Neural Networks: Zero to Hero): the last three characters
of a word looked up in an embedding table `C`, a tanh hidden layer, logits for the next
character; the parameters are plain tensors with `requires_grad = True`, minibatches are
random rows, the step is written by hand on `p.data`, a sweep of exponentially spaced
learning rates shows which one to use, and new words are sampled from the trained model.

Sized for a test: about a thousand words of Tiny Shakespeare instead of names.txt, a hidden
layer of 64 instead of 200, hundreds of steps instead of 200,000. `main(data)` takes the
words, the step counts and a NumPy seed.
"""

import random

import numpy as np
import torch
import torch.nn.functional as F


def main(data):
    words = list(data["words"])
    print(len(words), "words, the first", words[:8])

    # the vocabulary: "." (id 0) stands for both the start and the end of a word
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size = len(itos)
    print(itos)

    # ---- the dataset: every (context of three characters, next character) in every word ----
    block_size = 3

    def build_dataset(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]  # crop and append
        X = torch.tensor(X)
        Y = torch.tensor(Y)
        print(X.shape, Y.shape)
        return X, Y

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n1])  # 80% to train on
    Xdev, Ydev = build_dataset(words[n1:n2])  # 10% to tune with
    Xte, Yte = build_dataset(words[n2:])  # 10% to test on, once

    n_embd, n_hidden = 10, 64

    # ---- which learning rate? a sweep from 0.001 to 1, one step at each ----
    # port: the notebook draws the parameters with torch.randn(..., generator=g) and the
    # minibatches with torch.randint; in the sweep they come from NumPy (seed in data), so
    # that torch and minigrad take exactly the same steps
    rng = np.random.default_rng(data["seed"])
    C = torch.from_numpy(rng.standard_normal((vocab_size, n_embd)).astype(np.float32))
    W1 = torch.from_numpy(rng.standard_normal((n_embd * block_size, n_hidden)).astype(np.float32))
    b1 = torch.from_numpy(rng.standard_normal(n_hidden).astype(np.float32))
    W2 = torch.from_numpy(rng.standard_normal((n_hidden, vocab_size)).astype(np.float32))
    b2 = torch.from_numpy(rng.standard_normal(vocab_size).astype(np.float32))
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True

    sweep_steps = data["sweep_steps"]
    lre = torch.linspace(-3, 0, sweep_steps)
    lrs = 10**lre
    lri, sweep_losses = [], []
    for i in range(sweep_steps):
        ix = torch.from_numpy(rng.integers(0, Xtr.shape[0], (32,)))
        # forward
        emb = C[Xtr[ix]]  # (32, 3, 10)
        h = torch.tanh(emb.view(-1, n_embd * block_size) @ W1 + b1)  # (32, 64)
        logits = h @ W2 + b2  # (32, 27)
        loss = F.cross_entropy(logits, Ytr[ix])
        # backward
        for p in parameters:
            p.grad = None
        loss.backward()
        # update
        lr = lrs[i]
        for p in parameters:
            p.data += -lr * p.grad
        lri.append(lre[i].item())
        sweep_losses.append(loss.item())
    # the notebook plots loss against lre; here, the mean loss over each tenth of the sweep
    tenths = np.array(sweep_losses).reshape(10, -1).mean(axis=1)
    for exponent, mean_loss in zip(np.array(lri).reshape(10, -1)[:, 0], tenths):
        print(f"lr 10**{exponent:+.2f}: mean loss {mean_loss:.4f}")

    # ---- training for real, with the learning rate the sweep suggests, then a tenth of it ----
    g = torch.Generator().manual_seed(2147483647)  # for reproducibility
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g)
    b1 = torch.randn(n_hidden, generator=g)
    W2 = torch.randn((n_hidden, vocab_size), generator=g)
    b2 = torch.randn(vocab_size, generator=g)
    parameters = [C, W1, b1, W2, b2]
    print(sum(p.nelement() for p in parameters), "parameters")
    for p in parameters:
        p.requires_grad = True

    train_steps = data["train_steps"]
    stepi, lossi = [], []
    for i in range(train_steps):
        # minibatch construct
        ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
        # forward pass
        emb = C[Xtr[ix]]
        h = torch.tanh(emb.view(-1, n_embd * block_size) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Ytr[ix])
        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()
        # update
        lr = 0.1 if i < train_steps // 2 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        stepi.append(i)
        lossi.append(loss.log10().item())

    # the loss over whole splits
    split_losses = {}
    for name, (X, Y) in {"train": (Xtr, Ytr), "dev": (Xdev, Ydev), "test": (Xte, Yte)}.items():
        emb = C[X]
        h = torch.tanh(emb.view(-1, n_embd * block_size) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y)
        split_losses[name] = loss.item()
        print(name, loss.item())

    # ---- sample from the model ----
    g = torch.Generator().manual_seed(2147483647 + 10)
    samples = []
    for _ in range(20):
        out = []
        context = [0] * block_size  # start with all "."
        while True:
            emb = C[torch.tensor([context])]  # (1, block_size, n_embd)
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        samples.append("".join(itos[i] for i in out))
        print(samples[-1])

    return {
        "sweep_losses": sweep_losses,
        "lri": lri,
        "train_log10_losses": lossi,
        "split_losses": split_losses,
        "samples": samples,
        "vocab": sorted(stoi),
        "sizes": (len(Xtr), len(Xdev), len(Xte)),
    }
