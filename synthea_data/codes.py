"""Every clinical code the generator may emit, in one table.

Why one table: the generated records must carry *real* codes from the systems they claim, and a
test walks every generated resource and checks each SNOMED CT / RxNorm / LOINC / CVX / CDC race
coding against this table (code present, right system, same display). Adding a code anywhere
else fails that test.

Where each code comes from (the `source` field):

* ``sample`` — seen, with this system, in the real Synthea bundles in ``../shared/synthea-samples``
  (a test re-checks this whenever that folder is present).
* ``synthea`` — seen in published code/frequency tables of real Synthea runs (e.g. sertraline,
  losartan, the COPD codes), or in Synthea's own modules; not in the small sample set.
* ``standard`` — a standard code of the named terminology that Synthea also uses but that the
  sample set happens not to contain (e.g. latex allergy, eGFR reference units).

Displays follow what Synthea writes (including its capitalisation quirks), because the ingestion
and the agent should meet the same strings in generated and real data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
LOINC = "http://loinc.org"
CVX = "http://hl7.org/fhir/sid/cvx"
CDC_RACE = "urn:oid:2.16.840.1.113883.6.238"

#: Systems whose codings the code-table test checks exhaustively.
CHECKED_SYSTEMS = (SNOMED, RXNORM, LOINC, CVX, CDC_RACE)

Source = Literal["sample", "synthea", "standard"]


@dataclass(frozen=True)
class Code:
    system: str
    code: str
    display: str
    source: Source = "sample"

    def coding(self) -> dict:
        return {"system": self.system, "code": self.code, "display": self.display}

    def concept(self) -> dict:
        """A CodeableConcept the way Synthea writes it: one coding plus `text`."""
        return {"coding": [self.coding()], "text": self.display}

    @cached_property
    def lower(self) -> str:
        """The display as Synthea's note templates print it."""
        return self.display.lower()


TABLE: dict[tuple[str, str], Code] = {}


def _code(system: str, code: str, display: str, source: Source = "sample") -> Code:
    entry = Code(system, code, display, source)
    key = (system, code)
    if key in TABLE and TABLE[key] != entry:
        raise ValueError(f"code {system}|{code} defined twice with different displays")
    TABLE[key] = entry
    return entry


def sct(code: str, display: str, source: Source = "sample") -> Code:
    return _code(SNOMED, code, display, source)


def rx(code: str, display: str, source: Source = "sample") -> Code:
    return _code(RXNORM, code, display, source)


def loinc(code: str, display: str, source: Source = "sample") -> Code:
    return _code(LOINC, code, display, source)


def cvx(code: str, display: str, source: Source = "sample") -> Code:
    return _code(CVX, code, display, source)


def lookup(system: str, code: str) -> Code | None:
    return TABLE.get((system, code))


# ---------------------------------------------------------------------------------------------
# Conditions (SNOMED CT)
# ---------------------------------------------------------------------------------------------


