"""Exercise mode for instructors: student copies of minigrad with the solutions taken out.

Solution regions are marked in the library's source with two comments,
`# BEGIN SOLUTION hint: ...` and `# END SOLUTION` (see `regions`); each lesson owns the
regions of a few files and the tests marked `lesson_<name>` (see `lessons`).

    python -m minigrad.exercises --list                      # lessons, regions, tests
    python -m minigrad.exercises make OUT_DIR --lesson conv  # or --lesson all

writes a copy of the package in which the lesson's regions raise NotImplementedError
with their hint, plus the lesson's tests and a README (see `student_copy`). The tests
fail on that copy and pass on the full package; the test suite checks both.
"""

from minigrad.exercises.lessons import LESSONS, Lesson, marked_tests
from minigrad.exercises.regions import Region, find_regions
from minigrad.exercises.student_copy import listing, make

__all__ = ["LESSONS", "Lesson", "Region", "find_regions", "listing", "make", "marked_tests"]
