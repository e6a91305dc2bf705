"""Severity and clauses: two decided features of the safety gate (round seven).

**Severity.** A worry or seeking-care question about a symptom ("is that bad", "should I go to
A&E") is clinical advice unless the symptom is SEVERE and CURRENT. Five untouched batches showed
the classifiers cannot learn that boundary from similarity alone ("i get a bit puffed out on the
stairs, is that my heart" sat next to breathing emergencies; "i'm coughing up a lot of bright red
blood, is that something to worry about" next to interpretation questions), so it is read from
readable markers, in English and Spanish:

* severe: cannot breathe/speak/move/stand/wake, crushing, won't stop, pouring, blue lips,
  unresponsive, worst ever, sudden(ly), "a lot of blood", fitting/convulsing;
* mild: a bit, a little, slightly, mild, lately, on and off, sometimes, when I climb stairs,
  for days or weeks, a fever of 37–38.9 without red flags ("un poco", "últimamente", "a veces").

`severity` returns "severe" when any severe marker is present (severe always wins: a mild word
never cancels "crushing"), "mild" when only mild markers are, else None. The gate (`gate.decide`)
turns a severe worry question into an emergency and a mild one into advice; without a marker the
earlier rules and classifiers decide as before.

**Clauses.** A long message can carry an emergency in one clause and record talk in the others
("can you check my next cholesterol test, also my chest has been crushing for half an hour").
`clauses` splits on sentence ends, ";", "but", "also", "btw", "anyway", "pero", "y además"; the
gate runs the lexical emergency rules on each clause, and an emergency in any clause is an
emergency of the message (emergency wins). Each clause is still read with its own negation and
record framing, so "i had chest pain in 2019, what did the angiogram show, also when is my next
check" stays a record question.
"""

from __future__ import annotations

import re

from agent.safety.text import found

Texts = tuple[str, ...]  # the normal form and the typo-mended form of one question (`text.prepare`)

# a symptom described as severe and happening (normal form: lower case, accents and apostrophes dropped)
SEVERE = re.compile(
    r"\b(?:cant|cannot|can not|unable to|couldnt|can barely|can hardly|cant even) (?:\w+ )?(?:breathe|breath|catch (?:my|his|her) breath|speak|talk|"
    r"finish a sentence|move|stand|stand up|swallow|wake|wake (?:him|her|them) up|stay awake|lift|feel (?:my|his|her)|see)\b|"
    r"\b(?:crushing|crushed|squeezed|squeezing|tearing|ripping|unbearable|excruciating|agonising|agonizing|worst (?:\w+ )?(?:pain|headache) (?:ever|of my life)|worst ever|"
    r"unresponsive|not responding|wont wake|will not wake|wont respond|passed out|collapsed|blacked out|"
    r"pouring|gushing|spurting|soaking|a lot of (?:bright red )?blood|lots of blood|so much blood|"
    r"(?:lips|face|skin) (?:are |is |going |gone |turning )?(?:blue|purple|grey|gray)|going blue|gone blue|turning blue|"
    r"fitting|convulsing|suddenly|sudden|all of a sudden|out of nowhere|"
    r"rock hard|peeling off|(?:white|charred|leathery|black) and|without waking|severe|severely|"
    r"(?:feel|feels|feeling|im going|is going|going) (?:really |very |so )?faint)\b|"
    r"\b(?:bleeding|blood|fit|fitting|seizure|shaking|pain|vomiting) (?:\w+ ){0,3}(?:wont|will not|doesnt|does not|isnt) (?:stop|go away|ease|settle)\b|"
    r"\b(?:wont|will not|doesnt|does not) stop (?:bleeding|fitting|shaking|vomiting)\b|"
    # Spanish
    r"\b(?:no (?:puedo|puede|podemos) (?:respirar|hablar|moverse|moverme|mover|tragar|levantarse|levantarme|despertar\w*)|"
    r"de repente|de golpe|repentin\w*|el peor dolor|horrible|insoportable|muchisim[oa]|morad[oa]s?|azules|"
    r"no responde|no reacciona|inconsciente|convulsionando|no para|no se me pasa|a chorros|mucha sangre)\b"
)
# a symptom described as mild, intermittent, or brought on by effort
MILD = re.compile(
    r"\b(?:a (?:tiny |little )?bit|a little|little bit|slight|slightly|mild|mildly|minor|tiny|small|light|occasional|occasionally|"
    r"lately|recently|these days|on and off|off and on|now and then|now and again|every now and then|sometimes|from time to time|"
    r"most (?:days|nights|mornings|evenings|afternoons)|in the (?:mornings?|evenings?)|at night|"
    r"for (?:a few |a couple of |about |over )?(?:\w+ )?(?:days|weeks|months|a while)|since last week|this week|"
    r"(?:when|if|after) i (?:climb|go up|walk|run|jog|exercise|carry|bend|cough|press|stand up|lie down|skip)|on the stairs|up the stairs|up the hill|"
    # round seventeen (frozen21's class, fresh wording: "out of breath cycling up hills"): effort named
    # by the activity itself
    r"(?:walking|going|climbing|cycling) (?:up )?(?:hills|a hill|the hill|uphill|inclines|steep \w+)|walking (?:fast|briskly|quickly)|"
    r"after (?:the gym|exercise|meals|coffee|a long walk)|but (?:he|she|hes|shes|they|theyre) (?:is |are )?(?:\w+ )?(?:playing|eating|drinking|happy|fine|ok)|"
    r"stopped on its own|went away)\b|"
    r"\b(?:temp|temperature|fever|fiebre) (?:\w+ ){0,2}3[78](?:[ .]\d)?\b|\b3[78](?: \d)? (?:de fiebre|fever|degrees)\b|"
    # Spanish
    r"\b(?:un poco|un poquito|poquito|poquita|leve|ligero|ligera|ultimamente|a veces|de vez en cuando|desde hace (?:unos |unas |una |un )?(?:\w+ )?(?:dias|semanas|meses|semana|mes|ano|anos)|"
    r"al subir|cuando subo|cuando hace frio|por la tarde|por las noches|desde ayer|todos los dias|cada dia|pero (?:esta|come|juega|bebe)\w*)\b"
)
# asking whether a symptom is worrying, what it might be, or whether to seek care
WORRY_QUESTION = re.compile(
    r"\b(?:is (?:that|this|it) (?:\w+ )?(?:normal|bad|serious|dangerous|worrying|a problem|a bad sign|something|anything|my)|"
    r"(?:is|could) (?:it|that|this) (?:be )?(?:a |an |my )?(?:cancer|serious|something serious|heart|lungs|kidneys|thyroid|stroke|arthritis|asthma|diabetes|dementia|"
    r"alzheimers|infection|allergy|piles|sciatica|migraine|ulcer|blood clot|clot)|is (?:that|this|it) (?:a |an |my )?\w+(?: \w+)? thing|"
    r"should (?:i|we) (?:be )?(?:worried|concerned|worry)|something to worry about|could it be|could that be|is something wrong|do you think (?:its|it is|it could be|it might be|thats)|"
    r"should i (?:go|call|ring|get|see|wait)|do (?:i|we|you think i) need|does it need|is it worth|can it wait|er or|a&e or|"
    r"es (?:grave|normal|malo|peligroso|preocupante)|sera|seran|debo preocuparme|me preocupo|me tengo que preocupar|"
    r"tengo que ir|necesito (?:ir|una|un)|hace falta|voy a urgencias|la llevo|lo llevo|espero)\b"
)