class Cond:
    T2DM = sct("44054006", "Diabetes mellitus type 2 (disorder)")
    PREDIABETES = sct("714628002", "Prediabetes (finding)")
    HYPERTENSION = sct("59621000", "Essential hypertension (disorder)")
    HYPERLIPIDEMIA = sct("55822004", "Hyperlipidemia (disorder)")
    ASTHMA = sct("195967001", "Asthma (disorder)")
    COPD_BRONCHITIS = sct("185086009", "Chronic obstructive bronchitis (disorder)", "synthea")
    EMPHYSEMA = sct("87433001", "Pulmonary emphysema (disorder)", "synthea")
    CKD1 = sct("431855005", "Chronic kidney disease stage 1 (disorder)")
    CKD2 = sct("431856006", "Chronic kidney disease stage 2 (disorder)")
    CKD3 = sct("433144002", "Chronic kidney disease stage 3 (disorder)")
    DIABETIC_KIDNEY = sct("127013003", "Disorder of kidney due to diabetes mellitus (disorder)")
    OBESITY = sct("162864005", "Body mass index 30+ - obesity (finding)")
    DEPRESSION = sct("370143000", "Major depressive disorder (disorder)", "synthea")
    ANEMIA = sct("271737000", "Anemia (disorder)")
    HYPERTRIGLYCERIDEMIA = sct("302870006", "Hypertriglyceridemia (disorder)")
    # acute
    VIRAL_PHARYNGITIS = sct("195662009", "Acute viral pharyngitis (disorder)")
    STREP_THROAT = sct("43878008", "Streptococcal sore throat (disorder)")
    VIRAL_SINUSITIS = sct("444814009", "Viral sinusitis (disorder)")
    BACTERIAL_SINUSITIS = sct("75498004", "Acute bacterial sinusitis (disorder)")
    ACUTE_BRONCHITIS = sct("10509002", "Acute bronchitis (disorder)")
    OTITIS_MEDIA = sct("65363002", "Otitis media (disorder)")
    PNEUMONIA = sct("233604007", "Pneumonia (disorder)", "synthea")
    MYOCARDIAL_INFARCTION = sct("22298006", "Myocardial infarction (disorder)")
    # situations and social findings Synthea records as conditions
    MEDICATION_REVIEW_DUE = sct("314529007", "Medication review due (situation)")
    STRESS = sct("73595000", "Stress (finding)")
    FULL_TIME_EMPLOYMENT = sct("160903007", "Full-time employment (finding)")
    PART_TIME_EMPLOYMENT = sct("160904001", "Part-time employment (finding)")
    SOCIAL_ISOLATION = sct("422650009", "Social isolation (finding)")


# ---------------------------------------------------------------------------------------------
# Encounter types, procedures, care plans, care team roles (SNOMED CT)
# ---------------------------------------------------------------------------------------------


class Enc:
    GENERAL_EXAM = sct("162673000", "General examination of patient (procedure)")
    CHECK_UP = sct("185349003", "Encounter for check up (procedure)")
    WELL_CHILD = sct("410620009", "Well child visit (procedure)")
    FOLLOW_UP = sct("390906007", "Follow-up encounter (procedure)")
    PROBLEM = sct("185347001", "Encounter for problem (procedure)")
    SYMPTOM = sct("185345009", "Encounter for symptom (procedure)")
    URGENT_CARE = sct("702927004", "Urgent care clinic (environment)")
    EMERGENCY_ROOM = sct("50849002", "Emergency room admission (procedure)")
    EMERGENCY_ASTHMA = sct("183478001", "Emergency hospital admission for asthma (procedure)")
    HOSPITAL_ADMISSION = sct("32485007", "Hospital admission (procedure)")
    ASTHMA_FOLLOW_UP = sct("394701000", "Asthma follow-up (regime/therapy)")
    VACCINATION = sct("33879002", "Administration of vaccine to produce active immunity (procedure)")
    DEATH_CERTIFICATION = sct("308646001", "Death Certification")


class Proc:
    MEDICATION_RECONCILIATION = sct("430193006", "Medication reconciliation (procedure)")
    HEALTH_SOCIAL_NEEDS = sct("710824005", "Assessment of health and social care needs (procedure)")
    DEPRESSION_SCREENING = sct("171207006", "Depression screening (procedure)")
    PHQ2_SCREENING = sct(
        "454711000124102",
        "Depression screening using Patient Health Questionnaire Two-Item score (procedure)",
    )
    PHQ9_SCREENING = sct(
        "715252007",
        "Depression screening using Patient Health Questionnaire Nine Item score (procedure)",
    )
    ANXIETY_ASSESSMENT = sct("710841007", "Assessment of anxiety (procedure)")
    THROAT_CULTURE = sct("117015009", "Throat culture (procedure)")
    RESPIRATORY_FUNCTION = sct("23426006", "Measurement of respiratory function (procedure)")
    CHEST_XRAY = sct("399208008", "Plain chest X-ray (procedure)")
    PATIENT_DISCHARGE = sct("58000006", "Patient discharge (procedure)")
    INITIAL_ASSESSMENT = sct("315639002", "Initial patient assessment (procedure)")
    DIABETIC_EYE_EXAM = sct("722161008", "Diabetic retinal eye exam (procedure)")


