"""Errors the API shows: a status, a short code and a sentence, never internals.

Every authorization failure on a patient URL is the same `NOT_FOUND` whether the patient
does not exist or belongs to someone else, so the response says nothing about which.
"""

from __future__ import annotations

from collections.abc import Mapping


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})

    def body(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}


def not_found() -> ApiError:
    return ApiError(404, "not_found", "Not found.")


def unauthenticated() -> ApiError:
    return ApiError(
        401, "not_authenticated", "Log in first.", {"WWW-Authenticate": 'Bearer realm="chartside"'}
    )


def forbidden() -> ApiError:
    """A capability the role lacks (decided before looking at any patient, so it leaks none)."""
    return ApiError(403, "forbidden", "This account cannot do that.")


def bad_request(message: str) -> ApiError:
    return ApiError(400, "bad_request", message)


def csrf_failed() -> ApiError:
    return ApiError(403, "csrf", "The form expired or came from another site. Reload the page and try again.")


def too_many(message: str, retry_after_s: int) -> ApiError:
    return ApiError(429, "rate_limited", message, {"Retry-After": str(max(1, retry_after_s))})
