"""One patient's life in the record: demographics, then visits in time order.

The simulator walks a queue of planned visits (yearly wellness visits, follow-ups that
diagnoses schedule, acute illnesses, vaccinations, emergencies, admissions) and, at each visit,
decides what a clinician would record given the patient's state *at that moment*: which
chronic conditions are diagnosed, which labs are due, which drugs are started, switched,
stopped or restarted. Everything random comes from the patient's own seeded RNG.

Scenario patients (see `hard_cases`) run through the same machinery with a few decisions forced,
so their traps sit inside otherwise ordinary records.
"""

from __future__ import annotations

import datetime as dt
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from synthea_data import lab_catalog as lab
from synthea_data.chart import ChartRecorder
from synthea_data.clock import add_years, age_on
from synthea_data.codes import (
    Allergen,
    Code,
    Cond,
    Enc,
    Instruction,
    Med,
    Obs,
    Plan,
    Proc,
    Reaction,
    Report,
    Smoking,
    Supply,
    Vaccine,
)
from synthea_data.demographics import make_person
from synthea_data.hard_cases import cases_for_index
from synthea_data.ids import IdSource, rng_for
from synthea_data.model import (
    PatientRecord,
    Quantity,
    Visit,
)
from synthea_data.names import (
    weighted,
)
from synthea_data.physiology import Physiology
from synthea_data.providers import Network, Utilization

ANTIHYPERTENSIVES = ("lisinopril", "losartan", "hctz", "amlodipine")
STATIN_EFFECT = {"simvastatin": 0.28, "atorvastatin": 0.38}

# acute illness -> (condition, chief complaints, narrative, days to resolve)
ACUTE = {
    "viral_pharyngitis": (Cond.VIRAL_PHARYNGITIS, ["Sore throat", "Fever"], "sore throat and fever", (7, 12)),
    "strep_throat": (
        Cond.STREP_THROAT,
        ["Sore throat", "Fever", "Swollen glands"],
        "a sore throat and fever",
        (8, 14),
    ),
    "viral_sinusitis": (
        Cond.VIRAL_SINUSITIS,
        ["Nasal congestion", "Facial pain"],
        "nasal congestion and facial pain",
        (10, 20),
    ),
    "bacterial_sinusitis": (
        Cond.BACTERIAL_SINUSITIS,
        ["Nasal congestion", "Facial pain", "Fever"],
        "sinus pain and fever",
        (12, 21),
    ),
    "acute_bronchitis": (Cond.ACUTE_BRONCHITIS, ["Cough", "Wheezing"], "a productive cough", (14, 28)),
    "otitis_media": (Cond.OTITIS_MEDIA, ["Ear pain", "Fever"], "ear pain", (7, 14)),
}
ADULT_ACUTE = (
    ("viral_sinusitis", 0.3),
    ("viral_pharyngitis", 0.22),
    ("acute_bronchitis", 0.2),
    ("bacterial_sinusitis", 0.1),
    ("strep_throat", 0.1),
    ("otitis_media", 0.08),
)
CHILD_ACUTE = (
    ("otitis_media", 0.4),
    ("viral_pharyngitis", 0.3),
    ("strep_throat", 0.2),
    ("viral_sinusitis", 0.1),
)


@dataclass(order=True)
class Planned:
    when: dt.datetime
    order: int
    kind: str = field(compare=False)
    payload: dict = field(compare=False, default_factory=dict)


