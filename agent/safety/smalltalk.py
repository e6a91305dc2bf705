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
    hola buenas buenos buen dia dias tardes noches gracias muchas muchisimas muchisimo mil por favor tengo una un
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
    thats muchly kindly appreciated appreciate bunch heaps loads lots million ever makes sense understood
    noted gotcha got will then letting know checking aw aww bless ra tara merci sm tysm ty mate pal
    hun hon pet duck doc gem star legend superstar diamond grand smashing fab
    fabulous wonderful super marvellous excellent champion top stuff lush amazing
    vale genial estupendo maravilloso excelente guapa guapo mija mijo carino amigo amiga senorita
    """
# round eighteen (frozen22's and frozen23's thanks, as a class, in fresh wordings: "cheers that's
# brilliant", "thanks a bunch", "ok will do, thanks", "noted, ta", "gracias guapa"): the words of
# thanks and endearment; none is a symptom, body, drug, harm or help word (and none a farewell's:
# "goodbye my love" still goes to the detector)
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
    # round eighteen (frozen22's and frozen23's thanks, as a class, in fresh wordings): a blessing
    r"(?:que )?dios (?:le|te|los|les) (?:bendiga|bendiga mucho|pague)|(?:god )?bless (?:you|ya|u)(?! all)|"
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

# round eighteen (frozen22's and frozen23's false alarms, as a class, in fresh wordings: "the
# suspense is killing me", "that bill nearly finished me off", "i could murder a bacon sandwich",
# "my battery is about to die", "dying to find out if my referral was accepted", "the phone queue
# was murder"): death, killing and pain words used of a thing, a wait, a wish or a device, not of a
# body. Read in a message of any length, but they silence the semantic side only when no word of a
# real symptom, harm or danger (`SYMPTOM`) stands outside them: "this wait is killing me and my
# chest is crushing" goes to the detector like any other text (and the lexical rules run first).
FIGURATIVE = re.compile(
    r"\b(?:the |this |that |all this |all the |these |those |my |our |your )?(?:\w+ ){0,2}(?:suspense|waiting|wait|queue|queues|hold music|music|phone line|line|traffic|parking|car park|bill|bills|charges?|quote|price|prices|rent|mortgage|boss|job|work|shift|commute|drive|journey|bus|stairs|form|forms|paperwork|admin|heat|cold|weather|noise|kids|children|grandkids|dog|telly|tv|football|match|receptionist|system|app|website|morning|day|week|month|year|deadline|exam|exams|interview|homework|diet|gym|workout|class) (?:\w+ ){0,3}(?:is|are|was|were|s|will be|has been|have been|nearly|almost|is going to be|be) (?:\w+ )?(?:killing me|killed me|murder|torture|a killer|the death of me|the end of me|finished me off|finishing me off|killing us|doing my head in)\b|"
    r"\b(?:nearly|almost|practically|literally|honestly) (?:killed|finished) me(?: off)?\b|\b(?:will|would|is going to|gonna) be the (?:death|end) of me\b|"
    # (never "i'd die in my sleep": only food, drink or a treat, murdered, killed or died FOR)
    r"\b(?:could|would|d|id|i would|i could) (?:murder|kill for|die for) (?:a|an|some|my|the)? ?(?:\w+ ){0,2}(?:cup|cuppa|coffee|tea|brew|pint|drink|beer|wine|burger|pizza|sandwich|butty|bacon|biscuit|biscuits|cake|chocolate|chips|curry|kebab|takeaway|holiday|smoke|fag|cigarette)\w*\b|"
    r"\b(?:phones?|battery|batterys|batteries|laptops?|ipads?|tablet|computer|charger|car|cars|torch|tv|telly|pc|mobiles?)(?: battery| batterys)? (?:\w+ ){0,3}(?:about to die|going to die|gonna die|nearly dead|is dead|s dead|died|dying|has died|is dying|on its last legs|is on (?:\d+|two|one|five) (?:percent|per cent)|on (?:\d+|two|one|five) (?:percent|per cent))\b|"
    r"\b(?:im|i am|were|we are|been|i was|ive been) (?:absolutely |literally |just |so |really )?dying (?:to|for) (?:\w+ )?(?:know|hear|find out|see|get|go|try|have|a|some|my|the|an)\b|\bdying of (?:boredom|embarrassment|laughter|curiosity|thirst|hunger)\b|"
    r"\b(?:nearly|almost) (?:died|died laughing|wet myself) (?:laughing|of embarrassment|when i saw|at)\b|\b(?:nearly|almost) died laughing\b|\bdead (?:curious|keen|chuffed|pleased|nervous|excited|bored)\b|"
    r"\bmy heart (?:sank|sunk|skipped a beat|was in my mouth|goes out)\b|\b(?:nearly|almost) (?:gave|give|giving) me a heart attack\b|\bscared (?:me )?to death\b|\bbored to death\b|"
    r"\b(?:nearly|almost|practically|near enough) (?:had|have|having) (?:a )?(?:heart attack|coronary|stroke|fit) (?:when|at|over|seeing|looking at|after seeing|reading)\b|\bmy (?:stomach|heart) (?:dropped|sank|flipped|lurched|was in my mouth)\b|"
    r"\bdrowning in (?:paperwork|work|emails|letters|bills|forms|admin|debt|washing|laundry|appointments)\b|\b(?:sick|sick and tired|sick to death|tired|fed up) of (?:waiting|the wait|chasing|ringing|calling|phoning|being on hold|queu\w*|this (?:app|queue|phone line|system|website|wait))\b|"
    r"\b(?:go|going|gonna|will go|ll go|im going|driving me|drive me|drives me) (?:mad|crazy|insane|round the bend|up the wall|spare|bananas)\b|\bcould sleep for (?:a week|a month|days|a year|england)\b|\b(?:at the end of my tether|losing my mind|lost the plot) (?:with|over|trying to|looking for)\b|"
    # Spanish: "me muero de ganas de saber", "esta espera me está matando", "me mata la curiosidad"
    r"\bme muero (?:de ganas|por (?:saber|ver|un|una|tomar))\b|\b(?:la|esta|tanta|el|este|tanto) (?:\w+ )?(?:espera|cola|calor|frio|trafico|papeleo|jefe|trabajo|musica|curiosidad) (?:\w+ ){0,2}me (?:esta )?(?:matando|mata)\b|\bme mata la (?:curiosidad|espera|intriga)\b|\bmatar(?:ia)? por un (?:cafe|te|cigarro)\b"
)
# limbs and feet that are "killing me" or "dead" after walking or standing: a sore body after
# exertion said in passing is no emergency and asks nothing, unless a word of asking (`ASKING`) or
# a symptom outside it (`SYMPTOM`) says more ("my feet are killing me, should i take ibuprofen")
BODY_FIGURE = re.compile(
    r"\b(?:my )?(?:feet|foot|legs|leg|knees|knee|hips|back|shoulders|arms|hands|calves|ankles|toes|bunions?|joints|bum|arse|dogs) (?:are|is|s) (?:absolutely |proper |really |so )?(?:killing me|dead|shot|in bits|dropping off)\b"
)
ASKING = re.compile(
    r"\b(?:should|shall|can i|could i|may i|must|need|worr\w*|normal|bad|serious|ok|okay|safe|take|what (?:can|do|should)|why|is (?:it|that|this)|puedo|debo|es normal|tomo)\b"
)
SYMPTOM = re.compile(
    r"\b(?:pain\w*|hurt\w*|ache\w*|aching|agony|sore|chest|breath\w*|wheez\w*|chok\w*|gasp\w*|bleed\w*|blood(?! (?:test|tests|pressure|results?|work|sugar|count|form)\b)|"
    r"collaps\w*|faint\w*|passed out|pass out|unconscious|unresponsive|not moving|not breathing|dizz\w*|seiz\w*|fit|fits|fitting|convuls\w*|"
    r"overdose\w*|od|swallow\w*|took|taken|suicid\w*|myself|end it|harm\w*|cut|cuts|cutting|burn\w*|stroke|numb\w*|weak\w*|slurr\w*|droop\w*|"
    r"vomit\w*|sick|swell\w*|swollen|lips?|throat|tongue|rash|fever|temperature|shak\w*|shiver\w*|confus\w*|drowsy|sleepy|wake|blue|grey|gray|pale|"
    r"clammy|sweat\w*|pregnan\w*|waters|contractions?|labou?r|heart|head|headache|stomach|tummy|belly|vision|fall|fell|fallen|accident|bitten|stung|"
    r"allerg\w*|anaphyla\w*|epi ?pen|tonight|goodbye|anymore|alive|die|died|dying|dead|death|kill\w*|murder\w*|help|ambulance|911|999|112|emergency|"
    r"urgent\w*|worse|severe\w*|worst|scared|frightened|panic\w*|dolor\w*|duele|sangr\w*|respir\w*|pecho|desmay\w*|convulsi\w*|pastillas|morir\w*|"
    r"muero|muerto|matar\w*|mato|vomit\w*|fiebre|hinch\w*|alergi\w*|ayuda|urgencias?|emergencia)\b"
)


def inside_a_figure(normal_form: str, span: tuple[int, int]) -> bool:
    """Whether a span of the text (a lexical emergency rule's match) lies within a figure of speech
    ("i nearly had a heart attack when i saw the parking price", "drowning in paperwork")."""
    return any(m.start() <= span[0] and span[1] <= m.end() for m in FIGURATIVE.finditer(normal_form))


def figurative(normal_form: str) -> str | None:
    """ "remark" for a figure of speech (`FIGURATIVE`, or a tired limb, `BODY_FIGURE`) with no word of
    a symptom or danger outside it and no word of asking (`ASKING`): the semantic side stays silent,
    as for small talk. "question" when such a figure stands beside a question ("this heat is killing
    me, can i take my water tablet later"): the semantic EMERGENCY side stays silent, the advice side
    still reads it. None otherwise (a tired limb beside a question is an ordinary question)."""
    rest = FIGURATIVE.sub(" ", normal_form)
    if rest == normal_form:
        rest = BODY_FIGURE.sub(" ", normal_form)
        if rest == normal_form or ASKING.search(rest):
            return None
    if SYMPTOM.search(rest) is not None:
        return None
    return "question" if ASKING.search(rest) else "remark"


def is_app_help(normal_form: str) -> bool:
    """True for a question about using the app or the account, the app as a figure of speech, a
    short everyday idiom."""
    return bool(
        APP_HELP.search(normal_form)
        or FIGURE_OF_SPEECH.search(normal_form)
        or (
            (IDIOM.search(normal_form) or ACCOUNT_ERRAND.search(normal_form))
            and len(normal_form.split()) <= MAX_IDIOM_WORDS
        )
    )