class Plan:
    DIABETES = sct("735985000", "Diabetes self management plan (record artifact)")
    DIABETIC_DIET = sct("160670007", "Diabetic diet (finding)")
    EXERCISE_THERAPY = sct("229065009", "Exercise therapy (regime/therapy)")
    HYPERTENSION = sct("443402002", "Lifestyle education regarding hypertension (procedure)")
    EXERCISE_EDUCATION = sct("386463000", "Prescribed activity/exercise education (procedure)")
    ALCOHOL_COUNSELING = sct("413473000", "Counseling about alcohol consumption (procedure)")
    DASH_DIET = sct("1151000175103", "Dietary Approaches to Stop Hypertension diet (regime/therapy)")
    SMOKING_CESSATION_EDUCATION = sct("225323000", "Smoking cessation education (procedure)")
    HYPERLIPIDEMIA = sct("736285004", "Hyperlipidemia clinical management plan (record artifact)")
    LOW_SALT_DIET_EDUCATION = sct("183063000", "Low salt diet education (procedure)")
    PHYSICAL_EXERCISES = sct("183301007", "Physical exercises (regime/therapy)")
    ASTHMA = sct("699728000", "Asthma self management (regime/therapy)")
    INHALED_STEROID_THERAPY = sct("710818004", "Inhaled steroid therapy (procedure)")
    HOME_NEBULIZER_THERAPY = sct("708409001", "Home nebulizer therapy (procedure)")
    COPD = sct(
        "736283006",
        "Chronic obstructive pulmonary disease clinical management plan (record artifact)",
        "synthea",
    )
    BREATHING_CONTROL = sct("229298005", "Breathing control (regime/therapy)")
    RESPIRATORY_THERAPY = sct("53950000", "Respiratory therapy (procedure)")
    AVOID_EXERCISE = sct("304510005", "Recommendation to avoid exercise (procedure)")
    DEEP_BREATHING = sct("371605008", "Deep breathing and coughing exercises (regime/therapy)")
    MENTAL_HEALTH = sct("718347000", "Mental health care plan (record artifact)", "synthea")
    CBT = sct("228557008", "Cognitive and behavioral therapy (regime/therapy)")
    WEIGHT_MANAGEMENT = sct("718361005", "Weight management program (regime/therapy)")
    DIET_EDUCATION = sct("11816003", "Diet education (procedure)")
    INFECTIOUS_DISEASE = sct("736376001", "Infectious disease care plan (record artifact)", "synthea")
    RECOMMENDATION_TO_REST = sct("183051005", "Recommendation to rest (procedure)")


class Instruction:
    COMPLETE_COURSE = sct(
        "418577003", "Take at regular intervals. Complete the prescribed course unless otherwise directed."
    )


class Supply:
    HOME_NEBULIZER = sct("170615005", "Home nebulizer (physical object)")
    GLUCOSE_METER = sct("337414009", "Blood glucose meter (physical object)")
    GLUCOSE_STRIPS = sct("337388004", "Blood glucose testing strips (physical object)")
    BLOOD_LANCET = sct("1137596000", "Blood lancet (physical object)")


class Role:
    PATIENT = sct("116154003", "Patient")
    HEALTHCARE_PROFESSIONAL = sct("223366009", "Healthcare professional (occupation)")
    HEALTHCARE_SERVICES = sct("224891009", "Healthcare services (qualifier value)")


# ---------------------------------------------------------------------------------------------
# Allergies: substances (SNOMED CT / RxNorm) and reactions (SNOMED CT)
# ---------------------------------------------------------------------------------------------


