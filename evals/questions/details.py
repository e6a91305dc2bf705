"""Details people ask about one prescription, who the patient is, and what is booked.

* dose, frequency and prescriber of a current medicine ("how often do I take metformin?",
  "who prescribed my lisinopril?"), read from the prescription's dosage sentence and
  requester — the dosage sentence is parsed here, not by the tools;
* a clinician checking the chart in front of them by name and date of birth ("Is this
  Maria Lopez, born 1961-03-12?"): yes for the bound patient's own name and birth date, no
  when the birth date given is another day;
* upcoming appointments: an appointment is booked for the question (a setup, undone
  afterwards) and "when is my next appointment?" asks its day; "do I have anything booked?"
  is asked with and without one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from dataclasses import dataclass

from evals.model import BookExisting, BooleanAnswer, DateAnswer, TextAnswer
from evals.questions.booking import SlotBook
from evals.questions.facts import Fact, day, gold, iso_date, spoken_date
from evals.questions.record import _group, _pick, _pick_polar
from evals.truth import Medication, Record
from evals.vocab import drug_name

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
_DOSE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s+([A-Za-z][A-Za-z/ ]*?)\s*(?:,|$)")
_FREQUENCY = re.compile(
    r"\b(once|twice|\d+(?:\.\d+)?\s+times)\s+(?:a|per|every\s+(\d+))\s+(second|minute|hour|day|week|month|year)s?\b",
    re.I,
)
_AS_NEEDED = re.compile(r"\bas needed\b|\bwhen needed\b|\bprn\b", re.I)


@dataclass(frozen=True)
class Dosage:
    """What a prescription's dosage sentence states (anything it does not state is None)."""

    dose: tuple[str, ...] | None  # accepted wordings of the dose
    frequency: tuple[str, ...] | None  # accepted wordings of how often


def _dose_words(text: str) -> tuple[str, ...] | None:
    m = _DOSE.match(text)
    if not m:
        return None
    amount, unit = m.group(1), m.group(2).strip()
    out = [f"{amount} {unit}"]
    if amount.isdigit() and int(amount) in _NUMBER_WORDS:
        out.append(f"{_NUMBER_WORDS[int(amount)]} {unit}")
    return tuple(out)


def _frequency_words(text: str, as_needed: bool) -> tuple[str, ...] | None:
    m = _FREQUENCY.search(text)
    if m is None:
        return ("as needed", "when needed", "as required") if as_needed or _AS_NEEDED.search(text) else None
    times_word, every, unit = m.group(1).lower(), m.group(2), m.group(3).lower()
    times = {"once": 1, "twice": 2}.get(times_word) or float(times_word.split()[0])
    out = [m.group(0).lower()]
    if every is None:
        per = {"day": "daily", "week": "weekly", "month": "monthly"}.get(unit)
        n = int(times) if float(times).is_integer() else times
        spoken = {1: "once", 2: "twice"}.get(n)
        words = [f"{n} times a {unit}", f"{n} times per {unit}"] if n != 1 else []
        if isinstance(n, int) and n in _NUMBER_WORDS and n != 1:
            words += [f"{_NUMBER_WORDS[n]} times a {unit}"]
        if spoken:
            words += [f"{spoken} a {unit}", f"{spoken} per {unit}"] + ([f"{spoken} {per}"] if per else [])
        if n == 1:
            words += [f"1 time a {unit}", f"one time a {unit}", f"every {unit}"]
        elif per:
            words.append(f"{n} times {per}")
        if unit == "day" and isinstance(n, int) and 24 % n == 0 and n > 1:
            words.append(f"every {24 // n} hours")
        out += words
    return tuple(dict.fromkeys(w for w in out if w))


def read_dosage(med: Medication) -> Dosage:
    text = " ".join((med.dosage_text or "").split())
    return Dosage(dose=_dose_words(text), frequency=_frequency_words(text, bool(med.as_needed)))


def _prescriber_words(name: str, everyone: set[str]) -> tuple[str, ...]:
    """The prescriber's name as written, without its title, and the family name alone when no
    other prescriber of this patient shares it."""
    bare = re.sub(r"^(?:dr|doctor|prof)\.?\s+", "", name.strip(), flags=re.I)
    out = [name.strip(), bare]
    family = bare.split()[-1] if bare.split() else ""
    if family and sum(1 for n in everyone if n.split()[-1:] == [family]) == 1:
        out.append(f"Dr. {family}")
        out.append(f"Dr {family}")
    return tuple(dict.fromkeys(o for o in out if o))


