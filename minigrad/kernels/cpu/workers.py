"""Work on every core: a compiled kernel's tasks cut into one block per thread, each block
run by a thread of a small pool of Python threads. Every CPU kernel that uses more than one
core goes through here, and so do the large matrix products (kernels/cpu/matmul.py).

A kernel written for this takes its tasks as its last two arguments, lo and hi, and its
outer loop runs over them; it is compiled with ``nogil=True``, so that while it runs the
thread lets go of Python's lock and the other threads run theirs at the same time:

    @njit(nogil=True, cache=True)
    def _scale_rows(x, c, lo, hi):       # task r: row r of x
        for r in range(lo, hi):
            for j in range(x.shape[1]):
                x[r, j] *= c

    workers.run(_scale_rows, x.shape[0], x, 2.0)   # rows cut into one block per thread

With n threads, range(tasks) is cut into n blocks whose sizes differ by at most one; the
calling thread runs the first block itself and n - 1 helper threads run the others, each
blocked on a queue (asleep, not spinning) until it is handed one. The tasks must be
independent: they write to disjoint parts of the output, or to a copy of their own.
Which task goes into which block depends only on the number of tasks and of threads, so a
result is the same from run to run.

Why not Numba's own `parallel=True` and `prange`, which do the same cutting: compiling.
Numba compiles a `prange` loop's body into a function of its own and then compiles it
again in each module that links it, and every parallel kernel took about twice as long to
compile as the same kernel serial (benchmarks/RESULTS.md, "First use, issue #24 point
4"): the first epoch of a CNN spent half its compile time on that. The kernels compile
once here, and a small call costs less: below two tasks, or when another thread of the
program is already using the helpers, the whole range runs on the calling thread, with
no thread woken at all.

The number of threads is `minigrad.threads.kernel_threads()`: every core this process may
run on, or what `minigrad.set_num_threads(n)` set (minigrad/threads.py has the policy). After a
fork the child has no helper threads (only the forking thread survives it), and it starts its own
when it first needs them.
"""

import functools
import os
import queue
import threading

import numpy as np

from minigrad import threads


class _Helper:
    """A thread that waits for jobs (functions of no arguments) and runs them in turn."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.done = queue.SimpleQueue()  # None, or the exception a job raised
        threading.Thread(target=self._run, name="minigrad-worker", daemon=True).start()

    def _run(self):
        while True:
            job = self.jobs.get()
            try:
                job()
                self.done.put(None)
            except BaseException as error:  # handed to the caller, which raises it
                self.done.put(error)
            # let go of the job: it holds the kernel's arrays, which would otherwise stay
            # alive until the next job
            del job


_helpers = []
# one caller at a time: a second thread of the program that calls while the helpers are
# busy runs its work alone, on its own thread, instead of waiting for them
_busy = threading.Lock()


def _forget_helpers():
    """In a forked child: drop the parent's helpers, which do not exist there."""
    global _busy
    _helpers.clear()
    _busy = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def count():
    """How many threads a kernel's tasks are cut over (see the module's docstring)."""
    return threads.kernel_threads()


def run_jobs(jobs):
    """Run every job (a function of no arguments) once, the first on this thread and each
    other on a helper thread, and return when all are done. If jobs raised, the first
    one's exception is raised here (after all have finished). If the helpers are busy with
    another thread's jobs, this thread runs all of its own, one after the other."""
    if len(jobs) < 2 or not _busy.acquire(blocking=False):
        for job in jobs:
            job()
        return
    try:
        while len(_helpers) < len(jobs) - 1:
            _helpers.append(_Helper())
        working = _helpers[: len(jobs) - 1]
        for helper, job in zip(working, jobs[1:]):
            helper.jobs.put(job)
        try:
            jobs[0]()
        finally:
            # wait for every helper, even when this thread's job raised: the helpers may
            # still be writing into the arrays
            errors = [helper.done.get() for helper in working]
    finally:
        _busy.release()
    for error in errors:
        if error is not None:
            raise error


def blocks(tasks, n):
    """range(tasks) cut into min(n, tasks) blocks (lo, hi), sizes differing by at most one."""
    n = max(1, min(n, tasks))
    edges = [tasks * i // n for i in range(n + 1)]
    return list(zip(edges[:-1], edges[1:]))


def run(kernel, tasks, *args, split=True):
    """kernel(*args, lo, hi) for blocks [lo, hi) of range(tasks), one block per thread
    (see the module's docstring). The kernel must be compiled with ``nogil=True``.
    split=False runs the whole range on this thread, as one call: for work too small to
    be worth waking a thread for (each family measures where that is)."""
    if tasks <= 0:
        return
    if not split:
        kernel(*args, 0, tasks)
        return
    jobs = [functools.partial(kernel, *args, lo, hi) for lo, hi in blocks(tasks, count())]
    run_jobs(jobs)


def contiguous(x, split=True):
    """x in C order: x itself if it is already, else a copy, cut along its first axis into
    one block per thread with `split` (NumPy lets go of Python's lock while it copies, so
    the blocks run at once). The kernels that read a strided view (the heads of attention,
    the rotary embedding's q and k) copy it with this: on one core, a copy of a large
    activation keeps the other cores waiting."""
    if x.flags.c_contiguous:
        return x
    out = np.empty(x.shape, x.dtype)  # (a 0-d array is always in C order)
    by_first_axis(np.copyto, out, x, split)
    return out


def by_first_axis(job, out, x, split=True):
    """job(out[lo:hi], x[lo:hi]) for blocks [lo, hi) of the first axis of out and x (arrays
    of one shape), one block per thread with `split`: a NumPy call that lets go of
    Python's lock (np.copyto, np.add with out=) then runs on every core at once. Cut along
    the first axis, not the flat elements, so that strided views (a transposed copy's
    source, a slice of a split) are cut too."""
    cuts = blocks(x.shape[0], count() if split else 1)
    run_jobs([functools.partial(job, out[lo:hi], x[lo:hi]) for lo, hi in cuts])
