"""minigrad.data: Dataset, TensorDataset, Subset, random_split, default_collate, DataLoader.

PyTorch's torch.utils.data is the oracle: the same batches (structure, dtypes, values)
for the same examples, the same lengths, the same split sizes.
"""

import collections
import math
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud
from torch.utils.data._utils.collate import default_convert as torch_default_convert

import minigrad as mg
from minigrad.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.utils.data.DataLoader",
    "torch.utils.data.Dataset",
    "torch.utils.data.Subset",
    "torch.utils.data.TensorDataset",
    "torch.utils.data.default_collate",
    "torch.utils.data.default_convert",
    "torch.utils.data.random_split",
]

Point = collections.namedtuple("Point", ["x", "y"])


def assert_same_batch(mine, theirs):
    """Walk a minigrad batch and a PyTorch batch together: same containers, and tensors
    with the same shape, dtype and values."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, mg.Tensor), f"expected a Tensor, got {type(mine).__name__}"
        assert mine.shape == tuple(theirs.shape)
        assert str(mine.dtype) == str(theirs.dtype).replace("torch.", ""), (
            f"{mine.dtype} vs {theirs.dtype}"
        )
        np.testing.assert_array_equal(mine.array, theirs.numpy())
    elif isinstance(theirs, dict):
        assert type(mine) is type(theirs) and list(mine) == list(theirs)
        for key in theirs:
            assert_same_batch(mine[key], theirs[key])
    elif isinstance(theirs, (list, tuple)):
        assert type(mine) is type(theirs), f"{type(mine).__name__} vs {type(theirs).__name__}"
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            assert_same_batch(a, b)
    else:
        assert type(mine) is type(theirs) and mine == theirs, f"{mine!r} vs {theirs!r}"


def as_torch(example):
    """The same example with minigrad Tensors replaced by torch tensors."""
    if isinstance(example, mg.Tensor):
        return torch.from_numpy(example.array.copy())
    if isinstance(example, dict):
        return type(example)((k, as_torch(v)) for k, v in example.items())
    if isinstance(example, Point):
        return Point(*(as_torch(v) for v in example))
    if isinstance(example, (list, tuple)):
        return type(example)(as_torch(v) for v in example)
    return example


# ---- Dataset, TensorDataset, Subset -----------------------------------------------------------
def test_dataset_base_class_says_what_a_subclass_must_define():
    class Empty(Dataset):
        pass

    with pytest.raises(NotImplementedError, match="Empty must define __getitem__"):
        Empty()[0]
    with pytest.raises(NotImplementedError, match="Empty must define __len__"):
        len(Empty())


def test_tensor_dataset_returns_one_row_of_each_tensor():
    x, y = mg.arange(12).reshape(6, 2), mg.tensor([5, 4, 3, 2, 1, 0])
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[2]
    assert xi.tolist() == [4, 5] and yi.item() == 3
    assert ds[-1][1].item() == 0


def test_tensor_dataset_wraps_numpy_arrays_without_copying():
    x = np.arange(6.0).reshape(3, 2)
    ds = TensorDataset(x)
    assert isinstance(ds.tensors[0], mg.Tensor) and ds.tensors[0].array is x
    assert ds[1][0].tolist() == [2.0, 3.0]


def test_tensor_dataset_rejects_tensors_of_different_lengths_naming_the_shapes():
    with pytest.raises(ValueError, match=r"same size in dimension 0.*\(3, 2\), \(4,\)"):
        TensorDataset(mg.zeros(3, 2), mg.zeros(4))


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((), ValueError, "at least one tensor"),
        ((mg.tensor(1.0),), ValueError, "argument 0 is 0-d"),
        ((mg.zeros(2), [1, 2]), TypeError, "argument 1 must be a Tensor or np.ndarray, got list"),
    ],
)
def test_tensor_dataset_argument_errors(args, error, message):
    with pytest.raises(error, match=message):
        TensorDataset(*args)


def test_subset_looks_examples_up_through_its_indices():
    ds = TensorDataset(mg.arange(10) * 10)
    sub = Subset(ds, [7, 2, 2, 9])
    assert len(sub) == 4
    assert [sub[i][0].item() for i in range(4)] == [70, 20, 20, 90]


# ---- random_split -------------------------------------------------------------------------------
def indices_of(subsets):
    return [list(s.indices) for s in subsets]


def test_random_split_with_counts_deals_every_index_exactly_once():
    mg.manual_seed(0)
    parts = random_split(TensorDataset(mg.arange(20)), [12, 5, 3])
    assert [len(p) for p in parts] == [12, 5, 3]
    everything = sorted(i for p in indices_of(parts) for i in p)
    assert everything == list(range(20))
    assert indices_of(parts)[0] != list(range(12)), "the indices were not shuffled"
    # each part holds what the dataset holds at its indices
    assert [parts[1][k][0].item() for k in range(5)] == indices_of(parts)[1]


@pytest.mark.parametrize(
    "n, fractions",
    [
        (10, [0.8, 0.2]),
        (7, [0.5, 0.5]),
        (11, [0.3, 0.3, 0.4]),
        (3, [0.1, 0.1, 0.8]),
        (100, [0.25] * 4),
        (5, [1.0]),
    ],
)
def test_random_split_fractions_give_pytorchs_lengths(n, fractions):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty part warns, in both libraries
        theirs = [len(s) for s in tud.random_split(range(n), fractions)]
        mine = [len(s) for s in random_split(TensorDataset(mg.zeros(n)), fractions)]
    assert mine == theirs


def test_random_split_is_seeded_by_manual_seed():
    ds = TensorDataset(mg.zeros(30))
    mg.manual_seed(3)
    first = indices_of(random_split(ds, [0.5, 0.5]))
    mg.manual_seed(3)
    again = indices_of(random_split(ds, [0.5, 0.5]))
    mg.manual_seed(4)
    other = indices_of(random_split(ds, [0.5, 0.5]))
    assert first == again
    assert first != other


def test_random_split_accepts_a_generator_and_leaves_the_global_one_alone():
    ds = TensorDataset(mg.zeros(30))
    a = indices_of(random_split(ds, [10, 20], generator=np.random.default_rng(1)))
    b = indices_of(random_split(ds, [10, 20], generator=np.random.default_rng(1)))
    assert a == b
    mg.manual_seed(0)
    expected = mg.random.generator().permutation(5)
    mg.manual_seed(0)
    random_split(ds, [10, 20], generator=np.random.default_rng(1))
    np.testing.assert_array_equal(mg.random.generator().permutation(5), expected)


@pytest.mark.parametrize(
    "lengths, message",
    [
        ([3, 3], r"sum to 6, but the dataset has 10 examples"),
        ([0.5, 0.6], r"sum to 1.1, expected 1"),
        ([1.5, -0.5], r"fraction at index 0 is 1.5"),
        ([12, -2], r"non-negative"),
        ([], r"lengths is empty"),
    ],
)
def test_random_split_errors(lengths, message):
    with pytest.raises(ValueError, match=message):
        random_split(TensorDataset(mg.zeros(10)), lengths)


def test_random_split_warns_about_an_empty_part():
    with pytest.warns(UserWarning, match="part 1 is empty"):
        parts = random_split(TensorDataset(mg.zeros(3)), [0.8, 0.2])
    assert [len(p) for p in parts] == [3, 0]


# ---- default_collate -----------------------------------------------------------------------------
COLLATE_CASES = {
    "tensors": [mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]), mg.tensor([5.0, 6.0])],
    "int tensors": [mg.tensor([[1, 2]]), mg.tensor([[3, 4]])],
    "0-d tensors": [mg.tensor(1.5), mg.tensor(2.5)],
    "arrays": [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "float64 arrays": [np.arange(3.0), np.arange(3.0) + 1],
    "0-d arrays": [np.array(1.5), np.array(2.5)],
    "ints": [3, 7, 1],
    "floats": [0.5, 1.5],
    "bools": [True, False, True],
    "numpy float32 scalars": [np.float32(1.0), np.float32(2.0)],
    "numpy int32 scalars": [np.int32(4), np.int32(5)],
    "strings": ["cat", "dog"],
    "(tensor, int) pairs": [(mg.tensor([1.0, 2.0]), 0), (mg.tensor([3.0, 4.0]), 1)],
    "lists": [[1, 2.0, "a"], [3, 4.0, "b"]],
    "dicts": [{"x": np.ones(2), "y": 1, "name": "a"}, {"x": np.zeros(2), "y": 2, "name": "b"}],
    "ordered dicts": [collections.OrderedDict(b=1, a=2.0), collections.OrderedDict(b=3, a=4.0)],
    "nested": [{"pair": (1, [2.0, np.int64(3)])}, {"pair": (4, [5.0, np.int64(6)])}],
    "namedtuples": [Point(mg.tensor([1.0]), 2), Point(mg.tensor([3.0]), 4)],
}


@pytest.mark.parametrize("name", COLLATE_CASES)
def test_default_collate_matches_pytorch(name):
    batch = COLLATE_CASES[name]
    assert_same_batch(default_collate(batch), tud.default_collate([as_torch(ex) for ex in batch]))


def test_default_collate_stacks_along_a_new_first_dimension():
    out = default_collate([np.full((2, 3), i, np.float32) for i in range(4)])
    assert out.shape == (4, 2, 3) and out.dtype == np.float32
    assert out.array[:, 0, 0].tolist() == [0, 1, 2, 3]


def test_default_collate_keeps_the_graph_of_tensors_that_require_grad():
    a, b = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0], requires_grad=True)
    out = default_collate([a, b])
    (out * mg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0] and b.grad.tolist() == [3.0, 4.0]


@pytest.mark.parametrize(
    "batch, error, message",
    [
        ([[1, 2], [3]], RuntimeError, "equal size, got sizes \\[2, 1\\]"),
        ([mg.zeros(2), mg.zeros(3)], RuntimeError, r"different shapes \[\(2,\), \(3,\)\]"),
        ([np.zeros(2), np.zeros((2, 1))], RuntimeError, "different shapes"),
        ([object(), object()], TypeError, "found object"),
        ([np.array(["a"]), np.array(["b"])], TypeError, "dtype <U1"),
        ([], ValueError, "batch is empty"),
    ],
)
def test_default_collate_errors(batch, error, message):
    with pytest.raises(error, match=message):
        default_collate(batch)


@pytest.mark.parametrize(
    "example",
    [
        np.arange(3.0),
        1.5,
        7,
        "text",
        (np.zeros(2), 3),
        [np.ones(1)],
        {"a": np.ones(2), "b": 2},
        np.float64(2.0),
    ],
    ids=repr,
)
def test_default_convert_matches_pytorch(example):
    assert_same_batch(default_convert(example), torch_default_convert(example))


# ---- DataLoader --------------------------------------------------------------------------------
def numbered(n):
    """A dataset whose example i is (a row filled with i, the label i)."""
    return TensorDataset(mg.arange(n, dtype=mg.float32)[:, None] * mg.ones(1, 3), mg.arange(n))


def labels_per_batch(loader):
    return [y.tolist() for _, y in loader]


def test_loader_without_shuffle_yields_consecutive_batches_like_pytorch():
    n = 10
    x = np.random.default_rng(0).standard_normal((n, 2, 3)).astype(np.float32)
    y = np.arange(n)
    mine = list(DataLoader(TensorDataset(x, y), batch_size=4))
    theirs = list(
        tud.DataLoader(tud.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=4)
    )
    assert len(mine) == len(theirs) == 3
    for a, b in zip(mine, theirs):
        assert_same_batch(a, b)


@pytest.mark.parametrize("n", [1, 7, 12, 13])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 20])
@pytest.mark.parametrize("drop_last", [False, True])
def test_loader_length_and_batch_sizes_match_pytorch(n, batch_size, drop_last):
    mine = DataLoader(numbered(n), batch_size=batch_size, drop_last=drop_last)
    theirs = tud.DataLoader(range(n), batch_size=batch_size, drop_last=drop_last)
    assert len(mine) == len(theirs)
    assert [len(y) for y in labels_per_batch(mine)] == [len(b) for b in theirs]


def test_loader_without_batching_yields_single_examples():
    loader = DataLoader(TensorDataset(np.arange(8.0).reshape(4, 2), np.arange(4)), batch_size=None)
    examples = list(loader)
    assert len(loader) == len(examples) == 4
    x, y = examples[2]
    assert x.tolist() == [4.0, 5.0] and y.item() == 2 and y.shape == ()


def test_loader_without_batching_converts_numpy_examples_to_tensors():
    class Arrays(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.full(2, i), i

    examples = list(DataLoader(Arrays(), batch_size=None))
    assert isinstance(examples[1][0], mg.Tensor) and examples[1][0].tolist() == [1, 1]
    assert examples[1][1] == 1 and isinstance(examples[1][1], int)


def test_shuffle_visits_every_example_once_per_epoch_and_reshuffles_each_epoch():
    mg.manual_seed(0)
    loader = DataLoader(numbered(50), batch_size=8, shuffle=True)
    epochs = [sum(labels_per_batch(loader), []) for _ in range(3)]
    for order in epochs:
        assert sorted(order) == list(range(50))
    assert epochs[0] != list(range(50)), "shuffle=True gave the unshuffled order"
    assert epochs[0] != epochs[1] != epochs[2]


def test_shuffle_is_reproducible_with_manual_seed():
    loader = DataLoader(numbered(40), batch_size=5, shuffle=True)
    mg.manual_seed(7)
    first = [labels_per_batch(loader), labels_per_batch(loader)]
    mg.manual_seed(7)  # replaces the global generator after the loader was made
    again = [labels_per_batch(loader), labels_per_batch(loader)]
    mg.manual_seed(8)
    other = labels_per_batch(loader)
    assert first == again
    assert other != first[0]


def test_shuffle_with_its_own_generator():
    def run():
        return labels_per_batch(
            DataLoader(numbered(20), batch_size=4, shuffle=True, generator=np.random.default_rng(5))
        )

    assert run() == run()


def test_shuffled_batches_hold_the_examples_their_labels_name():
    mg.manual_seed(1)
    for x, y in DataLoader(numbered(23), batch_size=6, shuffle=True):
        np.testing.assert_array_equal(
            x.array, np.repeat(y.array[:, None], 3, axis=1).astype(np.float32)
        )


def test_drop_last_drops_only_the_short_final_batch():
    loader = DataLoader(numbered(10), batch_size=4, drop_last=True)
    assert labels_per_batch(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert labels_per_batch(DataLoader(numbered(10), batch_size=4)) == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9],
    ]


def test_custom_collate_fn_receives_the_list_of_examples():
    seen = []

    def collate(examples):
        seen.append(len(examples))
        return [int(y) for _, y in examples]

    out = list(DataLoader(numbered(5), batch_size=2, collate_fn=collate))
    assert out == [[0, 1], [2, 3], [4]] and seen == [2, 2, 1]


def test_loader_over_a_plain_python_dataset_of_dicts():
    class Records(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"features": np.full(2, i, np.float32), "label": i, "weight": 0.5 * i}

    batch = next(iter(DataLoader(Records(), batch_size=3)))
    assert batch["features"].shape == (3, 2) and batch["features"].dtype == np.float32
    assert batch["label"].dtype == np.int64 and batch["label"].tolist() == [0, 1, 2]
    assert batch["weight"].dtype == np.float64  # Python floats collate to float64, as in PyTorch


@pytest.mark.parametrize("batch_size", [0, -1, 2.5, True, "4"])
def test_loader_rejects_a_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader(numbered(4), batch_size=batch_size)


def test_loader_rejects_drop_last_without_batching_and_non_datasets():
    with pytest.raises(
        ValueError, match="batch_size=None option disables auto-batching and is mutually exclusive"
    ):
        DataLoader(numbered(4), batch_size=None, drop_last=True)
    with pytest.raises(TypeError, match="must define __getitem__ and __len__"):
        DataLoader(iter(range(4)))


def test_loader_length_is_batches_per_epoch():
    assert len(DataLoader(numbered(10), batch_size=3)) == math.ceil(10 / 3)
    assert len(DataLoader(numbered(10), batch_size=3, drop_last=True)) == 3


def test_random_split_accepts_an_mg_generator():
    ds = TensorDataset(mg.zeros(30))
    a = indices_of(random_split(ds, [10, 20], generator=mg.Generator().manual_seed(1)))
    b = indices_of(random_split(ds, [10, 20], generator=mg.Generator().manual_seed(1)))
    c = indices_of(random_split(ds, [10, 20], generator=mg.Generator().manual_seed(2)))
    assert a == b and a != c
    with pytest.raises(TypeError, match="random_split: generator must be a minigrad.Generator"):
        random_split(ds, [10, 20], generator=torch.Generator())
