"""Greetings and small talk ("buenos días", "tengo una pregunta", "thanks!"): never a verdict.

Why a rule and not more exemplars: a two-word greeting carries almost no meaning, so its
embedding lands wherever the model's prior puts short text, and in Spanish that is next to
the short Spanish emergencies ("no respira", "me duele"). The linear classifiers extrapolate
there. A text made only of greeting, politeness and filler words cannot describe an
emergency or ask for advice, so the semantic side is skipped for it; the lexical rules still
run first, and a single content word ("help", "pain", "pills", "ayuda", "duele") makes the
text ordinary again. The vocabulary holds no symptom, body, drug, harm or help word, and no
farewell-to-everyone words ("everyone", "all", "one", "care"): "goodbye everyone" or "i have no
one" may be a farewell, so it goes to the detector like any other text.
"""

from __future__ import annotations

import re

_VOCABULARY = """
    hi hii hiya hey heya hello helo hallo howdy yo sup morning afternoon evening night day good
    thanks thank thankyou thx ty tysm cheers ta ok okay okey k kk great cool nice lovely perfect
    awesome fine bye goodbye byee see later soon again please pls plz sorry oops
    question questions quick q qq something anything i have got a an can could may might
    ask you u there anyone so much very that this is was be
    helpful useful how are doing today whats up hows who what do does is this app work works
    does thing yes yeah yep yup no nope nah sure alright right well hmm um uh er ah oh test
    testing wrong button never mind nevermind me my just wanted to say the for
    hola buenas buenos buen dia dias tardes noches gracias muchas mil por favor tengo una un
    pregunta preguntas duda dudas rapida rapido adios hasta luego pronto manana vale perdon
    disculpe disculpa oiga oye si bueno muy que tal como esta estas esto usted senor senora
    alguien hay quien eres es con hablo le puedo hacer algo otra vez saludos igualmente
    tell joke jokes funny fun fact facts odd weird random interesting curious bored im am
    robot bot human person real poem song story write made your name
    cuentame chiste chistes cuento poema cancion escribe escribeme aburrido aburrida robot
    persona real nombre llamas te tu funciona funcionan puedes curiosidad
    chao chau ciao nos vemos saludo eso todo listo entendido de acuerdo perfecto genial
    needed for now later cya ttyl laters
    """
SMALL_TALK_WORDS = frozenset(_VOCABULARY.split())
# digits ("testing 123") and single letters are filler too
MAX_WORDS = 12


# requests that are not about health at all ("recommend a good film for tonight", "translate
# good night into french", "cómo va a estar el clima mañana"): like small talk, the semantic
# side is skipped (the classifiers extrapolate on them); the lexical rules still run first, and
# a word of harm, body or medicine makes the text ordinary again
OFF_TOPIC = re.compile(
    r"^(?:(?:hi|hey|hello|ok|okay|so|please|pls|can you|could you|would you|puedes|puede|por favor)\s+)*"
    r"(?:recommend|suggest|translate|tell me a (?:joke|story|fun fact)|write (?:me )?(?:a |an )?(?:poem|song|story|limerick|haiku)|"
    r"whats the (?:capital|weather|time|score)|what is the (?:capital|weather|time|score)|how do you say|who won|what time is it|"
    r"whats the weather|what will the weather|recomiendame|recomienda|traduce|traduceme|cuentame un|como va a estar el (?:clima|tiempo)|"
    r"que tiempo (?:va a hacer|hace)|quien gano|como se dice)\b"
)
NOT_OFF_TOPIC = re.compile(
    r"\b(?:pain|hurt\w*|pills?|tablets?|meds|medicines?|medication|dose|doctor|hospital|die|dying|dead|kill\w*|suicide|end it|"
    r"overdose|blood|breath\w*|chest|sick|ill|symptoms?|injur\w*|bleed\w*|poison\w*|dolor|pastillas|morir|matar\w*|sangre|medico|"
    r"diet|food|exercise|record|results?|appointment|cita|salud|health)\b"
)
MAX_OFF_TOPIC_WORDS = 14


def is_off_topic(normal_form: str) -> bool:
    """True for a short request about something other than health (a film, a translation)."""
    return (
        len(normal_form.split()) <= MAX_OFF_TOPIC_WORDS
        and OFF_TOPIC.match(normal_form) is not None
        and NOT_OFF_TOPIC.search(normal_form) is None
    )


def is_small_talk(normal_form: str) -> bool:
    """True when every word of the (normalised) text is greeting/politeness/filler vocabulary."""
    words = normal_form.split()
    return 0 < len(words) <= MAX_WORDS and all(w in SMALL_TALK_WORDS or w.isdigit() for w in words)
