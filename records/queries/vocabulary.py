"""What people call things vs. what the record calls them.

Lab queries resolve common names and abbreviations to LOINC codes (an A1C is whichever of
the A1C codes the lab used), conditions and medications expand abbreviations and brand
names into the words the record uses. Kept as plain data so a clinician can review it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from records.queries.common import normalise_text, search_terms

# --- blood pressure: components are found by code, never by position ------------------------
BP_PANEL_CODES = frozenset({"85354-9", "55284-4"})
SYSTOLIC_CODE = "8480-6"
DIASTOLIC_CODE = "8462-4"

# --- labs and vitals --------------------------------------------------------------------------
# alias phrase (normalised) → LOINC codes
LAB_ALIASES: dict[str, frozenset[str]] = {}


def _lab(codes: set[str], *names: str) -> None:
    for name in names:
        LAB_ALIASES[normalise_text(name)] = frozenset(codes)


# ABO and Rh group (LOINC 882-1 ABO and Rh group [Type] in Blood; 883-9 ABO group; 10331-7 Rh type)
_lab({"882-1", "883-9", "10331-7"}, "blood group", "blood type", "blood grouping", "abo", "abo group", "rh factor", "rhesus")

_lab(
    {"4548-4", "17856-6", "4549-2", "59261-8"},
    "a1c",
    "hba1c",
    "hb a1c",
    "hemoglobin a1c",
    "haemoglobin a1c",
    "glycated hemoglobin",
    "glycosylated hemoglobin",
    "glycohemoglobin",
)
_lab(
    {"33914-3", "48642-3", "48643-1", "62238-1", "69405-9", "98979-8", "50044-7", "77147-7"},
    "egfr",
    "gfr",
    "glomerular filtration rate",
    "estimated gfr",
)
_lab({"18262-6", "13457-7", "2089-1"}, "ldl", "ldl cholesterol", "ldl-c", "bad cholesterol")
_lab({"2085-9"}, "hdl", "hdl cholesterol", "hdl-c", "good cholesterol")
_lab({"2093-3"}, "cholesterol", "total cholesterol")
_lab(
    {"2093-3", "18262-6", "13457-7", "2089-1", "2085-9", "2571-8", "57698-3"},
    "lipids",
    "lipid",
    "lipid panel",
    "lipid profile",
)
_lab({"2571-8"}, "triglycerides", "triglyceride", "trig", "tg")
_lab(
    {"2339-0", "2345-7", "1558-6", "41653-7"},
    "glucose",
    "blood glucose",
    "blood sugar",
    "sugar",
    "fasting glucose",
)
_lab({"2160-0", "38483-4"}, "creatinine", "serum creatinine", "cr")
_lab({"6299-2", "3094-0"}, "bun", "urea nitrogen", "blood urea nitrogen", "urea")
_lab(
    {
        "33914-3",
        "48642-3",
        "48643-1",
        "62238-1",
        "69405-9",
        "98979-8",
        "50044-7",
        "77147-7",
        "2160-0",
        "38483-4",
        "6299-2",
        "3094-0",
        "14959-1",
    },
    "kidney function",
    "renal function",
)
_lab({"14959-1", "9318-7"}, "microalbumin", "acr", "albumin creatinine ratio", "uacr")
_lab({"2947-0", "2951-2"}, "sodium", "na")
_lab({"6298-4", "2823-3"}, "potassium")
_lab({"2069-3", "2075-0"}, "chloride", "cl")
_lab({"20565-8", "2028-9"}, "co2", "bicarbonate", "carbon dioxide")
_lab({"49765-1", "17861-6"}, "calcium", "ca")
_lab({"718-7"}, "hemoglobin", "haemoglobin", "hgb", "hb")
_lab({"4544-3"}, "hematocrit", "haematocrit", "hct")
_lab({"6690-2"}, "wbc", "white blood cells", "white cell count", "leukocytes")
_lab({"789-8"}, "rbc", "red blood cells", "erythrocytes")
_lab({"777-3"}, "platelets", "plt", "platelet count")
_lab({"39156-5"}, "bmi", "body mass index")
_lab({"29463-7"}, "weight", "body weight")
_lab({"8302-2"}, "height", "body height")
_lab({"8867-4"}, "heart rate", "pulse", "hr")
_lab({"9279-1"}, "respiratory rate", "breathing rate", "rr")
_lab({"8310-5", "8331-1"}, "temperature", "body temperature", "temp")
_lab({"2708-6", "59408-5"}, "oxygen saturation", "spo2", "o2 sat", "sats", "pulse ox")
_lab({"72514-3"}, "pain", "pain score", "pain severity")
_lab(set(BP_PANEL_CODES) | {SYSTOLIC_CODE, DIASTOLIC_CODE}, "bp", "blood pressure")
_lab({SYSTOLIC_CODE}, "systolic", "systolic blood pressure", "sbp")
_lab({DIASTOLIC_CODE}, "diastolic", "diastolic blood pressure", "dbp")
_lab({"55757-9"}, "phq-2", "phq2")
_lab({"44261-6", "44249-1"}, "phq-9", "phq9", "depression screening")
_lab({"69737-5", "70274-6"}, "gad-7", "gad7", "anxiety screening")

LAB_STOPWORDS = frozenset(
    [
        "my",
        "the",
        "a",
        "an",
        "latest",
        "last",
        "recent",
        "most",
        "newest",
        "current",
        "results",
        "result",
        "level",
        "levels",
        "test",
        "tests",
        "value",
        "values",
        "and",
        "or",
        "of",
        "in",
        "for",
        "lab",
        "labs",
        "reading",
        "readings",
        "measurement",
        "measurements",
        "what",
        "is",
        "was",
        "show",
    ]
)
LOINC_CODE = re.compile(r"^\d{1,7}-\d$")


@dataclass(frozen=True)
class LabMatch:
    """How a lab query matches: any of `codes` (panel or component), or all `name_terms`."""

    codes: frozenset[str] = field(default_factory=frozenset)
    name_terms: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.codes and not self.name_terms


def resolve_lab_query(query: str | None) -> LabMatch:
    """Aliases (longest phrase first) and LOINC codes become codes; other words match names."""
    if not query:
        return LabMatch()
    text = " " + " ".join(search_terms(query)) + " "
    codes: set[str] = set()
    for phrase in sorted(LAB_ALIASES, key=len, reverse=True):
        needle = f" {phrase} "
        while needle in text:
            codes |= LAB_ALIASES[phrase]
            text = text.replace(needle, " ", 1)
    leftover = []
    for term in text.split():
        if LOINC_CODE.match(term):
            codes.add(term)
        elif term not in LAB_STOPWORDS:
            leftover.append(term)
    return LabMatch(codes=frozenset(codes), name_terms=tuple(leftover))


# --- conditions and medications: abbreviations and brand names -----------------------------
CONDITION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "htn": ("hypertension",),
    "high blood pressure": ("hypertension",),
    "dm": ("diabetes",),
    "t2dm": ("diabetes mellitus type 2", "type 2 diabetes"),
    "t1dm": ("diabetes mellitus type 1", "type 1 diabetes"),
    "diabetic": ("diabetes",),
    "ckd": ("chronic kidney disease",),
    "kidney disease": ("kidney disease", "renal disease", "nephropathy"),
    "copd": ("chronic obstructive",),
    "afib": ("atrial fibrillation",),
    "a fib": ("atrial fibrillation",),
    "mi": ("myocardial infarction",),
    "heart attack": ("myocardial infarction",),
    "chf": ("heart failure",),
    "uti": ("urinary tract infection",),
    "high cholesterol": ("hyperlipidemia", "hypercholesterolemia"),
    "cad": ("coronary", "ischemic heart disease"),
    "ihd": ("ischemic heart disease",),
    "gerd": ("reflux",),
    "obese": ("obesity",),
    "depression": ("depress",),
    "anxiety": ("anxiety",),
}

DRUG_SYNONYMS: dict[str, tuple[str, ...]] = {
    "hctz": ("hydrochlorothiazide",),
    "asa": ("aspirin",),
    "apap": ("acetaminophen",),
    "paracetamol": ("acetaminophen",),
    "tylenol": ("acetaminophen", "tylenol"),
    "advil": ("ibuprofen", "advil"),
    "motrin": ("ibuprofen", "motrin"),
    "glucophage": ("metformin", "glucophage"),
    "zestril": ("lisinopril", "zestril"),
    "prinivil": ("lisinopril", "prinivil"),
    "lipitor": ("atorvastatin", "lipitor"),
    "zocor": ("simvastatin", "zocor"),
    "crestor": ("rosuvastatin", "crestor"),
    "norvasc": ("amlodipine", "norvasc"),
    "synthroid": ("levothyroxine", "synthroid"),
    "coumadin": ("warfarin", "coumadin"),
    "lasix": ("furosemide", "lasix"),
    "ventolin": ("albuterol", "ventolin"),
    "salbutamol": ("albuterol",),
    "insulin": ("insulin",),
}


def expand_terms(query: str | None, synonyms: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Query → groups of alternatives: a row matches when each group has one alternative in it.

    Multi-word synonym keys are taken first ("high blood pressure" → hypertension); every
    other word must appear itself. Text is case-folded first, which also folds tall-man
    lettering ("hydrOXYzine") into the record's spelling.
    """
    terms = search_terms(query)
    if not terms:
        return []
    text = " " + " ".join(terms) + " "
    groups: list[tuple[str, ...]] = []
    for key in sorted(synonyms, key=len, reverse=True):
        needle = f" {key} "
        while needle in text:
            groups.append(synonyms[key])
            text = text.replace(needle, " ", 1)
    groups.extend((term,) for term in text.split())
    return groups


def normalise_drug_name(name: str) -> str:
    """Tall-man lettering and spacing folded: 'hydrOXYzine  HCl' → 'hydroxyzine hcl'."""
    return normalise_text(name)
