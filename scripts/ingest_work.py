"""One process doing a worker's share of `chartside ingest`, for counting and profiling.

    python scripts/ingest_work.py MODE FOLDER [--repeat N]

MODE:
  prepare   map the support bundles, then prepare every patient bundle as a worker process
            does (read, skim, pass 1 + pass 2, encode the rows for COPY, pickle the result);
            `--stop skim|map|encode` stops each patient bundle after that step
  read      read the same files and nothing else (the baseline to subtract)
  parse     read them and `orjson.loads` each (the parse-only pass of `chartside bench ingest`)
  profile   `prepare` under cProfile; prints the top functions by own and cumulative time

The instruction count of the ingestion work (what the README's rounds report) is

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.prepare \\
        .venv/bin/python scripts/ingest_work.py prepare ../shared/synthea-samples
    (the same with `read` and `parse`)

`prepare` − `read` against `parse` − `read` (the totals are on callgrind's `summary:` line,
or `callgrind_annotate FILE | head`). No database is involved: the writes are PostgreSQL's.
"""

from __future__ import annotations

import argparse
import cProfile
import pickle
import pstats
import sys
from pathlib import Path

import orjson

from fhir_ingest.prepare import gc_paused, prepare
from fhir_ingest.source import discover, read_file, support_rank
from fhir_ingest.writer import encode_rows


def _prepare(files: list[Path], stop: str = "") -> int:
    """`stop`: `skim` (read and skim only), `map` (also pass 1 and 2), `encode` (also COPY
    bytes); by default also the pickle a worker sends."""
    from fhir_ingest.references import ReferenceData
    from fhir_ingest.skim import skim_bundle
    from fhir_ingest.transform import READ_TYPES

    refdata = ReferenceData()
    rows = 0
    for path in files:
        raw = read_file(path)
        if stop == "skim" and support_rank(path) >= 2:
            skim_bundle(raw, READ_TYPES)
            continue
        prepared = prepare(path, refdata, raw=raw)
        if prepared.error is not None:
            raise SystemExit(prepared.error)
        result = prepared.result
        assert result is not None
        if support_rank(path) < 2:
            refdata = result.refdata_layer  # what the loader hands the workers
            continue
        result.refdata_layer.parent = None
        if stop == "map":
            continue
        encode_rows(result)
        rows += sum(result.counts().values())
        if stop != "encode":
            pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("prepare", "read", "parse", "profile"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument(
        "--stop", choices=("skim", "map", "encode"), default="", help="prepare: stop after this step"
    )
    args = parser.parse_args()
    files, _ = discover([args.folder])
    with gc_paused():
        for _ in range(args.repeat):
            if args.mode == "prepare":
                print("rows", _prepare(files, args.stop), file=sys.stderr)
            elif args.mode == "read":
                for path in files:
                    read_file(path)
            elif args.mode == "parse":
                for path in files:
                    orjson.loads(read_file(path).data)
            else:
                profiler = cProfile.Profile()
                profiler.enable()
                _prepare(files)
                profiler.disable()
                stats = pstats.Stats(profiler)
                stats.sort_stats("tottime").print_stats(args.top)
                stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
