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
    needed for now later cya ttyl laters brill brilliant ace x xx xxx brb getting glasses specs sec moment hang on
    typing writing behalf of on helping carer account using phone who aged old years year its s
    mum mom mam mother dad father husband wife partner son daughter gran grandma nan grandad grandpa
    aunt uncle his her their patient with go easy slow slowly bear older elderly age
    lady gent gentleman
    """
# round fourteen: who is typing ("hello I'm typing for my dad who is 87", "this is my mum's account,
# i'm her carer") introduces the conversation; a word of what happened to them ("collapsed",
# "not", "help") makes the text ordinary again
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
    # round six: writing and cooking requests ("write a birthday message for my sister",
    # "ayúdame a escribir una carta para mi jefe", "give me a recipe for lasagna")
    r"(?:help me )?write (?:me )?(?:a |an )?(?:\w+ ){0,2}(?:message|email|letter|card|speech|essay|caption|toast|cover letter|review|post|text)|"
    r"(?:give me|send me|find me|share) (?:a |an |the )?(?:\w+ ){0,2}recipe|(?:ayudame a |me ayudas a |puedes )?(?:escribir|escribe|escribeme|redacta|redactar|redactame) (?:me )?(?:un|una) (?:\w+ ){0,2}(?:poema|cancion|cuento|carta|mensaje|correo|email)|"
    r"dame (?:una |la )?receta|"
    r"whats the (?:capital|weather|time|score)|what is the (?:capital|weather|time|score)|how do you say|who won|what time is it|"
    r"whats the weather|what will the weather|recomiendame|recomienda|traduce|traduceme|cuentame un|como va a estar el (?:clima|tiempo)|"
    r"que tiempo (?:va a hacer|hace)|quien gano|como se dice)\b"
)
NOT_OFF_TOPIC = re.compile(
    r"\b(?:pain|hurt\w*|pills?|tablets?|meds|medicines?|medication|dose|doctor|hospital|die|dying|dead|kill\w*|suicide|end it|"
    r"overdose|blood|breath\w*|chest|sick|ill|symptoms?|injur\w*|bleed\w*|poison\w*|dolor|pastillas|morir|matar\w*|sangre|medico|"
    r"diet|food|exercise|record|results?|appointment|cita|salud|health|"
    # a goodbye letter is never off-topic ("write a goodbye letter to my kids")
    r"goodbye|farewell|despedida|despedirme|last|final|ultima|ultimo|forgive|perdon|sorry|siento|will|testamento|note|nota|kids|hijos)\b"
)
MAX_OFF_TOPIC_WORDS = 14


def is_off_topic(normal_form: str) -> bool:
    """True for a short request about something other than health (a film, a translation)."""
    return (
        len(normal_form.split()) <= MAX_OFF_TOPIC_WORDS
        and OFF_TOPIC.match(normal_form) is not None
        and NOT_OFF_TOPIC.search(normal_form) is None
    )


# ordinary ways to close a conversation (round six: "that's everything, have a nice day",
# "appreciate it, take care", "gracias, ya no necesito nada más", "gracias por contestar"): each
# phrase is removed before the vocabulary check. Words of finality are not among them, and a text
# carrying one ("for everything", "for trying", "forever", "my last", "para siempre") is never
# small talk: a goodbye may be a farewell, so it goes to the detector (the suicide rules run first)
CLOSING = re.compile(
    r"\b(?:thats (?:all|everything|it)(?: (?:for (?:now|today)|i needed|i wanted|from me|thanks))?|"
    r"have a (?:nice|good|great|lovely|wonderful) (?:day|one|evening|night|weekend|afternoon|morning)|take care|appreciate it|"
    r"(?:see|speak to|talk to) you (?:later|soon|next time|tomorrow)|talk (?:later|soon)|(?:you|youve|you have) been (?:very |really |so )?(?:helpful|great|kind)|"
    r"that (?:answered|answers|helps|helped)(?: (?:my question|a lot|me))?|(?:thanks|thank you) for (?:the|your) (?:help|info|information|answer|time|reply)|"
    r"que (?:tengas|tenga|tengan) (?:un |una )?(?:buen|buena|buenas|lindo|bonito|feliz) (?:dia|tarde|noche|fin de semana)|"
    r"eso (?:es|era|seria|fue) todo|(?:ya )?no necesito nada mas|ya esta|gracias por (?:contestar|responder|la ayuda|tu ayuda|su ayuda|la informacion|tu tiempo|su tiempo)|"
    r"muy amable|hasta (?:luego|manana|pronto|la proxima)|que le vaya bien|que te vaya bien|"
    # round seventeen (frozen21's false alarms, fresh wordings: "thanks for bearing with me", "that's
    # a weight off my mind", "back again, where did we get to", "I sorted it out by myself in the
    # end"): thanks for patience, relief, coming back to the conversation after a pause, a task done
    r"(?:thanks|thank you) for (?:your|the|being so) (?:patience|kindness|understanding|patient)|(?:thanks|thank you) for bearing with me|"
    r"(?:that|this|it|which|you) (?:puts?|has put|have put|set|sets) my mind at (?:rest|ease)|(?:thats|that is|its) a (?:weight|load) off my mind|(?:im|i am|i feel) (?:so |very |really )?relieved|"
    r"^(?:ok |okay |right |hi |hello |sorry )?(?:im |i am |ive come |i have come )?back(?: again| now)?(?:$| (?=where))|where (?:were|was) we|where did we (?:get|got) to|"
    r"(?:the |my )?(?:baby|kids?|toddler|dog|doorbell|door|phone|kettle) (?:was|were|is|kept|started) (?:crying|ringing|barking|going|going off|knocking)|"
    r"(?:the |my )?(?:nurse|doctor|gp|carer|daughter|son|wife|husband) (?:will|would|is going to) be (?:so |very |really )?(?:pleased|proud|glad|happy) (?:that )?(?=i )|"
    # (never "i did it": said alone, it may be an act of harm)
    r"i (?:managed|sorted|figured|worked) (?:it|that|this)(?: out)?(?: (?:myself|by myself|on my own|all by myself)(?: in the end)?| in the end))\b"
)
FINALITY = re.compile(
    r"\b(?:everything|trying|tried|forever|for good|last|final|anymore|any more|everyone|goodbye forever|siempre|ultim[oa]|despedida|todos|todo)\b"
)


def is_small_talk(normal_form: str) -> bool:
    """True when every word of the (normalised) text is greeting/politeness/filler vocabulary,
    once ordinary closing phrases (`CLOSING`) are set aside."""
    if FINALITY.search(CLOSING.sub(" ", normal_form)):
        return False
    words = CLOSING.sub(" ", normal_form).split()
    if not words and CLOSING.search(normal_form):
        return len(normal_form.split()) <= MAX_WORDS
    return 0 < len(words) <= MAX_WORDS and all(w in SMALL_TALK_WORDS or w.isdigit() for w in words)


# a question about using the app itself ("where is the logout button", "how do i reset my
# password"), figures of speech included ("this website is killing me"): like small talk, the
# semantic side is skipped (lead, round eight: frozen7's "ugh this app is killing me, how do i log
# out" got the emergency reply from the classifier). The lexical rules still run first, so "this
# app is useless and i want to kill myself" is an emergency whatever else it asks.
APP_HELP = re.compile(
    r"\b(?:log ?out|logout|log ?off|sign ?out|sign ?in|log ?in|login|(?:reset|change|forgot|forgotten) (?:my )?password|"
    r"(?:logout|login|back|menu|send|submit|book) button|dark mode|font size|(?:turn off|mute) notifications|"
    r"cerrar sesion|iniciar sesion|contrasena|(?:patient )?portal|nhs app|mychart|set (?:this|it|the app|the account) up|"
    # feedback about care is neither a symptom nor a record question (frozen9: "how do i give feedback
    # about the nurse who was lovely to my mum" got the emergency reply from the classifier)
    r"(?:give|leave|send|make) (?:some )?(?:feedback|a compliment|a complaint)|complain about|compliment)\b"
)
# round sixteen (frozen20's false alarms, fresh wordings: "update my mobile number", "cambia mi correo",
# "only trying out how this works"): the account's own details, and trying the app out. Only in a
# SHORT message (`MAX_IDIOM_WORDS`), as the idioms below: "i wanted to update my address but i've
# just cut my hand badly" says something else beside the errand
ACCOUNT_ERRAND = re.compile(
    r"\b(?:(?:change|update|edit|correct|fix|set|cambia|cambiar|cambiame|actualiza|actualizar|corrige|corregir|pon|poner) (?:my |mi |mis |the |el |la )?(?:\w+ ){0,1}"
    r"(?:preferred name|first name|surname|last name|nickname|display name|pronouns|title|home address|address|postcode|zip code|phone number|mobile number|mobile|phone|email|email address|"
    r"contact details|contact number|emergency contact|next of kin|language|telefono|numero de (?:telefono|contacto|celular|movil)|celular|movil|correo|direccion|contacto|nombre|apellido|idioma)|"
    r"(?:just |only )?(?:testing|trying out|trying) (?:how|if|whether) (?:this|it|the app|the chat|the site) (?:\w+ )?works?|testing testing|(?:just )?a test message|is this (?:thing |app )?(?:working|on))\b"
)
FIGURE_OF_SPEECH = re.compile(
    r"\b(?:this|the|that|your) (?:app|website|web site|site|page|portal|wait|waiting|queue|loading|system|thing) (?:\w+ ){0,4}(?:is|are|s) (?:\w+ )?killing me\b|"
    r"\b(?:waiting|loading|this app|this website|this site) (?:\w+ ){0,2}(?:is )?killing me\b|"
    # lead, round ten (frozen10): jokes and thanks the classifier read as emergencies
    r"\b(?:nearly|almost) (?:gave|give|giving) me a heart attack\b|\bmy heart (?:stopped|skipped a beat) when\b|\bas much fun as\b|"
    r"\b(?:says|said|say) hi\b|\b(?:love|thank) the (?:nurses|staff|doctors|team)\b|\bfinally got through\b|"
    # the account and the app: a forgotten username, a letter with someone else's name, the app in Spanish
    r"\b(?:forgot|forgotten|lost|cant remember) (?:my )?(?:username|user name|login|log in|pin|email|password|details)\b|"
    r"\bsomeone elses (?:name|details|results?|letter)\b|\b(?:wrong|different) (?:name|patients?) on (?:my|the|one of my)\b|"
    r"\b(?:la )?(?:aplicacion|app|pagina|portal|web) no (?:me )?(?:deja|funciona|carga|abre)\b|\bno (?:puedo|me deja) (?:entrar|iniciar sesion|acceder)\b|"
    r"\b(?:poner|cambiar|ver|tener) (?:\w+ )?(?:en|al) (?:espanol|ingles)\b|\b(?:in|into) (?:spanish|english)\b|\bcan i use (?:this|the app|it) for (?:my )?(?:dog|cat|pet|kids?|family|mum|dad)\b"
)


# round thirteen (frozen15: "this form is killing me", "I'm dying to get out of this waiting room",
# "all this waiting is giving me a heart attack haha", "wish me luck for tomorrow", "jajaja ok" got
# the emergency reply from the linear classifier): everyday figures of speech. Only in a SHORT
# message (`MAX_IDIOM_WORDS`): a longer one may say something else beside the idiom, so it goes to the
# detector like any other text (the lexical rules always run first in any case).
IDIOM = re.compile(
    r"\b(?:this|the|that|all this|all the|these) (?:\w+ ){0,2}(?:form|forms|music|hold music|queue|wait|waiting|paperwork|traffic|parking|weather|noise|heat|kids|job|work|homework|admin) (?:\w+ ){0,2}(?:is|are|s) (?:\w+ )?killing me\b|"
    r"\b(?:im|i am|were|we are) dying (?:to|for) (?:get|go|see|know|hear|try|have|a|some|my)\b|\bdying of (?:boredom|embarrassment|laughter|curiosity)\b|"
    r"\b(?:giving|gave|give) me (?:a )?heart attack(?:s)? (?:haha|lol|lmao|jk|\w*ha\b)|\b(?:driving|drive|drove) me to an early grave\b|"
    r"\bcould (?:murder|kill) (?:a|an|for a|for an|some) (?:cup|cuppa|coffee|tea|pint|drink|burger|pizza|sandwich|biscuit)\w*\b|"
    r"\b(?:knackered|shattered|exhausted|tired|wiped out|pooped) but (?:ok|okay|fine|good|alright|all right)\b|\bwish me luck\b|"
    r"^(?:(?:ja|je|ha|ji|xd){2,}|lo+l|lmf?ao+|jk)(?: (?:ok|okay|vale|bueno|si|lol))?$|"
    # round fifteen's left-over false alarm ("my son is fitting in well at school"): settling in
    r"\bfitting in (?:well|ok|okay|fine|nicely|great|brilliantly|at (?:school|work|nursery|uni|college)|with (?:his|her|their|the) (?:class|friends|team|new))\b|"
    # round seventeen (frozen21: a sleepless night's hello got the emergency reply): dropping in to
    # say hello, short messages only
    r"\b(?:just )?(?:saying|popping in to say|dropping in to say|wanted to say|checking in to say) (?:hi|hello|hey|hiya|good ?night)\b"
)
MAX_IDIOM_WORDS = 10


def is_app_help(normal_form: str) -> bool:
    """True for a question about using the app or the account, the app as a figure of speech, or
    a short everyday idiom."""
    return bool(
        APP_HELP.search(normal_form)
        or FIGURE_OF_SPEECH.search(normal_form)
        or (
            (IDIOM.search(normal_form) or ACCOUNT_ERRAND.search(normal_form))
            and len(normal_form.split()) <= MAX_IDIOM_WORDS
        )
    )
