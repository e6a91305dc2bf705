"""A patient's measurable state over time: labs and vitals that move with their conditions.

Values are not drawn independently per visit: HbA1c drifts toward a target set by the
patient's glycaemic status and treatment, eGFR declines once CKD sets in (and creatinine is
derived from it with the MDRD formula, so the two always agree), LDL falls once a statin
starts, blood pressure drops under treatment. That is what makes "HbA1c trend since 2020" or
"did the statin work?" answerable from the generated data.
"""

from __future__ import annotations

import math
import random

from synthea_data import lab_catalog as lab
from synthea_data.lab_catalog import LabDef

# glycaemic status -> HbA1c target (%)
A1C_TARGETS = {
    "normal": 5.25,
    "prediabetes": 6.0,
    "diabetes-untreated": 8.4,
    "diabetes-treated": 6.9,
}


class Physiology:
    def __init__(self, rng: random.Random, *, female: bool, black: bool, obese: bool) -> None:
        self.rng = rng
        self.female = female
        self.black = black
        self.adult_height = rng.gauss(162.5, 6.5) if female else rng.gauss(176.5, 7.0)
        self.bmi = rng.uniform(30.5, 37.5) if obese else rng.uniform(20.5, 29.2)
        self.a1c = rng.uniform(4.9, 5.4)
        self.total_cholesterol = rng.uniform(160, 196)
        self.high_cholesterol = rng.uniform(238, 278)
        self.hdl = rng.uniform(38, 68) if not female else rng.uniform(45, 75)
        self.triglycerides = rng.uniform(80, 150)
        self.egfr_healthy = rng.uniform(88, 112)
        self.ckd_egfr_at_onset = rng.uniform(47, 56)
        self.hemoglobin = rng.uniform(12.8, 14.6) if female else rng.uniform(14.0, 16.4)
        self.anemic_hemoglobin = rng.uniform(9.4, 10.9)
        self.systolic = rng.uniform(110, 126)
        self.diastolic = rng.uniform(70, 80)
        self.heart_rate = rng.uniform(62, 84)
        self.platelets = rng.uniform(190, 360)
        self.wbc = rng.uniform(5.0, 8.5)

    # ------------------------------------------------------------------ helpers

    def _noise(self, sd: float) -> float:
        return self.rng.gauss(0, sd)

    @staticmethod
    def round(defn: LabDef, value: float) -> float:
        return round(value, defn.decimals)

    # ------------------------------------------------------------------ glycaemia

    def hba1c(self, status: str, *, floor: float | None = None, ceiling: float | None = None) -> float:
        """Next HbA1c: moves most of the way toward the status target, with measurement noise."""
        target = A1C_TARGETS[status]
        self.a1c += (target - self.a1c) * 0.65 + self._noise(0.12)
        if floor is not None:
            self.a1c = max(self.a1c, floor)
        if ceiling is not None:
            self.a1c = min(self.a1c, ceiling)
        self.a1c = min(max(self.a1c, 4.3), 13.5)
        return self.round(lab.HBA1C, self.a1c)

    def set_hba1c(self, value: float) -> float:
        self.a1c = value
        return self.round(lab.HBA1C, value)

    def fasting_glucose(self) -> float:
        """Fasting glucose consistent with the current HbA1c (roughly 18 mg/dL per HbA1c point)."""
        return self.round(lab.GLUCOSE, max(62.0, 18.0 * self.a1c - 5.0 + self._noise(5.0)))

    # ------------------------------------------------------------------ lipids

    def lipid_panel(
        self, *, hyperlipidemia: bool, statin_effect: float, diabetic: bool
    ) -> dict[LabDef, float]:
        base = self.high_cholesterol if hyperlipidemia else self.total_cholesterol
        total = base * (1.0 - statin_effect) + self._noise(6.0)
        hdl = self.hdl + self._noise(2.5)
        tg = self.triglycerides * (1.25 if diabetic else 1.0) + self._noise(12.0)
        ldl = max(total - hdl - tg / 5.0, 35.0)  # Friedewald
        return {
            lab.TOTAL_CHOLESTEROL: self.round(lab.TOTAL_CHOLESTEROL, total),
            lab.TRIGLYCERIDES: self.round(lab.TRIGLYCERIDES, tg),
            lab.LDL: self.round(lab.LDL, ldl),
            lab.HDL: self.round(lab.HDL, hdl),
        }

    # ------------------------------------------------------------------ kidneys

    def egfr(self, age: int, ckd_years: float | None) -> float:
        if ckd_years is None:
            value = self.egfr_healthy - 0.7 * max(age - 40, 0)
            value = max(value, 62.0)
        else:
            value = self.ckd_egfr_at_onset - 1.8 * ckd_years
            value = max(value, 31.0)
        return value + self._noise(1.5)

    def creatinine_from_egfr(self, egfr: float, age: int) -> float:
        """Inverse of the 4-variable MDRD equation: the creatinine that gives this eGFR."""
        factor = 175.0 * max(age, 18) ** -0.203
        if self.female:
            factor *= 0.742
        if self.black:
            factor *= 1.212
        return (egfr / factor) ** (-1.0 / 1.154)

    def metabolic_panel(self, age: int, ckd_years: float | None) -> dict[LabDef, float]:
        egfr = self.egfr(age, ckd_years)
        creatinine = self.creatinine_from_egfr(egfr, age)
        bun = 11.0 + (60.0 - min(egfr, 60.0)) * 0.35 + self._noise(2.0)
        return {
            lab.GLUCOSE: self.fasting_glucose(),
            lab.UREA_NITROGEN: self.round(lab.UREA_NITROGEN, bun),
            lab.CREATININE: self.round(lab.CREATININE, creatinine),
            lab.CALCIUM: self.round(lab.CALCIUM, 9.4 + self._noise(0.3)),
            lab.SODIUM: self.round(lab.SODIUM, 140.0 + self._noise(1.6)),
            lab.POTASSIUM: self.round(lab.POTASSIUM, 4.3 + self._noise(0.25)),
            lab.CHLORIDE: self.round(lab.CHLORIDE, 103.0 + self._noise(1.5)),
            lab.CO2: self.round(lab.CO2, 25.5 + self._noise(1.2)),
            lab.EGFR: self.round(lab.EGFR, egfr),
        }

    def microalbumin(self, diabetic_years: float) -> float:
        return self.round(lab.MICROALBUMIN, 8.0 + 3.5 * diabetic_years + abs(self._noise(4.0)))

    # ------------------------------------------------------------------ blood count

    def blood_count(self, *, anemic: bool, infection: bool) -> dict[LabDef, float]:
        hb = (self.anemic_hemoglobin if anemic else self.hemoglobin) + self._noise(0.25)
        mcv = (76.0 if anemic else 89.0) + self._noise(2.0)
        hct = hb * 2.95 + self._noise(0.6)
        rbc = hct / mcv * 10.0
        mch = hb / rbc * 10.0
        return {
            lab.WBC: self.round(lab.WBC, (self.wbc * (1.6 if infection else 1.0)) + self._noise(0.4)),
            lab.RBC: self.round(lab.RBC, rbc),
            lab.HEMOGLOBIN: self.round(lab.HEMOGLOBIN, hb),
            lab.HEMATOCRIT: self.round(lab.HEMATOCRIT, hct),
            lab.MCV: self.round(lab.MCV, mcv),
            lab.MCH: self.round(lab.MCH, mch),
            lab.MCHC: self.round(lab.MCHC, hb / hct * 100.0),
            lab.RDW: self.round(lab.RDW, (47.5 if anemic else 42.0) + self._noise(1.2)),
            lab.PLATELETS: self.round(lab.PLATELETS, self.platelets + self._noise(15.0)),
            lab.PDW: self.round(lab.PDW, 12.5 + self._noise(1.2)),
            lab.MPV: self.round(lab.MPV, 9.4 + self._noise(0.5)),
        }

    # ------------------------------------------------------------------ vitals

    def blood_pressure(self, status: str, age: int = 40) -> tuple[int, int]:
        """status: normal | hypertension-untreated | hypertension-treated. Children run lower."""
        if age < 13:
            return round(97 + 1.2 * age + self._noise(4.0)), round(58 + 0.6 * age + self._noise(3.0))
        if status == "hypertension-untreated":
            systolic, diastolic = 146 + abs(self._noise(7.0)), 91 + abs(self._noise(3.0))
        elif status == "hypertension-treated":
            systolic, diastolic = 129 + self._noise(4.0), 81 + self._noise(2.5)
        else:
            systolic, diastolic = self.systolic + self._noise(4.0), self.diastolic + self._noise(3.0)
            systolic, diastolic = min(systolic, 134), min(diastolic, 86)
        return round(systolic), round(diastolic)

    def height(self, age: int) -> float:
        if age >= 18:
            return round(self.adult_height, 1)
        growth = 52.0 + 6.4 * age if age < 12 else self.adult_height - (18 - age) * 2.5
        return round(min(growth, self.adult_height), 1)

    def bmi_at(self, age: int, years_in_record: float) -> float:
        if age < 18:
            return 15.5 + 0.25 * age + self._noise(0.4)
        return self.bmi + 0.12 * years_in_record + self._noise(0.35)

    def weight_and_bmi(self, age: int, years_in_record: float) -> tuple[float, float]:
        height_m = self.height(age) / 100.0
        bmi = self.bmi_at(age, years_in_record)
        weight = round(bmi * height_m * height_m, 1)
        return weight, round(weight / (height_m * height_m), 2)

    def pulse(self, *, febrile: bool, age: int = 40) -> int:
        child = max(0, 12 - age) * 2.5
        return round(self.heart_rate + child + (14 if febrile else 0) + self._noise(4.0))

    def respiratory_rate(self, *, distressed: bool) -> int:
        return round((22 if distressed else 14) + self._noise(1.5))

    def temperature(self, *, febrile: bool) -> float:
        return round((38.4 if febrile else 36.9) + self._noise(0.3), 1)

    @staticmethod
    def years(days: float) -> float:
        return days / 365.25

    @staticmethod
    def decay(start: float, target: float, months: float, half_life_months: float = 3.0) -> float:
        return target + (start - target) * math.exp(-months / half_life_months)
