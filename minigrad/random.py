"""Random number generators: the global one, and `Generator` objects of your own.

Parameter initialisation, dropout masks, data shuffling and sampling all draw from
`generator()`, so `mg.manual_seed(0)` at the top of a script fixes all of them.

A `Generator` is an independent stream, as `torch.Generator`: pass one as
`generator=` to a DataLoader, a sampler or `random_split` and that part of the program
draws from it alone, leaving the global stream (and everything seeded by it) untouched.

Inside a DataLoader worker, `generator()` is that worker's own generator, seeded from
the loader's base seed plus the worker's id, as each of PyTorch's worker processes has
its own seeded RNG (see `minigrad.data.worker`). The main program's global generator
is never touched by a worker.
"""

import threading

import numpy as np

_SEED_MASK = 0xFFFF_FFFF_FFFF_FFFF  # seeds are unsigned 64-bit, as torch's (-1 is 2**64 - 1)
_TORCH_DEFAULT_SEED = 67280421310721  # what torch.Generator().initial_seed() returns
# A state tensor's bytes (little-endian): the seed, then NumPy's PCG64 state: its 128-bit
# state and increment, and the half of a 64-bit draw it may hold back for the next 32-bit one
_STATE_LAYOUT = (("seed", 8), ("state", 16), ("inc", 16), ("has_uint32", 1), ("uinteger", 4))
_STATE_SIZE = sum(size for _, size in _STATE_LAYOUT)


def _check_seed(seed, where):
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"{where}: seed must be an int, got {type(seed).__name__}")
    return int(seed) & _SEED_MASK


class Generator:
    """`Generator(device='cpu')`: an independent random stream, like torch.Generator.

    A new Generator starts from the same fixed seed as PyTorch's (67280421310721), so
    two fresh generators give the same numbers. The numbers themselves are NumPy's
    (PCG64), not PyTorch's (Mersenne Twister): the same seed gives a different (but
    equally repeatable) stream in the two libraries.
    """

    def __init__(self, device="cpu"):
        if str(device).split(":")[0] != "cpu":
            raise RuntimeError(
                f"Generator: minigrad generators live on the CPU; device {device!r} is not "
                "supported"
            )
        self.device = "cpu"
        self.manual_seed(_TORCH_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restart the stream from `seed` (an int); returns the generator itself."""
        self._seed = _check_seed(seed, "Generator.manual_seed")
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        """The seed the stream was last started from."""
        return self._seed

    def seed(self):
        """Restart the stream from a fresh, non-deterministic seed, and return that seed."""
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.manual_seed(seed)
        return seed

    def get_state(self):
        """A snapshot of the stream's position, as torch: a uint8 tensor (a ByteTensor) that
        `set_state` takes to return there. Its bytes are NumPy's PCG64 state, not torch's
        Mersenne Twister state (see `_STATE_LAYOUT`)."""
        from minigrad.tensor import Tensor  # random.py is imported by tensor.py

        state = self._rng.bit_generator.state
        fields = (
            self._seed,
            state["state"]["state"],
            state["state"]["inc"],
            state["has_uint32"],
            state["uinteger"],
        )
        data = b"".join(
            value.to_bytes(size, "little") for value, (_, size) in zip(fields, _STATE_LAYOUT)
        )
        return Tensor._make(np.frombuffer(data, dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Return to a position saved by `get_state` (a uint8 tensor); returns the generator."""
        from minigrad.tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(
                f"Generator.set_state: expected a ByteTensor, but got {type(new_state).__name__}"
            )
        if new_state.dtype != np.uint8:
            raise TypeError(
                "Generator.set_state: RNG state must be a ByteTensor (uint8), got "
                f"{new_state.dtype}"
            )
        data = new_state.array.tobytes()
        if len(data) != _STATE_SIZE:
            raise RuntimeError(
                f"Generator.set_state: expected a minigrad generator state of size {_STATE_SIZE} "
                f"but found the input RNG state size to be {len(data)}"
            )
        values, start = {}, 0
        for name, size in _STATE_LAYOUT:
            values[name] = int.from_bytes(data[start : start + size], "little")
            start += size
        self._seed = values["seed"]
        self._rng = np.random.default_rng()
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": values["state"], "inc": values["inc"]},
            "has_uint32": values["has_uint32"],
            "uinteger": values["uinteger"],
        }
        return self

    def __repr__(self):
        return f"<minigrad.Generator initial_seed={self._seed}>"


default_generator = Generator()
"""The global generator (torch.default_generator): what every random function draws from
when given no `generator=`, and what `manual_seed` reseeds."""
default_generator.seed()  # as torch, the global stream starts from a random seed until manual_seed
# .generator: the Generator of the DataLoader worker running in this thread
_worker = threading.local()


def manual_seed(seed):
    """Reseed the global generator (like torch.manual_seed) and return it.

    It seeds the GPU's generator too (`device_generator`), as torch.manual_seed seeds
    every device. Called inside a DataLoader worker (from a dataset or worker_init_fn),
    it reseeds only that worker's generator, as torch.manual_seed in a worker process would.
    """
    generator = _current().manual_seed(seed)
    if generator is default_generator:
        from minigrad.cuda import runtime

        runtime.seed_generator(seed)
    return generator


def device_generator():
    """The generator on the GPU (CuPy's `random.RandomState`, see `minigrad/cuda/runtime.py`):
    `mg.randn(3, device="cuda")`, dropout masks and sampling on CUDA tensors draw there, so
    no random numbers cross from the host. Seeded by `manual_seed` (or, until then, from
    the global generator's initial seed); its stream differs from the CPU's for the same
    seed, as torch's CUDA one does."""
    from minigrad.cuda import runtime

    return runtime.generator(default_generator.initial_seed())


def initial_seed():
    """The seed the global generator was last started from (torch.initial_seed)."""
    return default_generator.initial_seed()


def seed():
    """Reseed the global generator from a fresh, non-deterministic seed and return that
    seed (torch.seed)."""
    return _current().seed()


def get_rng_state():
    """The global generator's state, a uint8 tensor (torch.get_rng_state); in a DataLoader
    worker, that worker's generator's."""
    return _current().get_state()


def set_rng_state(new_state):
    """Return the global generator to a state from `get_rng_state` (torch.set_rng_state)."""
    _current().set_state(new_state)


def generator():
    """The NumPy Generator all of minigrad's randomness comes from: the global one, or,
    in a DataLoader worker thread, that worker's own."""
    return _current()._rng


def _current():
    worker_generator = getattr(_worker, "generator", None)
    return worker_generator if worker_generator is not None else default_generator


def numpy_generator(source, where):
    """The NumPy Generator behind a `generator=` argument: None means the global one
    (or the worker's own, in a DataLoader worker); a minigrad Generator or a NumPy
    Generator is used as it is. `where` names the caller in the error."""
    if source is None:
        return _current()._rng
    if isinstance(source, Generator):
        return source._rng
    if isinstance(source, np.random.Generator):
        return source
    raise TypeError(
        f"{where}: generator must be a minigrad.Generator (or a NumPy Generator), got "
        f"{type(source).__name__}"
    )
