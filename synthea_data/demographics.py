"""Who the patient is: name, birth, death, address, family, habits, insurance, primary care.

Drawn the way Synthea draws them (numbered names, US Core race/ethnicity categories,
Massachusetts towns). Scenario patients get the demographics their hard case needs: an old
former smoker who has died, a middle-aged adult for the diabetes story, a name with non-ASCII
letters and an apostrophe.
"""

from __future__ import annotations

import datetime as dt
import random

from synthea_data.ids import IdSource
from synthea_data.model import Person
from synthea_data.names import (
    APOSTROPHE_FAMILY,
    FAMILY,
    FEMALE_GIVEN,
    MALE_GIVEN,
    NON_ASCII_FAMILY,
    NON_ASCII_FEMALE,
    NON_ASCII_MALE,
    RACE_MIX,
    TOWNS,
    numbered,
    street_address,
    weighted,
)
from synthea_data.providers import Network

PRIVATE_PAYERS = ("Blue Cross Blue Shield", "Aetna", "Cigna Health", "UnitedHealthcare", "Anthem", "Humana")
EDUCATION = {
    "low": "Patient has a high school education.",
    "middle": "Patient has completed some college courses.",
    "high": "Patient is a college graduate.",
}


def make_person(
    rng: random.Random, ids: IdSource, network: Network, today: dt.date, cases: set[str]
) -> tuple[Person, bool]:
    """The patient, and whether the scenario needs them obese."""
    force_obese = False
    deceased = "deceased_with_active_medication" in cases
    if deceased:
        age = rng.randint(76, 86)
    elif cases:
        age = rng.randint(38, 62)
    else:
        age = weighted(rng, (((4, 17), 0.12), ((18, 44), 0.33), ((45, 64), 0.30), ((65, 90), 0.25)))
        age = rng.randint(*age)
    if "lab_crosses_reference_range" in cases:
        age = rng.randint(50, 62)
        force_obese = True
    gender = "male" if deceased else rng.choice(("male", "female"))
    if "unusual_name" in cases:
        gender = "female"
    birth = today - dt.timedelta(days=int(age * 365.25) + rng.randint(20, 340))
    death = None
    if deceased:
        death_day = today - dt.timedelta(days=rng.randint(400, 900))
        death = dt.datetime.combine(
            death_day, dt.time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        )
        birth = death_day - dt.timedelta(days=int(age * 365.25) + rng.randint(20, 340))
    female = gender == "female"
    pool = FEMALE_GIVEN if female else MALE_GIVEN
    exotic = NON_ASCII_FEMALE if female else NON_ASCII_MALE
    if "unusual_name" in cases:
        given_plain = [rng.choice(exotic), rng.choice(exotic), rng.choice(pool)]
        family_plain = rng.choice(APOSTROPHE_FAMILY)
    else:
        first = rng.choice(exotic) if rng.random() < 0.08 else rng.choice(pool)
        given_plain = [first] + ([rng.choice(pool)] if rng.random() < 0.3 else [])
        roll = rng.random()
        family_plain = (
            rng.choice(APOSTROPHE_FAMILY)
            if roll < 0.05
            else rng.choice(NON_ASCII_FAMILY)
            if roll < 0.1
            else rng.choice(FAMILY)
        )
    given = [numbered(rng, g) for g in given_plain]
    family = numbered(rng, family_plain)
    adult = age >= 18
    if adult:
        marital = weighted(rng, (("M", 0.5), ("S", 0.28), ("D", 0.12), ("W", 0.1 if age > 60 else 0.01)))
    else:
        marital = "S"
    maiden = (
        numbered(rng, rng.choice(FAMILY))
        if female and marital in ("M", "W", "D") and rng.random() < 0.6
        else None
    )
    prefix = None
    if adult:
        prefix = "Mr." if not female else ("Mrs." if marital in ("M", "W") else "Ms.")
    smoking = "never"
    if adult:
        smoking = weighted(rng, (("never", 0.6), ("former", 0.25), ("daily", 0.15)))
    if deceased:
        smoking = "former"
    socioeconomic = weighted(rng, (("low", 0.25), ("middle", 0.5), ("high", 0.25)))
    if age >= 65:
        payer = "Medicare"
    elif socioeconomic == "low" and rng.random() < 0.6:
        payer = "Medicaid"
    elif rng.random() < 0.05:
        payer = "NO_INSURANCE"
    else:
        payer = rng.choice(PRIVATE_PAYERS)
    town = rng.choice(TOWNS)
    clinic, pcp = network.pick(rng, "clinic")
    person = Person(
        id=ids.uuid(),
        given=given,
        family=family,
        prefix=prefix,
        maiden_family=maiden,
        gender=gender,
        birth_date=birth,
        race=weighted(rng, RACE_MIX),
        town=town,
        line=street_address(rng),
        latitude=town.latitude + rng.uniform(-0.05, 0.05),
        longitude=town.longitude + rng.uniform(-0.05, 0.05),
        phone=f"555-{ids.digits(3)}-{ids.digits(4)}",
        ssn=f"999-{ids.digits(2)}-{ids.digits(4)}",
        drivers_license=f"S999{ids.digits(5)}" if adult and rng.random() < 0.7 else None,
        marital=marital,
        mothers_maiden=f"{numbered(rng, rng.choice(FEMALE_GIVEN))} {numbered(rng, rng.choice(FAMILY))}",
        birthplace=rng.choice(TOWNS),
        smoking=smoking,
        payer=payer,
        socioeconomic=socioeconomic,
        education=EDUCATION[socioeconomic] if adult else "",
        pcp=pcp,
        clinic=clinic,
        deceased_at=death,
        millis=rng.randint(0, 999),
    )
    return person, force_obese
