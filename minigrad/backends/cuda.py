"""`mg.backends.cuda`: the CUDA switches of `torch.backends.cuda`, accepted and stored.

Not to be confused with ``mg.backends.use("cuda")``, the lesson demonstration that runs
minigrad's own Numba CUDA kernels on CPU tensors (see `minigrad.backends`; CUDA tensors
get those kernels under the default ``"numba"`` backend). This module only exists so that
lines like ``torch.backends.cuda.matmul.allow_tf32 = True`` run unchanged; the values
change nothing.
"""


class _MatmulSettings:
    """`mg.backends.cuda.matmul`: whether cuBLAS may trade precision for speed."""

    def __init__(self):
        self.allow_tf32 = False  # PyTorch's defaults
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self):
        return f"mg.backends.cuda.matmul(allow_tf32={self.allow_tf32})"


matmul = _MatmulSettings()


def is_built():
    """False: minigrad is not a CUDA build of PyTorch (its GPU kernels come from Numba)."""
    return False
