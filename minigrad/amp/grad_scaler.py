"""GradScaler: loss scaling, as `torch.amp.GradScaler`.

In float16 a gradient below about 6e-8 rounds to zero (it underflows), and small
gradients are common. Loss scaling multiplies the loss by a large factor S before
backward, so every gradient is S times larger and stays representable, then divides the
gradients by S before the optimizer uses them. S is chosen dynamically: if any gradient
came out inf or NaN, S was too large, so that step is skipped and S is halved
(`backoff_factor`); after `growth_interval` steps without overflow, S is doubled
(`growth_factor`) to use as much of the range as is safe.

    scaler = mg.amp.GradScaler("cpu")
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()   # gradients of S * loss
        scaler.unscale_(optimizer)      # optional: gradients / S, e.g. to clip them
        scaler.step(optimizer)          # unscales if needed; skips the step on inf/NaN
        scaler.update()                 # S * backoff_factor, or * growth_factor

The algorithm and its bookkeeping are torch's, so a scaler gives the same scales, skips
the same steps and saves the same state_dict as torch's on the same gradients.
`GradScaler("cuda")` (the default device, and what `mg.cuda.amp.GradScaler` is) needs a
CUDA device for tensors, which minigrad does not have: as torch does on a machine
without CUDA, it warns and disables itself, and then every method is a pass-through
(`scale` returns its input, `step` calls `optimizer.step()`).
"""

import warnings
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from minigrad import cuda
from minigrad.autograd.grad_mode import no_grad
from minigrad.tensor import Tensor

READY, UNSCALED, STEPPED = "ready", "unscaled", "stepped"  # an optimizer's stage in an iteration


def _fresh_optimizer_state():
    return {"stage": READY, "found_inf": None}


class GradScaler:
    """`GradScaler(device='cuda', init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`: dynamic loss scaling (see the module docstring).
    `enabled=False` makes every method a pass-through, as does `device='cuda'` here
    (with a warning, as torch gives without CUDA)."""

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda.is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            # torch's checks, and its exception type
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # S, a float32, set on the first scale() call
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None  # steps since S last changed, set with S
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ---- scaling and unscaling -----------------------------------------------------------
    def scale(self, outputs):
        """S * outputs: a Tensor, or the tensors of a (nested) list, tuple or other iterable."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = np.float32(self._init_scale)  # torch keeps S as a float32 tensor
            self._growth_tracker = self._init_growth_tracker

        def apply(value):
            if isinstance(value, Tensor):
                return value * float(self._scale)
            if isinstance(value, Iterable):
                scaled = map(apply, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def unscale_(self, optimizer):
        """Divide the gradients of `optimizer`'s parameters by S, in place, and note whether
        any is inf or NaN. Call it before clipping gradients; `step` calls it otherwise.
        At most once per optimizer between two `update()` calls."""
        if not self._enabled:
            return
        self._check_started("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1 / S in float64, then rounded to float32, as torch does it
        inv_scale = np.float32(1.0 / np.float64(self._scale))
        state["found_inf"] = self._unscale_grads(optimizer, inv_scale)
        state["stage"] = UNSCALED

    @staticmethod
    def _unscale_grads(optimizer, inv_scale):
        """grad *= inv_scale for every parameter's gradient; True if any was inf or NaN."""
        found_inf = False
        with no_grad(), np.errstate(all="ignore"):
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype == np.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    found_inf = found_inf or not bool(np.isfinite(param.grad.array).all())
                    param.grad.mul_(float(inv_scale))
        return found_inf

    # ---- the step and the update of S ------------------------------------------------------
    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step(*args, **kwargs)` on the unscaled gradients, unless one of them
        is inf or NaN: then the step is skipped (and None returned)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_started("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = STEPPED
        return result

    def update(self, new_scale=None):
        """Set S for the next iteration: `new_scale` if given; else S * backoff_factor if
        any optimizer met an inf or NaN this iteration, S * growth_factor after
        growth_interval clean iterations in a row, S unchanged otherwise."""
        if not self._enabled:
            return
        self._check_started("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(
                        "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                        "torch.FloatTensor with requires_grad=False."
                    )
                new_scale = new_scale.item()
            self._scale = np.float32(new_scale)
        else:
            found = [
                s["found_inf"]
                for s in self._per_optimizer_states.values()
                if s["found_inf"] is not None
            ]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = np.float32(self._scale * np.float32(self._backoff_factor))
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                grown = np.float32(self._scale * np.float32(self._growth_factor))
                if np.isfinite(grown):  # S stays where it is rather than become inf
                    self._scale = grown
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _check_started(self, funcname):
        if self._scale is None:
            raise AssertionError(
                f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                "use scaler.scale(loss or outputs) earlier in the iteration."
            )

    # ---- what it is and its state ------------------------------------------------------------
    def get_scale(self):
        """S as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale)

    def get_growth_factor(self):
        """The factor S grows by after growth_interval clean iterations."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the growth factor."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """The factor S shrinks by after an iteration with an inf or NaN gradient."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the backoff factor."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """How many clean iterations in a row make S grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set the growth interval."""
        self._growth_interval = new_interval

    def is_enabled(self):
        """True unless made with enabled=False (or for CUDA, which minigrad does not have)."""
        return self._enabled

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self):
        """{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}
        as torch's, to checkpoint with the optimizer ({} when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        """Restore what `state_dict` returned (ignored when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = np.float32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