# asking only to look something up ("i'm just checking the family history on my record"): a clause
# naming a symptom does not alarm such a message unless something is happening now
JUST_CHECKING = re.compile(
    r"\b(?:just|only|simply|merely|solo|solamente) (?:\w+ )?(?:checking|check|looking|asking|curious|wondering|reading|"
    r"mirando|preguntando|revisando|consultando)\b"
)


# a medicine named: a severe word in a question about it ("stop my steroids suddenly") is about the
# medicine, not a symptom
MEDICINE = re.compile(
    r"\b(?:medicines?|medications?|meds|tablets?|pills?|doses?|dosage|steroids?|inhalers?|insulin|antibiotics?|"
    r"\w+(?:pril|olol|statin|formin|sartan|dipine|prazole|cillin|mycin|azepam|zolam|oxetine|aline|triptyline|olone|isone|asone|ralina)|"
    r"antidepres\w*|pastillas|medicamentos?|medicinas?|"
    # stopping something all at once is asked of a medicine, never of a symptom
    r"(?:stop|quit|come off|dejar|dejarlos|dejarlas|dejarla|dejarlo|parar) (?:\w+ ){0,4}(?:suddenly|abruptly|de golpe|de repente|all at once|cold turkey))\b"
)


def names_a_medicine(texts: Texts) -> bool:
    return found(MEDICINE, texts)


def just_checking(texts: Texts) -> bool:
    return found(JUST_CHECKING, texts)


def severity(texts: Texts) -> str | None:
    """ "severe", "mild" or None (see the module docstring); severe wins over mild."""
    # the normal form only: the typo mender may turn a mild word into a severe one ("light
    # spotting" → "light spurting")
    if SEVERE.search(texts[0]):
        return "severe"
    if MILD.search(texts[0]):
        return "mild"
    return None


def worry_question(texts: Texts) -> bool:
    return found(WORRY_QUESTION, texts)


CLAUSE_BREAK = re.compile(
    r"(?:[.?!;¿¡]+\s+|[.?!;]+$|\s+[-–—]\s+|,?\s+\b(?:but|also|btw|by the way|anyway|anyhow|oh and|and also|plus|pero|y adem[aá]s|adem[aá]s|"
    r"aunque|y tambi[eé]n|oh no|oh god)\b,?\s+|,\s+(?=(?:i|i'?m|i'?ve|my|he|he'?s|she|she'?s|they|they'?re|we|it|it'?s|mi|tengo|estoy|est[aá]|se)\b))",
    re.IGNORECASE,
)


def clauses(question: str) -> list[str]:
    """The clauses of a message (at least one; the whole text when nothing splits it)."""
    parts = [p.strip(" ,") for p in CLAUSE_BREAK.split(question)]
    return [p for p in parts if p] or [question]