class Allergen:
    PENICILLIN = rx("7984", "Penicillin V")
    ASPIRIN = rx("1191", "Aspirin")
    CEFDINIR = rx("25037", "cefdinir")
    PEANUT = sct("762952008", "Peanut (substance)")
    SHELLFISH = sct("735029006", "Shellfish (substance)")
    TREE_NUT = sct("442571000124108", "Tree nut (substance)")
    LATEX = sct("111088007", "Latex (substance)", "standard")
    HOUSE_DUST_MITE = sct("260147004", "House dust mite (organism)")
    GRASS_POLLEN = sct("256277009", "Grass pollen (substance)")
    TREE_POLLEN = sct("782576004", "Tree pollen (substance)")
    ANIMAL_DANDER = sct("264287008", "Animal dander (substance)")
    MOLD = sct("84489001", "Mold (organism)")


class Reaction:
    SKIN_ERUPTION = sct("271807003", "Eruption of skin (disorder)")
    WHEAL = sct("247472004", "Wheal (finding)")
    ANAPHYLAXIS = sct("39579001", "Anaphylaxis (disorder)")
    ANGIOEDEMA = sct("402387002", "Allergic angioedema (disorder)")
    ITCHING = sct("418290006", "Itching (finding)")
    RHINOCONJUNCTIVITIS = sct("878820003", "Rhinoconjunctivitis (disorder)")
    COUGH = sct("49727002", "Cough (finding)")
    DYSPNEA = sct("267036007", "Dyspnea (finding)")
    NAUSEA = sct("422587007", "Nausea (finding)")
    SNEEZING = sct("76067001", "Sneezing (finding)")


# ---------------------------------------------------------------------------------------------
# Medications (RxNorm)
# ---------------------------------------------------------------------------------------------


class Med:
    METFORMIN = rx("860975", "24 HR Metformin hydrochloride 500 MG Extended Release Oral Tablet")
    INSULIN_70_30 = rx(
        "106892",
        "insulin isophane, human 70 UNT/ML / insulin, regular, human 30 UNT/ML Injectable Suspension [Humulin]",
    )
    LISINOPRIL_10 = rx("314076", "lisinopril 10 MG Oral Tablet")
    LISINOPRIL_20 = rx("314077", "lisinopril 20 MG Oral Tablet", "synthea")
    LOSARTAN_50 = rx("979492", "losartan potassium 50 MG Oral Tablet", "synthea")
    HCTZ_25 = rx("310798", "Hydrochlorothiazide 25 MG Oral Tablet")
    AMLODIPINE_5 = rx("197361", "Amlodipine 5 MG Oral Tablet")
    AMLODIPINE_2_5 = rx("308136", "amLODIPine 2.5 MG Oral Tablet")  # Synthea keeps RxNorm's tall-man letters
    SIMVASTATIN_20 = rx("312961", "Simvastatin 20 MG Oral Tablet")
    ATORVASTATIN_40 = rx("617311", "atorvastatin 40 MG Oral Tablet")
    ALBUTEROL_INHALER = rx(
        "859088", "NDA020983 200 ACTUAT albuterol 0.09 MG/ACTUAT Metered Dose Inhaler [Ventolin]"
    )
    ALBUTEROL_NEBULIZED = rx("245314", "albuterol 5 MG/ML Inhalation Solution", "synthea")
    FLUTICASONE_INHALER = rx(
        "895996",
        "120 ACTUAT fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler [Flovent]",
        "synthea",
    )
    FLUTICASONE_SALMETEROL = rx(
        "896209",
        "60 ACTUAT Fluticasone propionate 0.25 MG/ACTUAT / salmeterol 0.05 MG/ACTUAT Dry Powder Inhaler",
        "synthea",
    )
    BUDESONIDE_NEBULIZED = rx("616830", "budesonide 0.125 MG/ML Inhalation Suspension [Pulmicort]")
    SERTRALINE_100 = rx("312938", "Sertraline 100 MG Oral Tablet", "synthea")
    AMOXICILLIN_500 = rx("308192", "Amoxicillin 500 MG Oral Tablet")
    AMOXICILLIN_250_CAPSULE = rx("308182", "Amoxicillin 250 MG Oral Capsule", "synthea")
    AMOXICILLIN_CLAVULANATE = rx("562251", "Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet")
    PENICILLIN_V_500 = rx("834102", "Penicillin V Potassium 500 MG Oral Tablet")
    DOXYCYCLINE = rx("1649987", "doxycycline hyclate 100 MG")
    ACETAMINOPHEN_325 = rx("313782", "Acetaminophen 325 MG Oral Tablet")
    IBUPROFEN_200 = rx("310965", "Ibuprofen 200 MG Oral Tablet", "synthea")
    NAPROXEN_220 = rx("849574", "Naproxen sodium 220 MG Oral Tablet")
    EPINEPHRINE_AUTOINJECTOR = rx("1870230", "NDA020800 0.3 ML Epinephrine 1 MG/ML Auto-Injector")
    LORATADINE_5 = rx("665078", "Loratadine 5 MG Chewable Tablet")
    ASPIRIN_81 = rx("243670", "aspirin 81 MG Oral Tablet")
    FERROUS_SULFATE = rx("310325", "ferrous sulfate 325 MG Oral Tablet", "synthea")


