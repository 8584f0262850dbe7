"""Run Python scripts as `python SCRIPT ARGS...` would, each in a process forked from one
that has imported PyTorch, minigrad and Numba once.

A short script spends most of its run importing those (about 3 s of CPU on a small
machine, for each fresh process). The test suite runs dozens of short scripts: the
figure scripts in smoke mode (docs/figures/smoke.py) and the benchmark scripts with
tiny settings (tests/test_benchmarks.py). Forking a process that has already imported
them gives each script a process of its own, with none of the state another script
left behind, for a few milliseconds instead.

    preload(); run_script(script, args, log)    run a script from this process (smoke.py)
    with ForkServer() as server:                 a subprocess that imports once, then
        server.run(script, args, log)            runs scripts on request (the tests)
    python tools/fork_runner.py                  that server: a JSON request per line on
                                                 stdin, a JSON reply per line on stdout

Each script's child process is what `python SCRIPT ARGS` would start with: `sys.argv`
is [SCRIPT, *ARGS], the script's folder is put first on `sys.path`, its `__name__` is
"__main__", stdin is empty; its stdout and stderr, Python's and C's alike, go to `log`
(stderr to `err_log` instead, if given).
It gets a process group of its own, so that a timeout also ends the processes the
script started. What comes back: the exit code (negative: killed by that signal), the
wall and CPU seconds (the CPU time of the script and of the processes it waited for),
and whether it ran out of time.

Forking is safe here because importing those libraries starts no threads; a thread
pool started before the fork (a parallel kernel run, a PyTorch op) would not exist in
the child, and the child could hang. So this process only imports, it never computes.
"""

import argparse
import contextlib
import json
import os
import runpy
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

# what nearly every script imports: once, here (torch._dynamo is what a first PyTorch
# optimizer imports, about as long as `import torch` itself)
PRELOAD = ("numba", "torch", "torch._dynamo", "minigrad")


def preload(modules=PRELOAD):
    """Import `modules` in this process, so that every forked child has them."""
    import importlib

    for name in modules:
        importlib.import_module(name)


def _child(script, args, log, err_log):
    """In the forked child: run `script` as `python script args` would. Never returns."""
    code = 1
    try:
        os.setpgid(0, 0)  # a process group of its own (the parent does the same: no race)
        # from here on, into the logs
        with open(log, "wb") as out, open(err_log or os.devnull, "wb") as err:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno() if err_log else out.fileno(), 2)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # the server swaps them (main)
        with open(os.devnull, "rb") as f:  # nothing to read: stdin may be the server's requests
            os.dup2(f.fileno(), 0)
        sys.argv = [str(script), *map(str, args)]
        sys.path.insert(0, str(Path(script).resolve().parent))  # as `python script` puts it first
        runpy.run_path(str(script), run_name="__main__")
        code = 0
    except SystemExit as exit_:  # sys.exit(...): Python's own rules for the status
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # no cleanup that belongs to the parent (atexit, temporary folders)


def run_script(script, args, log, timeout=None, err_log=None):
    """Run `script` with `args` in a forked child whose output goes to `log` (its stderr to
    `err_log` if given): {"returncode", "seconds", "cpu_seconds", "timed_out"}. After
    `timeout` seconds the child and every process of its group are killed (returncode -9)."""
    sys.stdout.flush()  # else the child would print what is still in this process's buffers
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(script, args, log, err_log)
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child has set it already, or has already exited
        pass
    timed_out = False
    try:
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG if timeout is not None else 0)
            if done:
                break
            if time.perf_counter() - start > timeout:
                timed_out = True
                os.killpg(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.02)
    except BaseException:  # Ctrl-C or an error here: the child must not outlive the runner
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    return {
        "returncode": os.waitstatus_to_exitcode(status),
        "seconds": time.perf_counter() - start,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "timed_out": timed_out,
    }


def serve(requests, replies):
    """Answer each request line {"script", "args", "log", "timeout", "err_log"} with
    run_script's result, as one line of JSON, until the requests end."""
    for line in requests:
        request = json.loads(line)
        result = run_script(**request)
        replies.write(json.dumps(result) + "\n")
        replies.flush()


class ForkServer:
    """`python tools/fork_runner.py` in a subprocess: imports once, then runs scripts on
    request, each in a child forked from it. Close it (or use it in a `with`) when done."""

    def __init__(self, preload=PRELOAD, env=None):
        command = [sys.executable, __file__, "--preload", ",".join(preload)]
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )

    def run(self, script, args, log, timeout=None, err_log=None):
        """run_script(script, args, log, timeout, err_log) in a child of the server."""
        request = {
            "script": str(script),
            "args": [str(a) for a in args],
            "log": str(log),
            "timeout": timeout,
        }
        request["err_log"] = err_log and str(err_log)
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError(
                f"fork_runner: the server exited ({self.proc.wait()}); its error is above"
            )
        return json.loads(reply)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--preload", default=",".join(PRELOAD), help="modules to import first (comma-separated)"
    )
    args = parser.parse_args(argv)
    # replies go to the real stdout; anything else printed here (an import's warning) to stderr
    replies, sys.stdout = sys.stdout, sys.stderr
    preload([name for name in args.preload.split(",") if name])
    serve(sys.stdin, replies)


if __name__ == "__main__":
    main()
