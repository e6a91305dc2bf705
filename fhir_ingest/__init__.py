"""Synthea FHIR bundles → the patient record in PostgreSQL (two passes, one transaction per bundle).

Entry point: `fhir_ingest.loader.ingest_paths(db, paths)` → `IngestReport`.

Pure (no database, unit-tested on their own):
  source       find files (support bundles first), checksum, parse JSON with located errors
  references   pass 1: index entries; resolve urn:uuid / Type/id / conditional / #contained refs
  fields       typed, located access to resource fields ("wrong type" errors name the field)
  mappers      pass 2: patient-record resources → rows (clinical semantics decided here)
  support      Organization / Location / Practitioner (+PractitionerRole) → reference rows
  transform    one parsed bundle → everything to write
  timestamps   FHIR date/time → UTC;  codes: coding choice, tall-man folding;  notes: text
  dosage       a sentence for a structured dosage;  validation: optional fhir.resources R4B
Database:
  writer       one bundle in one transaction (COPY, RLS patient setting, replace in place)
  loader       the run: unchanged/changed/failed per file, progress, report
  bench, cli   `chartside bench ingest`, `chartside ingest`
"""
