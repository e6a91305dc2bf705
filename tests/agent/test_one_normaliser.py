"""One text normaliser in `agent/`: `agent.text` folds a user's words for every rule that reads them."""

from __future__ import annotations

import ast
import re
import unicodedata
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent.safety.text import prepare
from agent.text import _APOSTROPHES, bare, fold, normalise

AGENT = Path(__file__).resolve().parents[2] / "agent"
# leak_guard matches the model's *output* against the prompts (NFKC + casefold, invisible
# characters removed): a defence against look-alike text, not a way of reading user words
NOT_A_NORMALISER = {"agent/leak_guard.py"}


def test_only_agent_text_folds_unicode():
    found = []
    for path in sorted(AGENT.rglob("*.py")):
        rel = path.relative_to(AGENT.parent).as_posix()
        if rel in {"agent/text.py", *NOT_A_NORMALISER}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "unicodedata"
                and node.attr in {"normalize", "combining"}
            ):
                found.append(f"{rel}:{node.lineno}")
    assert found == [], f"a second text normaliser in agent/ (use agent.text): {found}"


def test_the_safety_form_is_the_bare_form_of_the_same_fold():
    assert bare("Can't BREATHE — chést pain, HbA1c 6.5%, covid-19 at A&E") == (
        "cant breathe chest pain hba1c 6 5 covid 19 at a&e"
    )
    assert normalise("Can't BREATHE — chést pain, HbA1c 6.5%") == "cant breathe chest pain hba1c 6.5%"
    assert prepare("chest pian")[1] == "chest pain"


@given(st.text())
def test_both_forms_fold_the_same_letters(text):
    assert set(bare(text)) <= set("abcdefghijklmnopqrstuvwxyz0123456789/& ")
    assert bare(bare(text)) == bare(text)
    # the planner's form only keeps more marks: dropping them gives the safety form's words
    assert re.sub(r"[^a-z0-9/& ]", " ", normalise(text)).split() == [
        w for w in bare(normalise(text)).split()
    ]
    assert fold(text) == fold(fold(text))


@given(st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=127)))
def test_an_ascii_text_is_folded_as_the_full_fold_would(text):
    """`fold` skips decomposition for ASCII text (round thirteen, a speed-up): the same result."""
    decomposed = unicodedata.normalize("NFKD", text)
    full = "".join(c for c in decomposed if not unicodedata.combining(c)).lower().translate(_APOSTROPHES)
    assert fold(text) == full
