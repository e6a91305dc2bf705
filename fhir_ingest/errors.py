"""The one error bad input produces: it names the file, the entry and the field.

A clinician or operator reading the ingest summary must be able to open the file and go
straight to the problem, so the message is built from a location (`entry[12]`, the
resource's type and id, a dotted field path) rather than from a Python traceback.
"""

from __future__ import annotations


class BundleError(Exception):
    """Bad input in one bundle. Raised by the pure parsing/mapping code; the loader adds the file."""

    def __init__(
        self,
        message: str,
        *,
        entry: int | None = None,
        field: str | None = None,
        resource: str | None = None,
        file: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.entry = entry
        self.field = field
        self.resource = resource  # "Observation/abc-123" when known
        self.file = file

    def with_file(self, file: str) -> BundleError:
        self.file = file
        return self

    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.entry is not None:
            where = f"entry {self.entry}"
            if self.resource:
                where += f" ({self.resource})"
            parts.append(where)
        if self.field:
            parts.append(f"field {self.field}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message
