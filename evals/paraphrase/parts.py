"""The paraphrase suite's held-out parts, found on disk rather than listed by hand.

Every `frozen*.py` module beside this one that defines a `FROZEN<N>` Templates mapping
(`frozen.py` → `FROZEN`, `frozen3.py` → `FROZEN3`) is a held-out part named after its
module. A writer can drop a never-seen `frozen3.py` in and `chartside eval paraphrase
--part frozen3` (and `--part all`) measures it, with no code edited — so nobody has to open
the new file to wire it up, and it stays unseen.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from evals.paraphrase.templates import Templates

HERE = Path(__file__).resolve().parent
PACKAGE = "evals.paraphrase"
_MODULE = re.compile(r"^frozen(\d*)$")


class HeldOutPartError(ValueError):
    """A `frozen*.py` module that does not define its part as expected."""


def _order(stem: str) -> int:
    digits = _MODULE.match(stem).group(1)  # type: ignore[union-attr]
    return int(digits) if digits else 1


def held_out_parts(folder: Path = HERE, package: str = PACKAGE) -> dict[str, Templates]:
    """{part name: templates} for every `frozen*.py` in `folder`, in numeric order
    (frozen, frozen2, frozen3, …, frozen10). Raises HeldOutPartError naming the file when a
    module lacks its `FROZEN<N>` mapping or it is not a mapping of fact kind → entries."""
    stems = sorted((p.stem for p in folder.glob("frozen*.py") if _MODULE.match(p.stem)), key=_order)
    parts: dict[str, Templates] = {}
    for stem in stems:
        path = folder / f"{stem}.py"
        name = f"{package}.{stem}"
        module = sys.modules.get(name)
        if module is None or Path(getattr(module, "__file__", "")).resolve() != path.resolve():
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise HeldOutPartError(f"{path}: cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        attr = "FROZEN" + _MODULE.match(stem).group(1)  # type: ignore[union-attr]
        templates = getattr(module, attr, None)
        if not isinstance(templates, dict) or not all(
            isinstance(entries, tuple) and all(len(e) == 2 for e in entries) for entries in templates.values()
        ):
            raise HeldOutPartError(
                f"{path}: must define {attr} as a Templates mapping (fact kind → ((family, template), …))"
            )
        parts[stem] = templates
    return parts
