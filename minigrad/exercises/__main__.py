"""`python -m minigrad.exercises`: list the lessons, or write a student's copy.

`--list` prints the lessons, the regions each one takes out and its tests;
`make OUT_DIR --lesson conv` (or `--lesson all`) writes a student's copy, and with
`--solutions` the answer key.
"""

import argparse
import sys

from minigrad.exercises.lessons import LESSONS
from minigrad.exercises.student_copy import INSTALL, listing, make


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.exercises",
        description="Exercise mode: copies of minigrad with a lesson's solutions replaced by "
        "NotImplementedError.",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the lessons, their solution regions and tests"
    )
    commands = parser.add_subparsers(dest="command")
    make_parser = commands.add_parser(
        "make", help="write a student's copy of the package and the lesson's tests"
    )
    make_parser.add_argument("out_dir", help="a new (or empty) folder for the copy")
    make_parser.add_argument("--lesson", required=True, help=f"one of {', '.join(LESSONS)}, or all")
    make_parser.add_argument(
        "--solutions", action="store_true", help="write the answer key instead (markers dropped)"
    )
    args = parser.parse_args(argv)

    if args.list:
        print(listing())
        return 0
    if args.command != "make":
        parser.print_help()
        return 2
    try:
        lessons = make(args.out_dir, args.lesson, solutions=args.solutions)
    except (ValueError, FileExistsError, RuntimeError) as error:
        print(error, file=sys.stderr)
        return 2
    kind = "answer key" if args.solutions else "student copy"
    print(f"wrote the {kind} for {', '.join(lesson.name for lesson in lessons)} to {args.out_dir}")
    print(
        f"install what its tests need (pytest; no PyTorch) with\n  cd {args.out_dir} && {INSTALL}"
    )
    print("and run its tests with")
    for lesson in lessons:
        print(f"  cd {args.out_dir} && python -m pytest -m {lesson.marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
