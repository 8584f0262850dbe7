"""Where an op's random numbers come from: the CPU's generator for a CPU tensor, the
GPU's for a CUDA tensor.

A dropout mask, a multinomial draw or Gumbel noise must be made where the tensor lives:
drawn on the host and copied to the GPU, every training step would wait for a copy. So a
CUDA tensor draws from the generator on the device (`minigrad.random.device_generator()`,
a CuPy `random.RandomState`, seeded by `mg.manual_seed`), and a CPU tensor from the global
NumPy generator (or the `generator=` given), as before. The two generators name their
uniform draw differently (NumPy's Generator `random`, CuPy's RandomState `random_sample`);
`uniform` hides that. Their other draws (`standard_normal`, `standard_exponential`,
`uniform(low, high, size)`, `poisson`, `binomial`, `standard_gamma`) share names.
"""

import numpy as np

from minigrad import random as _random
from minigrad.array_module import array_module


def generator_for(array, generator, where):
    """The generator to draw numbers for data that lives where `array` lives. `generator`
    (a mg.Generator, which lives on the CPU) is refused for a GPU array, as torch refuses
    a CPU generator for a CUDA tensor; `where` names the op in the error."""
    if array_module(array) is np:
        return _random.numpy_generator(generator, where)
    if generator is not None:
        raise RuntimeError(
            f"{where}: Expected a 'cuda' device type for generator but found 'cpu': a CUDA "
            "tensor draws from the GPU's generator (seeded by mg.manual_seed); pass generator=None"
        )
    return _random.device_generator()


def uniform(rng, shape):
    """Draws of U[0, 1) in `shape` (float64) from either kind of generator."""
    return rng.random(shape) if isinstance(rng, np.random.Generator) else rng.random_sample(shape)
