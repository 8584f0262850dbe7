"""DataLoader beyond the basics (those are in test_data.py): samplers, batch samplers,
argument conflicts, worker threads, IterableDataset.

PyTorch is the oracle for everything that is not random: the batches for a given
sampler, the errors for conflicting arguments, the order in which an IterableDataset
split across workers arrives. For the workers, the contract is that they change
nothing but speed: the same batches in the same order as num_workers=0.
"""

import re
import threading

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import minigrad as mg
from minigrad.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    TensorDataset,
    get_worker_info,
)

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.utils.data.BatchSampler",
    "torch.utils.data.DataLoader",
    "torch.utils.data.IterableDataset",
    "torch.utils.data.RandomSampler",
    "torch.utils.data.SequentialSampler",
    "torch.utils.data.dataloader",
    "torch.utils.data.dataset",
    "torch.utils.data.get_worker_info",
    "torch.utils.data.sampler",
]


def numbered(n):
    """Example i is (a row of three i's, the label i)."""
    return TensorDataset(mg.arange(n, dtype=mg.float32)[:, None] * mg.ones(1, 3), mg.arange(n))


def labels(loader):
    return [y.tolist() for _, y in loader]


def torch_labels(loader):
    return [b.tolist() if isinstance(b, torch.Tensor) else b for b in loader]


# ---- samplers and batch samplers in the loader ---------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"sampler": [4, 0, 3, 3, 1], "batch_size": 2},
        {"sampler": [4, 0, 3, 3, 1], "batch_size": 2, "drop_last": True},
        {"batch_sampler": [[5, 1], [0], [2, 3, 4]]},
        {"sampler": [2, 0], "batch_size": None},
    ],
    ids=repr,
)
def test_sampler_and_batch_sampler_give_torchs_batches(kwargs):
    mine = DataLoader(numbered(6), **kwargs)
    theirs = tud.DataLoader(range(6), **kwargs)
    got = [y.tolist() if kwargs.get("batch_size", 1) is not None else y.item() for _, y in mine]
    assert got == torch_labels(theirs)
    assert len(mine) == len(theirs)


def test_shuffle_makes_a_random_sampler_and_no_shuffle_a_sequential_one():
    assert isinstance(DataLoader(numbered(3)).sampler, SequentialSampler)
    loader = DataLoader(numbered(3), batch_size=2, shuffle=True, generator=mg.Generator())
    assert (
        type(loader.sampler).__name__ == "RandomSampler"
        and loader.sampler.generator is loader.generator
    )
    assert isinstance(loader.batch_sampler, BatchSampler) and loader.batch_sampler.batch_size == 2


def test_a_generator_makes_the_shuffle_repeatable_without_touching_the_global_stream():
    def run(seed):
        return labels(
            DataLoader(
                numbered(20), batch_size=4, shuffle=True, generator=mg.Generator().manual_seed(seed)
            )
        )

    mg.manual_seed(0)
    expected = mg.rand(3).array
    mg.manual_seed(0)
    first = run(7)
    np.testing.assert_array_equal(mg.rand(3).array, expected)
    assert run(7) == first and run(8) != first


def test_a_dataset_with_getitems_is_asked_for_whole_batches():
    class Batched(Dataset):
        asked = []

        def __len__(self):
            return 5

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should have been used")

        def __getitems__(self, indices):
            self.asked.append(list(indices))
            return [(np.float32(i), i) for i in indices]

    batches = list(DataLoader(Batched(), batch_size=2))
    assert Batched.asked == [[0, 1], [2, 3], [4]]
    assert batches[1][1].tolist() == [2, 3] and batches[1][0].dtype == np.float32


# ---- argument conflicts: PyTorch's errors --------------------------------------------------------
CONFLICTS = [
    {"sampler": [0, 1], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "shuffle": True},
    {"batch_sampler": [[0]], "sampler": [0]},
    {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True},
    {"num_workers": -1},
    {"timeout": -1},
    {"prefetch_factor": 2},
    {"persistent_workers": True},
    {"batch_size": 0},
    {"batch_size": 2.5},
]


@pytest.mark.parametrize("kwargs", CONFLICTS, ids=repr)
def test_conflicting_arguments_raise_torchs_error(kwargs):
    with pytest.raises(Exception) as theirs:
        tud.DataLoader(range(4), **kwargs)
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
        DataLoader(numbered(4), **kwargs)


@pytest.mark.parametrize("name", ["batch_size", "sampler", "batch_sampler", "drop_last", "dataset"])
def test_the_batching_attributes_are_fixed_after_init_as_in_torch(name):
    with pytest.raises(ValueError) as theirs:
        setattr(tud.DataLoader(range(4)), name, None)
    loader = DataLoader(numbered(4))
    with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
        setattr(loader, name, None)
    loader.num_workers = 0  # the others may change