class PatientSimulator:
    def __init__(self, seed: int, index: int, network: Network, today: dt.date) -> None:
        self.rng = rng_for(seed, "patient", index)
        self.ids = IdSource(rng_for(seed, "patient-ids", index))
        self.network = network
        self.today = today
        self.now = dt.datetime.combine(today, dt.time(0))
        self.cases = {case.key for case in cases_for_index(index)}
        self.queue: list[Planned] = []
        self._order = itertools.count()
        self.plan: dict[str, int] = {}
        self.flags: dict[str, object] = {}

    # =============================================================== entry point

    def run(self) -> tuple[PatientRecord, Utilization]:
        self.person, force_obese = make_person(self.rng, self.ids, self.network, self.today, self.cases)
        # what the record holds; the decisions stay here
        self.chart = ChartRecorder(self.ids, self.cases, female=self.person.female)
        if force_obese:
            self.flags["force_obese"] = True
        self.chart.mark("unusual_name", "patient", self.person.id)
        self.chart.mark("deceased_with_active_medication", "patient", self.person.id)
        self.end = self.person.deceased_at or self.now
        self.phys = Physiology(
            self.rng,
            female=self.person.female,
            black=self.person.race.race == "BLACK",
            obese="force_obese" in self.flags or (self._adult_at_end() and self.rng.random() < 0.3),
        )
        self._plan_wellness()
        self._plan_conditions()
        self._plan_acute_illnesses()
        self._plan_vaccination_visits()
        while self.queue:
            planned = heapq.heappop(self.queue)
            if planned.when >= self.end:
                continue
            VISITS[planned.kind](self, planned)
        if self.person.deceased_at is not None:
            self._death_visit()
        self._record_marks_after_run()
        return self.chart.record(self.person), self.chart.usage

    # =============================================================== planning

    def _age(self, when: dt.datetime | dt.date) -> int:
        day = when.date() if isinstance(when, dt.datetime) else when
        return age_on(self.person.birth_date, day)

    def _adult_at_end(self) -> bool:
        return self._age(self.end) >= 18

    def _at(self, day: dt.date, first_hour: int = 8, last_hour: int = 16) -> dt.datetime:
        return dt.datetime.combine(
            day,
            dt.time(
                self.rng.randint(first_hour, last_hour), self.rng.randint(0, 59), self.rng.randint(0, 59)
            ),
        )

    def _push(self, when: dt.datetime, kind: str, **payload) -> None:
        heapq.heappush(self.queue, Planned(when, next(self._order), kind, payload))

    def _plan_wellness(self) -> None:
        history_years = 10 if self.cases else self.rng.randint(8, 11)
        start = max(
            add_years(self.end.date(), -history_years),
            add_years(self.person.birth_date, 2),
        )
        month, day = self.rng.randint(1, 12), self.rng.randint(1, 28)
        self.wellness_days: list[dt.date] = []
        for year in range(start.year, self.end.year + 1):
            candidate = dt.date(year, month, day) + dt.timedelta(days=self.rng.randint(-20, 20))
            if start <= candidate < self.end.date():
                self.wellness_days.append(candidate)
        for number, day_ in enumerate(self.wellness_days):
            self._push(self._at(day_), "wellness", number=number)

    def _plan_conditions(self) -> None:
        rng, n = self.rng, len(self.wellness_days)
        if n == 0:
            return
        adult_from = next((i for i, d in enumerate(self.wellness_days) if self._age(d) >= 18), None)
        age_end = self._age(self.end)

        def pick(low: int, high: int | None = None) -> int | None:
            low = max(low, adult_from if adult_from is not None else n)
            high = n - 1 if high is None else min(high, n - 1)
            return rng.randint(low, high) if low <= high else None

        def maybe(key: str, probability: float, low: int = 0, high: int | None = None) -> None:
            if rng.random() < probability:
                index = pick(low, high)
                if index is not None:
                    self.plan[key] = index

        if self.phys.bmi >= 30 and adult_from is not None:
            self.plan["obesity"] = adult_from
        obese = "obesity" in self.plan
        if adult_from is not None:
            maybe("t2dm", 0.1 + (0.12 if obese else 0) + (0.06 if age_end > 50 else 0), low=3)
            if "t2dm" in self.plan and rng.random() < 0.6:
                self.plan["prediabetes"] = max(self.plan["t2dm"] - 2, 0)
            elif "t2dm" not in self.plan:
                maybe("prediabetes", 0.15 + (0.1 if obese else 0), low=1)
            maybe("hypertension", min(0.05 + 0.007 * max(age_end - 25, 0), 0.55) + (0.1 if obese else 0))
            maybe("hyperlipidemia", min(0.05 + 0.005 * max(age_end - 25, 0), 0.4))
            if age_end >= 55 and ("t2dm" in self.plan or "hypertension" in self.plan):
                first = min(self.plan.get("t2dm", n), self.plan.get("hypertension", n))
                maybe("ckd", 0.3, low=first + 2)
            if self.person.smoking != "never" and age_end >= 50:
                maybe("copd", 0.35)
            maybe("depression", 0.1)
            maybe("anemia", 0.1 if self.person.female else 0.04)
        if rng.random() < 0.08:
            self.plan["asthma"] = rng.randint(0, n - 1)
        # allergies are recorded at the first visit of the record
        if rng.random() < 0.25:
            self.flags["allergies"] = rng.sample(
                [
                    Allergen.PEANUT,
                    Allergen.SHELLFISH,
                    Allergen.TREE_POLLEN,
                    Allergen.HOUSE_DUST_MITE,
                    Allergen.ASPIRIN,
                    Allergen.ANIMAL_DANDER,
                    Allergen.GRASS_POLLEN,
                    Allergen.MOLD,
                    Allergen.PENICILLIN,
                    Allergen.TREE_NUT,
                ],
                rng.randint(1, 3),
            )
        self._force_scenarios(n)
        self._plan_complications()

    def _force_scenarios(self, n: int) -> None:
        rng = self.rng
        if "penicillin_allergy_with_amoxicillin" in self.cases:
            self.flags["allergies"] = [Allergen.PENICILLIN, Allergen.LATEX]
            acute_day = self.wellness_days[rng.randint(3, n - 2)] + dt.timedelta(days=rng.randint(40, 200))
            self._push(
                self._at(acute_day),
                "acute",
                illness=rng.choice(("otitis_media", "strep_throat")),
                force_amoxicillin=True,
            )
        if "lab_crosses_reference_range" in self.cases:
            self.plan.update({"obesity": 0, "prediabetes": 3, "t2dm": 5})
            self.plan.pop("ckd", None)
            self.flags["metformin_interruption"] = True
        if "entered_in_error_rows" in self.cases:
            self.plan.update({"prediabetes": 3})
            self.plan.pop("t2dm", None)
            self.plan.pop("ckd", None)
            self.flags["entered_in_error_at"] = 5
            self.flags["flu_refused_at"] = 6
        if "deceased_with_active_medication" in self.cases:
            self.plan.update({"hypertension": 0, "hyperlipidemia": 1, "copd": 2})
            self.plan.pop("depression", None)
            self.flags["admission"] = self.end - dt.timedelta(days=rng.randint(60, 150))
            self.flags["second_agent"] = "add-amlodipine"  # a tall-man RxNorm display (amLODIPine)
        if "condition_resolved_then_recurring" in self.cases:
            self.plan["depression"] = 1
            self.flags["depression_recurs"] = True
        if "emergency_visit" in self.cases:
            self.plan["asthma"] = 2
            self.flags["asthma_emergency"] = True
            self.flags["allergies"] = [Allergen.PEANUT, Allergen.TREE_POLLEN]

    def _plan_complications(self) -> None:
        rng = self.rng
        if "asthma" in self.plan and rng.random() < 0.3:
            self.flags["asthma_emergency"] = True
        if "copd" in self.plan and "admission" not in self.flags and rng.random() < 0.4:
            dx_day = self.wellness_days[self.plan["copd"]]
            day = dx_day + dt.timedelta(days=rng.randint(200, 1400))
            if day < self.end.date():
                self.flags["admission"] = self._at(day, 0, 23)
        if "t2dm" in self.plan and "metformin_interruption" not in self.flags:
            if rng.random() < 0.1:
                self.flags["metformin_interruption"] = True
            elif rng.random() < 0.25:
                self.flags["dm_control_lost_years"] = rng.uniform(2.0, 3.5)
        if "hypertension" in self.plan and rng.random() < 0.2:
            self.flags["ace_cough"] = True
        if "admission" in self.flags:
            when = self.flags["admission"]
            if isinstance(when, dt.datetime):
                self._push(when, "inpatient")

    def _plan_acute_illnesses(self) -> None:
        if not self.wellness_days:
            return
        start = self.wellness_days[0]
        years = (self.end.date() - start).days / 365.25
        rate = 0.55 if self._age(self.end) >= 18 else 0.9
        expected = years * rate
        count = sum(1 for _ in range(int(expected * 2) + 1) if self.rng.random() < 0.5)
        for _ in range(count):
            day = start + dt.timedelta(days=self.rng.randint(10, max(int(years * 365.25) - 1, 11)))
            if day >= self.end.date():
                continue
            child = self._age(day) < 18
            illness = weighted(self.rng, CHILD_ACUTE if child else ADULT_ACUTE)
            self._push(self._at(day, 8, 19), "acute", illness=illness)

    def _plan_vaccination_visits(self) -> None:
        rng = self.rng
        first_day = dt.date(2021, 1, 15) + dt.timedelta(days=rng.randint(0, 120))
        if not self.wellness_days or first_day < self.wellness_days[0] or first_day >= self.end.date():
            return
        if self._age(first_day) < 16 or rng.random() > 0.85:
            return
        vaccine = rng.choice((Vaccine.COVID_PFIZER, Vaccine.COVID_MODERNA))
        gap = 21 if vaccine is Vaccine.COVID_PFIZER else 28
        self._push(self._at(first_day), "vaccination", vaccine=vaccine)
        self._push(self._at(first_day + dt.timedelta(days=gap)), "vaccination", vaccine=vaccine)
        booster = dt.date(2022, 9, 20) + dt.timedelta(days=rng.randint(0, 90))
        if booster < self.end.date() and rng.random() < 0.6:
            self._push(self._at(booster), "vaccination", vaccine=vaccine)

    # =============================================================== state queries

    def _glycaemic_status(self, when: dt.datetime) -> str:
        if self.chart.has("t2dm", when):
            if self.chart.taking("insulin", when):
                return "diabetes-treated"
            lost = self.flags.get("dm_control_lost_at")
            if self.chart.taking("metformin", when) and not (isinstance(lost, dt.datetime) and when >= lost):
                return "diabetes-treated"
            return "diabetes-untreated"
        if self.chart.has("prediabetes", when):
            return "prediabetes"
        return "normal"

    def _bp_status(self, when: dt.datetime) -> str:
        if not self.chart.has("hypertension", when):
            return "normal"
        if any(self.chart.taking(drug, when) for drug in ANTIHYPERTENSIVES):
            return "hypertension-treated"
        return "hypertension-untreated"

    def _years_since(self, key: str, when: dt.datetime) -> float | None:
        episode = self.chart.current.get(key)
        if episode is None or not episode.active_on(when):
            return None
        return (when - episode.onset).days / 365.25

    def _penicillin_allergic(self) -> bool:
        return any(a.substance is Allergen.PENICILLIN for a in self.chart.allergies)

    # =============================================================== visits that choose a clinician

    def _clinic_visit(self, kind: str, type_: Code, when: dt.datetime, minutes: int, reason=None) -> Visit:
        practitioner = self.person.pcp
        if self.rng.random() < 0.2:
            practitioner = self.rng.choice(self.network.staff(self.person.clinic))
        return self.chart.new_visit(
            kind, "AMB", type_, when, minutes, self.person.clinic, practitioner, reason
        )

    # =============================================================== vitals

    def _vitals(
        self, visit: Visit, *, febrile: bool = False, distressed: bool = False, full: bool = True
    ) -> None:
        age = self._age(visit.start)
        years_in = (visit.start.date() - self.wellness_days[0]).days / 365.25 if self.wellness_days else 0.0
        if full:
            self.chart.quantity_obs(visit, Obs.HEIGHT, "vital-signs", self.phys.height(age), "cm")
            self.chart.quantity_obs(
                visit,
                Obs.PAIN,
                "vital-signs",
                self.rng.randint(0, 3) if not febrile else self.rng.randint(2, 6),
                "{score}",
            )
        weight, bmi = self.phys.weight_and_bmi(age, years_in)
        self.chart.quantity_obs(visit, Obs.WEIGHT, "vital-signs", weight, "kg")
        if age >= 2:
            self.chart.quantity_obs(visit, Obs.BMI, "vital-signs", bmi, "kg/m2")
        if age >= 3:
            systolic, diastolic = self.phys.blood_pressure(self._bp_status(visit.start), age)
            self.chart.panel_obs(
                visit,
                Obs.BP_PANEL,
                "vital-signs",
                [
                    (Obs.DIASTOLIC, Quantity(diastolic, "mm[Hg]")),
                    (Obs.SYSTOLIC, Quantity(systolic, "mm[Hg]")),
                ],
            )
        self.chart.quantity_obs(
            visit, Obs.HEART_RATE, "vital-signs", self.phys.pulse(febrile=febrile, age=age), "/min"
        )
        self.chart.quantity_obs(
            visit,
            Obs.RESPIRATORY_RATE,
            "vital-signs",
            self.phys.respiratory_rate(distressed=distressed),
            "/min",
        )
        if febrile or visit.kind in ("urgent", "symptom", "emergency", "inpatient"):
            self.chart.quantity_obs(
                visit, Obs.TEMPERATURE, "vital-signs", self.phys.temperature(febrile=febrile), "Cel"
            )

    # =============================================================== visit handlers

    def _visit_wellness(self, planned: Planned) -> None:
        number = planned.payload["number"]
        age = self._age(planned.when)
        if age < 18:
            visit = self._clinic_visit("wellness", Enc.WELL_CHILD, planned.when, 20)
        else:
            visit = self._clinic_visit(
                "wellness", Enc.GENERAL_EXAM if self.rng.random() < 0.75 else Enc.CHECK_UP, planned.when, 25
            )
        visit.wellness_number = number
        if number == 0:
            self._record_allergies(visit)
        for key in [k for k, i in self.plan.items() if i == number]:
            DIAGNOSES[key](self, visit)
        if self.flags.get("depression_recurs") and self._depression_recurrence_due(visit):
            self._dx_depression(visit, recurrence=True)
        self._vitals(visit)
        if age >= 18:
            smoke = {"never": Smoking.NEVER, "former": Smoking.FORMER, "daily": Smoking.DAILY}[
                self.person.smoking
            ]
            self.chart.concept_obs(visit, Obs.SMOKING, "social-history", smoke)
            self._wellness_labs(visit, number)
        if age >= 12:
            self._depression_screen(visit)
        if any(m.active_on(visit.start) and m.authored < visit.start for m in self.chart.meds):
            self.chart.procedure(visit, Proc.MEDICATION_RECONCILIATION, offset=20)
            if self.rng.random() < 0.4:
                review = self.chart.diagnose(visit, None, Cond.MEDICATION_REVIEW_DUE, social=True)
                review.abatement = visit.start + dt.timedelta(days=self.rng.randint(300, 380))
        if age >= 18:
            self.chart.procedure(visit, Proc.HEALTH_SOCIAL_NEEDS, offset=5)
            if number == 0 and self.rng.random() < 0.5:
                finding = Cond.FULL_TIME_EMPLOYMENT if self.rng.random() < 0.7 else Cond.PART_TIME_EMPLOYMENT
                job = self.chart.diagnose(visit, None, finding, social=True)
                if self.rng.random() < 0.5:
                    job.abatement = visit.start + dt.timedelta(days=self.rng.randint(400, 1500))
        self._wellness_immunizations(visit, number, age)
        if self.flags.get("entered_in_error_at") == number:
            self._entered_in_error(visit)

    def _wellness_labs(self, visit: Visit, number: int) -> None:
        when = visit.start
        status = self._glycaemic_status(when)
        dm_dx_now = self.plan.get("t2dm") == number
        pre_dx_now = self.plan.get("prediabetes") == number
        will_be_glycaemic = "t2dm" in self.plan or "prediabetes" in self.plan
        obese = self.chart.has("obesity", when)
        if status != "normal" or obese or will_be_glycaemic or (self._age(when) >= 45 and number % 3 == 0):
            if dm_dx_now:
                value = self.phys.set_hba1c(round(self.rng.uniform(7.3, 9.1), 1))
            elif pre_dx_now:
                value = self.phys.set_hba1c(round(self.rng.uniform(5.8, 6.3), 1))
            elif status == "normal":
                value = self.phys.hba1c("normal", ceiling=5.6)
            elif status == "prediabetes":
                value = self.phys.hba1c("prediabetes", floor=5.7, ceiling=6.4)
            else:
                value = self.phys.hba1c(status, floor=6.0)
            self.chart.lab(visit, lab.HBA1C, value)
            self.flags["last_a1c_visit"] = visit
        htn, dm, ckd = (
            self.chart.has("hypertension", when),
            self.chart.has("t2dm", when),
            self.chart.has("ckd", when),
        )
        ckd_years = self._years_since("ckd", when)
        if htn or dm or ckd or self._age(when) >= 50 or number % 3 == 0:
            self.chart.panel(
                visit, Report.BASIC_METABOLIC, self.phys.metabolic_panel(self._age(when), ckd_years)
            )
        if self.chart.has("hyperlipidemia", when) or dm or htn or number % 3 == 1:
            statin = next((STATIN_EFFECT[d] for d in STATIN_EFFECT if self.chart.taking(d, when)), 0.0)
            self.chart.panel(
                visit,
                Report.LIPID_PANEL,
                self.phys.lipid_panel(
                    hyperlipidemia=self.chart.has("hyperlipidemia", when), statin_effect=statin, diabetic=dm
                ),
            )
        anemic = self.chart.has("anemia", when) and not (
            self.chart.taking("iron", when) and (when - self.chart.on["iron"].authored).days > 60
        )
        if self.chart.has("anemia", when) or number % 3 == 2:
            self.chart.panel(visit, Report.CBC, self.phys.blood_count(anemic=anemic, infection=False))
        if dm:
            years = self._years_since("t2dm", when) or 0.0
            self.chart.lab(visit, lab.MICROALBUMIN, self.phys.microalbumin(years))

    def _depression_screen(self, visit: Visit) -> None:
        when = visit.start
        dx_now = any(c.code is Cond.DEPRESSION for c in visit.conditions)
        active = self.chart.has("depression", when)
        if dx_now:
            phq2, phq9 = self.rng.randint(3, 6), self.rng.randint(14, 19)
        elif active:
            months = (when - self.chart.current["depression"].onset).days / 30.4
            phq2 = self.rng.randint(1, 3)
            phq9 = max(2, round(Physiology.decay(16, 5, months, 4.0) + self.rng.gauss(0, 1.2)))
        else:
            phq2, phq9 = self.rng.randint(0, 2), None
        self.chart.procedure(visit, Proc.DEPRESSION_SCREENING, offset=10)
        self.chart.procedure(visit, Proc.PHQ2_SCREENING, offset=10)
        self.chart.survey(visit, Report.PHQ2, Obs.PHQ2_TOTAL, phq2)
        if phq9 is not None:
            self.chart.procedure(visit, Proc.PHQ9_SCREENING, offset=12)
            self.chart.survey(visit, Report.PHQ9, Obs.PHQ9_TOTAL, phq9)

    def _wellness_immunizations(self, visit: Visit, number: int, age: int) -> None:
        rng = self.rng
        if self.flags.get("flu_refused_at") == number:
            imm = self.chart.immunize(visit, Vaccine.INFLUENZA, refused=True)
            self.chart.mark("immunization_not_done", "immunization", imm.id)
        elif rng.random() < (0.8 if age >= 18 else 0.7):
            self.chart.immunize(visit, Vaccine.INFLUENZA)
        if age >= 18:
            if (
                Vaccine.TD.code not in self.chart.vaccines_given
                and Vaccine.TDAP.code not in self.chart.vaccines_given
                and rng.random() < 0.15
            ):
                self.chart.immunize(visit, Vaccine.TDAP if rng.random() < 0.5 else Vaccine.TD)
            if age >= 65 and Vaccine.PCV13.code not in self.chart.vaccines_given:
                self.chart.immunize(visit, Vaccine.PCV13)
            elif age >= 66 and Vaccine.PPSV23.code not in self.chart.vaccines_given:
                self.chart.immunize(visit, Vaccine.PPSV23)
            return
        schedule = {
            4: (Vaccine.DTAP, Vaccine.IPV, Vaccine.MMR, Vaccine.VARICELLA),
            5: (Vaccine.DTAP, Vaccine.IPV, Vaccine.MMR, Vaccine.VARICELLA),
            6: (Vaccine.HEP_A_PED,),
            11: (Vaccine.TDAP, Vaccine.HPV, Vaccine.MENINGOCOCCAL),
            12: (Vaccine.TDAP, Vaccine.HPV, Vaccine.MENINGOCOCCAL),
            16: (Vaccine.MENINGOCOCCAL,),
        }
        for vaccine in schedule.get(age, ()):
            if vaccine.code not in self.chart.vaccines_given or (
                vaccine is Vaccine.MENINGOCOCCAL and age == 16
            ):
                self.chart.immunize(visit, vaccine)

    def _record_allergies(self, visit: Visit) -> None:
        details = {
            Allergen.PENICILLIN.code: (
                "medication",
                "high",
                [(Reaction.SKIN_ERUPTION, "moderate"), (Reaction.WHEAL, None)],
            ),
            Allergen.ASPIRIN.code: ("medication", "low", [(Reaction.WHEAL, None)]),
            Allergen.LATEX.code: ("environment", "low", []),
            Allergen.PEANUT.code: ("food", "high", [(Reaction.ANAPHYLAXIS, "severe")]),
            Allergen.SHELLFISH.code: ("food", "low", []),
            Allergen.TREE_NUT.code: ("food", "low", [(Reaction.ITCHING, "mild")]),
        }
        for substance in self.flags.get("allergies", []):
            category, criticality, reactions = details.get(
                substance.code,
                (
                    "environment",
                    "low",
                    [(self.rng.choice((Reaction.RHINOCONJUNCTIVITIS, Reaction.SNEEZING)), "mild")],
                ),
            )
            recorded = visit.start - dt.timedelta(minutes=1)
            allergy = self.chart.allergy(visit, substance, category, criticality, recorded, reactions)
            if substance is Allergen.PENICILLIN:
                self.chart.mark("penicillin_allergy_with_amoxicillin", "allergy", allergy.id)
            if substance is Allergen.LATEX:
                self.chart.mark("allergy_without_reaction", "allergy", allergy.id)
            if substance is Allergen.PEANUT:
                self.chart.prescribe(visit, "epinephrine", Med.EPINEPHRINE_AUTOINJECTOR, as_needed=True)

    # --------------------------------------------------------------- diagnoses (at wellness visits)

    def _dx_obesity(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "obesity", Cond.OBESITY)
        self.chart.care_plan(
            visit, Plan.WEIGHT_MANAGEMENT, [Plan.DIET_EDUCATION, Plan.EXERCISE_THERAPY], condition
        )

    def _dx_prediabetes(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "prediabetes", Cond.PREDIABETES)
        self.chart.care_plan(visit, Plan.DIABETES, [Plan.DIABETIC_DIET, Plan.EXERCISE_THERAPY], condition)

    def _dx_t2dm(self, visit: Visit) -> None:
        self.chart.resolve("prediabetes", visit.start)
        condition = self.chart.diagnose(visit, "t2dm", Cond.T2DM)
        via_reference = self.rng.random() < 0.15 and not self.flags.get("metformin_interruption")
        self.chart.prescribe(visit, "metformin", Med.METFORMIN, reason=condition, via_reference=via_reference)
        self.chart.care_plan(visit, Plan.DIABETES, [Plan.DIABETIC_DIET, Plan.EXERCISE_THERAPY], condition)
        self.chart.device(visit, Supply.GLUCOSE_METER)
        self.chart.supply(visit, Supply.GLUCOSE_STRIPS, 50)
        self.chart.supply(visit, Supply.BLOOD_LANCET, 100)
        lost_years = self.flags.get("dm_control_lost_years")
        if isinstance(lost_years, float):
            self.flags["dm_control_lost_at"] = visit.start + dt.timedelta(days=int(lost_years * 365.25))
        follow_up = visit.start + dt.timedelta(days=182)
        while follow_up < self.end:
            self._push(follow_up + dt.timedelta(days=self.rng.randint(-10, 10)), "diabetes-follow-up")
            follow_up += dt.timedelta(days=365)
        if self.flags.get("metformin_interruption"):
            stop_at = visit.start + dt.timedelta(days=self.rng.randint(420, 520))
            self._push(self._at(stop_at.date()), "medication-change", action="stop-metformin")
            restart_at = stop_at + dt.timedelta(days=self.rng.randint(330, 400))
            self._push(self._at(restart_at.date()), "medication-change", action="restart-metformin")

    def _dx_hypertension(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "hypertension", Cond.HYPERTENSION)
        self.chart.prescribe(visit, "lisinopril", Med.LISINOPRIL_10, reason=condition)
        self.chart.care_plan(
            visit,
            Plan.HYPERTENSION,
            [Plan.EXERCISE_EDUCATION, Plan.DASH_DIET, Plan.ALCOHOL_COUNSELING],
            condition,
        )
        self._push(visit.start + dt.timedelta(days=self.rng.randint(25, 40)), "hypertension-follow-up")
        if self.flags.get("ace_cough"):
            day = visit.start + dt.timedelta(days=self.rng.randint(150, 400))
            self._push(self._at(day.date()), "medication-change", action="switch-to-losartan")
        elif self.flags.get("second_agent") or self.rng.random() < 0.25:
            day = visit.start + dt.timedelta(days=self.rng.randint(700, 1100))
            action = self.flags.get("second_agent") or self.rng.choice(
                ("add-hydrochlorothiazide", "add-amlodipine")
            )
            self._push(self._at(day.date()), "medication-change", action=action)

    def _dx_hyperlipidemia(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "hyperlipidemia", Cond.HYPERLIPIDEMIA)
        self.chart.prescribe(visit, "simvastatin", Med.SIMVASTATIN_20, reason=condition)
        self.chart.care_plan(
            visit, Plan.HYPERLIPIDEMIA, [Plan.LOW_SALT_DIET_EDUCATION, Plan.PHYSICAL_EXERCISES], condition
        )
        if self.rng.random() < 0.25:
            day = visit.start + dt.timedelta(days=self.rng.randint(600, 1000))
            self._push(self._at(day.date()), "medication-change", action="switch-to-atorvastatin")

    def _dx_ckd(self, visit: Visit) -> None:
        self.chart.diagnose(visit, "ckd", Cond.CKD3)
        if self.chart.has("t2dm", visit.start) and self.rng.random() < 0.5:
            self.chart.diagnose(visit, None, Cond.DIABETIC_KIDNEY)

    def _dx_asthma(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "asthma", Cond.ASTHMA)
        if not self.chart.taking("albuterol", visit.start):
            self.chart.prescribe(visit, "albuterol", Med.ALBUTEROL_INHALER, reason=condition, as_needed=True)
        self.chart.prescribe(visit, "fluticasone", Med.FLUTICASONE_INHALER, reason=condition, frequency=2)
        self.chart.care_plan(
            visit, Plan.ASTHMA, [Plan.INHALED_STEROID_THERAPY, Plan.HOME_NEBULIZER_THERAPY], condition
        )
        if self.flags.get("asthma_emergency"):
            day = visit.start + dt.timedelta(days=self.rng.randint(150, 700))
            if day < self.end:
                self._push(self._at(day.date(), 0, 23), "asthma-emergency")

    def _dx_copd(self, visit: Visit) -> None:
        code = Cond.EMPHYSEMA if self.rng.random() < 0.3 else Cond.COPD_BRONCHITIS
        condition = self.chart.diagnose(visit, "copd", code)
        self.chart.procedure(visit, Proc.RESPIRATORY_FUNCTION, reason=condition, offset=15)
        self.chart.prescribe(
            visit, "fluticasone-salmeterol", Med.FLUTICASONE_SALMETEROL, reason=condition, frequency=2
        )
        if not self.chart.taking("albuterol", visit.start):
            self.chart.prescribe(visit, "albuterol", Med.ALBUTEROL_INHALER, reason=condition, as_needed=True)
        self.chart.device(visit, Supply.HOME_NEBULIZER)
        activities = [Plan.BREATHING_CONTROL] + (
            [Plan.SMOKING_CESSATION_EDUCATION] if self.person.smoking == "daily" else []
        )
        self.chart.care_plan(visit, Plan.COPD, activities, condition)

    def _dx_depression(self, visit: Visit, recurrence: bool = False) -> None:
        condition = self.chart.diagnose(visit, "depression", Cond.DEPRESSION)
        condition.recurrence = recurrence
        self.chart.procedure(visit, Proc.ANXIETY_ASSESSMENT, offset=14)
        course = self.chart.prescribe(visit, "sertraline", Med.SERTRALINE_100, reason=condition)
        self.chart.care_plan(visit, Plan.MENTAL_HEALTH, [Plan.CBT], condition)
        self.chart.note(visit, "Reports low mood, poor sleep and loss of interest for several weeks.")
        for days in (42, 91):
            self._push(
                visit.start + dt.timedelta(days=days + self.rng.randint(-4, 4)), "depression-follow-up"
            )
        if recurrence:
            self.chart.mark("condition_resolved_then_recurring", "recurrence", condition.id)
            self.chart.mark("condition_resolved_then_recurring", "restarted_request", course.id)
            return
        self.chart.mark("condition_resolved_then_recurring", "first_episode", condition.id)
        if self.flags.get("depression_recurs") or self.rng.random() < 0.5:
            remission = visit.start + dt.timedelta(days=self.rng.randint(380, 560))
            self._push(self._at(remission.date()), "depression-follow-up", remission=True)

    def _depression_recurrence_due(self, visit: Visit) -> bool:
        first = self.chart.current.get("depression")
        if first is None or first.recurrence or first.abatement is None:
            return False
        return (visit.start - first.abatement).days >= 540

    def _dx_anemia(self, visit: Visit) -> None:
        condition = self.chart.diagnose(visit, "anemia", Cond.ANEMIA)
        self.chart.prescribe(visit, "iron", Med.FERROUS_SULFATE, reason=condition, days=120)
        condition.abatement = visit.start + dt.timedelta(days=self.rng.randint(150, 200))

    # --------------------------------------------------------------- follow-ups and changes

    def _follow_up_visit(self, planned: Planned, key: str, type_: Code = Enc.FOLLOW_UP) -> Visit | None:
        condition = self.chart.current.get(key)
        if condition is None or not condition.active_on(planned.when):
            return None
        return self._clinic_visit("follow-up", type_, planned.when, 20, reason=condition)

    def _visit_diabetes_follow_up(self, planned: Planned) -> None:
        visit = self._follow_up_visit(planned, "t2dm")
        if visit is None:
            return
        self._vitals(visit, full=False)
        value = self.phys.hba1c(self._glycaemic_status(visit.start), floor=6.0)
        self.chart.lab(visit, lab.HBA1C, value)
        self.chart.note(visit, f"Hemoglobin A1c today is {value} %.")
        self.chart.supply(visit, Supply.GLUCOSE_STRIPS, 50)
        if value >= 8.0 and self.flags.get("dm_control_lost_at") and "insulin" not in self.chart.on:
            self.chart.prescribe(
                visit, "insulin", Med.INSULIN_70_30, reason=visit.reason_condition, frequency=2
            )
            self.chart.note(visit, "Glycemic control has worsened on metformin alone; insulin started.")

    def _visit_hypertension_follow_up(self, planned: Planned) -> None:
        visit = self._follow_up_visit(planned, "hypertension")
        if visit is None:
            return
        self._vitals(visit, full=False)
        self.chart.note(visit, "Blood pressure recheck after starting antihypertensive treatment.")

    def _visit_depression_follow_up(self, planned: Planned) -> None:
        visit = self._follow_up_visit(planned, "depression")
        if visit is None:
            return
        self.chart.procedure(visit, Proc.PHQ9_SCREENING, offset=5)
        if planned.payload.get("remission"):
            self.chart.survey(visit, Report.PHQ9, Obs.PHQ9_TOTAL, self.rng.randint(1, 4))
            episode = self.chart.resolve("depression", visit.start)
            stopped = self.chart.stop("sertraline", visit.start)
            for plan in (
                p for v in self.chart.visits for p in v.care_plans if p.addresses is episode and p.end is None
            ):
                plan.end = visit.start
            self.chart.note(visit, "Depressive symptoms in remission; sertraline tapered and stopped.")
            if stopped is not None:
                self.chart.mark("condition_resolved_then_recurring", "stopped_request", stopped.id)
            return
        months = (visit.start - self.chart.current["depression"].onset).days / 30.4
        score = max(2, round(Physiology.decay(16, 5, months, 3.0) + self.rng.gauss(0, 1.0)))
        self.chart.survey(visit, Report.PHQ9, Obs.PHQ9_TOTAL, score)
        self.chart.note(visit, f"PHQ-9 score today is {score}.")

    def _visit_medication_change(self, planned: Planned) -> None:
        action = planned.payload["action"]
        key = {
            "stop-metformin": "t2dm",
            "restart-metformin": "t2dm",
            "switch-to-atorvastatin": "hyperlipidemia",
        }.get(action, "hypertension")
        visit = self._follow_up_visit(planned, key)
        if visit is None:
            return
        reason = visit.reason_condition
        self._vitals(visit, full=False)
        if action == "stop-metformin":
            value = self.phys.hba1c(self._glycaemic_status(visit.start), floor=6.0)
            self.chart.lab(visit, lab.HBA1C, value)
            stopped = self.chart.stop("metformin", visit.start)
            self.chart.note(visit, "Metformin stopped because of persistent diarrhea and abdominal cramping.")
            if stopped is not None:
                self.chart.mark("medication_stopped_then_restarted", "stopped_request", stopped.id)
        elif action == "restart-metformin":
            value = self.phys.hba1c(self._glycaemic_status(visit.start), floor=7.2)
            self.chart.lab(visit, lab.HBA1C, value)
            restarted = self.chart.prescribe(
                visit, "metformin", Med.METFORMIN, reason=reason, via_reference=True
            )
            self.chart.note(
                visit,
                f"Hemoglobin A1c has risen to {value} % off treatment; metformin extended-release restarted at a low dose.",
            )
            self.chart.mark("medication_stopped_then_restarted", "restarted_request", restarted.id)
            self.chart.mark(
                "medication_stopped_then_restarted", "medication", restarted.medication_resource_id or ""
            )
        elif action == "switch-to-losartan":
            self.chart.stop("lisinopril", visit.start)
            self.chart.prescribe(visit, "losartan", Med.LOSARTAN_50, reason=reason)
            self.chart.note(visit, "Dry cough on lisinopril; switched to losartan.")
        elif action == "add-hydrochlorothiazide":
            self.chart.prescribe(visit, "hctz", Med.HCTZ_25, reason=reason)
            self.chart.note(visit, "Blood pressure above goal; hydrochlorothiazide added.")
        elif action == "add-amlodipine":
            self.chart.prescribe(visit, "amlodipine", Med.AMLODIPINE_2_5, reason=reason)
            self.chart.note(visit, "Blood pressure above goal; amlodipine added.")
        elif action == "switch-to-atorvastatin":
            self.chart.stop("simvastatin", visit.start)
            self.chart.prescribe(visit, "atorvastatin", Med.ATORVASTATIN_40, reason=reason)
            self.chart.note(visit, "LDL above goal on simvastatin; changed to atorvastatin.")

    # --------------------------------------------------------------- acute care

    def _visit_acute(self, planned: Planned) -> None:
        illness = planned.payload["illness"]
        code, complaints, narrative, (low, high) = ACUTE[illness]
        roll = self.rng.random()
        if illness == "acute_bronchitis" and roll < 0.12:
            org, practitioner = self.network.pick(self.rng, "hospital")
            visit = self.chart.new_visit(
                "emergency", "EMER", Enc.EMERGENCY_ROOM, planned.when, 150, org, practitioner, code
            )
        elif roll < 0.4:
            org, practitioner = self.network.pick(self.rng, "urgent")
            visit = self.chart.new_visit(
                "urgent", "AMB", Enc.URGENT_CARE, planned.when, 40, org, practitioner, code
            )
        else:
            visit = self._clinic_visit("symptom", Enc.SYMPTOM, planned.when, 20, reason=code)
        condition = self.chart.diagnose(visit, None, code)
        condition.abatement = visit.start + dt.timedelta(days=self.rng.randint(low, high))
        visit.reason_condition = condition
        visit.chief_complaints = complaints
        self.chart.note(visit, f"Presents with {narrative} for {self.rng.randint(2, 6)} days.")
        febrile = "Fever" in complaints
        self._vitals(visit, febrile=febrile, full=False)
        if illness in ("viral_pharyngitis", "strep_throat"):
            self.chart.procedure(visit, Proc.THROAT_CULTURE, reason=condition, offset=5)
        allergic = self._penicillin_allergic()
        adult = self._age(visit.start) >= 18
        course = None
        if planned.payload.get("force_amoxicillin"):
            course = self.chart.prescribe(
                visit,
                None,
                Med.AMOXICILLIN_500,
                reason=condition,
                days=10,
                frequency=3,
                instruction=Instruction.COMPLETE_COURSE,
            )
            self.chart.mark("penicillin_allergy_with_amoxicillin", "prescription", course.id)
            self.chart.mark("penicillin_allergy_with_amoxicillin", "reason_condition", condition.id)
        elif illness in ("strep_throat", "bacterial_sinusitis", "otitis_media"):
            if allergic:
                if adult:
                    course = self.chart.prescribe(
                        visit, None, Med.DOXYCYCLINE, reason=condition, days=10, frequency=2
                    )
            elif illness == "strep_throat":
                course = self.chart.prescribe(
                    visit, None, Med.PENICILLIN_V_500, reason=condition, days=10, frequency=2
                )
            elif illness == "bacterial_sinusitis":
                course = self.chart.prescribe(
                    visit, None, Med.AMOXICILLIN_CLAVULANATE, reason=condition, days=10, frequency=2
                )
            else:
                med = Med.AMOXICILLIN_500 if adult else Med.AMOXICILLIN_250_CAPSULE
                course = self.chart.prescribe(visit, None, med, reason=condition, days=10, frequency=3)
            if course is not None:
                course.instruction = Instruction.COMPLETE_COURSE
        if illness in ("viral_pharyngitis", "acute_bronchitis") or (
            illness == "viral_sinusitis" and self.rng.random() < 0.4
        ):
            pain = Med.ACETAMINOPHEN_325 if self.rng.random() < 0.6 else Med.IBUPROFEN_200
            self.chart.prescribe(visit, None, pain, reason=condition, days=10, as_needed=True)
        if illness == "acute_bronchitis":
            self.chart.care_plan(
                visit,
                Plan.RESPIRATORY_THERAPY,
                [Plan.AVOID_EXERCISE, Plan.DEEP_BREATHING],
                condition,
                ends=condition.abatement,
            )
        elif course is not None or illness.startswith("viral"):
            self.chart.care_plan(
                visit,
                Plan.INFECTIOUS_DISEASE,
                [Plan.RECOMMENDATION_TO_REST],
                condition,
                ends=condition.abatement,
            )

    def _visit_asthma_emergency(self, planned: Planned) -> None:
        asthma = self.chart.current.get("asthma")
        if asthma is None:
            return
        org, practitioner = self.network.pick(self.rng, "hospital")
        visit = self.chart.new_visit(
            "emergency", "EMER", Enc.EMERGENCY_ASTHMA, planned.when, 180, org, practitioner, asthma
        )
        visit.chief_complaints = ["Shortness of Breath", "Wheezing", "Chest Tightness"]
        self.chart.note(visit, "Acute asthma exacerbation not relieved by the rescue inhaler at home.")
        self._vitals(visit, distressed=True, full=False)
        self.chart.procedure(visit, Proc.RESPIRATORY_FUNCTION, reason=asthma, offset=10)
        given = self.chart.administer(
            visit, Med.ALBUTEROL_NEBULIZED, visit.start + dt.timedelta(minutes=20), asthma
        )
        self.chart.mark("emergency_visit", "emergency_encounter", visit.id)
        self.chart.mark("emergency_visit", "administration", given.id)
        back = visit.start + dt.timedelta(days=self.rng.randint(10, 18))
        self._push(self._at(back.date()), "asthma-follow-up")

    def _visit_asthma_follow_up(self, planned: Planned) -> None:
        visit = self._follow_up_visit(planned, "asthma", Enc.ASTHMA_FOLLOW_UP)
        if visit is None:
            return
        self._vitals(visit, full=False)
        self.chart.note(visit, "Follow-up after emergency treatment for asthma; symptoms controlled.")

    def _visit_inpatient(self, planned: Planned) -> None:
        org, practitioner = self.network.pick(self.rng, "hospital")
        days = self.rng.randint(3, 5)
        visit = self.chart.new_visit(
            "inpatient",
            "IMP",
            Enc.HOSPITAL_ADMISSION,
            planned.when,
            days * 24 * 60,
            org,
            practitioner,
            Cond.PNEUMONIA,
        )
        pneumonia = self.chart.diagnose(visit, None, Cond.PNEUMONIA)
        pneumonia.abatement = visit.start + dt.timedelta(days=self.rng.randint(18, 28))
        visit.reason_condition = pneumonia
        visit.chief_complaints = ["Cough", "Fever", "Shortness of Breath"]
        self.chart.note(
            visit, "Admitted with community-acquired pneumonia on a background of chronic lung disease."
        )
        self._vitals(visit, febrile=True, distressed=True, full=False)
        self.chart.procedure(visit, Proc.INITIAL_ASSESSMENT, offset=5)
        self.chart.procedure(visit, Proc.CHEST_XRAY, reason=pneumonia, offset=40)
        age = self._age(visit.start)
        self.chart.panel(
            visit,
            Report.CBC,
            self.phys.blood_count(anemic=self.chart.has("anemia", visit.start), infection=True),
        )
        self.chart.panel(
            visit,
            Report.BASIC_METABOLIC,
            self.phys.metabolic_panel(age, self._years_since("ckd", visit.start)),
        )
        antibiotic = Med.DOXYCYCLINE if self._penicillin_allergic() else Med.AMOXICILLIN_CLAVULANATE
        course = self.chart.prescribe(
            visit, None, antibiotic, reason=pneumonia, days=10, frequency=2, via_reference=True
        )
        course.instruction = Instruction.COMPLETE_COURSE
        self.chart.administer(visit, Med.ALBUTEROL_NEBULIZED, visit.start + dt.timedelta(hours=2), pneumonia)
        self.chart.procedure(visit, Proc.PATIENT_DISCHARGE, offset=days * 24 * 60 - 30)
        visit.discharged_home = True
        self.chart.mark("deceased_with_active_medication", "inpatient_encounter", visit.id)

    def _visit_vaccination(self, planned: Planned) -> None:
        visit = self._clinic_visit("vaccination", Enc.VACCINATION, planned.when, 15)
        self.chart.immunize(visit, planned.payload["vaccine"])

    def _death_visit(self) -> None:
        when = self.person.deceased_at
        assert when is not None
        visit = self._clinic_visit("death", Enc.DEATH_CERTIFICATION, when, 15)
        cause = self.chart.current.get("copd")
        cause_code = cause.code if cause is not None else Cond.MYOCARDIAL_INFARCTION
        obs = self.chart.concept_obs(visit, Obs.CAUSE_OF_DEATH, "laboratory", cause_code, at=when)
        self.chart.report(visit, Report.DEATH_CERTIFICATE, [obs], at=when)
        still_active = [m for m in self.chart.meds if m.status(self.now, when) == "active"]
        if still_active:
            self.chart.mark("deceased_with_active_medication", "active_request", still_active[0].id)

    # --------------------------------------------------------------- entered in error

    def _entered_in_error(self, visit: Visit) -> None:
        wrong = self.chart.diagnose(visit, None, Cond.T2DM)
        wrong.entered_in_error = True
        course = self.chart.prescribe(visit, None, Med.METFORMIN, reason=wrong)
        course.entered_in_error = True
        correct = next((o for o in visit.observations if o.code is Obs.HBA1C), None)
        if correct is None:
            correct = self.chart.lab(visit, lab.HBA1C, self.phys.hba1c("prediabetes", floor=5.7, ceiling=6.4))
        typo = self.chart.lab(visit, lab.HBA1C, 13.9, at=visit.start + dt.timedelta(minutes=1))
        typo.entered_in_error = True
        for role, rid in (
            ("condition", wrong.id),
            ("prescription", course.id),
            ("observation", typo.id),
            ("corrected_observation", correct.id),
        ):
            self.chart.mark("entered_in_error_rows", role, rid)

    # --------------------------------------------------------------- after the run

    def _record_marks_after_run(self) -> None:
        if "lab_crosses_reference_range" not in self.cases:
            return
        a1c = sorted(
            (
                o
                for v in self.chart.visits
                for o in v.observations
                if o.code is Obs.HBA1C and not o.entered_in_error
            ),
            key=lambda o: o.effective,
        )
        first_high = next((o for o in a1c if o.quantity and o.quantity.value >= 6.5), None)
        if first_high is None:
            return
        normal = [
            o for o in a1c if o.effective < first_high.effective and o.quantity and o.quantity.value <= 5.6
        ]
        if normal:
            last_normal = normal[-1]
            self.chart.mark("lab_crosses_reference_range", "normal_observation", last_normal.id)
            following = a1c[a1c.index(last_normal) + 1]
            self.chart.mark("lab_crosses_reference_range", "first_above_range", following.id)
        self.chart.mark("lab_crosses_reference_range", "high_observation", first_high.id)


