"""The door of the HTTP transport: bearer token → account → bound patient, or a refusal.

Runs for every HTTP request before the MCP SDK sees it, with the web API's own accounts and
binding rule (`mcp_server.access`, over `records.accounts`). Refusals are JSON-RPC error bodies with a fitting HTTP
status, so MCP clients show the sentence to their user; every refusal is audited in the web
API's words (unauthenticated, forbidden, denied), so one query over `audit_log` covers
both doors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types import INVALID_REQUEST
from starlette.types import Send

from mcp_server import access, audit
from records.database import Database
from tools.scope import Role

PATIENT_HEADER = "x-chartside-patient"
PATIENT_QUERY = "patient"


@dataclass(frozen=True)
class Principal:
    """An authenticated account bound to one patient for this request."""

    account_id: int
    username: str
    role: Role
    patient_id: str

    @property
    def actor(self) -> str:
        return f"mcp-http:{self.username}"

    def sdk_user(self, token_hash: str) -> AuthenticatedUser:
        # client_id + subject identify the principal to the SDK's session-ownership check
        return AuthenticatedUser(
            AccessToken(
                token=token_hash,
                client_id=f"chartside-account:{self.account_id}",
                subject=f"patient:{self.patient_id}",
                scopes=[self.role],
            )
        )


@dataclass(frozen=True)
class Refusal:
    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()

    async def send(self, send: Send) -> None:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": self.message}}
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        headers += [(k.encode(), v.encode()) for k, v in self.headers]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


UNAUTHENTICATED = Refusal(
    401,
    "Authentication required: send an account API token as 'Authorization: Bearer <token>'.",
    (("www-authenticate", 'Bearer realm="chartside"'),),
)
PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"


def base_url(headers: dict[str, str], scheme: str = "http") -> str:
    return f"{headers.get('x-forwarded-proto', scheme)}://{headers.get('host', 'localhost')}"


def unauthenticated(headers: dict[str, str], scheme: str = "http") -> Refusal:
    """401 with RFC 9728 protected-resource metadata: it lists no authorization server, so an
    MCP client shows the message (get a token from the operator) instead of starting an
    OAuth flow that cannot succeed."""
    metadata = f"{base_url(headers, scheme)}{PROTECTED_RESOURCE_PATH}/mcp"
    challenge = (
        f'Bearer realm="chartside", error="invalid_token", resource_metadata="{metadata}", '
        'error_description="send a Chartside account API token (chartside users token NAME)"'
    )
    return Refusal(UNAUTHENTICATED.status, UNAUTHENTICATED.message, (("www-authenticate", challenge),))


def protected_resource_metadata(headers: dict[str, str], scheme: str = "http") -> dict[str, object]:
    """The RFC 9728 document for `/mcp`: bearer tokens in the header, no OAuth server."""
    return {
        "resource": f"{base_url(headers, scheme)}/mcp",
        "authorization_servers": [],
        "bearer_methods_supported": ["header"],
        "resource_name": "Chartside",
        "resource_documentation": "Account API tokens come from the operator: chartside users token NAME",
    }


def foreign_origin(headers: dict[str, str]) -> str | None:
    """The Origin header when it names another site than the Host (a browser page elsewhere
    calling this endpoint: DNS rebinding), else None. Clients that are not browsers send none."""
    origin = headers.get("origin")
    if not origin:
        return None
    host = origin.split("://", 1)[-1].rstrip("/")
    return None if host == headers.get("host", "") else origin


FOREIGN_ORIGIN = Refusal(403, "Requests from a web page of another origin are refused.")
NAME_A_PATIENT = Refusal(
    400,
    "Clinician connections must name a patient on your panel: header X-Chartside-Patient "
    "or ?patient=<id> in the endpoint URL.",
)
NO_SUCH_PATIENT = Refusal(404, "No such patient is available to this account.")
ROLE_CANNOT_READ = Refusal(403, "This account's role cannot read patient records over MCP.")
NOT_RUNNING = Refusal(503, "The MCP endpoint is not running (the server is starting or stopping).")


Throttle = Callable[[int], None]
"""Called with the account id for every authenticated request; refuses by raising an
exception that carries `status` (e.g. 429), `message` and optionally `headers` (such as
`Retry-After`), which is how the web API's own errors look. So the web app's per-account
rate limits cover `/mcp` too."""


def refusal_from(exc: Exception) -> Refusal | None:
    status, message = getattr(exc, "status", None), getattr(exc, "message", None)
    if not isinstance(status, int) or not isinstance(message, str):
        return None
    headers = getattr(exc, "headers", None) or {}
    return Refusal(status, message, tuple((str(k).lower(), str(v)) for k, v in dict(headers).items()))


def bearer_token(headers: dict[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def requested_patient(headers: dict[str, str], query_string: bytes) -> str | None:
    if headers.get(PATIENT_HEADER):
        return headers[PATIENT_HEADER].strip() or None
    values = parse_qs(query_string.decode("latin-1")).get(PATIENT_QUERY)
    return values[0].strip() or None if values else None



def authenticate(db: Database, headers: dict[str, str], query_string: bytes) -> Principal | Refusal:
    """Token → account → bound patient, auditing every refusal. Blocking: run in a thread.

    Audit outcomes use the web API's words (unauthenticated, forbidden, denied), so one query
    over `audit_log` covers both doors.
    """
    requested = requested_patient(headers, query_string)
    token = bearer_token(headers)
    account = access.account_for_token(db, token) if token else None
    if account is None:
        audit.record(
            db,
            actor="mcp-http:anonymous",
            role="anonymous",
            target_patient_id=requested,
            action="mcp:auth",
            outcome="unauthenticated",
            detail="missing bearer token" if token is None else "unknown or disabled token",
        )
        return unauthenticated(headers)
    actor = f"mcp-http:{account.username}"
    refusal, outcome, detail = None, "denied", ""
    patient_id = None
    if not access.may_use_mcp(account):
        refusal, outcome, detail = ROLE_CANNOT_READ, "forbidden", f"role {account.role} cannot read records"
    elif account.role != "patient" and not requested:
        refusal, detail = NAME_A_PATIENT, "no patient named"
    else:
        patient_id = access.permitted_patient(db, account, requested)
        if patient_id is None:
            refusal, detail = NO_SUCH_PATIENT, "patient unknown or not bound to this account"
    if refusal is not None:
        audit.record(
            db,
            actor=actor,
            role=account.role,
            target_patient_id=requested or account.bound_patient_id,
            action="mcp:bind",
            outcome=outcome,
            detail=detail,
        )
        return refusal
    assert patient_id is not None
    return Principal(
        account_id=account.id, username=account.username, role=account.role, patient_id=patient_id
    )
