"""Optional full FHIR validation (`chartside ingest --validate`) with fhir.resources.

The default fhir.resources models are FHIR R5 and reject Synthea's R4 output, so the R4B
models are used (R4B is R4 plus a few corrections; Synthea bundles validate against it).
Validation costs several times the whole COPY-based load, so it is opt-in and the CLI
reports its time separately.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from fhir_ingest.errors import BundleError

MAX_REPORTED = 3


def _location(loc: tuple[Any, ...]) -> tuple[int | None, str]:
    """('entry', 3, 'resource', 'status') → (3, 'resource.status')."""
    parts = list(loc)
    entry = None
    if len(parts) >= 2 and parts[0] == "entry" and isinstance(parts[1], int):
        entry = parts[1]
        parts = parts[2:]
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return entry, path or "(bundle)"


def validate_bundle(data: Any) -> None:
    """Raise BundleError (entry + field of the first problems) if the bundle is not valid R4B FHIR."""
    from fhir.resources.R4B.bundle import Bundle  # ~0.1 s import; only when asked for

    try:
        Bundle.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        entry, field = _location(tuple(errors[0]["loc"]))
        details = "; ".join(
            f"{'entry ' + str(e) + ' ' if e is not None else ''}{f}: {err['msg']}"
            for err in errors[:MAX_REPORTED]
            for e, f in [_location(tuple(err["loc"]))]
        )
        more = f" (and {len(errors) - MAX_REPORTED} more)" if len(errors) > MAX_REPORTED else ""
        raise BundleError(f"FHIR R4B validation failed: {details}{more}", entry=entry, field=field) from None
