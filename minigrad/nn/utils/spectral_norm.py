"""Spectral normalization with a forward pre-hook: nn.utils.spectral_norm, the form that
came before parametrizations (see parametrizations.py for the current one).

spectral_norm(layer) renames the layer's `weight` to `weight_orig` (the Parameter the
optimizer trains), keeps the power-iteration vectors as buffers `weight_u` and
`weight_v`, and registers a hook that, before every forward, sets `layer.weight` to
weight_orig / sigma, sigma = u . (W v) the estimate of W's largest singular value (one
power step per forward in training: v first, then u, as torch's). remove_spectral_norm
puts a plain Parameter, the normalized weight, back.
"""

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn import functional as F
from minigrad.nn.conv import ConvTranspose1d, ConvTranspose2d
from minigrad.nn.parameter import Parameter


class SpectralNorm:
    """The forward pre-hook of spectral_norm: computes the normalized weight."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a (size of dim, everything else) matrix."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """weight_orig / sigma; in training, one power step on the buffers first."""
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(weight_mat.mT @ u, dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat @ v, dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()  # this forward's graph keeps these values
        sigma = u.dot(weight_mat @ v)
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Normalize module.<name> by its spectral norm before every forward (the hook form;
    the state dict holds <name>_orig, <name>_u and <name>_v). dim defaults to 0, or 1 for
    a transposed convolution. Returns the module."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two spectral_norm hooks on the same parameter {name}"
            )
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    fn = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with no_grad():
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: module.<name> becomes a Parameter holding the normalized weight."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
