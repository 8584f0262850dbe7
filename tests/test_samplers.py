"""Samplers and mg.Generator, against torch.utils.data where the result is not random.

The deterministic parts (SequentialSampler, BatchSampler, lengths, error messages) must
equal PyTorch's. The random samplers draw from NumPy, so their orders differ from
PyTorch's; for them the tests check what the order must satisfy (a permutation each
epoch, the requested distribution) and that seeding makes it repeatable.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import minigrad as mg
from minigrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Generator",
    "torch.manual_seed",
    "torch.utils.data.BatchSampler",
    "torch.utils.data.RandomSampler",
    "torch.utils.data.Sampler",
    "torch.utils.data.SequentialSampler",
    "torch.utils.data.SubsetRandomSampler",
    "torch.utils.data.WeightedRandomSampler",
]

ROOT = Path(__file__).resolve().parents[1]


def torch_error(make):
    """The exception PyTorch raises for the same call (the oracle for type and message)."""
    with pytest.raises(Exception) as info:
        make()
    return info.value


# ---- mg.Generator ---------------------------------------------------------------------------
def test_a_new_generator_starts_from_torchs_default_seed():
    assert mg.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721


def test_generator_manual_seed_returns_itself_and_restarts_the_stream():
    g = mg.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    first = list(RandomSampler(range(20), generator=g))
    g.manual_seed(5)
    assert list(RandomSampler(range(20), generator=g)) == first
    assert list(RandomSampler(range(20), generator=g)) != first  # the stream moved on


def test_generator_seed_picks_a_fresh_seed_and_reports_it():
    g = mg.Generator()
    seed = g.seed()
    assert isinstance(seed, int) and 0 <= seed < 2**64 and g.initial_seed() == seed
    assert mg.Generator().seed() != seed


def test_generator_state_can_be_saved_and_restored():
    g = mg.Generator().manual_seed(1)
    state = g.get_state()
    a = list(RandomSampler(range(10), generator=g))
    g.set_state(state)
    assert list(RandomSampler(range(10), generator=g)) == a
    with pytest.raises(TypeError, match="expected a ByteTensor"):
        g.set_state([1, 2])


def test_negative_seeds_wrap_to_unsigned_64_bit_as_in_torch():
    assert (
        mg.Generator().manual_seed(-1).initial_seed()
        == torch.Generator().manual_seed(-1).initial_seed()
    )


def test_generator_errors():
    with pytest.raises(TypeError, match="Generator.manual_seed: seed must be an int, got float"):
        mg.Generator().manual_seed(1.5)
    with pytest.raises(RuntimeError, match="device 'cuda' is not supported"):
        mg.Generator(device="cuda")
    with pytest.raises(TypeError, match="RandomSampler: generator must be a minigrad.Generator"):
        RandomSampler(range(3), generator=torch.Generator())


def test_manual_seed_returns_the_global_generator():
    g = mg.manual_seed(11)
    assert (
        g is mg.random.default_generator
        and g.initial_seed() == 11
        and mg.random.initial_seed() == 11
    )


def test_a_generator_leaves_the_global_stream_alone():
    mg.manual_seed(0)
    expected = mg.rand(4).array
    mg.manual_seed(0)
    list(RandomSampler(range(50), generator=mg.Generator().manual_seed(3)))
    np.testing.assert_array_equal(mg.rand(4).array, expected)


# ---- SequentialSampler and BatchSampler: deterministic, so exactly PyTorch's ----------------
@pytest.mark.parametrize("n", [0, 1, 7])
def test_sequential_sampler_matches_torch(n):
    assert list(SequentialSampler(range(n))) == list(tud.SequentialSampler(range(n)))
    assert len(SequentialSampler(range(n))) == n


@pytest.mark.parametrize("n", [1, 7, 12])
@pytest.mark.parametrize("batch_size", [1, 5, 12, 13])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(n, batch_size, drop_last):
    mine = BatchSampler(SequentialSampler(range(n)), batch_size, drop_last)
    theirs = tud.BatchSampler(tud.SequentialSampler(range(n)), batch_size, drop_last)
    assert list(mine) == list(theirs)
    assert len(mine) == len(theirs)


def test_batch_sampler_takes_any_iterable_of_indices():
    assert list(BatchSampler([9, 4, 7, 1, 0], 2, False)) == [[9, 4], [7, 1], [0]]


def test_the_base_sampler_says_what_a_subclass_must_define():
    class NoIter(Sampler):
        pass

    with pytest.raises(NotImplementedError, match="NoIter must define __iter__"):
        iter(NoIter())


# ---- RandomSampler ----------------------------------------------------------------------------
def test_random_sampler_gives_a_fresh_permutation_each_epoch():
    mg.manual_seed(0)
    sampler = RandomSampler(range(30))
    epochs = [list(sampler) for _ in range(3)]
    for order in epochs:
        assert sorted(order) == list(range(30))
    assert epochs[0] != list(range(30)) and epochs[0] != epochs[1] != epochs[2]
    assert len(sampler) == len(tud.RandomSampler(range(30))) == 30


def test_random_sampler_is_seeded_by_manual_seed():
    sampler = RandomSampler(range(30))
    mg.manual_seed(4)
    first = list(sampler)
    mg.manual_seed(4)
    assert list(sampler) == first


def test_random_sampler_with_more_samples_than_data_chains_permutations():
    order = list(RandomSampler(range(5), num_samples=12, generator=mg.Generator().manual_seed(0)))
    assert len(order) == 12 == len(tud.RandomSampler(range(5), num_samples=12))
    assert sorted(order[:5]) == sorted(order[5:10]) == list(range(5))
    assert len(set(order[10:])) == 2


def test_random_sampler_with_replacement_draws_uniformly():
    order = list(
        RandomSampler(range(4), replacement=True, num_samples=4000, generator=mg.Generator())
    )
    counts = np.bincount(order, minlength=4)
    assert len(order) == 4000 and counts.sum() == 4000
    np.testing.assert_allclose(counts / 4000, 0.25, atol=0.03)
    assert len(list(RandomSampler(range(4), replacement=True))) == 4


def test_random_sampler_reads_the_length_of_its_data_each_epoch():
    data = list(range(3))
    sampler = RandomSampler(data)
    data.append(3)
    assert len(sampler) == 4 and sorted(sampler) == [0, 1, 2, 3]


# ---- SubsetRandomSampler and WeightedRandomSampler -----------------------------------------------
def test_subset_random_sampler_shuffles_the_given_indices():
    indices = [10, 3, 7, 42, 5]
    g = mg.Generator().manual_seed(2)
    epochs = [list(SubsetRandomSampler(indices, generator=g)) for _ in range(4)]
    assert all(sorted(e) == sorted(indices) for e in epochs)
    assert len({tuple(e) for e in epochs}) > 1
    assert len(SubsetRandomSampler(indices)) == len(tud.SubsetRandomSampler(indices)) == 5


def test_weighted_random_sampler_draws_in_proportion_to_the_weights():
    sampler = WeightedRandomSampler([0.0, 1.0, 3.0], 8000, generator=mg.Generator().manual_seed(0))
    counts = np.bincount(list(sampler), minlength=3)
    assert counts[0] == 0 and counts.sum() == 8000 == len(sampler)
    np.testing.assert_allclose(counts[1:] / 8000, [0.25, 0.75], atol=0.02)


def test_weighted_random_sampler_takes_a_tensor_of_weights_like_torch():
    mine = WeightedRandomSampler(mg.tensor([1.0, 2.0]), 5)
    theirs = tud.WeightedRandomSampler(torch.tensor([1.0, 2.0]), 5)
    assert mine.weights.dtype == np.float64 and theirs.weights.dtype == torch.float64
    assert len(mine) == len(theirs) == 5


def test_weighted_random_sampler_without_replacement_never_repeats():
    order = list(
        WeightedRandomSampler([1, 1, 5, 0.1, 2], 5, replacement=False, generator=mg.Generator())
    )
    assert sorted(order) == [0, 1, 2, 3, 4]


# ---- lazy draws: an endless sampler starts at once -------------------------------------------
# minGPT's and makemore's way to loop forever. Drawing all 10**10 indices up front would
# take 74.5 GiB; PyTorch draws them 32 at a time as the iterator advances. The child
# process runs under an address-space limit, so that a sampler that draws everything
# fails at once with a MemoryError instead of filling the machine's memory.
ENDLESS = """
import itertools, json, resource, tracemalloc
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import minigrad as mg
from minigrad.utils.data import DataLoader, RandomSampler, TensorDataset, WeightedRandomSampler

