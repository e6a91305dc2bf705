"""How people name things in the record: friendly lab names, drug ingredients, condition names.

Questions use these names, and the scorer matches answers against them. A patient asks about
their "HbA1c", not "Hemoglobin A1c/Hemoglobin.total in Blood"; an answer that says
"amoxicillin" names the prescription "Amoxicillin 250 MG Oral Capsule".
"""

from __future__ import annotations

import re
import unicodedata

# LOINC code → (patient's name, clinician's name). Codes not listed are asked by display.
LAB_NAMES: dict[str, tuple[str, str]] = {
    "4548-4": ("HbA1c", "hemoglobin A1c"),
    "2093-3": ("total cholesterol", "total cholesterol"),
    "18262-6": ("LDL cholesterol", "LDL cholesterol"),
    "2089-1": ("LDL cholesterol", "LDL cholesterol"),
    "2085-9": ("HDL cholesterol", "HDL cholesterol"),
    "2571-8": ("triglycerides", "triglycerides"),
    "29463-7": ("weight", "body weight"),
    "8302-2": ("height", "body height"),
    "39156-5": ("BMI", "body mass index"),
    "8480-6": ("systolic blood pressure", "systolic blood pressure"),
    "8462-4": ("diastolic blood pressure", "diastolic blood pressure"),
    "8867-4": ("heart rate", "heart rate"),
    "9279-1": ("breathing rate", "respiratory rate"),
    "2339-0": ("blood glucose", "blood glucose"),
    "2345-7": ("glucose", "serum glucose"),
    "38483-4": ("creatinine", "blood creatinine"),
    "2160-0": ("creatinine", "serum creatinine"),
    "33914-3": ("kidney function (eGFR)", "eGFR"),
    "718-7": ("hemoglobin", "hemoglobin"),
    "6690-2": ("white blood cell count", "leukocyte count"),
    "777-3": ("platelet count", "platelet count"),
    "2947-0": ("sodium", "sodium"),
    "2951-2": ("sodium", "serum sodium"),
    "6298-4": ("potassium", "potassium"),
    "2823-3": ("potassium", "serum potassium"),
    "72514-3": ("pain score", "pain severity score"),
    "55758-7": ("PHQ-2 score", "PHQ-2 total score"),
    "70274-6": ("GAD-7 score", "GAD-7 total score"),
}

# Measurements worth asking about (labs and vitals, not survey items or growth percentiles).
ASKABLE_CODES: frozenset[str] = frozenset(LAB_NAMES) - {"55758-7", "70274-6", "72514-3"}

_TALL_MAN = re.compile(r"\b([a-z]+)([A-Z]{2,})([a-z]*)\b")
_SEMANTIC_TAG = re.compile(
    r"\s*\((disorder|finding|situation|procedure|substance|organism|qualifier value|event|body structure|product|morphologic abnormality|regime/therapy|observable entity)\)\s*$",
    re.I,
)
_LEADING_AMOUNT = re.compile(
    r"^(?:(?:nda|anda|bla)\d+\s+)?(?:\d+(?:\.\d+)?\s*(?:ml|hr|actuat|mg|mcg|unt|unit)s?\s+)+", re.I
)
_WORDS = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def fold(value: str) -> str:
    """Lower case, accents and tall-man letters folded, punctuation to spaces, single spaces."""
    value = unicodedata.normalize("NFKD", value)
    value = "".join(ch for ch in value if not unicodedata.combining(ch))
    return " ".join(_WORDS.findall(value.lower()))


def lab_name(code: str, display: str, role: str) -> str:
    names = LAB_NAMES.get(code)
    if names is None:
        return display_name(display)
    return names[0] if role == "patient" else names[1]


_LOINC_PROPERTY = re.compile(r"\s*\[[^\]]*\]")
_LOINC_SYSTEM = re.compile(r"\s+(?:in|by|from|on|--|\|)\s+.*$|\s+panel\b.*$|/\d.*$", re.I)


def display_name(display: str) -> str:
    """What people call a test, from its LOINC long name: 'Iron saturation [Mass Fraction] in
    Serum or Plasma' → 'iron saturation'; 'Hemoglobin [Mass/volume] in Blood' → 'hemoglobin'."""
    short = _LOINC_SYSTEM.sub("", _LOINC_PROPERTY.sub("", display)).strip(" ,.;:")
    short = short or display
    # keep acronyms (LDL, eGFR, MCV…), lower the rest
    return " ".join(w if sum(c.isupper() for c in w) >= 2 else w.lower() for w in short.split())


