"""The datasets made of datasets against torch.utils.data: ConcatDataset, ChainDataset,
StackDataset, Subset's batch fetching, `a + b`; and that minigrad.utils.data's classes take
torch's arguments.

torch is the oracle for what is not random: the same items for the same indices
(negative ones too), the same lengths and `cumulative_sizes`, the same batches out of a
DataLoader (with worker threads here, worker processes in torch), and the same exception
types for bad input. The basics (Dataset, TensorDataset, random_split, collate, the
samplers and the DataLoader's options) are compared in test_data.py, test_samplers.py
and test_dataloader.py.
"""

import inspect
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import minigrad as mg
from minigrad.utils import data

TORCH_API = [
    "torch.utils.data.ConcatDataset",
    "torch.utils.data.ChainDataset",
    "torch.utils.data.StackDataset",
    "torch.utils.data.Subset",
    "torch.utils.data.Dataset",
    "torch.utils.data.IterableDataset",
    "torch.utils.data.TensorDataset",
    "torch.utils.data.DataLoader",
    "torch.utils.data.get_worker_info",
    "torch.utils.data.random_split",
    "torch.utils.data.SequentialSampler",
    "torch.utils.data.RandomSampler",
    "torch.utils.data.SubsetRandomSampler",
    "torch.utils.data.WeightedRandomSampler",
    "torch.utils.data.BatchSampler",
]


def plain(x):
    """A batch or an example of either library, as nested Python lists/tuples/dicts."""
    if isinstance(x, (mg.Tensor, torch.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], x.tolist())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def tensors(lib, n, start=0):
    """A TensorDataset of n examples: a float feature row and an int label each."""
    x = np.arange(start, start + 2 * n, dtype=np.float32).reshape(n, 2)
    y = np.arange(start, start + n, dtype=np.int64)
    return lib.TensorDataset(*(mg.tensor(a) if lib is data else torch.tensor(a) for a in (x, y)))


class Numbers:
    """A map-style dataset that is not a Dataset subclass: item i is start + i."""

    def __init__(self, start, n):
        self.start, self.n = start, n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.start + i

    def __len__(self):
        return self.n


# ---- ConcatDataset -------------------------------------------------------------------------------
def _concats(lib):
    parts = [Numbers(0, 3), Numbers(100, 0), Numbers(200, 5), list("abcd")]
    return lib.ConcatDataset(parts)


def test_concat_dataset_indexes_across_its_parts_as_torch():
    mine, theirs = _concats(data), _concats(tud)
    assert mine.cumulative_sizes == theirs.cumulative_sizes == [3, 3, 8, 12]
    assert len(mine) == len(theirs) == 12
    for i in range(-12, 12):
        assert mine[i] == theirs[i], i
    assert mine[3] == 200 and mine[-1] == "d"  # the empty part is skipped
    assert data.ConcatDataset.cumsum([[1, 2], [3]]) == tud.ConcatDataset.cumsum([[1, 2], [3]])


@pytest.mark.parametrize("index, error", [(12, IndexError), (40, IndexError), (-13, ValueError)])
def test_concat_dataset_out_of_range_raises_torchs_error(index, error):
    with pytest.raises(error):
        _concats(tud)[index]
    with pytest.raises(error, match=f"ConcatDataset.*{index}"):
        _concats(data)[index]


def test_concat_dataset_refuses_what_torch_refuses():
    for lib in (data, tud):
        with pytest.raises(AssertionError, match="should not be an empty iterable"):
            lib.ConcatDataset([])
        with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
            lib.ConcatDataset([Numbers(0, 2), _streams(lib)[0]])


def test_adding_datasets_concatenates_them_as_torch():
    mine = tensors(data, 3) + tensors(data, 2, start=50) + tensors(data, 4, start=90)
    theirs = tensors(tud, 3) + tensors(tud, 2, start=50) + tensors(tud, 4, start=90)
    assert isinstance(mine, data.ConcatDataset) and isinstance(theirs, tud.ConcatDataset)
    assert len(mine.datasets) == len(theirs.datasets) == 2  # (a + b) + c nests, as in torch
    assert [plain(mine[i]) for i in range(-9, 9)] == [plain(theirs[i]) for i in range(-9, 9)]


@pytest.mark.parametrize(
    "batch_size, drop_last", [(4, False), (4, True), (1, False), (None, False)]
)
def test_a_loader_over_a_concat_dataset_gives_torchs_batches(batch_size, drop_last):
    mine = data.DataLoader(
        tensors(data, 5) + tensors(data, 6, start=20), batch_size=batch_size, drop_last=drop_last
    )
    theirs = tud.DataLoader(
        tensors(tud, 5) + tensors(tud, 6, start=20), batch_size=batch_size, drop_last=drop_last
    )
    assert len(mine) == len(theirs)
    assert [plain(b) for b in mine] == [plain(b) for b in theirs]


