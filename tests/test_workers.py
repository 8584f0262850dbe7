"""minigrad/kernels/cpu/workers.py: a nogil kernel's tasks cut into blocks, one per thread.

Checked with a tiny kernel that records, for every task, which block ran it: every task
runs exactly once, the blocks are the ones `blocks` promises, they really run on
different threads at once, an error in a helper's block reaches the caller, and a
second caller while the pool is busy runs its work alone.
"""

import threading

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import njit


@njit(nogil=True)
def _mark(seen, lo, hi):  # task t: seen[t] += lo + 1 (which block ran it, counted)
    for t in range(lo, hi):
        seen[t] += lo + 1


@pytest.fixture
def three_threads(monkeypatch):
    monkeypatch.setattr(mg.threads, "_num_threads", 3)


@pytest.mark.parametrize("tasks", [1, 2, 3, 7, 100])
def test_every_task_runs_once_in_its_block(three_threads, tasks):
    seen = np.zeros(tasks, np.int64)
    workers.run(_mark, tasks, seen)
    n = min(3, tasks)
    edges = [tasks * i // n for i in range(n + 1)]  # sizes differing by at most one
    expected = np.concatenate([np.full(hi - lo, lo + 1) for lo, hi in zip(edges, edges[1:])])
    np.testing.assert_array_equal(seen, expected)


def test_blocks_cover_the_range_in_near_equal_parts():
    assert workers.blocks(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert workers.blocks(2, 5) == [(0, 1), (1, 2)]  # no empty block
    assert workers.blocks(5, 1) == [(0, 5)]


def test_no_tasks_calls_nothing(three_threads):
    calls = []
    workers.run(lambda *a: calls.append(a), 0)
    assert not calls


def test_the_blocks_run_on_different_threads_at_once(three_threads):
    # each job waits until all three have started: run one after another, they never would
    started = threading.Barrier(3, timeout=30)
    ran = []

    def job():
        ran.append((threading.get_ident(), threading.current_thread().name))
        started.wait()

    workers.run_jobs([job, job, job])
    assert len({ident for ident, _ in ran}) == 3
    names = [name for _, name in ran]
    assert names.count("minigrad-worker") == 2  # the caller ran the first block itself


def test_an_error_in_a_helpers_block_is_raised_by_the_caller(three_threads):
    def failing():
        raise FloatingPointError("a helper's block failed")

    done = []
    with pytest.raises(FloatingPointError, match="helper's block"):
        workers.run_jobs([lambda: done.append(1), failing, lambda: done.append(3)])
    assert sorted(done) == [1, 3]  # the other blocks still ran to the end
    seen = np.zeros(6, np.int64)
    workers.run(_mark, 6, seen)  # and the pool still works
    assert np.all(seen > 0)


def test_a_second_caller_while_the_pool_is_busy_runs_its_blocks_itself(three_threads):
    names = []
    with workers._busy:  # another thread's kernel has the helpers
        workers.run_jobs([lambda: names.append(threading.current_thread().name)] * 3)
    assert names == [threading.current_thread().name] * 3


def test_split_false_runs_the_whole_range_as_one_call_on_this_thread(three_threads):
    calls = []
    workers.run(lambda *a: calls.append((a, threading.current_thread().name)), 5, "x", split=False)
    assert calls == [(("x", 0, 5), threading.current_thread().name)]


@pytest.mark.parametrize("split", [True, False])
def test_contiguous_copies_a_strided_view_block_by_block(three_threads, monkeypatch, split):
    """workers.contiguous: a strided view comes back in C order with the same values, copied
    in one block per thread with `split` (else in one); a C-ordered array comes back as
    itself; 0-d and empty arrays too."""
    jobs = []
    run_jobs = workers.run_jobs
    monkeypatch.setattr(workers, "run_jobs", lambda j: jobs.append(len(j)) or run_jobs(j))
    x = np.arange(5 * 4 * 6, dtype=np.float32).reshape(5, 6, 4).transpose(0, 2, 1)  # strided
    y = workers.contiguous(x, split=split)
    assert y.flags.c_contiguous and y.dtype == x.dtype and not np.shares_memory(x, y)
    np.testing.assert_array_equal(y, x)
    assert jobs == [3 if split else 1]
    c = np.ascontiguousarray(x)
    assert workers.contiguous(c, split=split) is c
    for odd in (np.float64(2.0) * np.ones(()), np.ones((0, 3))[:, ::2], np.ones((3, 4))[:, ::2]):
        out = workers.contiguous(odd, split=split)
        assert out.flags.c_contiguous and out.shape == odd.shape
        np.testing.assert_array_equal(out, odd)


def test_by_first_axis_hands_each_thread_one_block_of_rows(three_threads):
    """workers.by_first_axis: job(out[lo:hi], x[lo:hi]) once per block of the first axis,
    the blocks covering it once, in near-equal parts, on strided views too."""
    seen = []
    lock = threading.Lock()

    def job(out_block, x_block):
        with lock:
            seen.append(out_block.shape[0])
        np.add(out_block, x_block, out=out_block)

    full = np.zeros((7, 6))
    out = full[:, ::2]  # strided, as a slice of a split is
    x = np.arange(21.0).reshape(7, 3)
    workers.by_first_axis(job, out, x)
    assert sorted(seen) == [2, 2, 3]
    np.testing.assert_array_equal(full[:, ::2], x)
    np.testing.assert_array_equal(full[:, 1::2], 0)
    seen.clear()
    workers.by_first_axis(job, out, x, split=False)
    assert seen == [7]
    np.testing.assert_array_equal(out, 2 * x)
