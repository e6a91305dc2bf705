"""The clinical note of a visit, in Synthea's note layout.

Synthea writes one plain-text note per encounter (base64 in DocumentReference and again in the
encounter's DiagnosticReport.presentedForm) from a fixed template: the date, then
`# Chief Complaint`, `# History of Present Illness`, `# Social History`, `# Allergies`,
`# Medications`, `# Assessment and Plan` with a `## Plan` subsection listing immunizations,
procedures, lab reports, prescriptions and care plans, all in lower case. The generated notes
follow the same template and add one or two sentences of visit narrative to the history (what
brought the patient in, today's key result, a medication change) so that note search has
something to find that agrees with the structured record. Rows entered in error never appear in
a note, and a vaccine that was not given is not listed as given.
"""

from __future__ import annotations

import datetime as dt

from synthea_data.clock import age_on
from synthea_data.model import AllergyRec, ConditionRec, MedRec, Person, Visit

_MARITAL = {"M": "Patient is married. ", "D": "Patient is divorced. ", "W": "Patient is widowed. ", "S": ""}
_SMOKING = {
    "never": "Patient has never smoked.",
    "former": "Patient is an ex-smoker.",
    "daily": "Patient is an active smoker.",
}


def _history(conditions: list[ConditionRec], before: dt.datetime) -> list[str]:
    seen: list[str] = []
    for condition in conditions:
        if condition.entered_in_error or condition.onset >= before:
            continue
        if condition.code.lower not in seen:
            seen.append(condition.code.lower)
    return seen


def _active_medications(meds: list[MedRec], at: dt.datetime) -> list[str]:
    """What the patient was taking when the visit began (a drug stopped at this visit still counts)."""
    names: list[str] = []
    for med in meds:
        taking = not med.entered_in_error and med.authored < at and (med.ends is None or med.ends >= at)
        if taking and med.med.lower not in names:
            names.append(med.med.lower)
    return names


def _age_text(person: Person, day: dt.date) -> str:
    return f"{age_on(person.birth_date, day)} year-old"


def render_note(
    person: Person,
    visit: Visit,
    conditions: list[ConditionRec],
    meds: list[MedRec],
    allergies: list[AllergyRec],
) -> str:
    lines: list[str] = ["", visit.start.date().isoformat(), "", "# Chief Complaint"]
    if visit.chief_complaints:
        lines += [f"- {complaint}" for complaint in visit.chief_complaints] + [""]
    else:
        lines.append("No complaints.")
    lines += ["", "# History of Present Illness"]
    hpi = f"{' '.join(person.given)} is a {_age_text(person, visit.start.date())} {person.race.note_text} {person.gender}."
    history = _history(conditions, visit.start)
    if history:
        hpi += f" Patient has a history of {', '.join(history)}."
    if visit.narrative:
        hpi += " " + " ".join(visit.narrative)
    lines += [hpi, "", "# Social History"]
    marital = _MARITAL[person.marital]
    smoking = _SMOKING[person.smoking]
    lines.append(f"{marital}{smoking}" if marital else f" {smoking}")
    adult = age_on(person.birth_date, visit.start.date()) >= 18
    lines.append(" Patient identifies as heterosexual." if adult else "")
    lines += ["", f"Patient comes from a {person.socioeconomic} socioeconomic background."]
    lines.append(f" {person.education}" if person.education else "")
    payer = "NO INSURANCE" if person.payer == "NO_INSURANCE" else person.payer
    lines += [f"Patient currently has {payer}.", "", "# Allergies"]
    known = [a.substance.lower for a in allergies if a.recorded < visit.start]
    lines.append(", ".join(known) if known else "No Known Allergies.")
    lines += ["", "# Medications"]
    active = _active_medications(meds, visit.start)
    lines.append("; ".join(active) if active else "No Active Medications.")
    lines += ["", "# Assessment and Plan"]
    new = [c.code.lower for c in visit.conditions if not c.entered_in_error]
    lines.append(f"Patient is presenting with {', '.join(new)}. " if new else "")
    lines += ["", "## Plan"]
    given = [i.vaccine.lower for i in visit.immunizations if i.not_done_reason is None]
    if given:
        lines.append(f"Patient was given the following immunizations: {', '.join(given)}. ")
    if visit.procedures:
        lines.append("The following procedures were conducted:")
        lines += [f"- {p.code.lower}" for p in visit.procedures]
    if visit.reports:
        lines.append("The following lab reports were completed:")
        lines += [f"- {r.code.lower}" for r in visit.reports]
    prescribed = [m.med.lower for m in visit.prescriptions if not m.entered_in_error]
    if prescribed:
        lines.append("The patient was prescribed the following medications:")
        lines += [f"- {name}" for name in prescribed]
    if visit.care_plans:
        lines.append("The patient was placed on a careplan:")
        lines += [f"- {p.category.lower}" for p in visit.care_plans]
    return "\n".join(lines) + "\n"
