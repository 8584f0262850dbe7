"""nn.functional's other families on CUDA tensors (the simulated GPU): padding, resizing,
embeddings, one_hot, distances, shuffles, linear maps and the recurrent sequences. Values
and gradients equal the CPU's, float32 and float64, with no copy between host and device."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.ops.recurrent import GRUSequence, LSTMSequence, RNNSequence
from tests.cuda_same_as_cpu import assert_same_as_cpu

rng = np.random.default_rng(3)
IMAGES = rng.normal(size=(2, 3, 4, 5))
SIGNAL = rng.normal(size=(2, 3, 6))
VOLUME = rng.normal(size=(1, 2, 3, 3, 2))
TABLE = rng.normal(size=(6, 4))
IDS = np.array([[0, 5, 2], [2, 2, 1]])
X, Y = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
W35, B3 = rng.normal(size=(3, 5)), rng.normal(size=3)
T, B, H = 4, 2, 3
PARTS = {k: rng.normal(size=(T, B, k * H)) for k in (1, 3, 4)}  # x W_ih^T + b_ih: RNN, GRU, LSTM
H0, C0 = rng.normal(size=(B, H)), rng.normal(size=(B, H))
W_HH = {k: rng.normal(size=(k * H, H)) * 0.5 for k in (1, 3, 4)}
B_HH = {k: rng.normal(size=k * H) for k in (1, 3, 4)}

CASES = {
    "pad_constant": (lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), [IMAGES]),
    "pad_crop": (lambda x: F.pad(x, (-1, 2)), [IMAGES]),
    "pad_reflect": (lambda x: F.pad(x, (2, 1, 3, 1), mode="reflect"), [IMAGES]),
    "pad_replicate": (lambda x: F.pad(x, (2, 3), mode="replicate"), [SIGNAL]),
    "pad_circular": (lambda x: F.pad(x, (1, 2, 2, 0), mode="circular"), [IMAGES]),
    "interpolate_nearest": (lambda x: F.interpolate(x, size=(7, 3)), [IMAGES]),
    "interpolate_nearest_exact": (
        lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"), [SIGNAL]),
    "interpolate_bilinear": (lambda x: F.interpolate(x, size=(6, 9), mode="bilinear"), [IMAGES]),
    "interpolate_bilinear_corners": (
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True), [IMAGES]),
    "interpolate_trilinear": (
        lambda x: F.interpolate(x, size=(4, 5, 3), mode="trilinear"), [VOLUME]),
    "embedding": (F.embedding, [IDS, TABLE]),
    "embedding_padding_idx": (lambda i, w: F.embedding(i, w, padding_idx=2), [IDS, TABLE]),
    "one_hot": (lambda i: F.one_hot(i, 7), [IDS]),
    "pairwise_distance": (F.pairwise_distance, [X, Y]),
    "cosine_similarity": (F.cosine_similarity, [X, Y]),
    "pdist": (F.pdist, [X]),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [rng.normal(size=(1, 8, 2, 3))]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [rng.normal(size=(1, 2, 4, 6))]),
    "linear": (F.linear, [X, W35, B3]),
    "bilinear": (F.bilinear, [X, Y, rng.normal(size=(3, 5, 5)), B3]),
    "rnn_sequence": (RNNSequence.apply, [PARTS[1], H0, W_HH[1], B_HH[1]]),
    "rnn_sequence_relu_reverse": (
        lambda p, h, w, b: RNNSequence.apply(p, h, w, b, nonlinearity="relu", reverse=True),
        [PARTS[1], H0, W_HH[1], B_HH[1]]),
    "gru_sequence": (GRUSequence.apply, [PARTS[3], H0, W_HH[3], B_HH[3]]),
    "lstm_sequence": (LSTMSequence.apply, [PARTS[4], H0, C0, W_HH[4], B_HH[4]]),
}  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", CASES)
def test_functional_on_cuda_equals_cpu(simulated_gpu, name, dtype):
    fn, arrays = CASES[name]
    assert_same_as_cpu(simulated_gpu, fn, arrays, dtype)


def test_rnn_layer_create_graph_on_cuda(simulated_gpu):
    """The recorded backward of a sequence (create_graph) runs the cells again, on the device."""

    def second(p, h, w, b):
        (g,) = mg.autograd.grad((RNNSequence.apply(p, h, w, b) ** 2).sum(), [p], create_graph=True)
        return g

    assert_same_as_cpu(simulated_gpu, second, [PARTS[1], H0, W_HH[1], B_HH[1]], np.float64)