# ---------------------------------------------------------------------------------------------
# Observations and reports (LOINC); values coded in SNOMED CT
# ---------------------------------------------------------------------------------------------


class Obs:
    HEIGHT = loinc("8302-2", "Body Height")
    WEIGHT = loinc("29463-7", "Body Weight")
    BMI = loinc("39156-5", "Body mass index (BMI) [Ratio]")
    BP_PANEL = loinc("85354-9", "Blood pressure panel with all children optional")
    SYSTOLIC = loinc("8480-6", "Systolic Blood Pressure")
    DIASTOLIC = loinc("8462-4", "Diastolic Blood Pressure")
    HEART_RATE = loinc("8867-4", "Heart rate")
    RESPIRATORY_RATE = loinc("9279-1", "Respiratory rate")
    TEMPERATURE = loinc("8310-5", "Body temperature")
    PAIN = loinc("72514-3", "Pain severity - 0-10 verbal numeric rating [Score] - Reported")
    SMOKING = loinc("72166-2", "Tobacco smoking status")
    # chemistry
    HBA1C = loinc("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood")
    GLUCOSE = loinc("2339-0", "Glucose [Mass/volume] in Blood")
    UREA_NITROGEN = loinc("6299-2", "Urea nitrogen [Mass/volume] in Blood")
    CREATININE = loinc("38483-4", "Creatinine [Mass/volume] in Blood")
    CALCIUM = loinc("49765-1", "Calcium [Mass/volume] in Blood")
    SODIUM = loinc("2947-0", "Sodium [Moles/volume] in Blood")
    POTASSIUM = loinc("6298-4", "Potassium [Moles/volume] in Blood")
    CHLORIDE = loinc("2069-3", "Chloride [Moles/volume] in Blood")
    CO2 = loinc("20565-8", "Carbon dioxide, total [Moles/volume] in Blood")
    EGFR = loinc(
        "33914-3",
        "Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum or Plasma by "
        "Creatinine-based formula (MDRD)",
    )
    MICROALBUMIN_CREATININE = loinc("14959-1", "Microalbumin/Creatinine [Mass Ratio] in Urine")
    # lipids
    TOTAL_CHOLESTEROL = loinc("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma")
    TRIGLYCERIDES = loinc("2571-8", "Triglycerides")
    LDL = loinc("18262-6", "Low Density Lipoprotein Cholesterol")
    HDL = loinc("2085-9", "Cholesterol in HDL [Mass/volume] in Serum or Plasma")
    # hematology
    WBC = loinc("6690-2", "Leukocytes [#/volume] in Blood by Automated count")
    RBC = loinc("789-8", "Erythrocytes [#/volume] in Blood by Automated count")
    HEMOGLOBIN = loinc("718-7", "Hemoglobin [Mass/volume] in Blood")
    HEMATOCRIT = loinc("4544-3", "Hematocrit [Volume Fraction] of Blood by Automated count")
    MCV = loinc("787-2", "MCV [Entitic volume] by Automated count")
    MCH = loinc("785-6", "MCH [Entitic mass] by Automated count")
    MCHC = loinc("786-4", "MCHC [Mass/volume] by Automated count")
    RDW = loinc("21000-5", "Erythrocyte distribution width [Entitic volume] by Automated count")
    PLATELETS = loinc("777-3", "Platelets [#/volume] in Blood by Automated count")
    PDW = loinc("32207-3", "Platelet distribution width [Entitic volume] in Blood by Automated count")
    MPV = loinc("32623-1", "Platelet mean volume [Entitic volume] in Blood by Automated count")
    # surveys
    PHQ2_TOTAL = loinc("55758-7", "Patient Health Questionnaire 2 item (PHQ-2) total score [Reported]")
    PHQ9_TOTAL = loinc("44261-6", "Patient Health Questionnaire 9 item (PHQ-9) total score [Reported]")
    CAUSE_OF_DEATH = loinc("69453-9", "Cause of Death [US Standard Certificate of Death]")