N = 10**10
data = TensorDataset(mg.arange(10, dtype=mg.float32)[:, None], mg.arange(10))


def first(sampler, count=100):
    return list(itertools.islice(iter(sampler), count))


out = {}
tracemalloc.start()
mg.manual_seed(0)
sampler = RandomSampler(data, replacement=True, num_samples=N)
out["global"] = first(sampler)
out["peak_bytes"] = tracemalloc.get_traced_memory()[1]
out["len"] = len(sampler)
mg.manual_seed(0)
out["global_again"] = first(sampler)
seeded = [
    first(RandomSampler(data, True, N, generator=mg.Generator().manual_seed(1))) for _ in range(2)
]
out["generator"], out["generator_again"] = seeded
weighted = WeightedRandomSampler([0.0, 1.0, 3.0], N, generator=mg.Generator().manual_seed(2))
out["weighted"], out["weighted_len"] = first(weighted), len(weighted)
loader = DataLoader(data, sampler=sampler, batch_size=4)
out["loader_len"] = len(loader)
out["batches"] = [y.tolist() for _, y in itertools.islice(loader, 3)]
out["peak_bytes"] = max(out["peak_bytes"], tracemalloc.get_traced_memory()[1])
print(json.dumps(out))
"""


def test_an_endless_random_sampler_draws_its_indices_as_it_goes():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", ENDLESS], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.splitlines()[-1])
    assert out["peak_bytes"] < 4 << 20  # a few MB at most, for all of the above
    assert (
        out["len"] == 10**10 and out["weighted_len"] == 10**10 and out["loader_len"] == 10**10 // 4
    )
    assert len(out["global"]) == 100 and all(0 <= i < 10 for i in out["global"])
    assert len(set(out["global"])) > 1
    assert out["global"] == out["global_again"]  # mg.manual_seed makes it repeatable
    assert out["generator"] == out["generator_again"] and out["generator"] != out["global"]
    assert len(out["weighted"]) == 100 and set(out["weighted"]) == {1, 2}
    assert [len(b) for b in out["batches"]] == [4, 4, 4]
    assert all(0 <= i < 10 for b in out["batches"] for i in b)


@pytest.mark.parametrize("num_samples", [1, 31, 32, 33, 70])
def test_draws_in_chunks_give_exactly_num_samples(num_samples):
    g = mg.Generator().manual_seed(0)
    order = list(RandomSampler(range(4), replacement=True, num_samples=num_samples, generator=g))
    assert len(order) == num_samples and all(0 <= i < 4 for i in order)
    weighted = list(WeightedRandomSampler([1.0, 2.0, 0.0], num_samples, generator=g))
    assert len(weighted) == num_samples and set(weighted) <= {0, 1}


@pytest.mark.parametrize("replacement", [True, False])
def test_an_epoch_order_does_not_depend_on_other_draws_from_the_global_generator(replacement):
    """Without a generator, a pass draws one seed from the global generator when it
    starts, and its indices from a stream of its own (as torch): random numbers drawn
    while it goes on (dropout, a model's initialisation) leave its order alone, and
    with it the DataLoader's batches, however far ahead its workers fetch."""
    sampler = RandomSampler(range(5), replacement=replacement, num_samples=100)
    mg.manual_seed(0)
    alone = list(sampler)
    mg.manual_seed(0)
    interleaved = []
    for index in sampler:
        interleaved.append(index)
        mg.rand(3)  # someone else draws from the global stream meanwhile
    assert interleaved == alone


def test_a_random_sampler_over_no_data_says_so_when_it_draws():
    for replacement in (True, False):
        sampler = RandomSampler([], replacement=replacement, num_samples=3)
        with pytest.raises(
            ValueError,
            match="RandomSampler: cannot draw num_samples=3 indices from an empty data_source",
        ):
            next(iter(sampler))


# ---- errors: PyTorch's messages ------------------------------------------------------------------
TORCH_ERRORS = [
    ("RandomSampler", (range(3),), {"replacement": 1}),
    ("RandomSampler", (range(3),), {"num_samples": 0}),
    ("RandomSampler", (range(3),), {"num_samples": 2.5}),
    ("RandomSampler", ([],), {}),
    ("BatchSampler", (range(3), 0, False), {}),
    ("BatchSampler", (range(3), True, False), {}),
    ("BatchSampler", (range(3), 2, 1), {}),
    ("WeightedRandomSampler", ([1.0, 2.0], 0), {}),
    ("WeightedRandomSampler", ([1.0, 2.0], 2), {"replacement": 1}),
    ("WeightedRandomSampler", ([[1.0, 2.0]], 2), {}),
]


@pytest.mark.parametrize(
    "name, args, kwargs", TORCH_ERRORS, ids=[f"{n}-{a}-{k}" for n, a, k in TORCH_ERRORS]
)
def test_argument_errors_match_torch(name, args, kwargs):
    expected = torch_error(lambda: getattr(tud, name)(*args, **kwargs))
    with pytest.raises(type(expected), match=re.escape(str(expected))) as info:
        getattr(mg.utils.data, name)(*args, **kwargs)
    assert str(info.value).startswith(f"{name}: ")  # and it names the sampler


@pytest.mark.parametrize(
    "weights, num_samples, replacement, message",
    [
        ([1.0, -1.0], 2, True, "finite and non-negative"),
        ([1.0, float("nan")], 2, True, "finite and non-negative"),
        ([0.0, 0.0], 2, True, "the weights sum to 0"),
        (
            [1.0, 0.0, 2.0],
            3,
            False,
            "cannot draw num_samples=3 indices without replacement from 2 non-zero weights",
        ),
    ],
)
def test_weighted_random_sampler_rejects_impossible_weights_when_made(
    weights, num_samples, replacement, message
):
    # PyTorch finds these only when the first epoch starts (a RuntimeError from multinomial)
    with pytest.raises(ValueError, match=message):
        WeightedRandomSampler(weights, num_samples, replacement=replacement)