# Explicit dispatch tables (no method names built from strings): a planned visit's kind → the
# method that records it; a planned diagnosis → the method that makes it. A kind or key
# without an entry is a KeyError at the first patient that plans it, not a silent skip.
VISITS: dict[str, Callable[[PatientSimulator, Planned], None]] = {
    "wellness": PatientSimulator._visit_wellness,
    "diabetes-follow-up": PatientSimulator._visit_diabetes_follow_up,
    "hypertension-follow-up": PatientSimulator._visit_hypertension_follow_up,
    "depression-follow-up": PatientSimulator._visit_depression_follow_up,
    "medication-change": PatientSimulator._visit_medication_change,
    "acute": PatientSimulator._visit_acute,
    "asthma-emergency": PatientSimulator._visit_asthma_emergency,
    "asthma-follow-up": PatientSimulator._visit_asthma_follow_up,
    "inpatient": PatientSimulator._visit_inpatient,
    "vaccination": PatientSimulator._visit_vaccination,
}
DIAGNOSES: dict[str, Callable[[PatientSimulator, Visit], None]] = {
    "obesity": PatientSimulator._dx_obesity,
    "prediabetes": PatientSimulator._dx_prediabetes,
    "t2dm": PatientSimulator._dx_t2dm,
    "hypertension": PatientSimulator._dx_hypertension,
    "hyperlipidemia": PatientSimulator._dx_hyperlipidemia,
    "ckd": PatientSimulator._dx_ckd,
    "asthma": PatientSimulator._dx_asthma,
    "copd": PatientSimulator._dx_copd,
    "depression": PatientSimulator._dx_depression,
    "anemia": PatientSimulator._dx_anemia,
}
