"""A class on one PostgreSQL store: a role per student and one for the instructor, and
row-level security on every table, so that a student's role reads and writes only its own
threads (and their descendants, messages, events, files, runs, variables) while the
instructor's reads them all. The database enforces it: a student connected with psql sees no
row of another student's thread, and a write into one is refused.

A thread's `member` column says whose it is; a student's runtime writes its own role there
(`tl.Runtime(user=)` defaults to the database role), and the policies compare it with
`current_user`."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ThreadlabError
from .._urls import hide
from ._postgres import PostgresStore, _psycopg

__all__ = ["ClassMember", "init_class"]

# The tables whose rows belong to one thread, by the column that names it.
_THREAD_TABLES = ("messages", "events", "env", "files", "runs", "queue", "env_log", "leases")
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
TOKENS_PER_DAY = "class_tokens_per_day"
"""The `meta` key of the class's daily token allowance per member (None: no limit)."""


@dataclass(frozen=True)
class ClassMember:
    """A role `init_class` made or kept, and the URL it connects with."""

    role: str
    instructor: bool
    url: str
    """The store's URL as this role (its password in it, when one was made)."""


def init_class(
    url: str,
    *,
    instructor: str,
    students: Sequence[str],
    tokens_per_day: int | None = None,
    passwords: bool = False,
) -> list[ClassMember]:
    """Make the store at `url` (a role that may create roles) a class's: its schema, a login
    role per student and the instructor's (kept when they exist), and the row-level security
    that lets each student's role reach only its own threads and the instructor's read all.
    `tokens_per_day`: what each member's model steps may use in a day, together (kept as it
    was when None on a second run). With `passwords`, each role gets a new random password,
    in the URL returned for it. Running it again adds the students not there yet and keeps
    the rest. A role that is a superuser, may bypass row-level security or create roles, or
    is the role this runs as, is refused: it would see every student."""
    names = [instructor, *students]
    for name in names:
        if not _ROLE.match(name):
            raise ThreadlabError(
                f"class init: {name!r} is not a role name this command makes (lowercase"
                " letters, digits and _, starting with a letter or _)"
            )
    if len(set(names)) != len(names):
        raise ThreadlabError("class init: a role is named twice (the instructor among them?)")
    if tokens_per_day is not None and tokens_per_day <= 0:
        raise ThreadlabError(f"class init: --tokens-per-day must be positive, got {tokens_per_day}")
    PostgresStore(url).close()  # the schema, created or migrated as the store does
    psycopg = _psycopg()
    from psycopg import sql

    members = []
    try:
        with psycopg.connect(url, autocommit=False) as db:
            _refuse_privileged(db, names)
            for name in names:
                password = secrets.token_urlsafe(18) if passwords else None
                _ensure_role(db, sql, name, password)
                members.append(ClassMember(name, name == instructor, _url_as(url, name, password)))
            # Before PostgreSQL 15 every role may create objects in `public`: a student's
            # function of a name the store calls would run with the rights of whoever calls it.
            db.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            _grant(db, sql, names)
            _harden(db)
            _secure(db, sql, instructor)
            if tokens_per_day is not None:
                db.execute(
                    "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE"
                    " SET value = EXCLUDED.value",
                    (TOKENS_PER_DAY, str(tokens_per_day)),
                )
    except psycopg.Error as exc:
        raise ThreadlabError(f"class init on {hide(url, url)}: {hide(str(exc), url)}") from None
    return members


_SAME_MEMBER_PARENT = """
CREATE OR REPLACE FUNCTION threadlab_same_member_parent() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    IF NEW.parent_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM public.threads p
        WHERE p.id = NEW.parent_id AND p.member IS NOT DISTINCT FROM NEW.member
    ) THEN
        RAISE EXCEPTION 'a thread''s parent is a thread of the same member''s'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$
"""


def _refuse_privileged(db: Any, names: Sequence[str]) -> None:
    rows = db.execute(
        "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s) AND (rolsuper OR rolbypassrls"
        " OR rolcreaterole OR rolname = current_user)",
        (list(names),),
    ).fetchall()
    if rows:
        named = ", ".join(sorted(r[0] for r in rows))
        raise ThreadlabError(
            f"class init: {named} may see every student's rows (a superuser, a role that"
            " bypasses row-level security or creates roles, or the role this runs as):"
            " a class's members are roles of their own"
        )


