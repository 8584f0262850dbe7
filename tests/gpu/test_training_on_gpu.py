"""A CNN and the GPT trained a few hundred steps on the GPU: the same losses as the same run
on the CPU (same initial weights, same batches), and a training step that copies nothing
between host and device.

The two runs do the same arithmetic in another order (cuBLAS tiles its products, CuPy
reduces in a tree, the kernels' threads add in their own order), so their float32 losses
part by rounding, and the parting grows a little with every step, as between any two
machines: the first steps agree to 1e-4, the whole run to 1e-2 (a bug, such as a wrong
gradient or an optimizer state left on the CPU, shows up as 10% or more within a few steps).
The CNN's small late losses part by more than that on an H100 (2% at step 171 of 200): its
whole run is compared in float64 instead, where rounding stays far below 1e-6.
"""

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.data import load_digits, tiny_shakespeare
from minigrad.models import GPT, LeNet5, ResNet
from minigrad.nn.utils import clip_grad_norm_

STEPS = 200


def _digits_batches(steps, batch=32, seed=0):
    images, labels = load_digits()
    # 16x16
    x = np.repeat(np.repeat(images.astype(np.float32) / 16.0, 2, axis=1), 2, axis=2)[:, None]
    rng = np.random.default_rng(seed)
    picks = [rng.choice(len(x), batch, replace=False) for _ in range(steps)]
    return [(x[p], labels[p]) for p in picks]


def _text_batches(steps, batch=16, T=32, seed=0):
    text = tiny_shakespeare()[:200_000]
    vocab = sorted(set(text))
    lookup = {c: i for i, c in enumerate(vocab)}
    ids = np.fromiter((lookup[c] for c in text), dtype=np.int64, count=len(text))
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - T - 1, batch)
        rows = ids[starts[:, None] + np.arange(T + 1)]
        batches.append((rows[:, :-1], rows[:, 1:]))
    return len(vocab), batches


def _train(model, batches, device, loss_fn, lr, dtype=None):
    """The losses of a training run (forward, loss, backward, clip 1.0, AdamW) on `device`
    (inputs cast to `dtype` when given)."""
    model.to(device)
    opt = mg.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        x = mg.tensor(x, device=device, dtype=dtype)
        loss = loss_fn(model(x), mg.tensor(y, device=device))
        opt.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def _same_losses(cpu, gpu_losses, what, whole_run_rtol=1e-2):
    np.testing.assert_allclose(gpu_losses[:5], cpu[:5], rtol=1e-4, err_msg=f"{what}: first steps")
    np.testing.assert_allclose(
        gpu_losses, cpu, rtol=whole_run_rtol, err_msg=f"{what}: the whole run"
    )
    assert cpu[-20:].mean() < cpu[:5].mean() - 0.5, (
        f"{what}: the run did not learn ({cpu[:5]} -> {cpu[-20:]})"
    )


def _gpt_loss(logits, y):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def test_lenet_trains_on_the_gpu_as_on_the_cpu(gpu):
    batches = _digits_batches(STEPS)
    mg.manual_seed(0)
    cpu_model = LeNet5(num_classes=10, image_size=16)
    gpu_model = LeNet5(num_classes=10, image_size=16)
    gpu_model.load_state_dict(cpu_model.state_dict())
    first = batches[:20]  # float32: the first steps, to float32's rounding
    cpu = _train(cpu_model, first, "cpu", F.cross_entropy, 2e-3)
    on_gpu = _train(gpu_model, first, "cuda", F.cross_entropy, 2e-3)
    assert all(p.device.type == "cuda" for p in gpu_model.parameters())
    np.testing.assert_allclose(on_gpu, cpu, rtol=1e-3, err_msg="LeNet-5 float32: first steps")
    mg.manual_seed(0)  # float64: the whole run, to far below float32's rounding
    cpu_model = LeNet5(num_classes=10, image_size=16).double()
    gpu_model = LeNet5(num_classes=10, image_size=16).double()
    gpu_model.load_state_dict(cpu_model.state_dict())
    cpu = _train(cpu_model, batches, "cpu", F.cross_entropy, 2e-3, mg.float64)
    on_gpu = _train(gpu_model, batches, "cuda", F.cross_entropy, 2e-3, mg.float64)
    _same_losses(cpu, on_gpu, "LeNet-5 float64", whole_run_rtol=1e-6)


def test_gpt_trains_on_the_gpu_as_on_the_cpu(gpu):
    vocab, batches = _text_batches(STEPS)
    mg.manual_seed(0)
    cpu_model = GPT(vocab, 64, 2, 4, 32, bias=False)
    gpu_model = GPT(vocab, 64, 2, 4, 32, bias=False)
    gpu_model.load_state_dict(cpu_model.state_dict())
    cpu = _train(cpu_model, batches, "cpu", _gpt_loss, 3e-3)
    on_gpu = _train(gpu_model, batches, "cuda", _gpt_loss, 3e-3)
    _same_losses(cpu, on_gpu, "GPT")


def test_a_training_step_copies_nothing(gpu):
    """A whole GPT step and a whole ResNet step (forward, loss, backward, clipping, AdamW,
    the learning-rate schedule) with every copy between host and device forbidden."""
    vocab, batches = _text_batches(2)
    mg.manual_seed(0)
    gpt = GPT(vocab, 64, 2, 4, 32, bias=False).cuda()
    resnet = ResNet(num_classes=10).cuda()
    images, labels = _digits_batches(2)[0]
    cases = [
        (
            gpt,
            mg.tensor(batches[0][0], device="cuda"),
            mg.tensor(batches[0][1], device="cuda"),
            _gpt_loss,
        ),
        (
            resnet,
            mg.tensor(images[:, :, ::2, ::2], device="cuda"),
            mg.tensor(labels, device="cuda"),
            F.cross_entropy,
        ),
    ]
    for model, x, y, loss_fn in cases:
        opt = mg.optim.AdamW(model.parameters(), lr=1e-3)
        sched = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        # the GPT's first forward grows its rotary table, computed on the host and copied
        # over once (nn/rotary.py): a forward outside the check. Then the first step makes
        # the optimizer's state, and the second must copy nothing either.
        model(x)
        for _ in range(2):
            gpu.transfers.update(to_host=0, to_device=0)
            with gpu.forbid_transfers():
                loss = loss_fn(model(x), y)
                opt.zero_grad()
                loss.backward()
                clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
            assert gpu.transfers == {"to_host": 0, "to_device": 0}
        assert loss.device.type == "cuda" and np.isfinite(loss.item())
