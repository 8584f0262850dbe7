"""`generator=` on every random function: a `mg.Generator` is a stream of its own.

The numbers cannot equal torch's (NumPy's PCG64 against torch's Mersenne Twister), so
each test holds minigrad to torch's *semantics*, checking the same property of both:
the same seed gives the same values, two seeds differ, and a call with a generator
leaves the global stream exactly where it was. Shapes, dtypes and errors are compared
with torch's directly.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

TORCH_API = [
    "torch.Generator",
    "torch.Generator.manual_seed",
    "torch.Generator.initial_seed",
    "torch.Generator.seed",
    "torch.Generator.get_state",
    "torch.Generator.set_state",
    "torch.seed",
    "torch.initial_seed",
    "torch.default_generator",
    "torch.rand",
    "torch.randn",
    "torch.randint",
    "torch.randperm",
    "torch.rand_like",
    "torch.randn_like",
    "torch.randint_like",
    "torch.normal",
    "torch.bernoulli",
    "torch.multinomial",
    "torch.Tensor.uniform_",
    "torch.Tensor.normal_",
    "torch.Tensor.random_",
    "torch.Tensor.exponential_",
    "torch.Tensor.bernoulli_",
    "torch.nn.init.uniform_",
    "torch.nn.init.normal_",
    "torch.nn.init.trunc_normal_",
    "torch.nn.init.xavier_uniform_",
    "torch.nn.init.xavier_normal_",
    "torch.nn.init.kaiming_uniform_",
    "torch.nn.init.kaiming_normal_",
    "torch.nn.init.orthogonal_",
]


INIT_FUNCTIONS = [
    "uniform_",
    "normal_",
    "trunc_normal_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
]


def draws(framework):
    """name -> a call drawing from `generator=g`, for each random function of `framework`."""
    f = framework
    weights = f.tensor([0.1, 0.5, 0.4])
    return {
        "rand": lambda g: f.rand(2, 3, generator=g),
        "randn": lambda g: f.randn(2, 3, generator=g),
        "randint": lambda g: f.randint(0, 10, (2, 3), generator=g),
        "randint_high_only": lambda g: f.randint(10, (4,), generator=g),
        "randperm": lambda g: f.randperm(7, generator=g),
        "rand_like": lambda g: f.rand_like(f.zeros(2, 3), generator=g),
        "randn_like": lambda g: f.randn_like(f.zeros(2, 3, dtype=f.float64), generator=g),
        "randint_like": lambda g: f.randint_like(f.zeros(2, 3), 3, 10, generator=g),
        "normal_tensors": lambda g: f.normal(f.zeros(2, 3), f.ones(3), generator=g),
        "normal_numbers": lambda g: f.normal(1.0, 2.0, (2, 3), generator=g),
        "bernoulli": lambda g: f.bernoulli(f.full((2, 3), 0.5), generator=g),
        "multinomial": lambda g: f.multinomial(weights, 5, replacement=True, generator=g),
        "uniform_": lambda g: f.zeros(2, 3).uniform_(-1, 1, generator=g),
        "normal_": lambda g: f.zeros(2, 3).normal_(generator=g),
        "random_": lambda g: f.zeros(2, 3).random_(0, 100, generator=g),
        "exponential_": lambda g: f.zeros(2, 3).exponential_(generator=g),
        "bernoulli_": lambda g: f.zeros(2, 3).bernoulli_(0.5, generator=g),
        **{
            f"nn.init.{name}": lambda g, name=name: getattr(f.nn.init, name)(
                f.zeros(3, 4), generator=g
            )
            for name in INIT_FUNCTIONS
        },
    }


NAMES = sorted(draws(mg))


def values(t):
    return t.numpy().copy() if isinstance(t, torch.Tensor) else t.array.copy()


def global_state(framework):
    return (
        framework.random.default_generator.get_state() if framework is mg else torch.get_rng_state()
    )


def same_state(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    return np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("framework", [mg, torch], ids=["minigrad", "torch"])
def test_a_generator_is_its_own_reproducible_stream(framework, name):
    draw = draws(framework)[name]
    g1, g2 = framework.Generator().manual_seed(123), framework.Generator().manual_seed(123)
    before = global_state(framework)
    first, second = values(draw(g1)), values(draw(g2))
    assert same_state(before, global_state(framework)), "a generator= draw moved the global stream"
    np.testing.assert_array_equal(first, second)  # same seed, same values
    # the generator moved on: its next draw differs (a 6-element draw repeating is ~impossible)
    if name not in ("bernoulli", "bernoulli_", "multinomial"):  # few outcomes: may repeat by chance
        assert not np.array_equal(values(draw(g1)), first)
    # restarting the generator replays the stream
    g1.manual_seed(123)
    np.testing.assert_array_equal(values(draw(g1)), first)


@pytest.mark.parametrize("name", NAMES)
def test_results_have_torchs_shape_and_dtype(name):
    mine = draws(mg)[name](mg.Generator().manual_seed(0))
    theirs = draws(torch)[name](torch.Generator().manual_seed(0))
    assert mine.shape == tuple(theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype).removeprefix("torch.")


def test_the_global_stream_is_used_without_a_generator():
    mg.manual_seed(5)
    a = mg.randn(4)
    mg.manual_seed(5)
    mg.randn(3, generator=mg.Generator().manual_seed(9))  # a draw from another stream between
    np.testing.assert_array_equal(mg.randn(4).array, a.array)


def test_generator_state_round_trips_and_seeds_are_torchs():
    for framework in (mg, torch):
        g = framework.Generator().manual_seed(7)
        assert g.initial_seed() == 7
        state = g.get_state()
        first = values(framework.rand(3, generator=g))
        g.set_state(state)
        np.testing.assert_array_equal(values(framework.rand(3, generator=g)), first)
        assert framework.Generator().initial_seed() == 67280421310721  # torch's default seed
        seed = g.seed()
        assert isinstance(seed, int) and g.initial_seed() == seed


def test_seed_and_initial_seed_of_the_global_generator():
    try:
        for framework in (mg, torch):
            seed = framework.seed()
            assert isinstance(seed, int) and framework.initial_seed() == seed
            framework.manual_seed(11)
            assert framework.initial_seed() == 11
            assert framework.default_generator.initial_seed() == 11
    finally:
        mg.manual_seed(0), torch.manual_seed(0)


def test_a_generator_of_the_wrong_kind_is_refused():
    with pytest.raises(TypeError, match="generator must be a minigrad.Generator"):
        mg.randn(2, generator=3)
    with pytest.raises(TypeError):
        torch.randn(2, generator=3)
    with pytest.raises(TypeError, match="uniform_: generator must be"):
        mg.zeros(2).uniform_(generator="seed")


# ---- the functions new here: normal, randint_like, random_ ---------------------------------
def test_normal_has_the_requested_moments():
    g = mg.Generator().manual_seed(1)
    mean, std = mg.tensor([-3.0, 0.0, 5.0]), mg.tensor([0.5, 1.0, 2.0])
    samples = np.stack([mg.normal(mean, std, generator=g).array for _ in range(4000)])
    np.testing.assert_allclose(samples.mean(0), mean.array, atol=0.1)
    np.testing.assert_allclose(samples.std(0), std.array, rtol=0.06)
    numbers = mg.normal(2.0, 3.0, (20000,), generator=g).array
    assert abs(numbers.mean() - 2.0) < 0.1 and abs(numbers.std() - 3.0) < 0.1


@pytest.mark.parametrize(
    "args",
    [
        ("tensor", 1.0, None),
        (0.0, "tensor", None),
        ("tensor", "tensor", None),
        (0.0, 1.0, (2, 3)),
    ],
)
def test_normal_forms_match_torchs_shapes_and_dtypes(args):
    def build(framework):
        return [
            framework.zeros(2, 3, dtype=framework.float64) if a == "tensor" else a for a in args[:2]
        ]

    mine = mg.normal(*build(mg), *(args[2:] if args[2] else ()))
    theirs = torch.normal(*build(torch), *(args[2:] if args[2] else ()))
    assert mine.shape == tuple(theirs.shape) and str(mine.dtype) == str(theirs.dtype).removeprefix(
        "torch."
    )


def test_normal_errors_are_torchs():
    for mine, theirs in [
        (lambda: mg.normal(mg.zeros(3), -1.0), lambda: torch.normal(torch.zeros(3), -1.0)),
        (lambda: mg.normal(0.0, -1.0, (2,)), lambda: torch.normal(0.0, -1.0, (2,))),
        (
            lambda: mg.normal(mg.zeros(2, 3), mg.ones(4)),
            lambda: torch.normal(torch.zeros(2, 3), torch.ones(4)),
        ),
        (lambda: mg.normal(0.0, 1.0), lambda: torch.normal(0.0, 1.0)),
    ]:
        with pytest.raises(Exception) as theirs_error:
            theirs()
        with pytest.raises(theirs_error.type):
            mine()


def test_randint_like_and_random_stay_in_range_like_torch():
    g = mg.Generator().manual_seed(3)
    x = mg.randint_like(mg.zeros(1000, dtype=mg.int64), 3, 10, generator=g)
    assert x.dtype == mg.int64 and x.min().item() == 3 and x.max().item() == 9
    # high only: [0, high)
    assert mg.randint_like(mg.zeros(500), 4, generator=g).max().item() == 3.0
    with pytest.raises(RuntimeError):
        torch.randint_like(torch.zeros(2), 10, 3)
    with pytest.raises(RuntimeError, match="expected low < high"):
        mg.randint_like(mg.zeros(2), 10, 3)
    r = mg.zeros(1000).random_(5, generator=g)
    assert r.min().item() == 0 and r.max().item() == 4 and np.all(r.array == np.round(r.array))
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        mg.zeros(2).random_(5, 2)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.zeros(2).random_(5, 2)
