"""The patient-scoped query layer: one module per record section.

Every function takes the open patient transaction (`conn`) and `patient_id` as a required
keyword, and filters on `patient_id` first even though row-level security filters again:
RLS is the second wall, not the only one, and the explicit filter keeps every query
single-shard when the schema is distributed by `patient_id`.

Clinical semantics live here, named and tested, not in the tools that render them:
active medications, "latest" labs, blood pressure by component code, immunizations that
were not given, entered-in-error rows (never returned).
"""