class Report:
    BASIC_METABOLIC = loinc("51990-0", "Basic metabolic panel - Blood")
    LIPID_PANEL = loinc("57698-3", "Lipid panel with direct LDL - Serum or Plasma")
    CBC = loinc("58410-2", "CBC panel - Blood by Automated count")
    PHQ2 = loinc("55757-9", "Patient Health Questionnaire 2 item (PHQ-2) [Reported]")
    PHQ9 = loinc("44249-1", "PHQ-9 quick depression assessment panel [Reported.PHQ]")
    DEATH_CERTIFICATE = loinc("69409-1", "U.S. standard certificate of death - 2003 revision")
    HISTORY_AND_PHYSICAL = loinc("34117-2", "History and physical note")
    EVALUATION_PLAN = loinc("51847-2", "Evaluation + Plan note")


class Smoking:
    NEVER = sct("266919005", "Never smoked tobacco (finding)")
    FORMER = sct("8517006", "Ex-smoker (finding)")
    DAILY = sct("449868002", "Smokes tobacco daily (finding)")


# ---------------------------------------------------------------------------------------------
# Vaccines (CVX)
# ---------------------------------------------------------------------------------------------


class Vaccine:
    INFLUENZA = cvx("140", "Influenza, seasonal, injectable, preservative free")
    TD = cvx("113", "Td (adult), 5 Lf tetanus toxoid, preservative free, adsorbed")
    TDAP = cvx("115", "Tdap")
    COVID_MODERNA = cvx(
        "207",
        "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 100 mcg/0.5mL dose",
    )
    COVID_PFIZER = cvx(
        "208", "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 30 mcg/0.3mL dose"
    )
    PCV13 = cvx("133", "Pneumococcal conjugate PCV 13")
    PPSV23 = cvx("33", "pneumococcal polysaccharide vaccine, 23 valent")
    HEP_B_ADULT = cvx("43", "Hep B, adult")
    HPV = cvx("62", "HPV, quadrivalent")
    MENINGOCOCCAL = cvx("114", "meningococcal MCV4P")
    DTAP = cvx("20", "DTaP")
    IPV = cvx("10", "IPV")
    MMR = cvx("03", "MMR")
    VARICELLA = cvx("21", "varicella")
    HEP_A_PED = cvx("83", "Hep A, ped/adol, 2 dose")


# ---------------------------------------------------------------------------------------------
# US Core race / ethnicity (CDC Race & Ethnicity code set)
# ---------------------------------------------------------------------------------------------


class Race:
    WHITE = _code(CDC_RACE, "2106-3", "White")
    BLACK = _code(CDC_RACE, "2054-5", "Black or African American")
    ASIAN = _code(CDC_RACE, "2028-9", "Asian")
    NATIVE = _code(CDC_RACE, "1002-5", "American Indian or Alaska Native", "standard")
    HISPANIC = _code(CDC_RACE, "2135-2", "Hispanic or Latino")
    NOT_HISPANIC = _code(CDC_RACE, "2186-5", "Not Hispanic or Latino")
