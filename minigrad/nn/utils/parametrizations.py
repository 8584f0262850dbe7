"""Two parametrizations of a weight (see parametrize.py for the mechanism).

- weight_norm (Salimans & Kingma 2016): w = g * v / ||v||, the norm taken over every dim
  but `dim` (each output unit's vector, for dim 0). The optimizer trains the direction v
  and the length g separately, which conditions the problem better.
- spectral_norm (Miyato et al. 2018): w = W / sigma(W), sigma the largest singular value of
  W (reshaped to a matrix with `dim` as its rows), so that the layer is 1-Lipschitz: the
  usual constraint on a GAN's discriminator. sigma is estimated by power iteration, one
  step per forward in training, from vectors u and v kept as buffers between steps.
"""

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn import functional as F
from minigrad.nn.conv import ConvTranspose1d, ConvTranspose2d
from minigrad.nn.module import Module
from minigrad.nn.utils.parametrize import register_parametrization
from minigrad.tensor import Tensor


def norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim`, kept as size-1 dims (shape (n, 1, ..., 1)
    for dim 0); dim=-1 means the norm of the whole tensor (a 0-d tensor), as torch's."""
    if dim == -1:
        return v.norm()
    others = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(2, dim=others, keepdim=True) if others else v.abs()


class _WeightNorm(Module):
    """w = g * v / ||v|| (the norm over every dim but `dim`); its right_inverse splits a
    weight into (g, v) = (||w||, w)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize module.<name> as g * v / ||v||: the layer's state dict then holds
    parametrizations.<name>.original0 (g, of shape (out, 1, ...) for dim 0) and original1
    (v, the weight's shape). dim=None normalizes the whole tensor."""
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """w = W / sigma, sigma = u . (W v) the power-iteration estimate of W's largest
    singular value; W is the weight as a matrix, `dim` its rows. A 1-D weight is divided by
    its norm. u and v (buffers) start random and take 15 power steps at construction, one
    per forward in training after that (outside the graph: the gradient treats u and v as
    constants, as in the paper)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                f"{dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        """The weight as a (size of dim, everything else) matrix."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """u <- W v / ||W v||, v <- W^T u / ||W^T u||, in place, n times."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat @ self._v, dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mT @ self._u, dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat.detach(), self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # a later step must not change this forward's graph
        sigma = u.dot(weight_mat @ v)
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize module.<name> as W / sigma(W) (spectral normalization). dim, the rows
    of the matrix, defaults to 0, or 1 for a transposed convolution (whose weight is
    (in, out, ...)). The power-iteration vectors are buffers:
    parametrizations.<name>.0._u and ._v in the state dict."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
