"""The tool registry: typed functions → strict Anthropic tool definitions → audited execution.

A tool is a function `(ctx, args) -> ToolResult` with a pydantic input model
(`extra="forbid"`) and a docstring that becomes its description. The registry

* turns the input model into a strict JSON schema (`tools.schema`; no patient field can
  exist: the schema check refuses one),
* validates raw model input against the model (unknown fields such as `patient_id` are
  rejected with an explanation, not silently dropped),
* runs the tool inside one database transaction as the application role with the scope's
  patient set, so row-level security filters every statement; each call gets its own copy
  of the context, so tool calls of one turn can run in parallel threads safely,
* rolls that transaction back when the tool raises `ToolError` (an expected failure the
  model can act on: a taken slot, an unknown id) and returns the explanation,
* writes one audit row per call, allowed or denied (a successful call commits it in its own
  transaction, so no result is returned without its audit row), and
* turns unexpected exceptions into a generic error result (logged with a traceback here,
  never shown to the model).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from sqlalchemy import Connection

from records.audit import write_audit, write_audit_and_commit
from records.database import Database, patient_transaction
from tools.embedder import QueryEmbedder
from tools.results import HandleBook, ToolResult
from tools.schema import FORBIDDEN_FIELD_WORDS, plain_schema, strict_schema
from tools.scope import PatientScope

log = logging.getLogger(__name__)

# `Database` is re-exported: the agent and the transports hold the record store only to hand
# it to tools (the import contract keeps `agent/` from importing `records`)
__all__ = [
    "FORBIDDEN_FIELD_WORDS",
    "Database",
    "Registry",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "Toolset",
    "strict_schema",
]

ToolFn = Callable[["ToolContext", BaseModel], ToolResult]


class ToolInput(BaseModel):
    """Base of every tool's input model: unknown fields (such as `patient_id`) are errors."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL text cannot hold NUL: refuse it here instead of failing inside a query
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("must not contain NUL (\\x00) characters")
        return value


@dataclass(frozen=True)
class SearchSettings:
    """What the search tools may tune, read once from the one settings object."""

    leaflet_similarity_floor: float
    leaflet_keyword_backend: str
    note_similarity_floor: float

    @classmethod
    def from_settings(cls, settings: Any) -> SearchSettings:
        return cls(
            leaflet_similarity_floor=settings.leaflet_similarity_floor,
            leaflet_keyword_backend=settings.leaflet_keyword_backend,
            note_similarity_floor=settings.note_similarity_floor,
        )


@dataclass
class ToolContext:
    """Everything a tool may use — its typed dependencies, in the style of pydantic-ai's
    `RunContext`: the scope (whose record: the scope, not the arguments, says), the
    patient-scoped `connection`, the `clock()`, the `search` settings, the handle book and
    the embedder. Tools read nothing else (no settings object, no environment)."""

    scope: PatientScope
    db: Database
    handles: HandleBook = field(default_factory=HandleBook)
    embedder: QueryEmbedder | None = (
        None  # the one loaded embedder (tools.embedder); None: loaded on first search
    )
    conn: Connection | None = None  # the patient-scoped transaction, set by the registry
    now: Any = None  # datetime override for evaluations ("now" pinned); None = wall clock
    search_settings: SearchSettings | None = None  # None: from the database's settings

    @property
    def search(self) -> SearchSettings:
        if self.search_settings is None:
            self.search_settings = SearchSettings.from_settings(self.db.settings)
        return self.search_settings

    @property
    def connection(self) -> Connection:
        if self.conn is None:
            raise RuntimeError("tool called outside Registry.execute")
        return self.conn

    def clock(self) -> dt.datetime:
        """The current instant (aware, UTC), or the pinned one an evaluation set."""
        if self.now is None:
            return dt.datetime.now(dt.UTC)
        now = self.now
        if isinstance(now, dt.date) and not isinstance(now, dt.datetime):
            now = dt.datetime.combine(now, dt.time(12), tzinfo=dt.UTC)
        return now if now.tzinfo else now.replace(tzinfo=dt.UTC)

    def write_clock(self) -> dt.datetime:
        """The instant a write is judged by: never earlier than the wall clock.

        A pinned `now` reproduces answers; it must not make a real slot in the past bookable
        (or a past appointment cancellable). Only an evaluation sandbox, whose writes the
        harness undoes, books by its pinned clock.
        """
        if self.scope.write_mode == "sandbox":
            return self.clock()
        return max(self.clock(), dt.datetime.now(dt.UTC))