def test_a_shuffled_loader_over_a_concat_dataset_sees_every_example_once():
    mg.manual_seed(0)
    loader = data.DataLoader(
        tensors(data, 5) + tensors(data, 6, start=20), batch_size=4, shuffle=True
    )
    labels = sorted(sum((y.tolist() for _, y in loader), []))
    assert labels == list(range(5)) + list(range(20, 26))


# ---- ChainDataset and IterableDataset ------------------------------------------------------------
def _stream_class(lib):
    class Stream(lib.IterableDataset):
        """start .. stop - 1; with workers, each yields its share (torch's documented split)."""

        def __init__(self, start, stop):
            self.start, self.stop = start, stop

        def __iter__(self):
            info = lib.get_worker_info()
            if info is None:
                return iter(range(self.start, self.stop))
            per_worker = -(-(self.stop - self.start) // info.num_workers)
            lo = self.start + info.id * per_worker
            return iter(range(lo, min(lo + per_worker, self.stop)))

        def __len__(self):
            return self.stop - self.start

    return Stream


def _streams(lib):
    Stream = _stream_class(lib)
    return [Stream(0, 5), Stream(100, 100), Stream(200, 207)]


def test_chain_dataset_streams_its_parts_in_order_as_torch():
    mine, theirs = data.ChainDataset(_streams(data)), tud.ChainDataset(_streams(tud))
    assert list(mine) == list(theirs) == list(range(5)) + list(range(200, 207))
    assert len(mine) == len(theirs) == 12
    a, b, c = _streams(data)
    chained = a + c
    assert isinstance(chained, data.ChainDataset) and list(chained) == list(mine)
    assert isinstance(_streams(tud)[0] + _streams(tud)[2], tud.ChainDataset)


def test_chain_dataset_checks_its_parts_when_iterated_as_torch():
    for lib in (data, tud):
        chain = lib.ChainDataset([_streams(lib)[0], Numbers(0, 3)])  # made without complaint
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(chain)
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            len(chain)


@pytest.mark.parametrize("batch_size, drop_last", [(3, False), (3, True), (None, False)])
def test_a_loader_over_a_chain_gives_torchs_batches(batch_size, drop_last):
    mine = data.DataLoader(
        data.ChainDataset(_streams(data)), batch_size=batch_size, drop_last=drop_last
    )
    theirs = tud.DataLoader(
        tud.ChainDataset(_streams(tud)), batch_size=batch_size, drop_last=drop_last
    )
    assert [plain(b) for b in mine] == [plain(b) for b in theirs]
    assert len(mine) == len(theirs)


def test_a_chain_split_across_workers_arrives_in_torchs_order():
    """Each worker iterates its own copy of the chain, and each part splits itself with
    get_worker_info(): torch's worker processes give the interleaving to expect."""
    theirs = tud.DataLoader(tud.ChainDataset(_streams(tud)), batch_size=2, num_workers=2)
    mine = data.DataLoader(data.ChainDataset(_streams(data)), batch_size=2, num_workers=2)
    batches = [plain(b) for b in mine]
    assert batches == [plain(b) for b in theirs]
    assert sorted(sum((b[2] for b in batches), [])) == list(range(5)) + list(range(200, 207))


# ---- StackDataset --------------------------------------------------------------------------------
def _stacks(lib, named):
    images, labels = tensors(lib, 6), Numbers(10, 6)
    return (
        lib.StackDataset(image=images, label=labels) if named else lib.StackDataset(images, labels)
    )


@pytest.mark.parametrize("named", [False, True], ids=["tuple", "dict"])
def test_stack_dataset_gives_torchs_items_and_batches(named):
    mine, theirs = _stacks(data, named), _stacks(tud, named)
    assert len(mine) == len(theirs) == 6
    for i in range(6):  # the index goes to each part as it is
        assert plain(mine[i]) == plain(theirs[i])
    assert plain(mine.__getitems__([4, 0, 4])) == plain(theirs.__getitems__([4, 0, 4]))
    loader_kwargs = dict(batch_size=4)
    mine_batches = [plain(b) for b in data.DataLoader(mine, **loader_kwargs)]
    assert mine_batches == [plain(b) for b in tud.DataLoader(theirs, **loader_kwargs)]


class Recording:
    """A dataset that fetches whole batches (`__getitems__`) and records each request."""

    def __init__(self, n):
        self.n, self.calls = n, []

    def __getitem__(self, i):
        self.calls.append(("item", i))
        return i * 10

    def __getitems__(self, indices):
        self.calls.append(("items", list(indices)))
        return [i * 10 for i in indices]

    def __len__(self):
        return self.n


def test_stack_and_subset_pass_whole_batches_to_a_dataset_that_takes_them_as_torch():
    for lib in (data, tud):
        base = Recording(8)
        stack = lib.StackDataset(base, Numbers(0, 8))
        assert stack.__getitems__([1, 2]) == [(10, 1), (20, 2)]
        subset = lib.Subset(base, [7, 5, 3])
        assert subset.__getitems__([0, 2]) == [70, 30]
        assert base.calls == [("items", [1, 2]), ("items", [7, 3])]

        class Short(Recording):
            def __getitems__(self, indices):
                return super().__getitems__(indices)[:-1]

        with pytest.raises(ValueError, match="(?i)nested dataset's output size mismatch"):
            lib.StackDataset(Short(4), Numbers(0, 4)).__getitems__([0, 1])


def test_stack_dataset_refuses_what_torch_refuses():
    for lib in (data, tud):
        with pytest.raises(ValueError, match="(?i)both types are given"):
            lib.StackDataset(Numbers(0, 2), label=Numbers(0, 2))
        with pytest.raises(ValueError, match="(?i)at least one dataset should be passed"):
            lib.StackDataset()
        with pytest.raises(ValueError, match="(?i)size mismatch between datasets"):
            lib.StackDataset(Numbers(0, 2), Numbers(0, 3))


# ---- Subset --------------------------------------------------------------------------------------
def test_subset_takes_a_list_of_positions_as_torch():
    for lib, make in ((data, mg.arange), (tud, torch.arange)):
        values = lib.TensorDataset(make(10) * 3)
        subset = lib.Subset(values, [9, 2, 2, 5])
        assert plain(subset[[0, 3, 1]]) == plain((make(10)[[9, 5, 2]] * 3,))
        assert plain(subset[-1]) == plain((make(1)[0] + 15,))


def test_a_subset_subclass_overriding_getitem_alone_is_refused_as_torch():
    for lib in (data, tud):

        class Doubled(lib.Subset):
            def __getitem__(self, idx):
                return 2 * super().__getitem__(idx)

        with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
            Doubled(Numbers(0, 5), [1, 3])

        class DoubledBatches(Doubled):
            def __getitems__(self, indices):
                return [self[i] for i in indices]

        loader = lib.DataLoader(DoubledBatches(Numbers(0, 5), [1, 3, 4]), batch_size=2)
        assert [b.tolist() for b in loader] == [[2, 6], [8]]


def test_a_loader_over_random_split_parts_gives_every_example_once():
    mg.manual_seed(3)
    parts = data.random_split(tensors(data, 10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [len(p) for p in tud.random_split(range(10), [0.5, 0.3, 0.2])]
    labels = [y.tolist() for part in parts for _, y in data.DataLoader(part, batch_size=3)]
    assert sorted(sum(labels, [])) == list(range(10))


# ---- torch's arguments ---------------------------------------------------------------------------
SIGNATURES = [
    "DataLoader",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "random_split",
]


@pytest.mark.parametrize("name", SIGNATURES)
def test_the_arguments_are_torchs(name):
    """The same names, order, kinds and defaults (random_split's generator defaults to
    None here, meaning minigrad's global generator, where torch names its own)."""

    def arguments(obj):
        out = []
        for n, p in inspect.signature(obj).parameters.items():
            default = p.default
            if name == "random_split" and n == "generator":
                default = "the global generator"
            out.append((n, p.kind, default))
        return out

    assert arguments(getattr(data, name)) == arguments(getattr(tud, name))


def test_the_new_names_are_where_torch_has_them():
    import minigrad.utils.data.dataset as dataset_module

    for name in ("ConcatDataset", "ChainDataset", "StackDataset"):
        assert getattr(data, name) is getattr(dataset_module, name) is getattr(mg.data, name)
        assert hasattr(tud, name) and hasattr(tud.dataset, name)
        assert name in data.__all__


def test_pin_memory_is_accepted_and_changes_nothing():
    with warnings.catch_warnings():
        # torch warns when no accelerator can pin; here it is a documented no-op
        warnings.simplefilter("error")
        pinned = [
            plain(b) for b in data.DataLoader(tensors(data, 5), batch_size=2, pin_memory=True)
        ]
    assert pinned == [plain(b) for b in data.DataLoader(tensors(data, 5), batch_size=2)]
