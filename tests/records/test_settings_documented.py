"""Every setting is documented where users look: the README's configuration table and .env.example."""

from __future__ import annotations

import pytest

from records.settings import Settings
from tests.conftest import PROJECT_ROOT


def env_names() -> list[str]:
    names = []
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        choices = getattr(alias, "choices", None)
        names.append(choices[0] if choices else f"CHARTSIDE_{field.upper()}")
    return names


@pytest.mark.parametrize("document", ["README.md", ".env.example"])
def test_every_setting_is_documented(document):
    text = (PROJECT_ROOT / document).read_text(encoding="utf-8")
    missing = [name for name in env_names() if name not in text]
    assert not missing, f"{document} does not mention: {', '.join(missing)}"
