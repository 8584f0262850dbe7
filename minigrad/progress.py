"""A minimal progress bar for training loops (no dependency, works in a log file too).

On a terminal it redraws one line in place; when the output is a file or a pipe (CI,
a notebook's captured output) it prints only the finished line, so logs stay readable.
"""

import sys
import time


class ProgressBar:
    """`bar = ProgressBar(total, prefix)`; `bar.update(n, **stats)` after each batch;
    `bar.close(**stats)` prints the final line with the elapsed time."""

    def __init__(self, total, prefix="", width=24, stream=None):
        self.total, self.prefix, self.width = total, prefix, width
        self.stream = stream or sys.stdout
        self.count = 0
        self.start = time.perf_counter()
        self.interactive = hasattr(self.stream, "isatty") and self.stream.isatty()

    def _line(self, stats):
        done = int(self.width * self.count / max(self.total, 1))
        bar = "#" * done + "." * (self.width - done)
        text = " ".join(
            f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in stats.items()
        )
        elapsed = time.perf_counter() - self.start
        return f"{self.prefix} [{bar}] {self.count}/{self.total} {text} ({elapsed:.1f}s)"

    def update(self, n=1, **stats):
        self.count += n
        if self.interactive:
            self.stream.write("\r" + self._line(stats))
            self.stream.flush()

    def close(self, **stats):
        self.stream.write(("\r" if self.interactive else "") + self._line(stats) + "\n")
        self.stream.flush()
