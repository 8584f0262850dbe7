"""Which solution regions ran: the test suite's check that a lesson's tests reach
every region of the lesson.

`make(..., solutions="trace")` writes an answer key in which each region starts with a
call to `hit`; running the lesson's tests with MINIGRAD_EXERCISES_TRACE naming a file
appends one line per region reached: the lesson, the region's name and the test that
was running (pytest's PYTEST_CURRENT_TEST). Nothing else calls it.
"""

import os

_written = set()  # each line once: a region may run thousands of times in one test


def hit(lesson, region):
    """Record that `region` of `lesson` ran (only if MINIGRAD_EXERCISES_TRACE is set)."""
    path = os.environ.get("MINIGRAD_EXERCISES_TRACE")
    line = f"{lesson} {region} {os.environ.get('PYTEST_CURRENT_TEST', '-')}\n"
    if path and line not in _written:
        _written.add(line)
        with open(path, "a", encoding="utf-8") as log:
            log.write(line)
