"""A Module's full backward hooks: `register_full_backward_pre_hook` and
`register_full_backward_hook` (nn/module.py registers them; this file makes them run).

The engine knows nothing of modules: it walks tensors and nodes. So when a module with
backward hooks is called (`module_hooks.call_with_hooks`), its tensor inputs and outputs
are passed through an identity op, `HookIdentity`, whose backward shows the gradient
flowing through it to a `BackwardHookRecorder`, which runs the module's hooks once the
gradients it needs have all arrived.
"""

import functools

from minigrad.autograd.function import Function
from minigrad.tensor import Tensor


class HookIdentity(Function):
    """y = x;  dL/dx = dL/dy, after showing dL/dy to a callback (which may replace it)."""

    @staticmethod
    def forward(ctx, x, on_grad):
        ctx.on_grad = on_grad
        return x.array

    @staticmethod
    def backward(ctx, grad):
        new = ctx.on_grad(grad)
        return (grad if new is None else new), None


class BackwardHookRecorder:
    """One call's backward hooks. The module's tensor inputs and outputs pass through
    identity Functions whose backward reports the gradient flowing through them:

    - output gradients arrive first (they are downstream): once all have arrived the
      backward pre-hooks see grad_output, and may replace it (one output only: with
      several, the earlier ones have already flowed on into the module);
    - input gradients arrive last: once all have, the full backward hooks see
      (grad_input, grad_output), and may replace grad_input (one input only, likewise).

    If no input requires grad the full hooks run as soon as grad_output is complete.
    The counters are reset after each backward pass, so retain_graph=True reruns them.
    """

    def __init__(self, module, n_args, input_slots):
        self.module = module
        self.n_args = n_args
        self.input_slots = input_slots  # positions of the inputs that require grad
        self.output_slots = []
        self.n_outputs = 0
        self._start_pass()

    def _start_pass(self):
        self.grad_inputs = [None] * self.n_args
        self.grad_outputs = [None] * self.n_outputs
        self.outputs_seen = 0
        self.inputs_seen = 0
        self.pre_hooks_done = False

    @classmethod
    def wrap_inputs(cls, module, args):
        slots = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        recorder = cls(module, len(args), slots)
        args = list(args)
        for i in slots:
            on_grad = functools.partial(recorder._on_input_grad, i)
            args[i] = HookIdentity.apply(args[i], on_grad=on_grad)
        return tuple(args), recorder

    def wrap_outputs(self, output):
        outputs = output if isinstance(output, tuple) else (output,)
        self.n_outputs = len(outputs)
        slots = enumerate(outputs)
        self.output_slots = [i for i, o in slots if isinstance(o, Tensor) and o.requires_grad]
        self.grad_outputs = [None] * self.n_outputs
        wrapped = list(outputs)
        for i in self.output_slots:
            on_grad = functools.partial(self._on_output_grad, i)
            wrapped[i] = HookIdentity.apply(outputs[i], on_grad=on_grad)
        return tuple(wrapped) if isinstance(output, tuple) else wrapped[0]

    def _on_output_grad(self, i, grad):
        self.grad_outputs[i] = grad
        self.outputs_seen += 1
        replacement = None
        if self.outputs_seen == len(self.output_slots):
            replacement = self._run_pre_hooks(may_replace=len(self.output_slots) == 1)
            if not self.input_slots:  # nothing upstream will report: grad_input is all None
                self._run_full_hooks(may_replace=False)
                self._start_pass()
        return None if replacement is None else replacement[i]

    def _on_input_grad(self, i, grad):
        if not self.pre_hooks_done:  # an output took no part in the loss and never reported
            self._run_pre_hooks(may_replace=False)
        self.grad_inputs[i] = grad
        self.inputs_seen += 1
        if self.inputs_seen < len(self.input_slots):
            return None
        new = self._run_full_hooks(may_replace=len(self.input_slots) == 1)
        self._start_pass()
        return None if new is None else new[i]

    def _run_pre_hooks(self, may_replace):
        self.pre_hooks_done = True
        replaced = None
        for hook in list(self.module._backward_pre_hooks.values()):
            result = hook(self.module, tuple(self.grad_outputs))
            if result is None:
                continue
            result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            if len(result) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, "
                    f"got {len(result)}, but expected {len(self.grad_outputs)}"
                )
            if not may_replace:
                raise NotImplementedError(
                    f"{type(self.module).__name__}: a full backward pre-hook may only replace "
                    "grad_output for modules with one output that requires grad"
                )
            self.grad_outputs = list(result)
            replaced = result
        return replaced

    def _run_full_hooks(self, may_replace):
        replacement = None
        for hook in list(self.module._backward_hooks.values()):
            grad_input = tuple(self.grad_inputs) if replacement is None else replacement
            result = hook(self.module, grad_input, tuple(self.grad_outputs))
            if result is not None:
                if not self.input_slots and all(r is None for r in result):
                    continue
                if not self.input_slots:
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always "
                        "return None or None for all gradients."
                    )
                if not may_replace:
                    raise NotImplementedError(
                        f"{type(self.module).__name__}: a full backward hook may only replace "
                        "grad_input for modules with one input that requires grad"
                    )
                replacement = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        return replacement
