"""real_sqlite.py - sqlite3 running tests/e2e/real/sqlite_workload.sql with
and without scaler. Check: sqlite3."""
import os
import shutil

from harness import HERE, compare_run, fresh_dirs, guarded, run, skip

MODE = "real"


def real_sqlite(scaler, tmp):
    sq = shutil.which("sqlite3")
    if not sq:
        return skip("sqlite3", "sqlite3 not installed")
    name = os.path.basename(sq)      # named as invoked
    rows = [
        (name, "libsqlite3.so*", "sqlite3_step", ">0"),
        (name, "libsqlite3.so*", "sqlite3_prepare_v2", ">0"),
        (name, "libsqlite3.so*", "sqlite3_column_text", ">0"),
        ("libsqlite3.so*", "libc.so.6", "malloc", ">0"),
    ]
    linked = "libsqlite3" in run(["ldd", sq])[1].decode(errors="replace") \
        if shutil.which("ldd") else True
    if not linked:       # a sqlite3 with the library built in
        rows = [(name, "libc.so.6", "malloc", ">0")]
    guarded("sqlite3", None, lambda: compare_run(
        scaler, [sq, "w.db"], rows, tmp, cwd_factory=fresh_dirs(tmp, "sq"),
        stdin=os.path.join(HERE, "real", "sqlite_workload.sql")))


def checks(t):
    real_sqlite(t.scaler, t.tmp)
