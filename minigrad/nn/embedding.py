"""Embedding: a learned vector per token id, looked up by index; EmbeddingBag: the sum,
mean or max of a bag of them.

`Embedding(num_embeddings, embedding_dim)` holds a weight of shape (num_embeddings,
embedding_dim); `emb(ids)` returns `weight[ids]`, so ids of shape (B, T) give vectors of
shape (B, T, embedding_dim). It is a Linear layer applied to one-hot vectors, without
ever building them.
"""

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import empty
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.functional.sparse import normalize_padding_idx
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


class Embedding(Module):
    """y = weight[input], weight: (num_embeddings, embedding_dim), initialised N(0, 1).

    `padding_idx` names a row (e.g. the id of a padding token) that starts at zero and
    never receives a gradient, so it stays whatever it is set to. A negative padding_idx
    counts from the end. `device` (the CPU) and `dtype` (the weight's) are PyTorch's
    factory keywords; keyword-only, as PyTorch's come after arguments minigrad lacks.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, *, device=None, dtype=None):
        super().__init__()
        check_device(device, "Embedding")
        if num_embeddings < 0 or embedding_dim < 0:
            raise ValueError(
                f"Embedding: sizes must be non-negative, got num_embeddings={num_embeddings}, "
                f"embedding_dim={embedding_dim}"
            )
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            padding_idx = normalize_padding_idx(padding_idx, num_embeddings, "Embedding")
        self.padding_idx = padding_idx
        self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None):
        """An Embedding holding a copy of `embeddings` (a 2-D tensor or array); with
        freeze=True its weight does not require grad."""
        if embeddings.ndim != 2:
            raise ValueError(
                f"Embedding.from_pretrained: embeddings must be 2-D, got shape {embeddings.shape}"
            )
        rows, dim = embeddings.shape
        embedding = cls(rows, dim, padding_idx=padding_idx, dtype=embeddings.dtype)
        with no_grad():
            # copy_ after init: the padding row keeps the given values
            embedding.weight.copy_(embeddings)
        embedding.weight.requires_grad_(not freeze)
        return embedding

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text


class EmbeddingBag(Module):
    """The sum, mean or max of bags of embeddings (F.embedding_bag): a bag of words, or
    the features of a variable-length set, as one vector, without the (bags, length, dim)
    lookup in between. forward(input, offsets=None, per_sample_weights=None): a 2-D input
    is one bag per row; a 1-D input is cut into bags at `offsets`.

    weight (num_embeddings, embedding_dim), initialised N(0, 1) with the padding_idx row at
    0, as torch's; `_weight` gives the initial weight instead. sparse=True is refused
    (minigrad's gradients are dense).
    """

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        _weight=None,
        include_last_offset=False,
        padding_idx=None,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, "EmbeddingBag")
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode has to be one of sum, mean or max, got {mode!r}")
        if sparse:
            raise ValueError(
                "EmbeddingBag: sparse=True (a sparse weight gradient) is not supported"
            )
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = (
            max_norm,
            norm_type,
            scale_grad_by_freq,
        )
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if padding_idx is not None:
            padding_idx = normalize_padding_idx(padding_idx, num_embeddings, "EmbeddingBag")
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"EmbeddingBag: shape of _weight {tuple(_weight.shape)} does not match "
                    f"(num_embeddings, embedding_dim) = ({num_embeddings}, {embedding_dim})"
                )
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx!r}"
        return text
