"""Would Citus route this statement to one shard? Checked on the SQL the application really sent.

A table distributed by `patient_id` answers a query from one shard only when every reference
to a distributed table in every SELECT scope (subqueries, EXISTS, CTEs included) is pinned to
one patient: `<alias>.patient_id = '<id>'` as a top-level conjunct of the WHERE clause or a
JOIN condition, with the same id everywhere. An `OR` around the filter, a join on another
column only, or a filter left to row-level security (which Citus cannot route on) makes the
statement fan out to every shard.

Statements are captured with SQLAlchemy's `before_cursor_execute` event and on asyncio
psycopg cursors (see `SqlCapture`),
the bound parameters are substituted as literals, and the text is parsed by PostgreSQL's own
parser (pglast = libpg_query), so what is checked is what the server would have executed.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from pglast.parser import parse_sql_json
from sqlalchemy import Engine, event

PARAM = re.compile(r"%\((\w+)\)s")
EXECUTE = re.compile(r"EXECUTE (\w+)(?:\((?:%\(\w+\)s(?:, )?)*\))?")


def with_prepared_bodies(sql: str) -> str:
    """The query with each `EXECUTE name(%(a)s, …)` of a statement the asyncio pool prepares
    (`records.async_pool.Prepared`) replaced by that statement's own SQL, whose placeholders
    are the same: what the server executes, checked like every other statement."""
    from records.async_pool import PREPARED

    return EXECUTE.sub(lambda m: PREPARED[m.group(1)], sql)


@dataclass(frozen=True)
class Statement:
    sql: str
    params: Mapping[str, Any] | None

    def rendered(self) -> str:
        """The statement with its parameters inlined as SQL literals (psycopg's pyformat style)."""
        params = self.params or {}
        text = PARAM.sub(lambda m: literal(params[m.group(1)]), self.sql)
        return text.replace("%%", "%")


def literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dt.datetime | dt.date):
        return "'" + value.isoformat() + "'"
    if isinstance(value, list | tuple):
        return "ARRAY[" + ", ".join(literal(v) for v in value) + "]::text[]" if value else "'{}'"
    if isinstance(value, dict):
        value = orjson.dumps(value).decode()
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class SqlCapture:
    """Every statement an engine executes while the capture is active (all threads)."""

    statements: list[Statement] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _on_execute(self, conn, cursor, statement, parameters, context, executemany) -> None:
        rows = parameters if executemany else [parameters]
        with self._lock:
            for params in rows:
                self.statements.append(Statement(statement, params if isinstance(params, Mapping) else None))

    @contextmanager
    def on(self, engine: Engine) -> Iterator[SqlCapture]:
        """The engine's statements, and every query sent on an asyncio psycopg connection (the
        answer stream's opening, server/opening.py: several statements in one query, prepared
        ones included: `with_prepared_bodies`), whether through a cursor's `execute` or bound by
        `mogrify` and sent by `records.async_pool.run_script`."""
        import psycopg

        real = psycopg.AsyncCursor.execute
        real_mogrify = psycopg.AsyncClientCursor.mogrify
        capture = self

        def captured(query, params) -> None:
            # a new pooled connection's PREPAREs execute nothing: their bodies are checked
            # where they run, at EXECUTE (`with_prepared_bodies`)
            if isinstance(query, str) and not query.startswith("PREPARE "):
                with capture._lock:
                    capture.statements.append(
                        Statement(
                            with_prepared_bodies(query), params if isinstance(params, Mapping) else None
                        )
                    )

        async def execute(cursor, query, params=None, **kwargs):
            captured(query, params)
            return await real(cursor, query, params, **kwargs)

        def mogrify(cursor, query, params=None):
            captured(query, params)
            return real_mogrify(cursor, query, params)

        event.listen(engine, "before_cursor_execute", self._on_execute)
        psycopg.AsyncCursor.execute = execute  # type: ignore[method-assign]
        psycopg.AsyncClientCursor.mogrify = mogrify  # type: ignore[method-assign]
        try:
            yield self
        finally:
            psycopg.AsyncCursor.execute = real  # type: ignore[method-assign]
            psycopg.AsyncClientCursor.mogrify = real_mogrify  # type: ignore[method-assign]
            event.remove(engine, "before_cursor_execute", self._on_execute)


# --- the AST walk ------------------------------------------------------------------------------


def _strings(fields: Sequence[dict]) -> list[str]:
    return [f["String"]["sval"] for f in fields if "String" in f]


def _conjuncts(node: dict | None) -> list[dict]:
    """Top-level AND terms only: a filter inside OR/NOT does not pin a shard."""
    if not node:
        return []
    boolexpr = node.get("BoolExpr")
    if boolexpr and boolexpr["boolop"] == "AND_EXPR":
        return [c for arg in boolexpr["args"] for c in _conjuncts(arg)]
    return [node]


def _const_string(node: dict) -> str | None:
    const = node.get("A_Const")
    if const and "sval" in const:
        return const["sval"]["sval"]
    cast = node.get("TypeCast")
    if cast:
        return _const_string(cast["arg"])
    return None


def _patient_filters(conditions: list[dict]) -> list[tuple[str | None, str]]:
    """(qualifier or None, patient id) for every `[q.]patient_id = '<id>'` conjunct."""
    found = []
    for cond in conditions:
        expr = cond.get("A_Expr")
        if not expr or expr["kind"] != "AEXPR_OP" or _strings(expr["name"]) != ["="]:
            continue
        for column, other in ((expr["lexpr"], expr["rexpr"]), (expr["rexpr"], expr["lexpr"])):
            ref = column.get("ColumnRef")
            value = _const_string(other)
            if ref is None or value is None:
                continue
            names = _strings(ref["fields"])
            if names and names[-1] == "patient_id":
                found.append((names[-2] if len(names) > 1 else None, value))
    return found


