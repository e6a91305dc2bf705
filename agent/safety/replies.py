"""The scripted replies. Constant text: no model writes them, nothing about the question changes them."""

from __future__ import annotations

EMERGENCY_REPLY = (
    "This sounds like it could be an emergency. If it is happening now, call 911 (or your local "
    "emergency number) or go to the nearest emergency department straight away. If you are "
    "thinking about suicide or harming yourself, call or text 988 (Suicide & Crisis Lifeline) now. "
    "I am a records assistant and cannot help in an emergency."
)

CLINICAL_ADVICE_REPLY = (
    "I can read your record with you, but I can't give medical advice — such as doses, starting "
    "or stopping a medicine, or whether something is dangerous. Please ask your clinician or "
    "pharmacist; if it feels urgent, contact your care team or call 911."
)
