"""Ingest bundles into a scratch database and dump every table, ordered: a change to the
ingestion code that must not change what it loads is checked by dumping before and after.

    python scripts/ingest_rows.py OUT PATH [PATH ...] [--workers N]

OUT gets one line per row, `table<TAB>row as JSON` (PostgreSQL's `to_jsonb`, the load time
`ingested_at` left out), tables by name, rows ordered by their text; the run also ingests
everything a second time and checks that nothing changes (re-ingesting unchanged files does
nothing). Compare two dumps with `cmp` (or `diff` to see the rows). To dump with another
checkout's code, put it first on the path: `PYTHONPATH=/path/to/checkout python …`.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from sqlalchemy import text

from fhir_ingest.bench import scratch_database
from fhir_ingest.loader import ingest_paths
from records.models import Base
from records.settings import Settings


def dump(db, out) -> tuple[int, str]:
    """(rows, sha256 of the dump) after writing the dump to `out`."""
    digest = hashlib.sha256()
    count = 0
    with db.admin.connect() as conn:
        for table in sorted(t.name for t in Base.metadata.sorted_tables):
            rows = conn.execute(
                text(f"SELECT (to_jsonb(t) - 'ingested_at')::text AS r FROM \"{table}\" t ORDER BY 1")
            ).scalars()
            for row in rows:
                line = f"{table}\t{row}\n"
                out.write(line)
                digest.update(line.encode())
                count += 1
    return count, digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    import fhir_ingest

    print(f"code: {Path(fhir_ingest.__file__).parent}", file=sys.stderr)
    with scratch_database(Settings()) as db:
        report = ingest_paths(db, args.paths, workers=args.workers)
        if not report.ok:
            for failure in report.failures:
                print(f"failed: {failure.error}", file=sys.stderr)
        with args.out.open("w") as out:
            count, digest = dump(db, out)
        again = ingest_paths(db, args.paths, workers=args.workers)
        with open("/dev/null", "w") as sink:
            unchanged = dump(db, sink) == (count, digest)
    statuses = sorted({f.status for f in again.files})
    print(
        f"{len(report.files)} files ({len(report.failures)} failed), {count} rows, sha256 {digest}; "
        f"second ingest: {statuses}, tables {'unchanged' if unchanged else 'CHANGED'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
