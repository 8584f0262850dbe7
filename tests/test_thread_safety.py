"""Compiled kernels called from several Python threads at once: no crash, the same results.

A kernel's tasks run on minigrad's pool of threads (minigrad/kernels/cpu/workers.py);
while one Python thread's kernel has the pool, a kernel called from another thread runs
all its tasks on that thread. Two models trained in two threads, or a DataLoader whose
worker threads apply a minigrad op while the main thread trains, do exactly that. (When
the kernels ran on Numba's `workqueue` layer, this aborted the whole process.) A crash
would take pytest down with it, so the workload runs in a child process; the test reads
its return code and the losses it printed.

The tasks are tiny and deterministic: each run must learn (its loss, averaged over 4
steps, falls below half its start) and, since every kernel computes the same sums in the same order
whichever thread calls it, the losses of the runs side by side must equal those of the runs one at
a time.
"""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels import jit
from minigrad.kernels.cpu import workers

ROOT = Path(__file__).resolve().parents[1]

# the child: three training runs, first one at a time, then side by side
WORKLOAD = """
import json, threading
import numpy as np
import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.utils.data import DataLoader, Dataset

STEPS = 32  # 8 epochs of the loader's 4 batches
rng = np.random.default_rng(0)
images = rng.standard_normal((64, 1, 8, 8)).astype(np.float32)
# the label: is the top half of the image brighter than the bottom half?
labels = (images[:, 0, :4].sum((1, 2)) > images[:, 0, 4:].sum((1, 2))).astype(np.int64)


class CNN(nn.Module):  # convolution and max pooling kernels
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Linear(8 * 4 * 4, 2)

    def forward(self, x):
        return self.head(F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1))


class Attention(nn.Module):  # attention kernels: each image is 8 tokens, its rows
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 3 * 16)
        self.head = nn.Linear(8 * 16, 2)

    def forward(self, x):
        q, k, v = self.qkv(x[:, 0]).chunk(3, dim=-1)
        return self.head(F.scaled_dot_product_attention(q, k, v, is_causal=True).flatten(1))


class Blurred(Dataset):  # average pooling, in the loader's worker threads
    def __len__(self):
        return len(images)

    def __getitem__(self, i):
        x = F.avg_pool2d(mg.tensor(images[i : i + 1]), 3, stride=1, padding=1)
        return x[0], int(labels[i])


def full_batches():
    return [(mg.tensor(images), mg.tensor(labels))] * STEPS


def loader_batches(num_workers):
    loader = DataLoader(Blurred(), batch_size=16, num_workers=num_workers)
    return [batch for _ in range(STEPS // len(loader)) for batch in loader]


def train(model, batches):
    optimizer = mg.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for x, y in batches:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def model(kind):
    mg.manual_seed(0)  # here, in the main thread: the threads draw no random numbers
    return CNN() if kind == "cnn" else Attention()


alone = {
    "cnn": train(model("cnn"), full_batches()),
    "attention": train(model("attention"), full_batches()),
    "loader": train(model("cnn"), loader_batches(0)),
}
together = {}
runs = {"cnn": model("cnn"), "attention": model("attention")}
threads = [
    threading.Thread(target=lambda k=k: together.__setitem__(k, train(runs[k], full_batches())))
    for k in runs
]
loader_model = model("cnn")
for t in threads:
    t.start()
together["loader"] = train(loader_model, loader_batches(2))  # the main thread, meanwhile
for t in threads:
    t.join()
print(json.dumps({"alone": alone, "together": together}))
"""


def run_child(script, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_models_trained_in_threads_alongside_loader_workers_learn_as_when_run_alone():
    result = run_child(WORKLOAD)
    assert result.returncode == 0, (
        f"the child died (return code {result.returncode}):\n{result.stderr[-3000:]}"
    )
    losses = json.loads(result.stdout.splitlines()[-1])
    for kind in ("cnn", "attention", "loader"):
        alone, together = losses["alone"][kind], losses["together"][kind]
        assert len(together) == len(alone) == 32, kind
        first, last = np.mean(alone[:4]), np.mean(alone[-4:])  # the loader's first and last epochs
        assert last < first / 2, f"{kind} did not learn: {alone}"
        assert together == alone, kind  # the same kernels, the same sums: the same numbers


def test_a_kernel_called_while_another_thread_has_the_pool_runs_on_its_own_thread():
    x = mg.randn(4, 8, 16, 16)
    expected = F.max_pool2d(x, 2).numpy()
    result = []
    with workers._busy:  # as if another thread's kernel had the helpers
        worker = threading.Thread(target=lambda: result.append(F.max_pool2d(x, 2)), daemon=True)
        worker.start()
        worker.join(timeout=120)  # a wait for the pool would fail here, not hang the run
        assert not worker.is_alive(), "the kernel waited for the pool instead of running alone"
    np.testing.assert_array_equal(result[0].numpy(), expected)


# the child: fork while another thread has the pool; the forked process must not wait for
# that thread, which does not exist there
FORK_WHILE_BUSY = """
import os, sys, threading, time
import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cpu import workers

x = mg.randn(4, 8, 16, 16)
F.max_pool2d(x, 2)
holding, release = threading.Event(), threading.Event()


def hold():
    with workers._busy:
        holding.set()
        release.wait()


threading.Thread(target=hold).start()
holding.wait()
pid = os.fork()
if pid == 0:
    workers.run_jobs([lambda: None, lambda: None])  # takes the pool: a stale lock would hang
    F.max_pool2d(x, 2)
    os._exit(0)
for _ in range(600):  # a minute at most, then the child counts as stuck
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.1)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    status = "stuck"
release.set()
print(status)
"""


def test_a_process_forked_while_a_kernel_runs_can_run_kernels():
    result = run_child(FORK_WHILE_BUSY)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split()[-1] == "0", "the forked child got stuck or failed"


def test_no_kernel_is_a_numba_parallel_kernel():
    """Every CPU kernel is serial and shares its tasks out through workers.py: a
    parallel=True kernel would compile twice as long, and is refused with a reason."""
    import importlib
    import pkgutil

    import minigrad.kernels.cpu as cpu

    for info in pkgutil.iter_modules(cpu.__path__):
        importlib.import_module(f"minigrad.kernels.cpu.{info.name}")
    kernels = list(jit._family_of)
    assert len(kernels) > 20, "the kernels were not found"
    parallel = [k.__name__ for k in kernels if k.targetoptions.get("parallel")]
    assert not parallel
    with pytest.raises(ValueError, match="parallel=True.*workers.run"):
        jit.njit(parallel=True)