def test_options_without_meaning_on_the_cpu_are_accepted():
    loader = DataLoader(
        numbered(4),
        batch_size=2,
        pin_memory=True,
        pin_memory_device="",
        multiprocessing_context="spawn",
    )
    assert labels(loader) == [[0, 1], [2, 3]]


def test_a_bad_generator_or_function_is_rejected_when_the_loader_is_made():
    with pytest.raises(TypeError, match="DataLoader: generator must be a minigrad.Generator"):
        DataLoader(numbered(4), shuffle=True, generator=12)
    with pytest.raises(TypeError, match="DataLoader: collate_fn must be callable"):
        DataLoader(numbered(4), collate_fn="stack")
    with pytest.raises(TypeError, match="DataLoader: worker_init_fn must be callable"):
        DataLoader(numbered(4), num_workers=1, worker_init_fn=0)


# ---- workers: the same batches, loaded in parallel -----------------------------------------------
@pytest.mark.parametrize("num_workers", [1, 2, 3])
@pytest.mark.parametrize("batch_size", [1, 4, None])
def test_workers_give_the_batches_of_num_workers_0_in_the_same_order(num_workers, batch_size):
    def epochs(**kwargs):
        mg.manual_seed(3)
        loader = DataLoader(numbered(23), batch_size=batch_size, shuffle=True, **kwargs)
        runs = [[(x.tolist(), y.tolist()) for x, y in loader] for _ in range(2)]
        return runs, mg.rand(2).tolist()  # where the global stream is afterwards

    single, after_single = epochs()
    parallel, after_parallel = epochs(num_workers=num_workers)
    assert parallel == single and after_parallel == after_single
    assert single[0] != single[1]  # reshuffled


@pytest.mark.parametrize("num_workers", [0, 2])
def test_an_epoch_moves_the_global_stream_by_one_draw_only(num_workers):
    """mg.manual_seed(s) seeds NumPy's default_rng(s); a shuffled epoch draws one seed
    from it, for the sampler's own stream (as torch's RandomSampler), and nothing else
    (the workers' seeds are spawned, not drawn)."""
    rng = np.random.default_rng(6)
    expected = [
        np.random.default_rng(int(rng.integers(0, 2**63))).permutation(10).tolist()
        for _ in range(2)
    ]
    mg.manual_seed(6)
    loader = DataLoader(numbered(10), batch_size=5, shuffle=True, num_workers=num_workers)
    assert [sum(labels(loader), []) for _ in range(2)] == expected
    np.testing.assert_array_equal(mg.random.generator().random(3), rng.random(3))


@pytest.mark.parametrize("replacement", [False, True])
def test_workers_give_the_batches_of_num_workers_0_while_the_loop_draws_random_numbers(replacement):
    """An epoch longer than the data (num_samples > len) draws its passes, or its chunks,
    as it goes. The workers' loader asks for them batches ahead of the loop, so they must
    not come from the global stream that the loop (dropout, say) also draws from."""
    data = numbered(6)

    def run(**kwargs):
        mg.manual_seed(0)
        sampler = RandomSampler(data, replacement=replacement, num_samples=24)
        order = []
        for _, y in DataLoader(data, batch_size=2, sampler=sampler, **kwargs):
            order += y.tolist()
            mg.rand(1)  # the training step's own random numbers
        return order, mg.rand(2).tolist()

    assert run(num_workers=2) == run()


def test_workers_get_new_seeds_each_epoch():
    loader = DataLoader(WhoAmI(), batch_size=4, num_workers=2)
    mg.manual_seed(0)
    first, second = ([b["draw"].tolist() for b in loader] for _ in range(2))
    assert first != second


def test_workers_with_a_generator_match_num_workers_0():
    def run(**kwargs):
        g = mg.Generator().manual_seed(9)
        return labels(
            DataLoader(
                numbered(30), batch_size=4, shuffle=True, generator=g, drop_last=True, **kwargs
            )
        )

    assert run(num_workers=2, prefetch_factor=1) == run() == run(num_workers=3, prefetch_factor=0)


class Rendezvous(Dataset):
    """__getitem__ waits until `parties` calls are inside it at once: it can only
    finish if that many examples are being loaded at the same time."""

    def __init__(self, n, parties):
        self.n, self.barrier = n, threading.Barrier(parties, timeout=20)
        self.threads = set()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.threads.add(threading.current_thread().name)
        self.barrier.wait()  # BrokenBarrierError after 20 s if the loading were sequential
        return i


