"""Parameter: a Tensor that a Module registers as one of its learnable weights.

It differs from a Tensor in two ways only: it requires grad by default, and assigning
one to a Module attribute (`self.weight = Parameter(...)`) registers it, so that
`parameters()`, `state_dict()` and optimizers find it.
"""

import numpy as np

from minigrad.tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that a Module owns; `Parameter(data, requires_grad=True)`.

    `data` may be a Tensor (its storage is shared, as in PyTorch) or anything
    `mg.tensor` accepts.
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = np.zeros(0, dtype=np.float32)
        array = data.array if isinstance(data, Tensor) else np.asarray(data)
        if not isinstance(data, (Tensor, np.ndarray)) and array.dtype.kind == "f":
            array = array.astype(np.float32)  # Python floats become float32, as mg.tensor
        self._init_leaf(array)  # shares `array`: a Parameter made from a Tensor uses its storage
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # copy.deepcopy / pickle: rebuild as a Parameter with a copy of the data
        return (Parameter, (self.array.copy(), self.requires_grad))
