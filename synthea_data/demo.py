"""The demo cohort `make run` / `chartside up` loads on a fresh clone.

Generated once into `<data_dir>/demo-cohort` and reused: regenerated only when the folder is
missing, incomplete, or was made with a different seed or size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from synthea_data.hard_cases import MANIFEST_NAME, load_manifest


def demo_cohort_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "demo-cohort"


def _is_complete(folder: Path, patients: int, seed: int) -> bool:
    try:
        manifest = load_manifest(folder)
    except (FileNotFoundError, ValueError):
        return False
    if manifest.get("seed") != seed or manifest.get("patients") != patients:
        return False
    names = list(manifest.get("support_bundles", [])) + [p["file"] for p in manifest.get("patient_files", [])]
    return all((folder / name).is_file() for name in names)


def ensure_demo_cohort(
    data_dir: Path, *, patients: int, seed: int, progress: Callable[[int, int], None] | None = None
) -> tuple[Path, bool]:
    """Return (folder, generated_now)."""
    folder = demo_cohort_dir(data_dir)
    if _is_complete(folder, patients, seed):
        return folder, False
    from synthea_data.generator import generate_cohort  # only when generating: `make run` imports this

    overwrite = (folder / MANIFEST_NAME).exists()
    generate_cohort(folder, patients=patients, seed=seed, progress=progress, overwrite=overwrite)
    return folder, True
