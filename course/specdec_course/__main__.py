"""Command line: ``python -m specdec_course {list,new-key,key,handout,grade}``.

``list``     every exercise, numbered as the book numbers them;
``new-key``  write a new course key (a secret file; keep it away from students);
``key``      the book's answers, or with the course key and roster the answers of students' graded variants;
``handout``  one sheet per roster student (Markdown and HTML), with their graded variants;
``grade``    run a folder of submitted notebooks and write a gradebook CSV and feedback files.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from . import list_exercises


def _spec(args):
    from ._course import parse_labels, read_assignment
    if getattr(args, "assignment", None):
        return read_assignment(args.assignment)
    if getattr(args, "labels", None):
        return parse_labels(args.labels, title=getattr(args, "title", None) or "Exercises")
    raise ValueError("give the exercises: --assignment FILE (points per exercise) or --labels 1.1,1.2")


def _course(args):
    from ._course import Roster
    from ._variants import CourseKey
    if not args.course_key or not args.roster:
        raise ValueError("graded variants need --course-key FILE and --roster FILE")
    return CourseKey.read(args.course_key), Roster.read(args.roster)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specdec_course", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every exercise, by chapter")

    new = sub.add_parser("new-key", help="write a new course key to FILE (never overwrites)")
    new.add_argument("file")

    key = sub.add_parser("key", help="the answer key (the book's; students' with --course-key and --roster)")
    key.add_argument("--labels", help="exercises: labels, globs (expected-tokens-*), numbers (1.2) or chapters (3)")
    key.add_argument("--assignment", help="an assignment file (its exercises)")
    key.add_argument("--student", "--seed", dest="student", help="one student's graded variants (a roster id)")
    key.add_argument("--course-key", help="the course key file")
    key.add_argument("--roster", help="the roster CSV (column id)")
    key.add_argument("--markdown", action="store_true", help="a Markdown table instead of plain text")

    sheet = sub.add_parser("handout", help="one sheet per roster student (Markdown and HTML)")
    sheet.add_argument("--course-key", help="the course key file")
    sheet.add_argument("--roster", help="the roster CSV (column id)")
    sheet.add_argument("--assignment", help="the assignment file (title, points per exercise)")
    sheet.add_argument("--labels", help="instead of --assignment: the exercises (1 point each, or 1.1:2)")
    sheet.add_argument("--title", help="a title (with --labels)")
    sheet.add_argument("--out", required=True, help="folder for <id>.md and <id>.html")
    sheet.add_argument("--student", action="append", help="only this student (repeatable)")

    grade = sub.add_parser("grade", help="grade a folder of student notebooks (runs them: see the instructors' page)")
    grade.add_argument("directory", help="a folder of .ipynb files (searched recursively)")
    grade.add_argument("--course-key", help="the course key file")
    grade.add_argument("--roster", help="the roster CSV (column id)")
    grade.add_argument("--assignment", help="the assignment file (title, points per exercise)")
    grade.add_argument("--labels", help="instead of --assignment: the exercises (1 point each, or 1.1:2)")
    grade.add_argument("--csv", required=True, help="the gradebook CSV to write (one row per roster student)")
    grade.add_argument("--feedback", help="folder for one feedback file per student (default: next to the CSV)")
    grade.add_argument("--timeout", type=float, default=300.0, help="seconds per notebook (default 300)")
    grade.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    grade.add_argument("--memory-limit", type=int, default=4096, help="MB of address space per kernel (0: none)")
    grade.add_argument("--jobs", type=int, default=1, help="notebooks run at the same time (default 1)")
    grade.add_argument("--isolation", choices=("auto", "namespace", "session"), default="auto",
                       help="namespace: each notebook in its own PID namespace (unshare); auto: when available")
    grade.add_argument("--restart", action="store_true", help="ignore the progress file of an earlier run")

    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print(list_exercises())
        elif args.command == "new-key":
            from ._variants import CourseKey
            made = CourseKey.create(args.file)
            print(f"wrote the course key {made.fingerprint} to {args.file}: keep it secret and keep a copy")
        elif args.command == "key":
            from . import instructors
            labels = ",".join(_spec(args).labels) if (args.assignment or args.labels) else None
            extra = {}
            if args.student is not None:
                extra["course_key"], extra["roster"] = _course(args)
            table = instructors.answer_key(labels, seed=args.student, **extra)
            print(table.to_markdown() if args.markdown else table)
        elif args.command == "handout":
            from ._handout import write_handouts
            course_key, roster = _course(args)
            written = write_handouts(_spec(args), course_key, roster, args.out, students=args.student)
            print(f"wrote {len(written) // 2} handouts (Markdown and HTML) to {args.out}")
        else:
            from ._grade import grade as run_grade
            course_key, roster = _course(args)
            csv_path = pathlib.Path(args.csv)
            feedback = pathlib.Path(args.feedback) if args.feedback else csv_path.with_name(csv_path.stem + "-feedback")
            book = run_grade(args.directory, _spec(args), roster, course_key, csv_path=csv_path,
                             feedback_dir=feedback, timeout=args.timeout, cell_timeout=args.cell_timeout,
                             memory_limit=args.memory_limit, jobs=max(1, args.jobs), isolation=args.isolation,
                             resume=not args.restart)
            print(book.to_text())
            print(f"gradebook: {csv_path}; feedback: {feedback}/")
    except (ValueError, KeyError, TypeError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
