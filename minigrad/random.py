"""The one global random generator: seeding it makes every random choice repeatable.

Parameter initialisation, dropout masks, data shuffling and sampling all draw from
`generator()`, so `mg.manual_seed(0)` at the top of a script fixes all of them.
"""

import numpy as np

_generator = np.random.default_rng()


def manual_seed(seed):
    """Reseed the global generator (like torch.manual_seed) and return it."""
    global _generator
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"manual_seed: seed must be an int, got {type(seed).__name__}")
    _generator = np.random.default_rng(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return _generator


def generator():
    """The global NumPy Generator all of minigrad's randomness comes from."""
    return _generator
