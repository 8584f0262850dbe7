"""A GPT that learns to add, written for this project in the style of minGPT's adder project
(projects/adder/adder.py with the model.py, trainer.py and utils.py it uses): a `Dataset` of
n-digit additions written as digit tokens (the sum reversed, the prompt's targets masked with
-1 and skipped by `ignore_index=-1`), a GPT whose AdamW groups are chosen by module type, a
`Trainer` that draws batches from an endless `RandomSampler` with `next(data_iter)` and calls
back after every batch, and an evaluation that lets the model write the sum greedily and
checks it.

Sized for a test: one-digit numbers, minGPT's "gpt-nano" model, a few hundred iterations.
`main(data)` takes the command-line overrides (`--trainer.max_iters=...`) and NumPy seeds.
"""

import ast
import math
import random
import time
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset


# ---- utils.py ----------------------------------------------------------------------------
def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


class CfgNode:
    """A config as nested attributes, updated from a dict or from `--a.b=value` arguments."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __str__(self):
        lines = []
        for k, v in self.__dict__.items():
            if isinstance(v, CfgNode):
                lines.append(f"{k}:")
                lines.extend("    " + line for line in str(v).splitlines())
            else:
                lines.append(f"{k}: {v}")
        return "\n".join(lines)

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items()}

    def merge_from_dict(self, d):
        self.__dict__.update(d)

    def merge_from_args(self, args):
        """`--model.n_layer=4` sets config.model.n_layer = 4 (the value read as a Python
        literal where it is one, as a string otherwise)."""
        for arg in args:
            assert arg.startswith("--"), f"expected --key=value, got {arg!r}"
            key, val = arg[2:].split("=", 1)
            try:
                val = ast.literal_eval(val)
            except (ValueError, SyntaxError):
                pass
            *path, leaf = key.split(".")
            node = self
            for name in path:
                node = getattr(node, name)
            assert hasattr(node, leaf), f"{key} is not an attribute that exists in the config"
            print(f"command line overwriting config attribute {key} with {val}")
            setattr(node, leaf, val)


# ---- model.py ----------------------------------------------------------------------------
class NewGELU(nn.Module):
    """GELU with the tanh approximation, as in Google BERT and OpenAI GPT."""

    def forward(self, x):
        return (
            0.5
            * x
            * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
        )


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)
        # each position attends to itself and the positions before it
        size = config.block_size
        self.register_buffer("bias", torch.tril(torch.ones(size, size)).view(1, 1, size, size))
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.ModuleDict(
            dict(
                c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
                c_proj=nn.Linear(4 * config.n_embd, config.n_embd),
                act=NewGELU(),
                dropout=nn.Dropout(config.resid_pdrop),
            )
        )
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x


class GPT(nn.Module):
    # the sizes of the named models; gpt-nano is the smallest
    MODEL_TYPES = {
        "gpt-mini": dict(n_layer=6, n_head=6, n_embd=192),
        "gpt-micro": dict(n_layer=4, n_head=4, n_embd=128),
        "gpt-nano": dict(n_layer=3, n_head=3, n_embd=48),
    }

    @staticmethod
    def get_default_config():
        return CfgNode(
            model_type="gpt",
            n_layer=None,
            n_head=None,
            n_embd=None,
            vocab_size=None,  # the dataset says
            block_size=None,
            embd_pdrop=0.1,
            resid_pdrop=0.1,
            attn_pdrop=0.1,
        )

    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.block_size = config.block_size

        type_given = config.model_type is not None
        params_given = all(
            [config.n_layer is not None, config.n_head is not None, config.n_embd is not None]
        )
        assert type_given ^ params_given, "give a model_type or (n_layer, n_head, n_embd), not both"
        if type_given:
            config.merge_from_dict(self.MODEL_TYPES[config.model_type])

        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.embd_pdrop),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        n_params = sum(p.numel() for p in self.transformer.parameters())
        print("number of parameters: %.2fM" % (n_params / 1e6,))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def configure_optimizers(self, train_config):
        """Weight decay for the weights of Linear layers only: never for biases, LayerNorm
        gains or embeddings. Each parameter is sorted by the kind of module that owns it."""
        decay, no_decay = set(), set()
        decayed_modules = (torch.nn.Linear,)
        undecayed_modules = (torch.nn.LayerNorm, torch.nn.Embedding)
        for mn, m in self.named_modules():
            # both recurse, so a parameter is met again from every module above its own, under
            # the same full name; only its own module's type can put a weight in a group
            for pn, _ in m.named_parameters():
                fpn = "%s.%s" % (mn, pn) if mn else pn  # the full name
                if pn.endswith("bias"):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, decayed_modules):
                    decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, undecayed_modules):
                    no_decay.add(fpn)

        param_dict = {pn: p for pn, p in self.named_parameters()}
        assert not decay & no_decay, f"parameters {decay & no_decay} are in both groups"
        assert not param_dict.keys() - (decay | no_decay), (
            f"parameters {param_dict.keys() - (decay | no_decay)} in no group"
        )

        optim_groups = [
            {
                "params": [param_dict[pn] for pn in sorted(decay)],
                "weight_decay": train_config.weight_decay,
            },
            {"params": [param_dict[pn] for pn in sorted(no_decay)], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(
            optim_groups, lr=train_config.learning_rate, betas=train_config.betas
        )

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.block_size, (
            f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        )
        pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)  # shape (1, t)

        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)

        loss = None
        if targets is not None:
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size :]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            if do_sample:
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


# ---- trainer.py --------------------------------------------------------------------------
class Trainer:
    @staticmethod
    def get_default_config():
        return CfgNode(
            device="auto",
            num_workers=4,
            max_iters=None,
            batch_size=64,
            learning_rate=3e-4,
            betas=(0.9, 0.95),
            weight_decay=0.1,  # only on the matmul weights
            grad_norm_clip=1.0,
        )

    def __init__(self, config, model, train_dataset):
        self.config = config
        self.model = model
        self.optimizer = None
        self.train_dataset = train_dataset
        self.callbacks = defaultdict(list)

        if config.device == "auto":
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            self.device = config.device
        self.model = self.model.to(self.device)
        print("running on device", self.device)

        self.iter_num = 0
        self.iter_time = 0.0
        self.iter_dt = 0.0

    def add_callback(self, onevent, callback):
        self.callbacks[onevent].append(callback)

    def set_callback(self, onevent, callback):
        self.callbacks[onevent] = [callback]

    def trigger_callbacks(self, onevent):
        for callback in self.callbacks.get(onevent, []):
            callback(self)

    def run(self):
        model, config = self.model, self.config
        self.optimizer = model.configure_optimizers(config)

        # batches drawn with replacement from a sampler that never runs out
        train_loader = DataLoader(
            self.train_dataset,
            sampler=torch.utils.data.RandomSampler(
                self.train_dataset, replacement=True, num_samples=int(1e10)
            ),
            shuffle=False,
            pin_memory=True,
            batch_size=config.batch_size,
            num_workers=config.num_workers,
        )

        model.train()
        self.iter_num = 0
        self.iter_time = time.time()
        data_iter = iter(train_loader)
        while True:
            try:
                batch = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                batch = next(data_iter)
            batch = [t.to(self.device) for t in batch]
            x, y = batch

            logits, self.loss = model(x, y)
            model.zero_grad(set_to_none=True)
            self.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
            self.optimizer.step()

            self.trigger_callbacks("on_batch_end")
            self.iter_num += 1
            tnow = time.time()
            self.iter_dt = tnow - self.iter_time
            self.iter_time = tnow

            if config.max_iters is not None and self.iter_num >= config.max_iters:
                break


# ---- projects/adder/adder.py -------------------------------------------------------------
class AdditionDataset(Dataset):
    """a + b = c for n-digit a and b, as one token per digit: "0305" + "800" is 3 + 5 = 08,
    the sum written backwards (the model finds the carry more easily from the ones up) and
    padded to n + 1 digits. The targets of the prompt positions are -1, so the loss counts
    only the digits of the sum."""

    @staticmethod
    def get_default_config():
        return CfgNode(ndigit=2)

    def __init__(self, config, split, seed):
        self.config = config
        self.split = split  # train or test
        # the same problems are held out in both splits' datasets
        ndigit = self.config.ndigit
        assert ndigit <= 3, "the lists of problems get large past 3 digits"
        num = (10**ndigit) ** 2  # every pair (a, b)
        # port: minGPT draws this permutation with torch.randperm(num, generator=rng); NumPy's
        # (seed in data) gives torch and minigrad the same split
        perm = np.random.default_rng(seed).permutation(num).tolist()
        num_test = min(int(num * 0.2), 500)  # a fifth, at most 500 problems
        self.ixes = perm[:num_test] if split == "test" else perm[num_test:]

    def get_vocab_size(self):
        return 10  # the digits

    def get_block_size(self):
        # a, b and the sum, less one: the last digit is only ever a target
        return 3 * self.config.ndigit + 1 - 1

    def __len__(self):
        return len(self.ixes)

    def __getitem__(self, idx):
        ndigit = self.config.ndigit
        a, b = divmod(self.ixes[idx], 10**ndigit)
        digits = f"{a:0{ndigit}d}" + f"{b:0{ndigit}d}" + f"{a + b:0{ndigit + 1}d}"[::-1]
        dix = [int(s) for s in digits]
        x = torch.tensor(dix[:-1], dtype=torch.long)
        y = torch.tensor(dix[1:], dtype=torch.long)  # the next digit at each position
        y[: ndigit * 2 - 1] = -1  # no loss where the model reads a and b
        return x, y


def get_config():
    C = CfgNode()
    C.system = CfgNode(seed=3407, work_dir="./out/adder")
    C.data = AdditionDataset.get_default_config()
    C.model = GPT.get_default_config()
    C.model.model_type = "gpt-nano"
    C.trainer = Trainer.get_default_config()
    C.trainer.learning_rate = 5e-4  # the model is tiny, so a higher rate is fine
    return C


def main(data):
    config = get_config()
    config.merge_from_args(data["argv"])
    print(config)
    set_seed(config.system.seed)

    train_dataset = AdditionDataset(config.data, split="train", seed=data["split_seed"])
    test_dataset = AdditionDataset(config.data, split="test", seed=data["split_seed"])

    config.model.vocab_size = train_dataset.get_vocab_size()
    config.model.block_size = train_dataset.get_block_size()
    model = GPT(config.model)
    # port: GPT's _init_weights draws from torch's generator; the same distributions drawn
    # from NumPy (seed in data) give torch and minigrad the same starting model
    rng = np.random.default_rng(data["init_seed"])
    with torch.no_grad():
        for pn, p in model.named_parameters():
            if p.dim() >= 2:
                std = (
                    0.02 / math.sqrt(2 * config.model.n_layer)
                    if pn.endswith("c_proj.weight")
                    else 0.02
                )
                p.copy_(
                    torch.from_numpy((rng.standard_normal(tuple(p.shape)) * std).astype(np.float32))
                )

    trainer = Trainer(config.trainer, model, train_dataset)

    def eval_split(trainer, split, max_batches=None):
        """The fraction of problems whose sum the model writes correctly, greedily."""
        dataset = {"train": train_dataset, "test": test_dataset}[split]
        ndigit = config.data.ndigit
        results = []
        mistakes_printed_already = 0
        # place values: [[100, 10, 1]] for two digits
        factors = torch.tensor([[10**i for i in range(ndigit + 1)][::-1]]).to(trainer.device)
        loader = DataLoader(dataset, batch_size=100, num_workers=0, drop_last=False)
        for b, (x, _) in enumerate(loader):
            x = x.to(trainer.device)
            d1d2 = x[:, : ndigit * 2]  # the prompt, a then b
            d1d2d3 = model.generate(d1d2, ndigit + 1, do_sample=False)
            d3 = d1d2d3[:, -(ndigit + 1) :]
            d3 = d3.flip(1)  # the sum was written backwards
            d1i = (d1d2[:, :ndigit] * factors[:, 1:]).sum(1)
            d2i = (d1d2[:, ndigit : ndigit * 2] * factors[:, 1:]).sum(1)
            d3i_pred = (d3 * factors).sum(1)
            d3i_gt = d1i + d2i
            correct = (d3i_pred == d3i_gt).cpu()
            for i in range(x.size(0)):
                results.append(int(correct[i]))
                if not correct[i] and mistakes_printed_already < 5:
                    mistakes_printed_already += 1
                    print(
                        "GPT claims that %d + %d = %d but gt is %d"
                        % (d1i[i], d2i[i], d3i_pred[i], d3i_gt[i])
                    )
            if max_batches is not None and b + 1 >= max_batches:
                break
        rt = torch.tensor(results, dtype=torch.float)
        print(
            "%s final score: %d/%d = %.2f%% correct"
            % (split, rt.sum(), len(results), 100 * rt.mean())
        )
        return rt.sum()

    # this project: the untrained model's scores, before the trainer draws any random batch
    model.eval()
    with torch.no_grad():
        untrained = (eval_split(trainer, "train").item(), eval_split(trainer, "test").item())
        x, y = next(iter(DataLoader(train_dataset, batch_size=len(train_dataset))))
        _, untrained_loss = model(x, y)
        print(f"untrained loss on the training set: {untrained_loss.item():.6f}")
    model.train()

    losses, scores = [], []
    top_score = 0

    def batch_end_callback(trainer):
        nonlocal top_score
        losses.append(trainer.loss.item())
        if trainer.iter_num % 10 == 0:
            print(
                f"iter_dt {trainer.iter_dt * 1000:.2f}ms; iter {trainer.iter_num}: train loss "
                f"{trainer.loss.item():.5f}"
            )
        if trainer.iter_num % data["eval_every"] == 0:
            model.eval()
            with torch.no_grad():
                train_score = eval_split(trainer, "train", max_batches=5)
                test_score = eval_split(trainer, "test", max_batches=None)
            score = train_score + test_score
            scores.append((train_score.item(), test_score.item()))
            if score > top_score:
                top_score = score
                print(f"saving model with new top score of {score}")
                torch.save(model.state_dict(), data["ckpt_path"])
            model.train()

    trainer.set_callback("on_batch_end", batch_end_callback)
    trainer.run()

    # this project: the best model's weights back, scored again
    model.load_state_dict(torch.load(data["ckpt_path"]))
    model.eval()
    with torch.no_grad():
        best = eval_split(trainer, "train", max_batches=5) + eval_split(trainer, "test")
    return {
        "untrained": untrained,
        "untrained_loss": untrained_loss.item(),
        "losses": losses,
        "scores": scores,
        "top_score": float(top_score),
        "best_reloaded": best.item(),
        "sizes": (len(train_dataset), len(test_dataset)),
    }