class ToolError(Exception):
    """An expected failure with an explanation the model can act on (rolls the call back)."""

    def __init__(self, kind: str, explanation: str) -> None:
        super().__init__(explanation)
        self.kind = kind
        self.explanation = explanation


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_model: type[BaseModel]
    fn: ToolFn
    section: str  # record section for scoped asking: conditions, medications, labs, ...
    writes: bool = False  # writing tools never run in parallel with others
    status_text: str = "Looking up your record…"

    @property
    def strict(self) -> bool:
        """Strict (grammar-constrained) for writes only: the request-wide strict budget is small."""
        return self.writes

    def schema(self) -> dict[str, Any]:
        return strict_schema(self.input_model) if self.strict else plain_schema(self.input_model)

    def definition(self) -> dict[str, Any]:
        definition = {"name": self.name, "description": self.description, "input_schema": self.schema()}
        if self.strict:
            definition["strict"] = True
        return definition


def describe_validation_error(tool: str, error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "input"
        if item["type"] == "extra_forbidden":
            parts.append(f"'{where}' is not an argument of {tool}; remove it")
        else:
            message = item["msg"].removeprefix("Value error, ")
            parts.append(message if where == "input" else f"'{where}': {message}")
    return f"Invalid arguments for {tool}: " + "; ".join(parts) + ". Fix them and call again."


def args_digest(args: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(args, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Toolset:
    """Tools declared with `@TOOLS.tool(...)`: the one way a tool is registered.

    Every tool module holds one module-level `TOOLS = Toolset()` and decorates its tool
    functions with it (tests/tools/test_registration.py fails on any other way); the catalogue
    (`tools.catalog`) includes the modules' toolsets into a `Registry`, in a fixed order.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name} registered twice")
        strict_schema(tool.input_model)  # fail at start, not at call time (also: no patient field)
        self._tools[tool.name] = tool

    def include(self, toolset: Toolset) -> None:
        """Add every tool of `toolset` (a name already present is an error)."""
        for tool in toolset:
            self.add(tool)

    def tool(self, name: str, *, section: str, writes: bool = False, status_text: str | None = None):
        """Decorator: register `fn(ctx, args: Model) -> ToolResult`; its docstring is the description."""

        def wrap(fn: ToolFn) -> ToolFn:
            model = next(v for k, v in fn.__annotations__.items() if k == "args")
            if isinstance(model, str):
                model = fn.__globals__[model]
            self.add(
                Tool(
                    name=name,
                    description=" ".join((fn.__doc__ or "").split()),
                    input_model=model,
                    fn=fn,
                    section=section,
                    writes=writes,
                    status_text=status_text or "Looking up your record…",
                )
            )
            return fn

        return wrap

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def names(self) -> list[str]:
        return list(self._tools)

    def writing(self) -> frozenset[str]:
        """The tools that change the record: `Tool.writes` is the only record of which do."""
        return frozenset(name for name, tool in self._tools.items() if tool.writes)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._tools


class Registry(Toolset):
    """The tools one agent or transport may call, with their validated, audited execution."""

    def definitions(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        chosen = list(names) if names is not None else self.names()
        return [self._tools[n].definition() for n in chosen if n in self._tools]

    def execute(
        self,
        ctx: ToolContext,
        name: str,
        raw_args: dict[str, Any] | None,
        *,
        allowed: Iterable[str] | None = None,
    ) -> ToolResult:
        """Validate, run in a patient-scoped transaction, audit. Never raises for tool failures."""
        started = time.perf_counter()
        tool = self._tools.get(name)
        if not isinstance(raw_args, dict):
            shown = raw_args
            raw_args = {"_raw": repr(raw_args)[:200]}
            result = ToolResult.failure(
                "bad_argument",
                f"Invalid arguments for {name}: they must be a JSON object, got {type(shown).__name__}. "
                "Fix them and call again.",
            )
        elif tool is None:
            result = ToolResult.failure("not_found", f"There is no tool named {name!r}.")
        elif tool.writes and ctx.scope.write_mode == "none":
            result = ToolResult.failure(
                "not_allowed",
                f"{name} is not available to this account: it is read-only. "
                "Tell the user nothing was booked or cancelled.",
            )
        elif allowed is not None and name not in set(allowed):
            result = ToolResult.failure(
                "not_allowed",
                f"{name} is not available for this question's scope; answer with the tools offered.",
            )
        else:
            try:
                args = tool.input_model.model_validate(raw_args)
            except ValidationError as exc:
                result = ToolResult.failure("bad_argument", describe_validation_error(name, exc))
            else:
                result = self._run(ctx, tool, args, raw_args, started)
                if result.ok:
                    return result  # audited inside the tool's own transaction
        self.audit(ctx, name, raw_args, result, (time.perf_counter() - started) * 1000)
        return result

    def _run(
        self, ctx: ToolContext, tool: Tool, args: BaseModel, raw_args: dict[str, Any], started: float
    ) -> ToolResult:
        try:
            with patient_transaction(ctx.db.app, ctx.scope.patient_id) as conn:
                # a private copy: parallel calls sharing `ctx` must not share a connection
                result = tool.fn(dataclasses.replace(ctx, conn=conn), args)
                if result.ok:
                    # same transaction: a successful call and its audit row commit together (one
                    # round trip), and a result whose audit row cannot be written is never returned
                    ms = (time.perf_counter() - started) * 1000
                    write_audit_and_commit(conn, **self._audit_fields(ctx, tool.name, raw_args, result, ms))
                return result
        except ToolError as exc:  # expected: rolled back, explained
            return ToolResult.failure(exc.kind, exc.explanation)
        except Exception:  # the model gets an explanation; the log gets the traceback
            log.exception("tool %s failed", tool.name)
            return ToolResult.failure(
                "internal",
                f"{tool.name} failed because of an internal error. Tell the user it could not be "
                "looked up right now; do not guess the answer.",
            )

    @staticmethod
    def _audit_fields(
        ctx: ToolContext, name: str, raw_args: dict[str, Any], result: ToolResult, ms: float
    ) -> dict[str, str | None]:
        """One call's audit row (`records.audit.write_audit`'s arguments), allowed or not."""
        return {
            "actor": ctx.scope.actor,
            "role": ctx.scope.role,
            "target_patient_id": ctx.scope.patient_id,
            "action": f"tool:{name}",
            "args_digest": args_digest(raw_args),
            "outcome": "ok" if result.ok else (result.error_kind or "error"),
            "detail": f"{ms:.1f} ms, {result.total} rows" + ("" if result.ok else f": {result.text[:200]}"),
            "conversation_id": ctx.scope.conversation_id,
        }

    @classmethod
    def audit(
        cls, ctx: ToolContext, name: str, raw_args: dict[str, Any], result: ToolResult, ms: float
    ) -> None:
        """The audit row of a call that did not succeed (its own transaction was rolled back)."""
        try:
            write_audit(ctx.db.app, **cls._audit_fields(ctx, name, raw_args, result, ms))
        except Exception:
            log.exception("could not write the audit row for %s", name)
