"""A word-level recurrent language model, written for this project in the style of the
PyTorch examples' word_language_model (its data.py, model.py and main.py in one file): a
dictionary and a corpus of word ids, the token stream laid out in columns, truncated
backpropagation through time with the hidden state carried from batch to batch, plain SGD
written by hand with gradient clipping, a learning rate cut by four whenever the validation
loss stops improving, and the best model saved whole and loaded back for the test set.

Sized for a test: a few hundred lines of Tiny Shakespeare instead of WikiText-2, a small
two-layer model, a few epochs. `main(data)` takes the lines of each split, the command line
(`data["argv"]`) and a NumPy seed for the starting weights.
"""

import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser(description="word-level language model on Tiny Shakespeare")
parser.add_argument("--model", type=str, default="LSTM", help="LSTM, GRU, RNN_TANH or RNN_RELU")
parser.add_argument("--emsize", type=int, default=200, help="size of the word embeddings")
parser.add_argument("--nhid", type=int, default=200, help="hidden units per layer")
parser.add_argument("--nlayers", type=int, default=2, help="number of recurrent layers")
parser.add_argument("--lr", type=float, default=20, help="initial learning rate")
parser.add_argument("--clip", type=float, default=0.25, help="gradient clipping")
parser.add_argument("--epochs", type=int, default=40, help="upper epoch limit")
parser.add_argument("--batch_size", type=int, default=20, metavar="N", help="batch size")
parser.add_argument("--bptt", type=int, default=35, help="sequence length")
parser.add_argument(
    "--dropout", type=float, default=0.2, help="dropout applied to layers (0 = no dropout)"
)
parser.add_argument(
    "--tied", action="store_true", help="tie the word embedding and softmax weights"
)
parser.add_argument("--seed", type=int, default=1111, help="random seed")
parser.add_argument("--cuda", action="store_true", help="use CUDA")
parser.add_argument("--log-interval", type=int, default=200, metavar="N", help="report interval")
parser.add_argument("--save", type=str, default="model.pt", help="where to save the final model")


# ---- data -------------------------------------------------------------------------------
class Dictionary:
    """Words to ids and back; a new word gets the next id."""

    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        idx = self.word2idx.get(word)
        if idx is None:
            idx = self.word2idx[word] = len(self.idx2word)
            self.idx2word.append(word)
        return idx

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    """The three splits as 1-D tensors of word ids; every line ends with an <eos> token."""

    def __init__(self, train_lines, valid_lines, test_lines):
        self.dictionary = Dictionary()
        self.train = self.tokenize(train_lines)
        self.valid = self.tokenize(valid_lines)
        self.test = self.tokenize(test_lines)

    def tokenize(self, lines):
        ids = []
        for line in lines:
            ids.extend(self.dictionary.add_word(word) for word in line.split() + ["<eos>"])
        return torch.tensor(ids, dtype=torch.int64)