def medication_detail_facts(record: Record, rng: random.Random) -> list[Fact]:
    facts: list[Fact] = []
    current = _group(record.active_medications(), lambda m: drug_name(m.display))
    newest = {
        name: max(rows, key=lambda m: (m.authored_on or record.now, m.id)) for name, rows in current.items()
    }
    dosed = {n: (m, read_dosage(m)) for n, m in newest.items()}
    with_dose = [n for n, (_, d) in dosed.items() if d.dose]
    for name in _pick(rng, with_dose, 1):
        med, dosage = dosed[name]
        facts.append(
            Fact(
                "lookup",
                "medication_dose",
                name,
                TextAnswer(accepted=dosage.dose or (), reference=med.dosage_text or ""),
                (f"What dose of {name} am I on?",),
                (f"What dose of {name} is the patient prescribed?",),
                f"dosage of the newest active prescription of {name}: {' '.join((med.dosage_text or '').split())!r}",
                gold("medication", [med.id]),
            )
        )
    with_frequency = [n for n, (_, d) in dosed.items() if d.frequency]
    for name in _pick(rng, with_frequency, 1):
        med, dosage = dosed[name]
        facts.append(
            Fact(
                "lookup",
                "medication_frequency",
                name,
                TextAnswer(accepted=dosage.frequency or (), reference=med.dosage_text or ""),
                (f"How often should I take {name}?",),
                (f"How often is the patient to take {name}?",),
                f"frequency in the dosage of the newest active prescription of {name}: "
                f"{' '.join((med.dosage_text or '').split())!r}",
                gold("medication", [med.id]),
            )
        )
    everyone = {m.requester_name for m in record.valid_medications() if m.requester_name}
    prescribed = [n for n, m in newest.items() if m.requester_name]
    for name in _pick(rng, prescribed, 1):
        med = newest[name]
        facts.append(
            Fact(
                "lookup",
                "medication_prescriber",
                name,
                TextAnswer(
                    accepted=_prescriber_words(med.requester_name or "", everyone),
                    reference=med.requester_name or "",
                ),
                (f"Who prescribed my {name}?",),
                (f"Who prescribed the patient's {name}?",),
                f"requester of the newest active prescription of {name} ({iso_date(med.authored_on or record.now)})",
                gold("medication", [med.id]),
            )
        )
    return facts


def _shifted(birth: dt.date, rng: random.Random) -> dt.date:
    """Another plausible birth date: a slip of a day, a month or a year."""
    for days in rng.sample([1, -1, 31, -31, 365, -365, 366, -366], 8):
        other = birth + dt.timedelta(days=days)
        if other != birth:
            return other
    return birth + dt.timedelta(days=1)


def identity_facts(record: Record, rng: random.Random) -> list[Fact]:
    p = record.patient
    if not p.birth_date or not p.full_name:
        return []
    matches = rng.random() < 0.5
    dob = p.birth_date if matches else _shifted(p.birth_date, rng)
    return [
        Fact(
            "lookup",
            "identity_check",
            "",
            BooleanAnswer(value=matches),
            (f"Do you have me as {p.full_name}, born {spoken_date(dob)}?",),
            (f"Is this {p.full_name}, date of birth {dob.isoformat()}?",),
            f"the record's name is {p.full_name} and birth date {p.birth_date.isoformat()}; "
            f"the question gives {dob.isoformat()}",
            (gold("patient", [p.patient_id])),
            slots={
                "patient": {"name": p.full_name, "dob": spoken_date(dob)},
                "clinician": {"name": p.full_name, "dob": dob.isoformat()},
            },
        )
    ]


def appointment_facts(record: Record, rng: random.Random, book: SlotBook) -> list[Fact]:
    """Upcoming appointments, with one booked for the question when the record has none."""
    facts: list[Fact] = []
    upcoming = record.upcoming_appointments()
    future = sorted(
        (s for slots in book.by_specialty.values() for s in slots), key=lambda s: (s.starts_at, s.id)
    )
    setup: tuple[BookExisting, ...] = ()
    if upcoming:
        first_day, specialty, ids = (
            day(upcoming[0].starts_at),
            upcoming[0].specialty,
            [a.id for a in upcoming],
        )
    elif future:
        slot = rng.choice(future[: max(1, len(future) // 2)])
        appointment_id = (
            "eval-next-" + hashlib.sha256(f"{record.patient.patient_id}:{slot.id}".encode()).hexdigest()[:12]
        )
        setup = (BookExisting(appointment_id=appointment_id, slot_id=slot.id),)
        first_day, specialty, ids = day(slot.starts_at), slot.specialty, [appointment_id]
    else:
        return facts
    facts.append(
        Fact(
            "lookup",
            "next_appointment",
            "",
            DateAnswer(value=first_day),
            ("When is my next appointment?",),
            ("When is the patient's next appointment?",),
            f"soonest booked appointment after now: {specialty} on {iso_date(first_day)}"
            + (" (booked for this question, undone afterwards)" if setup else ""),
            gold("appointment", ids[:1]),
            setup=setup,
        )
    )
    # "anything booked?" both ways: with the appointment above, and (when the record has
    # none of its own) without it
    sides = {"yes": True} | ({} if upcoming else {"no": False})
    for side in _pick_polar(rng, sides, lambda v: v):
        has = sides[side]
        facts.append(
            Fact(
                "lookup",
                "any_upcoming_appointment",
                side,
                BooleanAnswer(value=has),
                ("Do I have any appointments coming up?",),
                ("Does the patient have any upcoming appointments booked?",),
                f"{len(ids) if has else 0} booked appointments after now"
                + (" (one booked for this question, undone afterwards)" if has and setup else ""),
                gold("appointment", ids) if has else (),
                setup=setup if has else (),
            )
        )
    return facts
