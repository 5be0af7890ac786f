"""Command line for instructors: ``python -m specdec.exercises {list,key,handout,grade}``.

``list``     every exercise, numbered as the book numbers them;
``key``      the answer key (reference answers at their stated precision), optionally of one student's variants;
``handout``  one student's exercise sheet (their variants) as Markdown;
``grade``    re-execute a folder of student notebooks and grade the answers they checked.
"""

from __future__ import annotations

import argparse
import sys

from . import instructors, list_exercises


def _seed(text: str):
    return int(text) if text.isdigit() else text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specdec.exercises", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every exercise, by chapter")

    key = sub.add_parser("key", help="the answer key")
    key.add_argument("--labels", help="exercises: labels, globs (expected-tokens-*), numbers (1.2) or chapters (3)")
    key.add_argument("--seed", type=_seed, help="the key of this student's variants")
    key.add_argument("--markdown", action="store_true", help="a Markdown table instead of plain text")

    sheet = sub.add_parser("handout", help="one student's exercise sheet (Markdown)")
    sheet.add_argument("--seed", type=_seed, required=True, help="the student's seed (an integer or a student id)")
    sheet.add_argument("--labels", required=True, help="the assigned exercises")
    sheet.add_argument("--title", help="a title for the sheet")

    grade = sub.add_parser("grade", help="grade a folder of student notebooks (runs them: use a container)")
    grade.add_argument("directory", help="a folder of .ipynb files (searched recursively)")
    grade.add_argument("--labels", help="the assigned exercises (default: every exercise a notebook checked)")
    grade.add_argument("--seeds", help="CSV file with columns notebook,seed: the variant assigned to each notebook")
    grade.add_argument("--seed-from-filename", action="store_true", help="use each notebook's file stem as its seed")
    grade.add_argument("--timeout", type=float, default=300.0, help="seconds per notebook (default 300)")
    grade.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    grade.add_argument("--memory-limit", type=int, default=4096, help="MB of address space per kernel (0: none)")
    grade.add_argument("--jobs", type=int, default=1, help="notebooks run at the same time (default 1)")
    grade.add_argument("--csv", action="store_true", help="print CSV instead of a table")

    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print(list_exercises())
        elif args.command == "key":
            table = instructors.answer_key(args.labels, seed=args.seed)
            print(table.to_markdown() if args.markdown else table)
        elif args.command == "handout":
            print(instructors.handout(args.labels, args.seed, title=args.title))
        else:
            seeds = instructors.read_seeds(args.seeds) if args.seeds else None
            report = instructors.grade(args.directory, labels=args.labels, seeds=seeds,
                                       seed_from_filename=args.seed_from_filename, timeout=args.timeout,
                                       cell_timeout=args.cell_timeout, memory_limit=args.memory_limit,
                                       jobs=max(1, args.jobs))
            sys.stdout.write(report.to_csv() if args.csv else report.to_text() + "\n")
    except (ValueError, KeyError, TypeError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