@dataclass
class Problem:
    statement: str
    table: str
    why: str

    def __str__(self) -> str:
        return f"{self.table}: {self.why}\n    {self.statement[:400]}"


@dataclass
class RoutingCheck:
    """Walks one parsed statement; `patient_tables` are the tables distributed by patient_id."""

    patient_tables: frozenset[str]
    sql: str
    pinned_to: set[str] = field(default_factory=set)  # patient ids the statement is pinned to
    touched: set[str] = field(default_factory=set)  # distributed tables the statement reads/writes
    problems: list[Problem] = field(default_factory=list)

    def problem(self, table: str, why: str) -> None:
        self.problems.append(Problem(self.sql, table, why))

    # every node kind that opens a SELECT scope is visited through `walk`
    def walk(self, node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                self.walk(item)
            return
        if not isinstance(node, dict):
            return
        for kind, body in node.items():
            if kind == "SelectStmt":
                self.select(body)
            elif kind == "InsertStmt":
                self.insert(body)
            elif kind in ("UpdateStmt", "DeleteStmt"):
                self.update_or_delete(kind, body)
            else:
                self.walk(body)

    def _from_items(self, items: list[dict]) -> tuple[list[tuple[str, str, list[dict]]], list[dict]]:
        """Distributed tables of one scope as (table, name it is referred to by, ON conditions
        that restrict it), plus the conditions that restrict every table (inner-join ONs).

        An outer join's ON clause restricts only its nullable side: `a LEFT JOIN b ON b.x = 1`
        pins b, never a."""
        tables: list[tuple[str, str, list[dict]]] = []
        common: list[dict] = []
        for item in items:
            if "RangeVar" in item:
                rv = item["RangeVar"]
                if rv["relname"] in self.patient_tables:
                    tables.append((rv["relname"], rv.get("alias", {}).get("aliasname", rv["relname"]), []))
            elif "JoinExpr" in item:
                join = item["JoinExpr"]
                left, left_common = self._from_items([join["larg"]])
                right, right_common = self._from_items([join["rarg"]])
                quals = _conjuncts(join.get("quals"))
                kind = join["jointype"]
                if kind == "JOIN_INNER":
                    common += quals + left_common + right_common
                else:
                    for side, side_common, restricted in (
                        (left, left_common, kind == "JOIN_RIGHT"),
                        (right, right_common, kind == "JOIN_LEFT"),
                    ):
                        for _, _, own in side:
                            own.extend(side_common + (quals if restricted else []))
                tables += left + right
                if join.get("quals"):
                    self.walk(join["quals"])
            else:  # RangeSubselect, RangeFunction, …: their own scope
                self.walk(item)
        return tables, common

    def _require(self, tables: list[tuple[str, str, list[dict]]], conditions: list[dict]) -> None:
        for table, name, own in tables:
            self.touched.add(table)
            filters = _patient_filters(conditions + own)
            ids = {pid for q, pid in filters if q == name or (q is None and len(tables) == 1)}
            if not ids:
                self.problem(table, f"`{name}` is not filtered by `{name}.patient_id = <one id>`")
            self.pinned_to |= ids

    def select(self, body: dict) -> None:
        if body.get("op", "SETOP_NONE") != "SETOP_NONE":
            self.select(body["larg"])  # set operations hold bare SelectStmt bodies
            self.select(body["rarg"])
            return
        if body.get("withClause"):
            self.walk(body["withClause"])
        tables, quals = self._from_items(body.get("fromClause", []))
        self._require(tables, quals + _conjuncts(body.get("whereClause")))
        for key in ("targetList", "whereClause", "havingClause", "sortClause", "valuesLists"):
            self.walk(body.get(key))

    def insert(self, body: dict) -> None:
        table = body["relation"]["relname"]
        if body.get("selectStmt") and "valuesLists" not in body["selectStmt"].get("SelectStmt", {}):
            self.walk(body["selectStmt"])
        if table not in self.patient_tables:
            self.walk(body.get("onConflictClause"))
            return
        self.touched.add(table)
        columns = [c["ResTarget"]["name"] for c in body.get("cols", [])]
        if "patient_id" not in columns:
            self.problem(table, "INSERT does not name patient_id")
            return
        position = columns.index("patient_id")
        for row in body["selectStmt"]["SelectStmt"].get("valuesLists", []):
            value = _const_string(row["List"]["items"][position])
            if value is None:
                self.problem(table, "INSERT's patient_id is not a constant")
            else:
                self.pinned_to.add(value)
        self.walk(body.get("onConflictClause"))
        self.walk(body.get("returningList"))

    def update_or_delete(self, kind: str, body: dict) -> None:
        rv = body["relation"]
        table = rv["relname"]
        extra, quals = self._from_items(body.get("fromClause", []) or body.get("usingClause", []))
        tables = (
            [(table, rv.get("alias", {}).get("aliasname", table), [])] if table in self.patient_tables else []
        )
        self._require(tables + extra, quals + _conjuncts(body.get("whereClause")))
        for key in ("targetList", "whereClause", "returningList"):
            self.walk(body.get(key))


def check_statement(statement: Statement, patient_tables: frozenset[str]) -> RoutingCheck:
    sql = statement.rendered()
    check = RoutingCheck(patient_tables=patient_tables, sql=sql)
    parsed = orjson.loads(parse_sql_json(sql))
    for stmt in parsed["stmts"]:
        check.walk(stmt["stmt"])
    if len(check.pinned_to) > 1:
        check.problem(
            ",".join(sorted(check.touched)), f"pinned to several patients: {sorted(check.pinned_to)}"
        )
    return check
