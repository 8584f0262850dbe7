"""L-BFGS: a quasi-Newton method that remembers the last few steps instead of a Hessian.

Newton's method steps by −H⁻¹g, where H is the Hessian, which for n parameters has n²
entries. BFGS builds an approximation of H⁻¹ out of the steps it took, s = θ_new − θ,
and how the gradient changed along them, y = g_new − g: for a quadratic, y = H s.
L-BFGS (Nocedal 1980; Liu & Nocedal 1989) keeps only the last `history_size` pairs
(s, y) and applies the approximate H⁻¹ to g directly with the "two-loop recursion",
in O(history_size · n) work, never forming a matrix.

Unlike the other optimizers, one `step(closure)` is a small optimization run of its
own: up to `max_iter` iterations, each evaluating the loss and gradient again through
`closure`, so the closure is required. All parameters are treated as one flat vector,
which is why there can be only one parameter group. This is PyTorch's algorithm (after
Mark Schmidt's minFunc), including its strong-Wolfe line search.
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.creation import from_numpy
from minigrad.optim.optimizer import Optimizer


class LBFGS(Optimizer):
    """`LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)`, PyTorch's algorithm.
    Each `step(closure)` repeats, up to `max_iter` times (and `max_eval` evaluations,
    default max_iter · 5/4):

        g ← ∇L(θ), all parameters flattened into one vector
        y ← g − g_prev,  s ← t · d                  the last step, and what it did to g
        if y·s > 1e-10: remember (s, y) (the oldest goes beyond history_size),
                        γ ← (s·y) / (y·y)           the scale of H⁻¹ along y
        d ← −H g          two-loop recursion over the pairs, starting from H₀ = γ·I
                          (d ← −g at the very first iteration)
        t ← lr            (the first iteration: min(1, 1/‖g‖₁) · lr)
        θ ← θ + t · d     (with line_search_fn='strong_wolfe', t is searched for instead)

    and stops early when ‖g‖∞ ≤ tolerance_grad, when the step ‖t·d‖∞ or the change of
    the loss falls under tolerance_change, or when d stops being a descent direction.
    `step` returns the loss of the first evaluation. The history lives in
    `state[first parameter]`, under PyTorch's names (`old_dirs` are the y's, `old_stps`
    the s's, `ro` the 1/(y·s), `H_diag` is γ).
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            # PyTorch raises this RuntimeError at the first step; here it comes at once
            raise RuntimeError(
                "LBFGS: only 'strong_wolfe' is supported as line_search_fn (or None), got "
                f"{group['line_search_fn']!r}"
            )

    def add_param_group(self, param_group):
        """Only one group (made by __init__): a second one raises, as in PyTorch."""
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    # ---- the parameters as one flat vector -------------------------------------------------------
    def _gather_flat_grad(self):
        xp = array_module(self._params[0].array)  # zeros where the parameters live (CPU or GPU)
        return xp.concatenate(
            [
                xp.zeros(p.numel(), dtype=p.array.dtype)
                if p.grad is None
                else p.grad.array.reshape(-1)
                for p in self._params
            ]
        )

    def _add_grad(self, step_size, direction):
        """θ ← θ + step_size · direction, the flat vector cut back into the parameters."""
        offset = 0
        step_size = float(step_size)  # a number (read back from the GPU, as torch's L-BFGS does)
        for p in self._params:
            n = p.numel()
            p.add_(from_numpy(direction[offset : offset + n].reshape(p.shape)), alpha=step_size)
            offset += n

    def _clone_param(self):
        return [p.array.copy() for p in self._params]

    def _set_param(self, values):
        for p, value in zip(self._params, values):
            # wrapped as a tensor where it lives (a GPU array stays there)
            p.copy_(from_numpy(value))

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and the gradient at x + t·d, leaving the parameters at x."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---- the step --------------------------------------------------------------------------------
    def step(self, closure):
        """Run up to `max_iter` L-BFGS iterations; `closure()` must zero the gradients,
        compute the loss, call backward and return the loss. Returns the first loss."""
        with no_grad():
            return self._step(enable_grad()(closure))

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:  # already at a stationary point
            return orig_loss

        # the history, carried over from the last step(closure)
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = (
            state.get("H_diag"),
            state.get("prev_flat_grad"),
            state.get("prev_loss"),
        )

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # -- the direction: d = −H·g --
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep only pairs along which the loss curves upwards
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                d = self._two_loop(state, -flat_grad, old_dirs, old_stps, ro, H_diag, history_size)

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # -- the step length --
            if state["n_iter"] == 1:
                # the first step has no curvature to go by
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)  # the slope of the loss along d
            if gtd > -tolerance_change:  # d does not go downhill
                break

            ls_func_evals = 0
            if group["line_search_fn"] == "strong_wolfe":
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:  # the last iteration's loss would only be thrown away
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # -- when to stop --
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:  # the parameters no longer move
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss no longer moves
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag)
        state.update(prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _two_loop(state, q, old_dirs, old_stps, ro, H_diag, history_size):
        """H·q for the L-BFGS approximation H of the inverse Hessian (Nocedal & Wright,
        Algorithm 7.4): project q on the stored steps from the newest back, scale by
        H_diag, and add the steps back from the oldest on."""
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q = q - al[i] * old_dirs[i]
        r = q * H_diag
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r = r + (al[i] - be_i) * old_stps[i]
        return r


# ---- the strong-Wolfe line search ----------------------------------------------------------------
def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
    clipped to `bounds` (by default, the interval between x1 and x2); the middle of the
    bounds when the cubic has no minimum."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Find a step t along d that satisfies the strong Wolfe conditions

        f(x + t·d) ≤ f(x) + c1 · t · g·d          (sufficient decrease)
        |∇f(x + t·d)·d| ≤ c2 · |g·d|              (the slope has flattened enough)

    (Nocedal & Wright, Algorithms 3.5 and 3.6): first grow t until an interval that
    must hold such a point is bracketed, then shrink the bracket by cubic interpolation.
    Returns (f_new, g_new, t, number of evaluations)."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # 1. bracketing
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):  # too far: bracketed
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:  # both conditions hold: done
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:  # the slope turned upwards: a minimum lies between
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # still going down: extrapolate, between 1.01 and 10 times further
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:  # out of evaluations: settle between 0 and t
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # 2. zoom: shrink the bracket until the conditions hold
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # A point too close to an end of the bracket makes little progress; once that
        # has happened twice (or t fell outside), move it to 10% inside the bracket.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = (
                    max(bracket) - eps
                    if abs(t - max(bracket)) < abs(t - min(bracket))
                    else min(bracket) + eps
                )
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not enough decrease: t becomes the high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the old high end lies on the wrong side of the new low one: drop it
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = (
                    bracket_g[low_pos],
                    bracket_gtd[low_pos],
                )
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals
