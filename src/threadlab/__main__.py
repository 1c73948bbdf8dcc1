"""`python -m threadlab class init URL --instructor ROLE --students a,b,c`: a class on one
PostgreSQL store (see `threadlab.store.init_class`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._errors import ThreadlabError
from .store import init_class


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m threadlab")
    commands = parser.add_subparsers(dest="command", required=True)
    classes = commands.add_parser("class", help="a class of students on one PostgreSQL store")
    actions = classes.add_subparsers(dest="action", required=True)
    init = actions.add_parser(
        "init",
        help="create the store's schema, a role per student and the instructor's, and the"
        " row-level security that keeps each student to their own threads",
    )
    init.add_argument("url", help="postgresql://... as a role that may create roles")
    init.add_argument("--instructor", required=True, help="the instructor's role (reads all)")
    init.add_argument("--students", required=True, help="the students' roles: a,b,c")
    init.add_argument("--tokens-per-day", type=int, default=None,
                      help="what each member's model steps may use in a day")  # fmt: skip
    init.add_argument("--passwords", action="store_true",
                      help="give each role a new random password (printed in its URL)")  # fmt: skip
    args = parser.parse_args(argv)
    students = [s.strip() for s in args.students.split(",") if s.strip()]
    try:
        members = init_class(
            args.url,
            instructor=args.instructor,
            students=students,
            tokens_per_day=args.tokens_per_day,
            passwords=args.passwords,
        )
    except ThreadlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for member in members:  # a URL holds no credential but the password this run made
        print(f"{'instructor' if member.instructor else 'student'}\t{member.role}\t{member.url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
