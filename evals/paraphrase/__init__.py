"""The paraphrase suite (issue 16): many wordings of the same fact, graded for agreement.

A fact is one thing true of one patient's record ("she is on metformin", "no warfarin ever",
"her highest weight was 96.2 kg"). Each fact is asked in at least five phrasings drawn from
families (plain, pronoun, filler, typo, lay word/abbreviation, relative time, clinician
shorthand). The tuning part (`templates.TUNE`) is what the planner may be developed against;
the frozen part (`frozen.FROZEN`) is never looked at while tuning and is reported apart.

It was written before the planner changed, and first measured on the old planner.
"""
