"""Lab tests: LOINC code, UCUM unit (as Synthea writes it) and adult reference range.

Real Synthea output carries no `referenceRange`; the generated labs do (conventional adult
ranges, sex-specific where they differ), so that "is this value out of range?" has a grounded
answer in the demo and a value can be made to cross a range on purpose. Tools must still cope
with the real files, where ranges are absent.
"""

from __future__ import annotations

from dataclasses import dataclass

from synthea_data.codes import Code, Obs, Report


@dataclass(frozen=True)
class LabDef:
    code: Code
    unit: str
    decimals: int
    low: float | None = None
    high: float | None = None
    low_female: float | None = None
    high_female: float | None = None

    def reference_range(self, female: bool) -> tuple[float | None, float | None] | None:
        low, high = self.low, self.high
        if female and self.low_female is not None:
            low = self.low_female
        if female and self.high_female is not None:
            high = self.high_female
        if low is None and high is None:
            return None
        return low, high


HBA1C = LabDef(Obs.HBA1C, "%", 1, 4.0, 5.6)
GLUCOSE = LabDef(Obs.GLUCOSE, "mg/dL", 1, 70, 99)
UREA_NITROGEN = LabDef(Obs.UREA_NITROGEN, "mg/dL", 1, 7, 20)
CREATININE = LabDef(Obs.CREATININE, "mg/dL", 2, 0.74, 1.35, 0.59, 1.04)
CALCIUM = LabDef(Obs.CALCIUM, "mg/dL", 1, 8.5, 10.2)
SODIUM = LabDef(Obs.SODIUM, "mmol/L", 1, 136, 145)
POTASSIUM = LabDef(Obs.POTASSIUM, "mmol/L", 1, 3.5, 5.1)
CHLORIDE = LabDef(Obs.CHLORIDE, "mmol/L", 1, 98, 107)
CO2 = LabDef(Obs.CO2, "mmol/L", 1, 22, 29)
EGFR = LabDef(Obs.EGFR, "mL/min/{1.73_m2}", 1, 60, None)
MICROALBUMIN = LabDef(Obs.MICROALBUMIN_CREATININE, "mg/g", 1, None, 30)

TOTAL_CHOLESTEROL = LabDef(Obs.TOTAL_CHOLESTEROL, "mg/dL", 1, None, 200)
TRIGLYCERIDES = LabDef(Obs.TRIGLYCERIDES, "mg/dL", 1, None, 150)
LDL = LabDef(Obs.LDL, "mg/dL", 1, None, 100)
HDL = LabDef(Obs.HDL, "mg/dL", 1, 40, None)

WBC = LabDef(Obs.WBC, "10*3/uL", 1, 4.5, 11.0)
RBC = LabDef(Obs.RBC, "10*6/uL", 2, 4.5, 5.9, 4.1, 5.1)
HEMOGLOBIN = LabDef(Obs.HEMOGLOBIN, "g/dL", 1, 13.5, 17.5, 12.0, 15.5)
HEMATOCRIT = LabDef(Obs.HEMATOCRIT, "%", 1, 41, 53, 36, 46)
MCV = LabDef(Obs.MCV, "fL", 1, 80, 100)
MCH = LabDef(Obs.MCH, "pg", 1, 27, 33)
MCHC = LabDef(Obs.MCHC, "g/dL", 1, 32, 36)
RDW = LabDef(Obs.RDW, "fL", 1, 39, 46)
PLATELETS = LabDef(Obs.PLATELETS, "10*3/uL", 1, 150, 450)
PDW = LabDef(Obs.PDW, "fL", 1)
MPV = LabDef(Obs.MPV, "fL", 1, 7.4, 10.4)

BASIC_METABOLIC_PANEL = (
    Report.BASIC_METABOLIC,
    (GLUCOSE, UREA_NITROGEN, CREATININE, CALCIUM, SODIUM, POTASSIUM, CHLORIDE, CO2, EGFR),
)
LIPID_PANEL = (Report.LIPID_PANEL, (TOTAL_CHOLESTEROL, TRIGLYCERIDES, LDL, HDL))
CBC_PANEL = (Report.CBC, (WBC, RBC, HEMOGLOBIN, HEMATOCRIT, MCV, MCH, MCHC, RDW, PLATELETS, PDW, MPV))
