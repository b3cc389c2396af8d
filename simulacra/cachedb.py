"""A shared cache in SQLite: the replay cache of model answers, the cache of embeddings.

A cache is a convenience, never the record: whatever it held can be computed again. So a
damaged one (not a database, malformed pages, a directory in its place) is reported in one
line on stderr, set aside under a new name for whoever wants to look at it, and started
afresh, when it is opened or whenever a read or write finds the damage. A cache that is
merely busy (locked by another process) or a full disk is not damage, and is raised as is.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from datetime import datetime
from pathlib import Path

from simulacra.text import printable

_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


class Rows(list):
    """Every row a statement returned, read at once (so damage found while reading is found
    inside :meth:`CacheDB.execute`), answering the cursor methods the caches use."""

    def fetchone(self) -> tuple | None:
        return self[0] if self else None

    def fetchall(self) -> list[tuple]:
        return list(self)


class CacheDB:
    """One connection to the cache at ``path`` whose table ``table`` is made by ``schema``.
    Safe to share between threads; statements run one at a time."""

    def __init__(self, path: Path, *, schema: str, table: str, what: str) -> None:
        self.path = path
        self.what = what  # "replay cache": how the warning names it
        self._schema = schema
        self._table = table
        self._lock = threading.RLock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._open_or_renew()

    def execute(self, sql: str, params: tuple | list = ()) -> Rows:
        return self._run(lambda db: Rows(db.execute(sql, params).fetchall()))

    def executemany(self, sql: str, rows: list) -> None:
        self._run(lambda db: db.executemany(sql, rows))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- damage ----------------------------------------------------------------------------

    def _run(self, statement):
        with self._lock:
            try:
                return statement(self._db)
            except sqlite3.DatabaseError as e:
                if not damaged(e):
                    raise
                self._db.close()
                self._set_aside(e)
                self._db = self._open()
                return statement(self._db)

    def _open_or_renew(self) -> sqlite3.Connection:
        try:
            return self._open()
        except _NotAFile as e:
            self._set_aside(e)
        except sqlite3.DatabaseError as e:
            if not damaged(e):
                raise
            self._set_aside(e)
        return self._open()

    def _open(self) -> sqlite3.Connection:
        if self.path.exists() and not self.path.is_file():
            raise _NotAFile("not a file")
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(self._schema)
            db.execute(f"SELECT * FROM {self._table} LIMIT 1").fetchall()  # noqa: S608
        except BaseException:
            db.close()
            raise
        return db

    def _set_aside(self, why: Exception) -> None:
        stamp = f"{datetime.now():%Y%m%d-%H%M%S}"
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        self.path.rename(aside)
        # The journal beside it belongs to the damaged file: a fresh one must not replay it.
        for suffix in ("-wal", "-shm"):
            journal = self.path.with_name(self.path.name + suffix)
            if journal.exists() or journal.is_symlink():
                journal.rename(aside.with_name(aside.name + suffix))
        reason = " ".join(str(why).split()) or type(why).__name__
        print(
            printable(
                f"warning: {self.path}: the {self.what} is damaged ({reason}); set aside as "
                f"{aside.name} and started afresh (what it held is computed again)"
            ),
            file=sys.stderr,
        )


class _NotAFile(Exception):
    pass


def damaged(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged, rather than busy or out of space."""
    name = getattr(error, "sqlite_errorname", None)
    if name is not None:
        return name.startswith(_DAMAGE)  # SQLITE_CORRUPT_INDEX and the like too
    text = str(error)
    return "not a database" in text or "malformed" in text