def _harden(db: Any) -> None:
    """What the database checks of every member's writes beyond whose they are: a file's
    content is stored once per member under its own digest (no member can store another
    content under a digest, or learn whether another member stored one); what was spent is
    never negative; history is added to, not deleted (nor are its events rewritten)."""
    db.execute("ALTER TABLE blobs ADD COLUMN IF NOT EXISTS member TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE blobs ALTER COLUMN member SET DEFAULT current_user")
    db.execute("ALTER TABLE blobs DROP CONSTRAINT IF EXISTS blobs_pkey")
    db.execute("ALTER TABLE blobs DROP CONSTRAINT IF EXISTS blobs_member_digest")
    db.execute("ALTER TABLE blobs ADD CONSTRAINT blobs_member_digest PRIMARY KEY (member, digest)")
    db.execute("ALTER TABLE blobs DROP CONSTRAINT IF EXISTS blobs_digest_of_data")
    db.execute(
        "ALTER TABLE blobs ADD CONSTRAINT blobs_digest_of_data"
        " CHECK (digest = encode(sha256(data), 'hex'))"
    )
    # A thread's parent is a thread of the same member's: no member hangs a thread of theirs
    # under another's, where it would count in that thread's steps and grade. (A trigger: a
    # policy on `threads` cannot read `threads` again.)
    db.execute(_SAME_MEMBER_PARENT)
    db.execute("REVOKE ALL ON FUNCTION threadlab_same_member_parent() FROM PUBLIC")
    db.execute("DROP TRIGGER IF EXISTS threadlab_same_member_parent ON threads")
    db.execute(
        "CREATE TRIGGER threadlab_same_member_parent BEFORE INSERT OR UPDATE OF parent_id,"
        " member ON threads FOR EACH ROW EXECUTE FUNCTION threadlab_same_member_parent()"
    )
    db.execute("ALTER TABLE usage DROP CONSTRAINT IF EXISTS usage_spent")
    db.execute(
        "ALTER TABLE usage ADD CONSTRAINT usage_spent CHECK (tokens >= 0 AND (cost_usd IS NULL"
        " OR (cost_usd >= 0 AND cost_usd < 'Infinity'::float8)))"
    )


def _ensure_role(db: Any, sql: Any, name: str, password: str | None) -> None:
    exists = db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
    statement = "ALTER ROLE {} WITH LOGIN" if exists else "CREATE ROLE {} WITH LOGIN"
    if password is not None:
        db.execute(sql.SQL(statement + " PASSWORD {}").format(
            sql.Identifier(name), sql.Literal(password)))  # fmt: skip
    else:
        db.execute(sql.SQL(statement).format(sql.Identifier(name)))


def _grant(db: Any, sql: Any, roles: Sequence[str]) -> None:
    who = sql.SQL(", ").join(sql.Identifier(r) for r in roles)
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in ("threads", "blobs", *_THREAD_TABLES))
    db.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(who))
    db.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(tables, who))
    # History is added to: a member's events, env log and spending are never deleted or
    # rewritten (a message is: a fork's edited result), their messages never deleted.
    appended = sql.SQL(", ").join(sql.Identifier(t) for t in ("events", "env_log"))
    db.execute(sql.SQL("REVOKE UPDATE, DELETE ON {} FROM {}").format(appended, who))
    db.execute(sql.SQL("REVOKE DELETE ON messages FROM {}").format(who))
    db.execute(sql.SQL("GRANT SELECT ON meta TO {}").format(who))
    # What a member spent is added to, never changed: a daily budget cannot be undone.
    db.execute(sql.SQL("GRANT SELECT, INSERT ON usage TO {}").format(who))
    db.execute(sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(who))


def _secure(db: Any, sql: Any, instructor: str) -> None:
    """Row-level security on every table but `meta` (which every member reads and none
    writes): each policy made again, so a second run leaves one of each."""
    own_thread = "member = current_user"
    policies: list[tuple[str, str, str]] = [("threads", own_thread, own_thread)]
    for table in _THREAD_TABLES:
        owned = (
            f"EXISTS (SELECT 1 FROM threads t WHERE t.id = {table}.thread_id"
            " AND t.member = current_user)"
        )
        policies.append((table, owned, owned))
    for table, using, check in policies:
        _policy(db, sql, table, "threadlab_own", f"FOR ALL USING ({using}) WITH CHECK ({check})")
    own_usage = f"FOR ALL USING ({own_thread}) WITH CHECK ({own_thread})"
    _policy(db, sql, "usage", "threadlab_own", own_usage)
    # A member's file contents are theirs (the instructor reads them all, below).
    _policy(db, sql, "blobs", "threadlab_own", f"FOR SELECT USING ({own_thread})")
    _policy(db, sql, "blobs", "threadlab_store", f"FOR INSERT WITH CHECK ({own_thread})")
    for table in ("threads", "blobs", "usage", *_THREAD_TABLES):
        db.execute(
            sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(sql.Identifier(table))
        )
        db.execute(
            sql.SQL("DROP POLICY IF EXISTS threadlab_instructor ON {}").format(
                sql.Identifier(table)
            )
        )
        db.execute(
            sql.SQL(
                "CREATE POLICY threadlab_instructor ON {} FOR SELECT TO {} USING (true)"
            ).format(sql.Identifier(table), sql.Identifier(instructor))
        )


def _policy(db: Any, sql: Any, table: str, name: str, body: str) -> None:
    db.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(
        sql.Identifier(name), sql.Identifier(table)))  # fmt: skip
    db.execute(
        sql.SQL("CREATE POLICY {} ON {} " + body).format(
            sql.Identifier(name), sql.Identifier(table)
        )
    )


_KEPT_PARAMETERS = frozenset({
    "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslcompression",
    "connect_timeout", "target_session_attrs", "application_name",
})  # fmt: skip
"""What of the store's URL a member's URL keeps: where and how to connect, never whose
credentials (a `user=`, `password=`, `service=` or `passfile=` there is the admin's)."""


def _url_as(url: str, role: str, password: str | None) -> str:
    """`url` with `role` (and `password`) as its user: its host, port, database and
    connection settings, nothing of the credentials it was given."""
    from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k in _KEPT_PARAMETERS])
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host += f":{parts.port}"
    user = quote(role, safe="") + (f":{quote(password, safe='')}" if password else "")
    return urlunsplit((parts.scheme, f"{user}@{host}", parts.path, query, ""))