def condition_name(display: str) -> str:
    """'Essential hypertension (disorder)' → 'Essential hypertension'."""
    return _SEMANTIC_TAG.sub("", display).strip()


def drug_name(display: str) -> str:
    """The first ingredient, as people say it: 'Amoxicillin 250 MG Oral Capsule' → 'amoxicillin',
    '1 ML Medroxyprogesterone acetate 150 MG/ML Injection' → 'medroxyprogesterone acetate'."""
    text = _LEADING_AMOUNT.sub("", display.strip())
    head = re.split(r"[\d\[/(]", text, maxsplit=1)[0]
    words = fold(head).split()
    # Dose-form words sometimes precede the first digit ("Insulin Lispro Injectable Suspension").
    stop = {
        "oral",
        "tablet",
        "capsule",
        "injection",
        "injectable",
        "solution",
        "suspension",
        "extended",
        "release",
    }
    kept: list[str] = []
    for word in words:
        if word in stop:
            break
        kept.append(word)
    return " ".join(kept) or fold(display)


def vaccine_name(display: str) -> str:
    """CVX displays are short enough before the first comma ('Influenza, seasonal, …' →
    'Influenza'); a trailing 'vaccine' is dropped (questions say "the … vaccine" themselves),
    and 'SARS-COV-2 (COVID-19) vaccine' is asked as people say it, 'COVID-19'."""
    name = display.split(",")[0].strip()
    name = re.sub(r"\s+vaccines?$", "", name, flags=re.I).strip()
    inner = re.search(r"\(([^)]+)\)", name)
    if inner and re.search(r"covid", inner.group(1), re.I):
        return inner.group(1).strip()
    return name or display


def is_diagnosis(display: str) -> bool:
    """A disorder, not a finding, situation or social/administrative entry ("Full-time
    employment (finding)", "Medication review due (situation)") that nobody is diagnosed with."""
    return bool(re.search(r"\(disorder\)\s*$", display, re.I))


# Drug classes for allergy cross-checks, written independently of the product's own table:
# an allergy whose name mentions a key of a class contraindicates every drug of that class.
ALLERGY_CLASSES: dict[str, tuple[str, ...]] = {
    "penicillin": (
        "penicillin",
        "amoxicillin",
        "ampicillin",
        "piperacillin",
        "nafcillin",
        "oxacillin",
        "dicloxacillin",
        "cloxacillin",
    ),
    "cephalosporin": (
        "cefalexin",
        "cephalexin",
        "cefuroxime",
        "ceftriaxone",
        "cefazolin",
        "cefdinir",
        "cefaclor",
    ),
    "sulfonamide": ("sulfamethoxazole", "sulfasalazine", "sulfadiazine"),
    "nsaid": ("aspirin", "ibuprofen", "naproxen", "diclofenac", "ketorolac", "celecoxib", "meloxicam"),
}
_ALLERGEN_TO_CLASS: dict[str, str] = {
    "penicillin": "penicillin",
    "amoxicillin": "penicillin",
    "ampicillin": "penicillin",
    "cefdinir": "cephalosporin",
    "cephalexin": "cephalosporin",
    "cefalexin": "cephalosporin",
    "cephalosporin": "cephalosporin",
    "sulfamethoxazole": "sulfonamide",
    "sulfa": "sulfonamide",
    "sulfonamide": "sulfonamide",
    "aspirin": "nsaid",
    "ibuprofen": "nsaid",
    "naproxen": "nsaid",
    "nsaid": "nsaid",
}


def allergy_drug_class(allergy_display: str) -> str | None:
    words = set(fold(allergy_display).split())
    for key, cls in _ALLERGEN_TO_CLASS.items():
        if key in words or any(w.startswith(key) for w in words):
            return cls
    return None


def contraindicated(allergy_display: str, drug_display: str) -> bool:
    cls = allergy_drug_class(allergy_display)
    if cls is None:
        return False
    drug_words = fold(drug_display).split()
    return any(word.startswith(member) for member in ALLERGY_CLASSES[cls] for word in drug_words)