def batchify(data, bsz, device):
    """Lay a stream of ids out as `bsz` columns (the ids that do not fill the last row are
    dropped): column j is the j-th slice of the text, so batches can carry the hidden state."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous().to(device)


def get_batch(source, i, bptt):
    """Rows i .. i+bptt of the columns as input; the same rows one step later as target."""
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


# ---- model ------------------------------------------------------------------------------
class RNNModel(nn.Module):
    """Encoder (embedding), a recurrent stack, and a decoder back to the vocabulary."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        elif rnn_type in ["RNN_TANH", "RNN_RELU"]:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        else:
            raise ValueError(f"--model {rnn_type!r}: choose LSTM, GRU, RNN_TANH or RNN_RELU")
        self.decoder = nn.Linear(nhid, ntoken)

        # Tying the decoder to the encoder (Press & Wolf 2016; Inan et al. 2016) saves a
        # vocabulary-sized matrix and usually helps; it needs the two sizes to agree.
        if tie_weights:
            if nhid != ninp:
                raise ValueError("--tied needs --nhid equal to --emsize")
            self.decoder.weight = self.encoder.weight

        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (
                weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid),
            )
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    """The hidden state's values without its history, so backpropagation stops at the start
    of the batch instead of running back to the start of the text."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


# ---- training ---------------------------------------------------------------------------
def evaluate(model, criterion, data_source, eval_batch_size, bptt):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, criterion, train_data, lr, epoch, args, losses):
    model.train()
    total_loss = 0.0
    start_time = time.time()
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        # A fresh history for each batch: the values carry over, the graph does not.
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # clip_grad_norm_ keeps the exploding gradients of RNNs in check.
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)

        total_loss += loss.item()
        losses.append(loss.item())
        if batch % args.log_interval == 0 and batch > 0:
            cur_loss = total_loss / args.log_interval
            elapsed = time.time() - start_time
            print(
                f"| epoch {epoch:3d} | {batch:5d}/{len(train_data) // args.bptt:5d} batches | "
                f"lr {lr:02.2f} | ms/batch {elapsed * 1000 / args.log_interval:5.2f} | "
                f"loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}"
            )
            total_loss = 0.0
            start_time = time.time()


def main(data):
    args = parser.parse_args(data["argv"])
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if args.cuda else "cpu")

    corpus = Corpus(data["train"], data["valid"], data["test"])
    eval_batch_size = 10
    train_data = batchify(corpus.train, args.batch_size, device)
    val_data = batchify(corpus.valid, eval_batch_size, device)
    test_data = batchify(corpus.test, eval_batch_size, device)

    ntokens = len(corpus.dictionary)
    model = RNNModel(
        args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied
    ).to(device)
    # port: the example trains from torch's random initialisation; here every parameter is
    # redrawn from NumPy (seed in data), uniform in [-0.1, 0.1], so that torch and minigrad
    # train the same model
    rng = np.random.default_rng(data["seed"])
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.copy_(
                torch.from_numpy(rng.uniform(-0.1, 0.1, size=tuple(p.shape)).astype(np.float32))
            )
    criterion = nn.NLLLoss()

    lr = args.lr
    best_val_loss = None
    losses, val_losses, lrs = [], [], []
    for epoch in range(1, args.epochs + 1):
        epoch_start_time = time.time()
        train(model, criterion, train_data, lr, epoch, args, losses)
        val_loss = evaluate(model, criterion, val_data, eval_batch_size, args.bptt)
        print("-" * 89)
        print(
            f"| end of epoch {epoch:3d} | time: {time.time() - epoch_start_time:5.2f}s | "
            f"valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}"
        )
        print("-" * 89)
        val_losses.append(val_loss)
        lrs.append(lr)
        if best_val_loss is None or val_loss < best_val_loss:
            with open(args.save, "wb") as f:
                torch.save(model, f)
            best_val_loss = val_loss
        else:
            # No improvement on the validation set: anneal the learning rate.
            lr /= 4.0

    # The best model, saved whole, comes back for the test set.
    # port: minigrad builds a class of this script from a file only once it is allowed (no
    # pickle: see mg.save), even with weights_only=False; torch accepts the same call
    torch.serialization.add_safe_globals([RNNModel])
    with open(args.save, "rb") as f:
        model = torch.load(f, weights_only=False)
        # The loaded weights are no longer one contiguous chunk; cuDNN wants them to be.
        model.rnn.flatten_parameters()

    test_loss = evaluate(model, criterion, test_data, eval_batch_size, args.bptt)
    print("=" * 89)
    print(f"| End of training | test loss {test_loss:5.2f} | test ppl {math.exp(test_loss):8.2f}")
    print("=" * 89)
    return {
        "losses": losses,
        "val_losses": val_losses,
        "lrs": lrs,
        "test_loss": test_loss,
        "best_val_loss": best_val_loss,
        "ntokens": ntokens,
        "model_type": type(model).__name__,
    }