def test_workers_really_load_in_parallel():
    ds = Rendezvous(8, parties=4)
    assert [b.tolist() for b in DataLoader(ds, batch_size=2, num_workers=4)] == [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
    ]
    assert ds.threads == {f"DataLoader worker {i}" for i in range(4)}
    assert threading.current_thread().name not in ds.threads


class WhoAmI(Dataset):
    """Example i records which worker loaded it and a random number drawn there."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return {"index": i, "worker": -1 if info is None else info.id, "draw": mg.rand(1).item()}


def test_get_worker_info_in_workers_and_none_in_the_main_thread():
    seen = {}

    def init(worker_id):
        info = get_worker_info()
        seen[worker_id] = (info.id, info.num_workers, info.seed, info.dataset)

    mg.manual_seed(0)
    ds = WhoAmI()
    batches = list(DataLoader(ds, batch_size=2, num_workers=3, worker_init_fn=init))
    assert get_worker_info() is None
    assert sorted(seen) == [0, 1, 2]
    assert all(s[0] == w and s[1] == 3 and s[3] is ds for w, s in seen.items())
    assert seen[1][2] == seen[0][2] + 1 and seen[2][2] == seen[0][2] + 2  # base_seed + worker id
    # batches go round-robin: batch k was loaded by worker k % 3
    assert [b["worker"].tolist() for b in batches] == [[k % 3] * 2 for k in range(6)]
    assert [b["worker"].tolist() for b in DataLoader(ds, batch_size=2)] == [[-1, -1]] * 6
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        seen_info = []
        list(
            DataLoader(
                ds, num_workers=1, worker_init_fn=lambda w: seen_info.append(get_worker_info())
            )
        )
        seen_info[0].id = 5


def test_each_worker_has_its_own_seeded_generator():
    def draws(seed, **kwargs):
        mg.manual_seed(seed)
        return [
            b["draw"].tolist() for b in DataLoader(WhoAmI(), batch_size=3, num_workers=2, **kwargs)
        ]

    first = draws(0)
    assert draws(0) == first and draws(1) != first
    # a worker reseeding itself (in worker_init_fn) changes its own draws only
    reseeded = draws(0, worker_init_fn=lambda worker_id: mg.manual_seed(100 + worker_id))
    assert reseeded != first
    mg.manual_seed(0)
    list(DataLoader(numbered(6), num_workers=2, worker_init_fn=lambda w: mg.manual_seed(5)))
    after_workers = mg.rand(2).tolist()
    mg.manual_seed(0)
    list(DataLoader(numbered(6)))
    # the workers' reseeding never reached the main stream
    assert after_workers == mg.rand(2).tolist()


class FailsAt(Dataset):
    def __init__(self, bad):
        self.bad = bad

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"example {i} is corrupt")
        return i


def test_an_error_in_a_worker_is_raised_in_the_main_thread_naming_the_worker():
    loader = DataLoader(FailsAt(5), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(
        ValueError, match=r"Caught ValueError in DataLoader worker 0\.(.|\n)*example 5 is corrupt"
    ):
        next(it)
    assert next(it).tolist() == [6, 7]  # as in PyTorch, the other batches still come


def test_an_error_in_worker_init_fn_is_raised_too():
    def init(worker_id):
        raise KeyError("no config")

    with pytest.raises(KeyError, match="in DataLoader worker"):
        list(DataLoader(numbered(4), num_workers=2, worker_init_fn=init))


def test_timeout_raises_when_a_batch_takes_too_long():
    release = threading.Event()

    class Slow(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            release.wait(30)
            return i

    try:
        with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
            next(iter(DataLoader(Slow(), num_workers=1, timeout=0.2)))
    finally:
        release.set()


def test_persistent_workers_survive_between_epochs():
    inits = []
    mg.manual_seed(2)
    loader = DataLoader(
        numbered(17),
        batch_size=3,
        shuffle=True,
        num_workers=2,
        persistent_workers=True,
        worker_init_fn=inits.append,
    )
    first_iterator = iter(loader)
    epoch1 = [y.tolist() for _, y in first_iterator]
    epoch2 = labels(loader)
    for _ in iter(loader):  # an epoch abandoned after one batch ...
        break
    epoch4 = labels(loader)  # ... leaves nothing behind in the next
    assert iter(loader) is first_iterator and sorted(inits) == [0, 1]
    mg.manual_seed(2)
    single = DataLoader(numbered(17), batch_size=3, shuffle=True)
    expected = [labels(single) for _ in range(2)]
    next(iter(single))
    expected.append(labels(single))
    assert [epoch1, epoch2, epoch4] == expected


def test_out_of_order_delivery_still_gives_every_batch_once():
    got = labels(DataLoader(numbered(20), batch_size=3, num_workers=3, in_order=False))
    assert sorted(got) == [list(range(i, min(i + 3, 20))) for i in range(0, 20, 3)]


def test_len_of_a_workers_iterator():
    assert len(iter(DataLoader(numbered(10), batch_size=4, num_workers=2))) == 3


# ---- IterableDataset -----------------------------------------------------------------------------
class Stream(IterableDataset):
    """The numbers start .. stop - 1; with workers, each worker yields its own slice (the
    example of PyTorch's IterableDataset documentation)."""

    def __init__(self, start, stop, worker_info):
        self.start, self.stop, self.worker_info = start, stop, worker_info

    def __iter__(self):
        info = self.worker_info()
        if info is None:
            return iter(range(self.start, self.stop))
        per_worker = -(-(self.stop - self.start) // info.num_workers)
        lo = self.start + info.id * per_worker
        return iter(range(lo, min(lo + per_worker, self.stop)))


class TorchStream(Stream, tud.IterableDataset):
    pass


def as_lists(batches):
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


@pytest.mark.parametrize("batch_size", [1, 4, None])
@pytest.mark.parametrize("drop_last", [False, True])
def test_iterable_dataset_batches_match_torch(batch_size, drop_last):
    if batch_size is None and drop_last:
        return
    mine = DataLoader(Stream(3, 14, get_worker_info), batch_size=batch_size, drop_last=drop_last)
    theirs = tud.DataLoader(
        TorchStream(3, 14, tud.get_worker_info), batch_size=batch_size, drop_last=drop_last
    )
    assert as_lists(mine) == as_lists(theirs)


def test_iterable_dataset_split_across_workers_arrives_in_torchs_order():
    # PyTorch (worker processes) is the oracle for the interleaving: batches round-robin
    # over the workers, skipping a worker once its stream has ended
    theirs = as_lists(
        tud.DataLoader(TorchStream(0, 23, tud.get_worker_info), batch_size=3, num_workers=2)
    )
    mine = as_lists(DataLoader(Stream(0, 23, get_worker_info), batch_size=3, num_workers=2))
    assert mine == theirs
    assert sorted(sum(mine, [])) == list(range(23))


def test_iterable_dataset_with_persistent_workers_restarts_each_epoch():
    loader = DataLoader(
        Stream(0, 10, get_worker_info), batch_size=2, num_workers=2, persistent_workers=True
    )
    assert as_lists(loader) == as_lists(loader)
    assert sorted(sum(as_lists(loader), [])) == list(range(10))


@pytest.mark.parametrize(
    "kwargs", [{"shuffle": True}, {"sampler": [0, 1]}, {"batch_sampler": [[0]]}], ids=repr
)
def test_iterable_dataset_refuses_an_order_as_torch_does(kwargs):
    with pytest.raises(ValueError) as theirs:
        tud.DataLoader(TorchStream(0, 4, tud.get_worker_info), **kwargs)
    expected = str(theirs.value).split(", but got")[0]
    with pytest.raises(ValueError, match=re.escape(expected)):
        DataLoader(Stream(0, 4, get_worker_info), **kwargs)


def test_len_of_a_loader_over_an_iterable_dataset():
    class Sized(Stream):
        def __len__(self):
            return self.stop - self.start

    assert len(DataLoader(Sized(0, 10, get_worker_info), batch_size=4)) == 3
    assert len(DataLoader(Sized(0, 10, get_worker_info), batch_size=4, drop_last=True)) == 2
    with pytest.raises(TypeError):
        len(DataLoader(Stream(0, 10, get_worker_info), batch_size=4))
    with pytest.raises(TypeError, match="is an IterableDataset: iterate over it"):
        Stream(0, 3, get_worker_info)[0]


# ---- torch's import paths ------------------------------------------------------------------------
def test_torchs_import_paths_work():
    import minigrad.utils.data.dataloader as dataloader
    import minigrad.utils.data.dataset as dataset
    import minigrad.utils.data.sampler as sampler

    # reachable after `import minigrad`, as torch.utils.data after `import torch`
    data = mg.utils.data
    assert (
        dataloader.DataLoader is data.DataLoader and dataloader.get_worker_info is get_worker_info
    )
    assert dataset.Dataset is data.Dataset and dataset.IterableDataset is IterableDataset
    assert sampler.RandomSampler is data.RandomSampler
    for name in [
        "DataLoader",
        "Dataset",
        "IterableDataset",
        "TensorDataset",
        "Subset",
        "random_split",
        "default_collate",
        "default_convert",
        "get_worker_info",
        "Sampler",
        "SequentialSampler",
        "RandomSampler",
        "SubsetRandomSampler",
        "WeightedRandomSampler",
        "BatchSampler",
    ]:
        assert hasattr(tud, name) and hasattr(data, name), name
