"""Compiled kernels called from several Python threads at once: no crash, the same results.

Numba's `workqueue` threading layer (minigrad's, see minigrad/threads.py) aborts the whole
process when two threads launch parallel kernels at the same time. Two models trained in
two threads, or a DataLoader whose worker threads apply a minigrad op while the main
thread trains, did exactly that. A crash would take pytest down with it, so the workload
runs in a child process; the test reads its return code and the losses it printed.

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

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels import jit

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


def test_a_kernel_called_while_this_thread_holds_the_kernel_lock_does_not_deadlock():
    """The lock is re-entrant: code that runs under it (a kernel's Python caller, or the
    user's own) may call a kernel again from the same thread."""
    x = mg.randn(2, 3, 8, 8)
    expected = F.max_pool2d(x, 2).numpy()
    result = []

    def nested():
        with jit.parallel_kernel_lock:
            with jit.parallel_kernel_lock:
                result.append(F.max_pool2d(x, 2).numpy())

    worker = threading.Thread(target=nested, daemon=True)  # a deadlock fails the test, not the run
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), (
        "a kernel called under the lock, from the same thread, never returned"
    )
    np.testing.assert_array_equal(result[0], expected)


def test_a_kernel_called_from_another_thread_waits_for_the_lock():
    x = mg.randn(2, 3, 8, 8)
    F.max_pool2d(x, 2)  # compiled (or loaded) before the lock is taken
    result = []
    with jit.parallel_kernel_lock:
        worker = threading.Thread(target=lambda: result.append(F.max_pool2d(x, 2)), daemon=True)
        worker.start()
        worker.join(timeout=1)
        assert worker.is_alive() and not result, "the kernel ran while another thread held the lock"
    worker.join(timeout=120)
    assert len(result) == 1


# the child: fork while another thread holds the lock; the forked process must not wait for
# that thread, which does not exist there
FORK_WHILE_LOCKED = """
import os, sys, threading, time
import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels import jit

x = mg.randn(2, 3, 8, 8)
F.max_pool2d(x, 2)
holding, release = threading.Event(), threading.Event()


def hold():
    with jit.parallel_kernel_lock:
        holding.set()
        release.wait()


threading.Thread(target=hold).start()
holding.wait()
pid = os.fork()
if pid == 0:
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
    result = run_child(FORK_WHILE_LOCKED)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split()[-1] == "0", "the forked child got stuck or failed"


def test_only_parallel_kernels_take_the_lock():
    """A parallel kernel comes wrapped (its dispatcher's attributes still reachable); a
    serial one stays Numba's dispatcher, so that other compiled code can call it."""
    import numba

    from minigrad.kernels.cpu import pool

    assert isinstance(pool._max_pool2d_planes, jit.ParallelKernel)
    assert pool._max_pool2d_planes.py_func.__name__ == "_max_pool2d_planes"
    assert jit.cache_location(pool._max_pool2d_planes) is not None
    assert isinstance(pool.valid_range, numba.core.registry.CPUDispatcher)
