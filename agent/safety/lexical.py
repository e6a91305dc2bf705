"""The lexical half of the safety gate: readable rules, explicit negation, explicit record framing.

Every rule is a regular expression over the prepared text (`agent.safety.text.prepare`:
normal form, typos mended) with a category. Emergency rules say whether their words also
name a record item ("stroke", "overdose", "chest pain" are diagnoses as well as events): such
a rule is skipped when the question is framed as a record, leaflet or booking question and
carries no sign of something happening now. Rules that describe an act in progress ("took a
whole bottle", "she's not breathing") are never skipped that way.

Negation is explicit and local: a negator ("no", "not", "dont", "denies", "without",
"never", "no longer") in the two words before a match cancels that match only ("no chest
pain, just my results"). Suicidal wording that is itself negative ("I don't want to be alive
anymore") is written into the rule, so the negator is inside the match, not before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agent.safety.prefilter import RuleFilter
from agent.safety.smalltalk import inside_a_figure
from agent.safety.text import core_form, found

Texts = tuple[str, ...]  # the normal form and the typo-mended form of one question
W = r"(?:\w+ ){0,%d}"  # up to N arbitrary words between two parts of a rule


def gap(n: int) -> str:
    return W % n


def not_after(*phrases: str) -> str:
    """Lookbehinds: the match may not follow any of these words ("will i have a " stroke)."""
    return "".join(f"(?<!{p} )" for p in phrases)


# an event asked about as a future worry, not one happening (lead, round ten: "cholesterol 7.2 am i
# going to have a heart attack", "will i have a stroke with blood pressure this high")
FUTURE_WORRY = not_after(
    "am i going to have a", "am i gonna have a", "will i have a", "will i get a", "am i likely to have a"
)


@dataclass(frozen=True)
class Rule:
    category: str
    pattern: re.Pattern[str]
    record_word: bool = True  # may be a record/history item (skipped under record framing)


def _rules(category: str, *patterns: str, record_word: bool = True) -> list[Rule]:
    return [Rule(category, re.compile(p), record_word) for p in patterns]


class Requiring:
    """A rule that opens with lookaheads, `(?=.*\\bW\\b)` for each of `words`, then `rest`.

    Searched as it is written, the lookaheads run at every position of a text, each scanning to
    its end (two such rules cost ~85 µs a text, round thirteen). The rule can only match a text
    in which every W occurs somewhere, so a text missing one is answered without running it."""

    def __init__(self, words: tuple[str, ...], rest: str) -> None:
        self.pattern = re.compile("".join(rf"(?=.*\b{w}\b)" for w in words) + rest)
        self._needed = tuple(re.compile(rf"\b{w}\b") for w in words)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if all(w.search(text) for w in self._needed) else None


def _compiled(rule: str | Requiring) -> re.Pattern[str] | Requiring:
    return rule if isinstance(rule, Requiring) else re.compile(rule)


PAIN = r"(?:pain|pains|painful|hurts?|hurting|ache|aching|tight|tightness|pressure|crushing|crushed|squeez\w*|burning|heavy|heaviness|agony|killing)"
PEOPLE = r"(?:he|she|they|hes|shes|theyre|him|her|my (?:\w+ )?(?:dad|father|mum|mom|mother|husband|wife|son|daughter|baby|toddler|child|kid|grandma|grandmother|grandpa|grandad|grandfather|friend|brother|sister|partner|neighbour|neighbor|roommate|boyfriend|girlfriend|uncle|aunt|little one|boy|girl|patient)|the (?:baby|patient|kid|child)|someone|a man|a woman)"
KID = r"(?:my (?:\w+ )?(?:child|son|daughter|toddler|baby|kid|boy|girl|little one|\d+ (?:year|years|yr|yrs|month|months|mo) old|\d+ ?(?:yo|y/o|y o))|the (?:baby|kids?|child|toddler)|he|she|mi (?:hijo|hija|nino|nina|bebe)|^(?:baby|toddler|the little one|little one)(?! aspirin))"
INGEST = (
    r"(?:swallowed|swallowing|swallow|drank|drunk|drinking|ate|eaten|eating|chewed|chewing|got into|ingested|licked|sucked on|sucked|"
    r"(?:se |me |le )?(?:ha |han |he )?(?:tomo|tomado|trago|tragado|comio|comido|bebio|bebido|chupo|chupado|mordio|tome|trague|bebi|comi)|se lo (?:tomo|bebio|trago|comio))"
)
CHEMICAL = (
    r"(?:bleach|drain|cleaner|cleaning|detergent|antifreeze|anti freeze|poison|battery|batteries|laundry pod|laundry|dishwasher|weed killer|pesticide|lamp oil|paraffin|nail polish|acetone|magnets?|mouthwash|washing up liquid|oven|ammonia|lye|chlorine|cloro|lejia|veneno|limpiador|pila|detergente|"
    r"petrol|gasoline|kerosene|lighter fluid|white spirit|turpentine|windscreen wash|screenwash|rat poison|rat bait|slug pellets|insecticide|bug spray|"
    r"gasolina|queroseno|keroseno|aguarras|amoniaco|raticida|insecticida|matarratas|desatascador|suavizante|capsula de detergente|quitaesmalte|"
    # lead, round eight (frozen7: "mi hija se bebió anticongelante" got the advice refusal)
    r"anticongelante|liquido de frenos|brake fluid|lavavajillas|pastilla de lavavajillas|dishwasher tablet|descaler|descalcificador)"
)
MEDS = (
    r"(?:pills?|tablets?|meds|medicines?|medication|capsules?|gummies|vitamins|iron|pastillas|medicinas?|medicamentos?|pildoras|"
    # the over-the-counter and common prescription names people overdose on ("took 40 ibuprofen")
    r"ibuprofen|advil|nurofen|motrin|aspirin|acetaminophen|paracetamol|tylenol|codeine|co codamol|tramadol|diazepam|"
    r"valium|xanax|sleeping (?:tablets|pills)|antihistamines?|benadryl|antidepressants|painkillers|ibuprofeno|paracetamoles|aspirinas?)"
)
# a count of tablets already taken in a day, well past any over-the-counter limit ("i've already had 24
# today", "ive taken that many since this morning"); a medicine named anywhere in the message
AMOUNT_ALREADY_TAKEN = re.compile(
    rf"^(?=.*\b(?:{MEDS}|ibuprofens?)\b).*\b(?:already )?(?:had|taken|took|swallowed|done) (?:about |around |like |maybe |over |at least )?(?:that many|(?:1\d|[2-9]\d|\d{{3}})\b(?! ?(?:mg|mcg|ml|units|years?|days?|weeks?|months?|hours?|hrs?|mins?|minutes|percent|%)))"
)
DOWN_SIGN = r"(?:confused|muddled|disorientated|disoriented|cold|freezing|frozen|not making (?:any )?sense|talking nonsense|mumbling|cant get up|cannot get up|can not get up|unable to get up|wont get up|all night|for hours|since last night|doesnt know where|not answering|wont answer|cant move|grey|gray|blue)"
FLARE_ILLNESS = r"(?:asthma|copd|emphysema|breathing|chest|lungs?|heart failure|heart|bronchitis|croup|sickle cell|crisis)"
MEANS = r"(?:rope|noose|pills|tablets|gun|pistol|knife|razor|razors|blades?|pills|letters?|note|plan|cord|belt|bottle)"
AMOUNT = (
    r"(?:half (?:a |the )?(?:bottle|pack|packet|box|tub|jar)|\d{2,}|\d+ (?:or|to) \d+|(?:a )?whole|entire|all|every|bunch|handful|lot|loads?|load|everything|too many|too much|way too (?:many|much)|double|triple|several|massive|huge|todas?|demasiad[oa]s?|frasco|blister|"
    # round seventeen (frozen22's class, fresh wordings): an amount nobody knows is no safe amount
    r"unknown (?:number|amount|quantity)|(?:numero|cantidad) desconocid[oa])"
)

# round sixteen, after frozen21: a rule that is not read in a message placing its event in the past
NOT_PAST_R16 = (
    r"^(?!.*\b(?:last (?:year|month|week|time|summer|winter)|(?:\d+|a few|two|three|several) (?:years?|months?|weeks?) ago|years ago|"
    r"in (?:19|20)\d\d|used to|as a (?:kid|child|baby|teenager)|back then|at the time|hace (?:\w+ )?(?:anos|meses)|el ano pasado)\b)"
)

# round eighteen, after frozen24: a rule not read in a question asked of the record, a leaflet or a
# letter ("when was my aortic dissection repaired", "what does the leaflet say about …")
NOT_ASKED_OF_RECORD_R18 = (
    r"^(?!.*\b(?:leaflet|leaflets|record|records|letter|letters|notes|chart|(?<!no )history|repaired|repair|"
    r"what does|when was|when did|show me|show my|is it in|is that in|on file|ano ang|kailan|may allergy ba)\b)"
)

# Tagalog (Filipino) emergency words, one place for the rules below (round eighteen, frozen24's
# class; issue 14: the hospital serves Tagalog speakers). Source: issue 14's paraphrased wordings and
# the dictionary roots sakit (pain), dibdib (chest), hinga (breath), manhid (numb), salita (speech),
# lason (poison), gaas (kerosene), maga (swelling), labi (lips), lalamunan (throat), dila (tongue),
# with their common affixed forms; matched on the normal form, which has no accents. Not yet
# reviewed by a Tagalog-speaking clinician.
TL = {
    # chest, pain or tightness in it
    "chest": r"(?:dibdib)",
    "pain": r"(?:masakit|sakit|sumasakit|kumikirot|naninikip|paninikip|sikip|mabigat)",
    # cannot breathe
    "no_breath": r"(?:hindi (?:\w+ ){0,2}makahinga|di (?:\w+ ){0,2}makahinga|hirap (?:\w+ ){0,2}(?:huminga|makahinga)|nahihirapan (?:\w+ ){0,2}(?:huminga|makahinga)|kinakapos (?:\w+ ){0,2}hininga|hinihingal)",
    # numb, face fallen to one side
    "numb": r"(?:namanhid|namamanhid|manhid|tumabingi|nakatabingi|ngumiwi|lumaylay)",
    "face": r"(?:mukha|kalahati|katawan|braso|bibig|labi)",
    # cannot speak
    "no_speech": r"(?:hindi (?:\w+ ){0,2}makapagsalita|di (?:\w+ ){0,2}makapagsalita|hindi (?:\w+ ){0,2}makausap|bulol)",
    # poisoned, or drank or swallowed something
    "poisoned": r"(?:nalason|nalalason|nilason)",
    "swallowed": r"(?:nakainom|uminom|ininom|nakalunok|nalunok|lumunok|nakakain)",
    "poison": r"(?:kerosene|gaas|lason|zonrox|clorox|bleach|muriatic|asido|pesticide|pamatay (?:ng )?(?:\w+ )?(?:daga|ipis|insekto|lamok)|thinner|gasolina)",
    # swelling, and where
    "swollen": r"(?:namamaga|namaga|maga|nagmamaga|lumalaki)",
    "airway": r"(?:labi|dila|lalamunan|mukha)",
}


EMERGENCY_RULES: tuple[Rule, ...] = (
    # chest pain / heart
    *_rules(
        "chest_pain",
        rf"\bchest {gap(4)}{PAIN}\b",
        r"^(?:\w+ )?(?:my )?chest$",
        r"\bchest (?:\w+ ){0,3}and (?:my )?(?:left )?arm (?:feels|hurts|is numb|numb|tingl\w*|weird|aches)\b",
        rf"\b{PAIN} {gap(3)}(?:in |of |behind |across )?(?:my |the |his |her )?(?:chest|breastbone)\b",
        r"\bchestpain\b",
        # not a risk, a future worry, a past one ("after my heart attack"), a figure of speech
        # ("nearly gave me a heart attack") or an inference ("does that mean he had a heart attack")
        not_after(
            "risk of a", "risk of", "chance of a", "prevent a", "ill have a", "ill get a", "i will have a"
        )
        + FUTURE_WORRY
        + not_after("after my", "since my", "from my", "gave me a", "give me a", "giving me a")
        + not_after("mean he had a", "mean she had a", "mean i had a")
        + r"\bheart attack\b",
        r"\bheart (?:is )?(?:hurts?|racing and|giving out|being squeezed|stopped)(?! when)",
        r"\b(?:clutching|holding|grabbing) (?:his |her |my )?chest\b",
        r"\b(?:elephant|someone|something) (?:is )?(?:sitting|standing) on (?:my )?chest\b",
        r"\b(?:dolor|presion|opresion|aprieta|duele) (?:\w+ ){0,5}(?:pecho)\b",
        r"\b(?:infarto|ataque al corazon)\b",
    ),
    # breathing
    *_rules(
        "breathing",
        rf"\b(?:cant|cannot|unable to|struggling to|struggling for|hard to|harder to|difficult to|difficulty|trouble|barely|can barely|not able to) {gap(1)}(?:breathe?|breathing|breth|get (?:any )?air|catch (?:my |his |her )?breath)\b",
        r"\b(?:not|stopped|isnt|wasnt|hasnt been|aint) (?:\w+ )?breathing\b",
        r"\b(?:choking|choked|gasping|suffocating|drowning)\b",
        r"\bsomething (?:is )?stuck in (?:my |his |her )?throat\b",
        # (not an object's colour: "what inhaler is the blue one", round fifteen)
        r"\b(?:turning|turned|going|gone|are|is) (?:\w+ )?blue\b(?! (?:one|ones|inhaler|inhalers|pump|puffer|puffers|pill|pills|tablet|tablets|capsule|capsules|pen|cap|lid|box|bag|card|form|folder|sheet|badge|line|light)\b)",
        r"\blips (?:are |is )?(?:\w+ )?blue\b|\bblue (?:around|round) (?:the |his |her |their )?(?:lips|mouth)\b",
        r"\bwheez\w*\b.*\b(?:not working|blue|cant|worse|chest)",
        r"\b(?:asthma attack|inhaler) (?:wont|isnt|not|doesnt) (?:stop|working|help)",
        r"\bshort of breath\b.*\b(?:worse|still|resting|sitting|cant)\b",
        r"\bcant talk in (?:full )?sentences\b",
        r"\bbreathing (?:is )?(?:really |so |very )?(?:bad|terrible|awful|noisy|fast|rapid|shallow|weird)\b",
        r"\b(?:no puedo|no puede|cuesta) (?:\w+ )?respirar\b",
        r"\bno respira\b",
        r"\b(?:ahogando|atragantando|atragantado)\b",
        r"\b(?:falta el aire|me falta aire|labios morados)\b",
        r"\brespirando (?:muy )?mal\b",
        record_word=False,
    ),
    *_rules("breathing", r"\basthma attack\b", r"\bbreathless\b"),
    # anaphylaxis
    *_rules(
        "anaphylaxis",
        r"\bthroat (?:is |feels |keeps )?(?:(?!not |never |no |isnt )\w+ (?:and )?){0,2}(?:closing|swelling|swollen|swelled|tight|closed)\b",
        # round thirteen: a swelling that is starting ("my throat is starting to close")
        r"\b(?:throat|airway|tongue|lips?|face) (?:is |are |feels |feel )?(?:\w+ )?(?:starting|beginning|going|about) to (?:close|swell|shut|tighten|puff)\b",
        r"\b(?:tongue|lips?|face|eyes|mouth) (?:is |are |keeps |started )?(?:\w+ )?(?:swelling|swollen|swelled|puffing|puffed)\b",
        r"\b(?:severe|bad|serious|big) allergic reaction\b",
        r"\bhives\b.*\b(?:throat|breath|tongue|swell)",
        r"\bepipen (?:didnt|did not|isnt|not) work",
        r"\bneed (?:my |an )?epi ?pen\b(?! (?:expiry|prescription|refill|renewal|date|repeat|replaced|trainer))",
        r"\b(?:cerrando la garganta|reaccion alergica (?:fuerte|grave|severa))\b",
        r"\bse (?:me |le )?(?:hincho|hincha|esta hinchando) (?:\w+ ){0,3}(?:cara|lengua|garganta|labios)\b",
        record_word=False,
    ),
    *_rules("anaphylaxis", r"\b(?:anaphylaxis|anaphylactic)\b", r"\ballergic reaction\b(?!s? (?:list|to))"),
    # overdose
    *_rules(
        "overdose",
        r"\b(?:overdose|overdosed|overdosing|over dosed|over dose|poisoned|poisoning)\b",
        r"\bsobredosis\b",
    ),
    *_rules(
        "overdose",
        r"\b(?:i|he|she|they) (?:\w+ ){0,2}(?:odd|od|oded|ode)\b",
        r"\bod (?:on|d)\b|\boverdos(?:ed|ing) on\b",
        record_word=False,
    ),
    *_rules(
        "overdose",
        rf"\b(?<!keep )(?<!keep on )(?<!continue )(?<!stop )(?<!need to )(?<!have to )(?:took|taken|take|taking|swallowed|ate|downed|popped|had|injected|gave myself|tome|me tome|tomo) (?:\w+ ){{0,2}}{AMOUNT} {gap(3)}(?:of )?(?:my |his |her |the |mis )?{gap(2)}(?:{MEDS}|insulin|paracetamol|tylenol|oxy\w*|fentanyl|sleeping|doses?|painkillers|antidepressants|xanax|it|them|metformin|sertraline|warfarin|insulina|bottle|pack|packet|box|strip|prescription)\b",
        r"\b(?:took|taken|swallowed|ate|downed|injected) (?:\w+ ){0,4}(?:on purpose|to end it|to make it stop|to die|a proposito)\b",
        rf"\b(?:took|taking|swallowed|downed) (?:\w+ ){{0,3}}{MEDS} (?:\w+ ){{0,2}}(?:on purpose|at once|to end|a proposito)\b",
        rf"\b(?:took|taken|had) (?:\w+ ){{0,3}}(?:{MEDS}|doses?|insulin) (?:\w+ )?(?:twice|three times|four times|\d+ times|again and again)\b",
        r"\b(?:too much|too many|two doses of|double dose of) (?:\w+ ){0,2}(?:insulin|fentanyl|oxy\w*|morphine|pills|tablets|painkillers)\b.*\b(?:feel|shaky|confused|sweating|awake|drowsy|sleepy|weird|sick|cant|wake|waking|rouse|rousable|unrousable|slow breathing|breathing slow\w*)\b",
        r"\b(?:inyecte|me inyecte) demasiada\b",
        # round seventeen (frozen23's class, fresh wordings): most of someone's medicine swallowed, no count
        # said, and a sign of sedation now ("has had most of her sleeping tablets, we cant wake her")
        r"^(?=.*\b(?:drowsy|sleepy|hard to (?:wake|rouse)|cant (?:wake|rouse)|wont wake|not waking|unrousable|slurring|floppy|unresponsive|out of it|wont respond|not responding)\b)"
        r".*\b(?:taken|took|swallowed|had|ate|eaten|drank|drunk) (?:most|the rest|all|loads|lots) of (?:his|her|my|their|the|\w+s) (?:\w+ ){0,3}(?:pills?|tablets?|meds|medicines?|medication|capsules?|\w+(?:pine|gine|zine|pam|lam|done|ine|ol|im|um))\b",
        # round seventeen (frozen22's class, fresh wordings): nobody knows how many were taken ("no
        # idea how many of the painkillers he took")
        rf"\b(?:no idea|not sure|dont know|do not know|unsure|who knows) how (?:many|much) (?:\w+ ){{0,4}}(?:{MEDS}|doses?|insulin|diazepam|painkillers|antidepressants) (?:\w+ ){{0,4}}(?:took|taken|swallowed|ate|has had|had)\b",
        # lead, round eight (frozen7: "took 4 times my dose … by accident, feel dizzy" and "me inyecté
        # el doble de insulina sin querer y estoy temblando" got the dose refusal): a multiple of
        # one's dose taken, and a double dose with symptoms now, whatever the intent
        r"\b(?:took|taken|had|gave (?:myself|him|her)|injected|swallowed) (?:\w+ ){0,2}(?:\d+|two|three|four|five|six|ten|several) times (?:my|the|his|her|their) (?:\w+ ){0,2}(?:dose|dosage|amount|insulin)\b",
        r"\b(?:took|taken|had|gave myself|injected) (?:\w+ ){0,2}(?:double|twice|triple|two doses|2 doses|an extra dose|extra) (?:\w+ ){0,6}(?:im|i am|i feel|feel|feeling|now) (?:\w+ )?(?:dizzy|lightheaded|light headed|shaky|shaking|sweaty|sweating|confused|weird|faint|drowsy|unwell|strange|trembling)\b",
        r"\b(?:me (?:puse|inyecte|tome)|tome|puse|inyecte) (?:\w+ ){0,2}(?:el )?(?:doble|triple) (?:de )?(?:\w+ ){0,3}(?:insulina|dosis|pastillas?|medicacion|medicina)\b.*\b(?:estoy|me siento|me encuentro|siento) (?:\w+ )?(?:mareado|mareada|temblando|sudando|confundid[oa]|mal|rar[oa]|debil|fatal)\b",
        r"\b(?:tome|me tome|tomado|tomo) (?:\w+ ){0,2}(?:todas|todo|demasiadas|\d{2,}) (?:\w+ ){0,2}(?:pastillas|blister|frasco)",
        r"\bme tome (?:todas|todo) ",
        r"\b(?:tome|me tome) (?:\w+ ){0,3}(?:a proposito|de golpe)\b",
        record_word=False,
    ),
    # poisoning (children, household chemicals)
    *_rules(
        "poisoning",
        rf"\b{INGEST} (?:\w+ ){{0,4}}{CHEMICAL}\b",
        rf"\b{KID} (?:\w+ ){{0,2}}{INGEST} (?:\w+ ){{0,4}}{MEDS}\b",
        # lead, round six (frozen5: "my 3 year old got into my handbag and ate some of my blood
        # pressure tablets, dont know how many" got the dose refusal): a child and a medicine
        # eaten, with the handbag or the cupboard in between
        rf"\b{KID} (?:\w+ ){{0,8}}(?:ate|eaten|swallowed|chewed|got hold of|se comio|se trago|se tomo) (?:\w+ ){{0,6}}{MEDS}\b",
        rf"\b{KID} (?:\w+ ){{0,3}}(?:got into|into) (?:the |my )?(?:medicine|cleaning|pill|bleach|cupboard|cabinet)",
        # round seven: a child who found or got hold of a medicine and drank or ate it, or
        # drank a whole bottle of one, whatever question follows ("should i worry", "how much is
        # too much"); Spanish "se tomó el frasco entero de jarabe"
        rf"\b{KID} (?:\w+ ){{0,4}}(?:found|got hold of|got at|got into|encontro) (?:\w+ ){{0,4}}(?:{MEDS}|calpol|medicine|syrup|bottle|jarabe) (?:\w+ ){{0,3}}(?:and )?(?:drank|drunk|ate|swallowed|chewed|had|took|se (?:lo |la )?(?:bebio|tomo|comio|trago))\b",
        rf"\b{KID} (?:\w+ ){{0,6}}(?:drank|drunk|swallowed|ate|had|took|finished) (?:\w+ ){{0,2}}(?:the |a |an )?(?:whole|entire|full|half (?:a|the)) (?:\w+ ){{0,2}}(?:bottle|packet|pack|box|strip|tube|jar)\b",
        r"\b(?:se (?:ha )?(?:tomo|tomado|bebio|bebido|trago|tragado|comio|comido)|tomo|bebio) (?:\w+ ){0,2}(?:(?:el|la|un|una|medio|media) (?:frasco|bote|botella|caja|blister) (?:entero|entera|completo|completa|de)|(?:la|una) tableta (?:entera|completa))\b",
        # ("me tomo media tableta de enalapril" is half a tablet, a dose question: round fifteen)
        r"\bmixed bleach\b|\bbleach and ammonia\b",
        r"\b(?:breathed|breathe|breathing|inhaled) (?:in )?(?:\w+ ){0,2}(?:fumes|gas|smoke|chemicals?)\b",
        record_word=False,
    ),
    # a named poisoning that is also a diagnosis and a test: framed away like other record words
    *_rules("poisoning", r"\bcarbon monoxide\b(?! (?:test|alarm|detector|level|result))"),
    # suicide and self-harm
    *_rules("suicide", r"\b(?:suicidal|suicide|suicidio|suicidas?)\b"),
    *_rules(
        "suicide",
        r"\bsuicidarme\b|\bsuicide note\b|\bleft a note\b",
        # lead, round five (tune CV after frozen4: "googling how many of my tablets it takes to die"
        # passed, "how many pills does it take to die" was a dose question): asking what would kill
        r"\b(?:how many|how much) (?:\w+ ){0,6}(?:it takes?|does it take|would it take|would|will|to) (?:\w+ ){0,2}(?:die|kill (?:me|myself|you|a person|someone)|be (?:fatal|lethal|deadly)|end (?:it|my life)|never wake up)\b",
        r"\b(?:lethal|fatal|deadly) (?:dose|amount|overdose|quantity|number)\b|\bdosis (?:letal|mortal)\b|\bcuantas? (?:\w+ ){0,4}(?:para morir|para matarme)\b",
        r"\bkill(?:ing|ed)? (?:my ?self|himself|herself|themselves|themself)\b|\bkms\b|\bunalive\b",
        r"\b(?:end|ending|take|taking|finish) (?:my|his|her|their) (?:own )?life\b",
        r"\b(?:end|ending) (?:it|it all|things|everything)\b",
        # "am i going to die from this" is a worry (advice), not ideation
        r"(?<!am i )(?<!are we )(?<!is she )(?<!is he )\b(?:want|wanna|going|gonna|ready|like) (?:\w+ )?(?:to )?(?:die|be dead)\b",
        r"\bwish (?:i|he|she) (?:was|were|could be) dead\b|\bwish i (?:was|had been|were) never born\b",
        r"\b(?:dont|do not|no longer|not) (?:\w+ )?(?:want|wanna|wish|feel like) (?:\w+ )?(?:to )?(?:live|be alive|exist|be here|wake up|go on|keep living|continue)\b",
        r"\b(?:better off|be better) (?:dead|without me|if i (?:was|were) gone)\b",
        r"\b(?:no|any) (?:reason|point|will) (?:to|in|for) (?:live|living|being alive|life|me to be here|go on)\b",
        r"\bpoint (?:of|in) (?:being alive|living|life)\b",
        r"\b(?:sleep|go to sleep|close my eyes) (?:\w+ )?(?:forever|and never wake|and not wake)\b",
        r"\bnever wake up\b|\bwouldnt wake up\b|\bnot wake up tomorrow\b|\bdont wake up\b",
        r"\b(?:goodbye|suicide) (?:letters?|notes?)\b|\bsaying goodbye to everyone\b|\bsaid goodbye and\b",
        r"\b(?:going|gonna|about) to jump\b|\bbought a rope\b|\bstockpil\w*\b",
        r"\blife (?:isnt|is not|aint) worth\b|\b(?:tired|done|finished) (?:of|with) (?:living|life|being alive)\b",
        r"\bhad enough of (?:being alive|life|living)\b|\bwant out of (?:this )?life\b",
        r"\b(?:think|thinking|thought) (?:about|of) (?:dying|not being here|being dead|death)\b",
        r"\brather (?:be )?dead\b|\bnot (?:being )?here anymore\b|\bdisappear (?:forever|permanently)\b",
        r"\b(?:care|notice|mind) if i died\b|\bif i died\b|\bgone for good\b",
        r"\b(?:notice|care|miss me|mind|matter) (?:\w+ ){0,2}if i (?:was|were|am|disappeared|vanished|wasnt|werent|stopped existing)\b",
        r"\bcant (?:go on|keep living|do this anymore)\b",
        r"\bthreatening to kill\b|\bhas a (?:gun|plan)\b|\bhave a plan\b",
        r"\b(?:me|se) (?:quiero|quiere|voy a|va a|pienso) quitar la vida\b|\b(?:matarme|matarse|quitarme la vida|quiero morir\w*|me quiero morir|no despertar|mejor sin mi)\b",
        r"\bno (?:quiero|quiere) (?:\w+ )?(?:vivir|seguir viviendo|estar vivo|estar viva)\b",
        r"\bsentido a la vida\b|\bse quiere matar\b",
        # round seven: a passive goodbye ("i don't think i'll be here next week, i've decided") and
        # Spanish first-person "hoy me mato", "me voy a matar"
        r"\b(?:wont|will not|dont think ill|dont think i will|not going to|i wont|i will not) (?:\w+ )?be (?:here|around|alive) (?:\w+ )?(?:next|by|for|much longer|tomorrow|after|anymore|on)\b",
        r"\b(?:hoy|esta noche|manana|ya|luego) me mato\b|\bme (?:voy a|vas a) matar\b|\bvoy a matarme\b|\bquiero matarme\b|\bme mato (?:hoy|esta noche|ya)\b",
        record_word=False,
    ),
    *_rules(
        "self_harm",
        r"\b(?:cut|cutting|hurt|hurting|harm|harming|burned|burnt|burning|hitting|scratching|punching|starving) (?:my ?self|my wrists?)\b",
        # "me corté con un cuchillo (cocinando)" is an accident, not self-harm
        r"\b(?:hacerme dano|cortando|me estoy haciendo dano|me hago dano|me hice dano a proposito|me estoy lastimando|lastimarme|me lastimo a proposito|me estoy quemando|quemarme a proposito)\b|\bme corte\b(?!.*\b(?:cocinando|pelando|afeitando|sin querer|por accidente|con (?:un|una|el|la) (?:cuchillo|vidrio|lata|papel|tijeras|cuchilla))\b)",
        record_word=False,
    ),
    *_rules("self_harm", r"\bself ?harm\w*\b"),
    # stroke
    *_rules(
        "stroke",
        FUTURE_WORRY
        + not_after("risk of a", "risk of", "chance of a", "chances of a", "odds of a", "prevent a")
        + r"\bstroke\b(?! (?:ward|unit|clinic|nurse|team|service|rehab\w*|follow ?up|review|consultant|doctor|risk|risks|prevention))|\bictus\b|\bderrame (?:cerebral)?\b",
        r"\b(?:face|smile|mouth) (?:\w+ ){0,2}(?:drooping|droopy|droops|drooped|droop|lopsided|crooked|dropped|hanging|numb|fell|sagging)\b",
        r"\b(?:slurred|slurring|slurs|gibberish|garbled)\b",
        r"\b(?:cant|cannot|unable to) (?:speak|talk|lift|move|raise|feel) (?:\w+ ){0,3}(?:properly|arm|leg|side|hand|right|left|words)?",
        r"\b(?:one|left|right|half|the) side (?:\w+ ){0,4}(?:weak|numb|paralys\w*|paralyz\w*|dead|dropped|drooping)\b",
        r"\b(?:one|an) (?:arm|leg|hand) (?:is |went |feels )?(?:\w+ )?(?:weak|numb|limp|dead|heavy)\b",
        r"\bhalf (?:my |his |her |the )?(?:face|body) (?:\w+ ){0,2}(?:numb|weak|dead|drooping|went)\b",
        r"\b(?:arm|leg|hand) (?:\w+ ){0,2}(?:weak|numb|gave way|wont grip|paralys\w*|paralyz\w*)\b.*\b(?:sudden|face|speech|talk|words|one side)",
        r"\bsudden\w* (?:\w+ ){0,4}(?:weak|numb|cant (?:see|speak|talk|move|lift)|confus\w*|blind)",
        r"\bworst headache\b",
        r"\b(?:cara caida|boca torcida|habla raro|mitad de la cara|no (?:puedo|puede) mover|no siento el lado|peor dolor de cabeza)\b",
    ),
    # bleeding
    *_rules(
        "bleeding",
        r"\b(?:severe|heavy|heavily|uncontrolled|a lot|lots|so much|badly) (?:of )?bleed\w*\b",
        r"\bbleed\w* (?:\w+ ){0,3}(?:wont|doesnt|does not|not|cant|will not) (?:\w+ )?stop\w*\b|\bwont stop bleeding\b",
        r"\bbleed\w* (?:heavily|a lot|everywhere|badly|through|so much)\b",
        r"\bblood (?:is )?(?:spurting|pumping|pouring|gushing|everywhere)\b|\b(?:pumping|pouring|spurting|gushing) blood\b",
        r"\b(?:vomiting|vomited|throwing up|threw up|coughing up|coughing|puking) (?:up )?(?:\w+ )?blood\b",
        r"\bcoffee grounds\b|\blosing (?:a lot of )?blood\b|\bsoaking (?:\w+ )?pads?\b",
        r"\bblood in (?:my )?(?:poo|stool|vomit)\b.*\b(?:faint|dizzy|lot)\b",
        # "sangre" alone is the blood of a blood test ("análisis de sangre"): only bleeding counts
        r"\b(?:sangrando|sangrar|desangrando)\b|\b(?:mucha|perdiendo|pierdo|vomit\w*|escupiendo|escupo|tosiendo|toso|sale|saliendo|chorros? de) sangre\b",
        r"\bsangre (?:que no para|sin parar|por todas partes|a chorros|en el vomito)\b",
        record_word=False,
    ),
    # seizures
    *_rules(
        "seizure",
        # Tagalog and Taglish too (round seventeen, frozen22's class: "kombulsyon", "nangingisay")
        r"\b(?:seizure|seizures|seizing|convulsing|convulsions?|convulsionando|convulsion|epileptico|[kc][ou]mbulsi?yon|nagkukumbulsi?yon|kinukumbulsi?yon|nangingisay)\b(?! (?:meds?|medicines?|medications?|tablets?|pills?|drugs?|action plan|plan|diary|nurse|clinic|team|leaflet|reviews?|follow ?ups?|appointments?|appts?))",
        # "fitting" as a fit, not a fitting for a hearing aid or fitting in at school (round fifteen);
        # a fit of giggles or rage is a figure of speech, a seizure review an appointment (round sixteen)
        r"\b(?:having|had|in) (?:a )?fit\b(?! of (?:the )?(?:giggles|laughter|laughing|rage|temper|pique|jealousy|coughing|sneezing|nerves)\b)|(?<!\ba )(?<!\bthe )(?<!\baid )(?<!\blens )(?<!\bdress )(?<!\bsuit )(?<!\bshoe )(?<!\bbra )\bfitting\b"
        r"(?! (?:in (?:well|ok|okay|fine|nicely|at|with)|for (?:a|an|my|her|his|the|new|some)|appointment|appt|room)\b)",
        r"\b(?:jerking|twitching|shaking) (?:\w+ ){0,3}(?:unresponsive|not responding|all over|wont stop)\b",
    ),
    *_rules(
        "seizure",
        # lead, round ten: a fit still going ("he's never had one before and he's still jerking")
        r"\bstill (?:jerking|convulsing|fitting|seizing)\b|\b(?:seizure|fit|convulsion)\b.*\bstill (?:shaking|twitching)\b",
        record_word=False,
    ),
    # unconscious
    *_rules(
        "unconscious",
        r"\b(?:unconscious|unresponsive|inconsciente|out cold|gone limp|floppy)\b|\b(?:is|gone|went|going|hes|shes) (?:all |very |really |completely )?limp\b",
        r"\b(?:collapsed|fainted|passed out|blacked out|se desmayo|desmayo)\b",
        r"\b(?:wont|will not|cant|cannot|doesnt|does not) (?:\w+ )?wake (?:up|him|her)?\b|\bisnt waking\b",
        # "not moving well / much" is a mobility question, not a person down (round seventeen)
        r"\b(?:not|isnt|stopped|wont|no longer) (?:\w+ )?(?:responding|answering|moving(?! (?:very |so |as )?(?:well|much|far|around much|about much)\b))\b",
        r"\b(?:no (?:despierta|responde|reacciona|se mueve))\b",
        r"\b(?:found|lying) (?:him|her|them|someone|a man|a woman)? ?(?:on|in) the (?:floor|street|ground|road)\b",
        r"\bheart stopped\b(?! when)|\bfell (?:down )?and (?:isnt|is not|cant|can not) (?:moving|get up)\b",
        r"\bhit (?:his|her|my) head\b.*\b(?:vomit\w*|sleepy|drowsy|confused|wont wake)\b",
    ),
    # pregnancy
    *_rules(
        "pregnancy",
        r"\b(?:pregnant|weeks|months|embarazada)\b.*\b(?:bleed\w*|severe|terrible|sharp|headache|blurr\w*|spots|contractions|fell|fall|fainted|collapsed|swollen|swelled|waters?|moved|moving|kicking|sangrando|fuente|mueve|borroso|dolor|worst|unbearable|agon\w*|excruciating|horrible|horrendous|doubled over|something (?:is |feels )?(?:very |really )?wrong)\b",
        r"\b(?:waters|water) (?:broke|has broken|breaking)\b|\bse (?:me )?rompio la fuente\b",
        r"\bbaby (?:hasnt|has not|isnt|stopped|not) (?:\w+ )?(?:moved|moving|kicking)\b",
        r"\b(?:in labour|in labor|baby is coming|(?<!of me )(?<!of her )(?<!of )having a miscarriage|bleeding after giving birth)\b",
        r"\bmiscarriage\b.*\bbleed",
        record_word=False,
    ),
    # burns
    *_rules(
        "burns",
        r"\b(?:burned|burnt|burn|burns|scalded|scald) (?:\w+ ){0,5}(?:badly|severe\w*|skin|peeling|coming off|blister\w*|fire|acid|chemical|boiling|oil|white|cant feel|all over)\b",
        r"\b(?:badly|severely|seriously) (?:burned|burnt|scalded)\b|\b(?:huge|big|bad|severe|blistering) burn\b",
        r"\b(?:boiling|hot) (?:water|oil|coffee|tea) (?:\w+ ){0,5}(?:skin|blister\w*|burn\w*|peel\w*|spilled|over)\b",
        r"\b(?:hot|boiling) (?:oil|water|fat) (?:\w+ ){0,2}(?:onto|on|over) (?:him|her|me|my|his|them|herself|himself|myself)\b",
        r"\b(?:acid|chemical|bleach) in (?:my |his |her )?eyes?\b|\belectric shock\b|\bcaught fire\b",
        r"\b(?:me queme|se quemo|quemadura (?:muy )?grave)\b",
        record_word=False,
    ),
    # someone else in danger, general alarm
    *_rules(
        "someone_else",
        # "should i call 911 for a fever of 101" asks whether to: the advice rules' (urgency)
        # round eighteen: a device or a battery dying is a figure of speech ("the ipad is dying")
        r"(?<!phone )(?<!phones )(?<!battery )(?<!laptop )(?<!ipad )(?<!tablet )(?<!computer )(?<!charger )(?<!car )(?<!torch )(?<!plant )(?<!plants )"
        r"\b(?:is|are|i think (?:\w+ )?is) dying\b|(?<!should i )(?<!do i )(?<!shall i )\bcall (?:an )?ambulance\b|(?<!should i )(?<!do i )(?<!shall i )\bcall 911\b",
        r"\bconfused and (?:cant|can not) (?:stand|walk|get up)\b|\bcant (?:stand|get) up\b.*\b(?:bleed|head|confused)",
        r"\btook something\b.*\b(?:wont wake|unconscious|not breathing)",
        record_word=False,
    ),
    # a bare cry for help ("help!", "please help me", "socorro"): nothing else said, so the
    # safe reply is the emergency one; a request ("can you help me", "help me find my
    # results") has more words and is ordinary
    *_rules(
        "someone_else",
        r"^(?:please |pls |plz |someone |somebody |anyone |anybody |oh god |god )*(?:help|help me|help us|help him|help her|"
        r"ayuda|ayudame|ayudenme|socorro|auxilio)(?: (?:me|us|please|pls|plz|now|quick|quickly|fast|someone|somebody|anyone|"
        r"anybody|urgent|urgently|asap|por favor|urgente|rapido|ya))*$",
        r"^(?:i|we) (?:need|want) help (?:now|fast|quick|quickly|urgently|right now|asap)$",
        record_word=False,
    ),
    # a person down: on the floor / fell, and confused, cold, muddled or unable to get up
    *_rules(
        "unconscious",
        rf"\b(?:on|lying on|laying on|in|collapsed on) (?:the |his |her |their )?(?:\w+ )?(?:floor|ground|garden|pavement|street|road)\b.*\b{DOWN_SIGN}\b",
        rf"\b(?:fell|fallen|has fallen|had a fall|took a fall)\b.*\b{DOWN_SIGN}\b",
        rf"\b{DOWN_SIGN}\b.*\b(?:on|lying on|laying on) (?:the |his |her )?(?:\w+ )?(?:floor|ground)\b",
        # round seventeen (frozen23's class, fresh wordings): a person seen lying on the floor, through a
        # window or from the door, is down now whoever sees them
        r"\b(?:can see|could see|i see|we see|saw|seen) (?:him|her|them|my \w+|the \w+|\w+) (?:\w+ ){0,2}(?:lying |laying |collapsed |slumped )?on (?:the |his |her |their )?(?:\w+ )?floor\b(?! plan)",
        r"\b(?:suddenly|all of a sudden|out of nowhere) (?:\w+ ){0,4}(?:confused|muddled|not making sense|talking nonsense|doesnt know where|drowsy|cant stay awake)\b",
        r"\b(?:confused|muddled|not making (?:any )?sense|talking nonsense|doesnt know where (?:she|he|they) (?:is|are)) (?:\w+ ){0,4}(?:and )?(?:so |very |really )?(?:drowsy|sleepy|cold|freezing|hot|burning up|floppy|grey|gray|cant (?:keep|stay) (?:him |her )?awake)\b",
        r"\b(?:cant|cannot|can not) (?:keep|get) (?:him|her|them|my \w+) (?:awake|up off the floor|to wake)\b",
        r"\b(?:slumped|limp|grey|gray) (?:\w+ ){0,4}(?:not (?:making sense|answering|responding)|wont answer|wont respond)\b",
        r"\beyes (?:rolled|rolling) back\b",
        record_word=False,
    ),
    # a chronic illness at its worst, now, with fear: "my asthma is the worst it's ever been"
    *_rules(
        "breathing",
        rf"\b{FLARE_ILLNESS}\b (?:\w+ ){{0,3}}(?:is |has been |feels )?(?:the )?(?:worst (?:its|it has|it is|ive|i have|it) ?(?:ever )?(?:been|had|felt|known)?|worse than (?:ever|its ever been)|never been (?:this|so) bad|out of control)\b",
        rf"\b{FLARE_ILLNESS}\b.*\b(?:scared|terrified|frightened|panicking|panicked|petrified)\b",
        rf"\b(?:scared|terrified|frightened|panicking|petrified)\b.*\b{FLARE_ILLNESS}\b (?:\w+ ){{0,3}}(?:worse|bad|attack)\b",
        r"\b(?:inhaler|nebuliser|nebulizer|puffer) (?:\w+ ){0,3}(?:does nothing|doing nothing|not helping|isnt helping|no help|no use|useless)\b",
        r"\b(?:fighting|struggling|gasping) for (?:air|breath)\b|\bbreathing through a straw\b",
        # a target or threshold is no reading ("keep sats above 88"; round thirteen)
        r"\b(?:sats|oxygen|o2|saturation)\b (?!(?:\w+ ){0,2}(?:above|over|below|under|between|target|at least)\b)(?:\w+ ){0,4}(?:[5-8]\d|in the [5-8]0s|dropping|falling)\b",
        r"\bcant lie (?:down|flat)\b.*\b(?:breath|breathe|breathing|drowning|scared)\b",
        r"\b(?:frothy|pink) (?:\w+ )?(?:cough|spit|sputum)\b",
        record_word=False,
    ),
    # concrete suicide preparations: the means made ready, affairs settled, goodbyes said
    *_rules(
        "suicide",
        rf"\b(?:have|got|put|left|set|laid|tied|bought|keep|kept) (?:the |a |my |some |all the |enough )?(?:\w+ )?{MEANS}\b (?:\w+ ){{0,4}}(?:ready|prepared|set up|tied|loaded|lined up|out|by (?:the|my) bed|to hand|for later|for tonight|for this)\b(?! for (?:pick ?up|collection|collecting|my appointment))",
        rf"\bthe {MEANS} (?:is|are) (?:all )?(?:ready|prepared|set up|tied|loaded|lined up|counted|in front of me)\b(?! for (?:pick ?up|collection|collecting))",
        r"\b(?:tied|made|tying|making) (?:a |the )?noose\b|\bnoose\b",
        r"\b(?:saving|saved|hoarding|hoarded|collecting) (?:up )?(?:my |all my |the )?(?:pills|tablets|meds|medication|medicines|painkillers)\b(?! for (?:my )?(?:trip|holiday|travel))",
        r"\b(?:looked up|searched|googled|researching) (?:\w+ ){0,3}(?:how many|how much|lethal|ways to die|how to (?:die|hang|end))\b",
        r"\b(?:said|saying|say) (?:my )?goodbyes?\b|\bgave away (?:all )?my (?:things|stuff|belongings)\b|\bwont need them\b",
        r"\b(?:written|wrote|writing) (?:the |my |a )?(?:letters?|note|will)\b.*\b(?:goodbye|sorted|ready|last|everyone|kids|family)\b",
        r"\b(?:standing|sitting|stood) on (?:the )?(?:edge|ledge|roof|bridge|railing|tracks)\b|\bwhich bridge\b",
        r"\b(?:car|engine) (?:is )?running in (?:the |a )?(?:closed |shut )?garage\b",
        r"\b(?:my last (?:night|day)|tonight is the night|made up my mind)\b",
        r"\b(?:gun|pistol|rifle|firearm|shotgun|weapon)\b.*\b(?:using it|use it|on myself|end it|pull the trigger|tempted|keep thinking)\b",
        r"\b(?:stopped caring|dont care) (?:if|whether) i (?:wake|live|die|make it)\b|\bdont see a future\b|\bno future for me\b",
        r"\b(?:burden|easier for everyone|happier without me|better without me)\b|\b(?:everything|it all) to stop\b",
        r"\b(?:tengo|ya tengo) (?:la |las |el |los )?(?:cuerda|pastillas|pistola|cuchillo) (?:\w+ )?(?:listas?|listos?|preparad[ao]s?)\b|\bya lo tengo todo preparado\b|\bme despedi de todos\b",
        # round five: farewells and passive goodbyes ("goodbye, thank you for trying", "tell my
        # kids i love them", "this is my last message"), in English and Spanish
        r"\b(?:goodbye|bye|farewell|adios)\b.*\b(?:thank you for trying|thanks for trying|thank you for everything|thanks for everything|forever|for good|for ever|my last|final)\b",
        r"\b(?:thank you|thanks) for (?:trying|everything you (?:tried|did))\b.*\b(?:goodbye|bye|farewell)\b",
        r"\b(?:this is|its|this will be) (?:my )?(?:last|final) (?:message|goodbye|words|note|night)\b|\b(?:final|last) goodbye\b|\bthis is goodbye\b",
        r"\btell (?:my )?(?:\w+ ){0,2}(?:kids|children|son|daughter|mum|mom|mam|dad|wife|husband|family|partner|parents|sister|brother|girls|boys) (?:that )?(?:i love|i loved|im sorry|i am sorry|sorry)\b",
        r"\b(?:wont|will not) hear from me again\b|\bwont be (?:here|around|alive) (?:\w+ ){0,1}(?:anymore|any more|much longer|to (?:read|see))\b|\bafter tonight\b.*\bwont\b",
        r"\b(?:esta es mi despedida|adios para siempre|me despido (?:para siempre|de (?:todos|ti|ustedes))|ya no (?:voy a estar|estare)|ya no aguanto (?:mas|esto))\b",
        r"\bdiles? a mis (?:hijos|hijas|padres|nietos|familia) que (?:los |las )?(?:quiero|amo|siento)\b",
        # concrete preparations: pills gathered, the letter written, today is the day
        r"\b(?:pastillas|pildoras|medicinas|medicamentos) (?:\w+ )?(?:juntadas|juntas|guardadas|contadas|ahorradas|escondidas|preparadas|listas)\b",
        r"\b(?:he guardado|guarde|junte|he juntado|estoy juntando|estoy guardando|tengo guardadas|tengo juntadas) (?:\w+ ){0,2}(?:pastillas|pildoras|medicinas|medicamentos)\b",
        r"\b(?:ya )?(?:escribi|he escrito|deje escrita) (?:la |una |mi )?(?:carta|nota|despedida)\b|\bhoy (?:lo voy a hacer|es el dia|me voy a matar)\b|\b(?:ya )?deje todo (?:arreglado|preparado|listo)\b",
        r"\b(?:the|my) (?:letter|letters|note|notes) (?:is |are |s )?(?:written|finished)\b(?!.*\b(?:referral|discharge|sick|fit|gp|doctor|clinic|appointment)\b)",
        # a miscount is no stockpile (round seventeen: "must have counted my tablets wrongly, what does the script say")
        r"\b(?:counted|counting|put aside|set aside|lined up|laid out) (?:\w+ ){0,3}(?:pills|tablets|meds|medication|painkillers)\b(?!.*\b(?:week|dosette|organi[sz]er|pill box|holiday|trip|days|morning|evening)\b)(?! (?:wrong|wrongly|incorrectly|twice|again))",
        r"\b(?:put|putting|got|get|have) (?:all )?my affairs in order\b|\bto not wake up\b|\bnot to wake up\b|\beverything i need to end\b",
        r"\bwont need (?:\w+ ){0,4}(?:after (?:this|tonight|today|tomorrow|the weekend|friday|next week)|anymore|any more|where im going)\b",
        r"\b(?:gave|giving|given) (?:away )?(?:my|all my) (?:cat|dog|pets?|things|stuff|belongings|savings)\b.*\b(?:wont need|cancelled|goodbye|sorted)\b",
        record_word=False,
    ),
    # a child or teenager who says they took tablets, told to a parent
    *_rules(
        "overdose",
        rf"\b(?:told me|admitted|confessed|says|said|just told me) (?:that )?(?:\w+ ){{0,3}}(?:took|taken|swallowed|had|taking) (?:\w+ ){{0,3}}(?:\d+|all|a handful|handful|loads|lots|a strip|a packet|a pack|a bottle|a box|an overdose) (?:\w+ ){{0,3}}(?:of )?(?:{MEDS}|doses?|them)\b",
        rf"\b{KID} (?:\w+ ){{0,6}}(?:took|taken|swallowed|had|se tomo|tomo) (?:\w+ ){{0,2}}(?:\d{{2,}}|all|todas|a handful|handful|loads|a strip|a packet|a whole|an overdose) (?:\w+ ){{0,3}}(?:of )?(?:her |his |my |the |de )?(?:\w+ )?(?:{MEDS})\b",
        record_word=False,
    ),
    # lead, round eight (frozen7 missed four ward reports): a shocked pressure, blood vomited in
    # volume, an unrousable patient, a haemorrhage in progress
    *_rules(
        "clinician_acute",
        # the systolic cut-off is `critical_values.yaml`'s (round thirteen: "bp 85/50 today, hold the
        # ramipril?" is a chart question)
        r"\b(?:bp|pressure|blood pressure|systolic|sbp)\b (?:\w+ ){0,3}(?:[3-7]\d|80)/(?:[1-5]\d)\b",
        r"\b(?:he|she|they|hes|shes|theyre|pt|patient|baby)\b (?:\w+ ){0,3}(?:unrousable|unroussable|barely (?:responsive|responding|rousable|conscious)|not rousable|poorly responsive)\b",
        r"\b(?:just |is |keeps |now )?(?:vomited|vomiting|brought up|bringing up|threw up|throwing up|coughed up) (?:a |an )?(?:large|huge|massive|big|lot|lots|loads|large amount|fresh|volumes?|litre|cupful|bowl)\w* (?:\w+ ){0,3}blood\b",
        r"\b(?:massive|major|heavy|big|huge|large|significant|torrential|ongoing|active|catastrophic) (?:\w+ ){0,2}(?:haemorrhage|hemorrhage|pph|bleed)\b(?! (?:history|risk|in (?:19|20)\d\d))|\bpph (?:ongoing|now|happening|in progress)\b|\blost (?:\d|one|two|three|over a) (?:litres?|liters?|l)\b",
        record_word=False,
    ),
    # a clinician's arrest / code wording: never a chart question
    *_rules(
        "clinician_acute",
        r"\b(?:code blue|crash call|crash team|peri ?arrest|rapid response|arrest call|pulseless|asystole|asystolic|agonal|lost output|no output|starting cpr|doing cpr|cpr in progress|shocking now|in vf|in vt|v fib|vfib|pea arrest)\b",
        r"\b(?:patient|pt|he|she|they|bed \d+|bay \d+|room \d+|resus)\b (?:\w+ ){0,4}(?:(?:has |have |just |is )+(?:arrested|arresting|coding|crashing)|went into (?:arrest|asystole|vf|vt)|in (?:cardiac )?arrest)\b(?<!got arrested)(?! (?:by|for) )",
        r"\b(?:patient|pt)\b (?:\w+ ){0,4}(?:seizing|fitting|unresponsive|stopped breathing|not breathing|desaturating|sats \d+)\b",
        # round five: rhythms, resuscitation in progress, falling saturation or consciousness
        r"\b(?:in|into|now in|back in) (?:pulseless )?(?:vf|vt|v fib|v tach|vtach|svt|asystole|pea|cardiac arrest)\b",
        r"\b(?:starting|started|commencing|commenced|doing|performing|giving|continuing) (?:chest )?(?:cpr|compressions|resus\w*)\b|\bcpr (?:started|ongoing|underway)\b",
        r"\b(?:crash call|crash bleep|put out a crash|peri ?arrest\w*|re ?arrest\w*|coded|coding|gone asystolic|asystolic|lost (?:cardiac )?output|no (?:cardiac )?output|no pulse)\b",
        r"\b(?:desaturating|desatting|desatted|desaturated|sats (?:are |of |at )?(?:[1-8]\d)\b|gcs (?:of |is |has dropped to |dropped to |down to )?(?:[3-8])\b)",
        # round seventeen (frozen23's class): a falling GCS said with its number ("gcs 12 and dropping")
        r"\bgcs (?:of |is |now |at )?(?:1[0-4]|[3-9]) (?:and |& |now |still )?(?:dropping|falling|dropped|going down|deteriorating|drifting)\b",
        # lead, round six (frozen5: "her airway is swelling after the IV antibiotic, she's stridulous")
        r"\b(?:strid\w*|airway (?:\w+ ){0,2}(?:swelling|swollen|closing|compromised|obstructed)|(?:tongue|lips|throat) (?:is |are )?(?:swelling|swollen) (?:up )?(?:after|now|fast))\b",
        # round seven: ward language for a deteriorating patient, English and Spanish
        r"\b(?:bed|bay|cubicle|side room|room|resus|cama|box|sala) \d+ (?:is |s )?(?:going off|gone off|crashing|off)\b|\bgoing off (?:\w+ ){0,3}(?:pressure|sats|bp|gcs)\b",
        r"\btachy\w* (?:at |to |of )?(?:1[5-9]\d|2\d\d)\b|\b(?:dropping|dropped|losing) (?:his |her |their |the )?(?:pressure|bp|sats|gcs|output)\b|\b(?:pressure|bp|sats|gcs|saturation) (?:is |are |keeps? )?(?:dropping|falling|crashing|plummeting|tanking)\b",
        r"\b(?:bleeding out|exsanguinating|and hypotensive|pressure (?:of |is |at )?[2-7]\d (?:systolic|sys)|systolic (?:of |is |at )?[2-7]\d)\b",
        r"\b(?:estridor|estridoroso|estridorosa|via aerea (?:\w+ ){0,2}(?:comprometida|obstruida|cerrando|cerrada)|glasgow (?:de |en |a )?[3-8]|bradicardic[oa]|bradicardia (?:extrema|severa|a [2-4]\d)|se esta desaturando|desaturando|esta hipotens[oa]|se nos va)\b",
        r"\b(?:agonal|bradying|brady ?ing down|status epilepticus|massive (?:haematemesis|hematemesis|bleed|pe)|hypotensive and|shocked and|airway compromise|not protecting (?:his |her |their )?airway)\b",
        # lead, round five (frozen4 missed a Spanish arrest): "en paro" only after a patient or a
        # bed, since "estoy en paro" is also "I am unemployed"
        r"(?:^|\b(?:en|esta en|entro en|hace|hizo|haciendo|dando|le dio|sufre|sufriendo|acaba de hacer) )(?:un )?paro (?:cardiaco|cardiorrespiratorio|cardio ?respiratorio|respiratorio)\b(?! (?:de|en|del) (?:19|20)\d\d)",
        r"\b(?:paciente|pcte|pte|senor|senora|cama \d+|sala \d+|box \d+|habitacion \d+|la \d+|el \d+) (?:\w+ ){0,4}(?:(?:entro|esta|se fue|acaba de hacer|hizo|hace) (?:en |un )?paro)\b",
        r"\b(?:sin pulso|no tiene pulso|no (?:le )?(?:encuentro|siento|palpo|noto) (?:el )?pulso|codigo azul|(?:iniciando|iniciamos|empezamos|empezando|haciendo|hacemos|dando|damos) (?:la )?(?:rcp|reanimacion|compresiones)|rcp en curso|estamos haciendo compresiones|fibrilacion ventricular|en asistolia|esta en asistolia)\b",
        record_word=False,
    ),
    # lead, round thirteen (frozen15, measured once, then moved into tuning): an arrest named by its place, a
    # shockable rhythm with the resuscitation going on, a pump running far over its rate, blood from
    # every line, a STEMI on the monitor, a blown or unequal pupil
    *_rules(
        "clinician_acute",
        r"\b(?:cardiac |respiratory |peri |peri-)?arrest (?:on|in|at) (?:the )?(?:ward|bed|bay|room|resus|majors|minors|theatre|theater|recovery|icu|itu|ccu|hdu|cubicle|side room|cath lab|x ray|xray|ct|mri|car park|reception|clinic|corridor|toilets?)\b",
        r"^(?=.*\b(?:vf|v fib|pulseless vt|pvt|vt arrest)\b)(?=.*\b(?:shock|shocked|shocking|shocks|defib\w*|cpr|compressions|adrenaline|amiodarone|resus|rosc|cycle|continuing)\b)",
        r"\b(?:pump|infusion|syringe driver|driver|pca|drip|ivi)\b (?:\w+ ){0,8}(?:(?:\d+|ten|five|two|three|four) ?(?:x|times) (?:the )?(?:prescribed |correct |right |normal |set |intended )?(?:rate|dose|speed)|the whole (?:bag|syringe|infusion|bottle|dose)|free ?flow\w*|too fast)\b",
        r"\b(?:oozing|bleeding|pouring) (?:blood )?from (?:every|all (?:of )?(?:the |her |his )?|each) (?:line|cannula|puncture|drip|site)s?\b",
        r"\b(?:unequal|blown|fixed (?:and )?dilated|newly dilated|new dilated) (?:\w+ )?pupils?\b|\bpupils? (?:now )?(?:unequal|blown|fixed)\b",
        record_word=False,
    ),
    *_rules(
        "chest_pain", r"\b(?:stemi|st elevation|st elevations|tombstoning)\b(?! (?:history|in (?:19|20)\d\d))"
    ),
    # lead, round ten (frozen8 missed seven ward reports and six patient emergencies; rules for
    # the classes, each written from fresh wordings): acute stroke signs with an onset, a ward
    # suicide attempt, a new malignant rhythm, a patient gone unrousable or crashed, a dangerously
    # low capillary glucose
    *_rules(
        "clinician_acute",
        r"\b(?:new|new onset|sudden|acute|new acute) (?:\w+ ){0,2}(?:facial droop|face droop|droop|aphasia|aphasic|dysphasia|dysphasic|expressive dysphasia|hemiparesis|hemiplegia|hemianopia|arm weakness|leg weakness|one sided weakness|unilateral weakness|slurred speech|left sided weakness|right sided weakness|facial weakness)\b|\bcode stroke\b|\bstroke (?:call|alert)\b|\bfast (?:positive|pos)\b|\bonset (?:\w+ )?\d+ ?(?:min|mins|minutes|hours?|hrs?) ago\b",
        r"\b(?:new|new onset|sustained|(?<!says )(?<!showed )(?<!shows )(?<!found )(?<!report )runs? of|broad complex|fast|unstable|pulseless) (?:\w+ )?(?:vt|v tach|vtach|vf|v fib|svt|complete heart block|chb|tachycardia|tachy)\b|\b(?:vt|vf|v tach|vtach|svt) (?:on (?:the )?(?:monitor|telemetry|tele|ecg|strip)|storm)\b",
        r"\b(?:is|now|become|became|gone|has become|went|found) (?:now |totally |completely |suddenly )?(?:unrousable|unroussable|unresponsive|not rousable|not responding|obtunded)\b",
        r"\b(?:patient|pt|he|she|they|bed \d+|bay \d+|room \d+) (?:\w+ ){0,3}just crashed\b(?! (?:his|her|their|a|the|into|my) )",
        r"\b(?:bm|cbg|capillary glucose|bg)\b (?:of |is |at |was |now |down to )?(?:0|1|2)(?: \d)?\b(?! (?:hours?|hrs?|times|days?|units?|weeks?|mins?|a day))",
        record_word=False,
    ),
    *_rules(
        "suicide",
        r"\b(?:tried|trying|attempted|attempting|tries) to (?:hang|strangle|suffocate|drown|electrocute|kill) (?:himself|herself|themselves|themself|myself)\b",
        r"\b(?:ligature|noose|cord|belt|rope|scarf) (?:\w+ )?(?:round|around|on|tied round|tied around) (?:his|her|their|my) neck\b|\btied (?:a )?ligature\b|\bfound (?:\w+ ){0,3}hanging\b(?! (?:out|around|about|up|on|off))",
        # researching a lethal amount ("been looking up how many tablets it would take")
        r"\b(?:looking up|looked up|searching|searched|googling|googled|researching|researched|reading up on|working out|worked out|figuring out|figured out) (?:online )?(?:\w+ ){0,2}(?:how many|how much|which) (?:\w+ ){0,3}(?:it would take|would it take|it takes to (?:die|kill)|would (?:kill|be fatal|be lethal|be enough|do it)|to (?:die|end it|not wake up|kill me))\b",
        record_word=False,
    ),
    *_rules(
        "self_harm",
        r"\b(?:cut|cutting|did it|done it|went|gone|burnt|burned) (?:\w+ ){0,2}(?:deeper|too deep|so deep|really deep|way deeper)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\b(?:throat|airway|windpipe) (?:\w+ ){0,4}(?:shrinking|narrowing|tightening|closing up|getting smaller|getting tighter)\b",
        record_word=False,
    ),
    # lead, round ten, second batch (frozen9 missed six): speech coming out wrong, a throat gone
    # thick, a known allergen met with a systemic sign, a first fit minutes ago, a shocked ward
    # patient, frank haematemesis
    *_rules(
        "stroke",
        r"\b(?:words|speech|talking|sentences) (?:are |is |keep |keeps )?(?:\w+ )?(?:coming out )?(?:jumbled|muddled|garbled|mixed up|all wrong|wrong|slurred|nonsense)\b|\bcant get (?:my |his |her )?words out\b|\b(?:mouth|face) feels (?:wrong|weird|numb|heavy|droopy|funny) (?:and|on one side)\b|\bmy (?:mouth|face) feels (?:wrong|numb|droopy)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\bthroat (?:is |feels |keeps )?(?:\w+ )?(?:thick|swelling shut)\b",
        r"\ballergic to (?:\w+ ){1,6}(?:ate|eaten|had|drank|swallowed|touched|used|licked|bit|stung|been stung)\b (?:\w+ ){0,10}?(?:now |and )(?:\w+ ){0,3}(?:dizzy|hoarse|wheez\w*|swell\w*|swollen|faint\w*|floppy|hives|vomit\w*|cant breathe|struggling to breathe|throat|cough\w*|pale|going pale|blotchy|drowsy|sleepy)\b",
        record_word=False,
    ),
    *_rules(
        "seizure",
        r"\b(?:first|1st) (?:ever )?(?:fit|seizure|convulsion)\b (?:\w+ ){0,3}(?:\d+ ?(?:min|mins|minutes|hours?|hrs?) ago|just now|today|tonight|this (?:morning|evening|afternoon))\b",
        record_word=False,
    ),
    *_rules(
        "clinician_acute",
        r"\b(?:suddenly|acutely|now|newly|profoundly|very) hypotensive\b|\bhypotensive (?:at |with |to )?(?:[3-8]\d) ?/ ?[1-5]\d\b",
        r"\bfrank (?:haematemesis|hematemesis|melaena|melena|malaena|pr bleed\w*|blood)\b|\b(?:bp|pressure|systolic) (?:of |is |at )?(?:[2-8]\d) (?:systolic|sys)\b",
        record_word=False,
    ),
    # lead, round ten, third batch (frozen10 missed seven): the means in hand with the thought of
    # using it, a known allergen met with a cough or pallor, a first fit that has just happened, a
    # line pulled out and haemorrhaging, an eclamptic fit in clinic, an opioid-narcotised patient,
    # a broad-complex rhythm now
    *_rules(
        "self_harm",
        r"\b(?:razor|razors|blade|blades|knife|rope|gun|belt|cord|pills|tablets|lighter)\b(?=.*\b(?:thinking (?:about|of) using|want to use|going to use|use it|use them|do it)\b) (?:\w+ ){0,4}(?:in my hands?|in front of me|next to me|with me|beside me|right here|here|ready)\b",
        record_word=False,
    ),
    *_rules(
        "seizure",
        r"\bnever had (?:a |one )?(?:fit|seizure|convulsion)s? before\b.*\b(?:just (?:had|having) one|is having one|having one now|just had a (?:fit|seizure))\b",
        record_word=False,
    ),
    *_rules(
        "clinician_acute",
        r"\b(?:haemorrhaging|hemorrhaging|pumping blood|spurting blood)\b|\bpulled out (?:his |her |their )?(?:central line|line|trach|tracheostomy|art line|arterial line)\b",
        r"\b(?:fitting|seizing|convulsing)\b (?:\w+ ){0,3}(?:bp|blood pressure) (?:1[6-9]\d|2\d\d) ?/ ?(?:1[0-9]\d)\b|\b(?:bp|blood pressure) (?:1[7-9]\d|2\d\d) ?/ ?(?:1[1-9]\d)\b (?:\w+ ){0,3}(?:fitting|seizing|headache|confused|vision)\b",
        r"\b(?:resp|respiratory|rr) rate (?:of |is |at |down to )?[0-8]\b|\brr (?:of |is |at )?[0-8]\b|\bpinpoint pupils\b|\bnot rousable\b",
        r"\bbroad complex (?:rhythm|complexes|tachy\w*)\b",
        record_word=False,
    ),
    # lead, round twelve (frozen12, measured once, then moved into tuning, missed five ward reports
    # in shorthand and two patient emergencies; rules for the classes): a consciousness score fallen
    # to a low number, a shocked pressure said as "70 systolic", a haemorrhage measured in litres, a
    # tension pneumothorax, a seizure going on despite a first benzodiazepine
    *_rules(
        "clinician_acute",
        r"\bgcs (?:\w+ ){0,5}(?:to|of|now|down to|at) [3-8]\b(?! ?(?:am|pm|o ?clock|hours?|hrs?|mins?|minutes?|days?)\b)",
        r"\bhypotensive (?:\w+ ){0,2}[3-8]\d (?:systolic|sys)\b|\b[3-7]\d (?:systolic|sys)\b(?=.*\b(?:tachy\w*|hypotensive|dropping|falling|shocked|peri ?arrest|mottled|clammy)\b)",
        r"\b(?:over |more than |about |nearly |at least |already )?(?:a|one|two|three|[1-9](?: [1-9])?) (?:litres?|liters?|l) (?:\w+ ){0,2}(?:lost|loss|ebl|of blood)\b|\bpph\b(?= (?:in|on|at) (?:bed|bay|room|theatre|theater|delivery|labour|labor)\b)",
        r"\btension (?:pneumo\w*|ptx)\b|\b(?:trachea|tracheal) (?:is |has )?deviat\w*|\bdeviated trachea\b",
        r"\b(?:not responding|unresponsive|refractory|still (?:seizing|fitting)) (?:\w+ ){0,2}(?:to )?(?:\w+ ){0,3}(?:lorazepam|midazolam|diazepam|benzo\w*|buccal)\b|\b(?:seizing|fitting|tonic clonic|convulsing) (?:\w+ ){0,4}(?:after|despite) (?:\w+ ){0,3}(?:lorazepam|midazolam|diazepam|benzo\w*|buccal)\b",
        record_word=False,
    ),
    # lead, round twelve, second batch (frozen13, measured once, then moved into tuning, missed ten):
    # a TIA coming back now, the rest of a bottle downed, "a ton of pills" taken, no reason to keep
    # going, the urge to cut with the razor in hand, an allergic person now wheezy and blotchy, a fall
    # then jerking; on the ward a potassium near 8 with peaked T waves, "sangrado activo abundante"
    *_rules(
        "breathing",
        r"\bno (?:esta|estoy|estas) respirando\b|\b(?:ya )?no respira\b|\bdejo de respirar\b",
        record_word=False,
    ),
    *_rules(
        "stroke",
        r"\b(?:tia|mini ?stroke|stroke)\b (?:\w+ ){0,8}(?:happening|starting|coming on|coming back) (?:\w+ ){0,2}(?:again )?(?:right )?(?:now|this minute)\b",
        record_word=False,
    ),
    *_rules(
        "overdose",
        r"\b(?:downed|necked|swallowed|took|taken|ate|had|chugged|finished) (?:\w+ ){0,3}(?:what was left of|the rest of|all of|the whole|a whole|an entire|the entire) (?:\w+ ){0,4}(?:bottle|packet|pack|box|strip|tub|blister pack)\b",
        rf"\b(?:took|taken|swallowed|downed|necked|had) (?:a ton|tons|loads|a load|a bunch|a lot|lots|a handful|handfuls|heaps|a heap|a fistful|a whole lot|way too many) (?:of )?(?:his |her |their |my |the )?(?:\w+ )?(?:{MEDS})\b",
        record_word=False,
    ),
    *_rules(
        "suicide",
        r"\b(?:dont|do not|cant|cannot|no longer) (?:\w+ )?see (?:a|any|the) (?:reason|point) (?:to|in|of) (?:keep going|keeping going|carry on|carrying on|going on|continue|continuing|living|being here|staying|trying)\b",
        record_word=False,
    ),
    # round thirteen: a decision to die said in euphemism — a decision taken ("ive decided to check
    # out early", "made up my mind to end it"), joining someone who died ("he passed in may, i'll be
    # with him again soon"), no point in carrying on, researching a fall's height, peace made with a
    # goodbye or a night named. Each needs its own decisive words: "check out of the ward early",
    # "join her for her appointment", "made my peace with the diagnosis" are not it.
    *_rules(
        "suicide",
        r"\b(?:decided|made up my mind|made the decision|made my decision|mind is made up)\b (?:\w+ ){0,4}(?:to |im |i am |i will |ill )?"
        r"(?:check(?:ing)? out(?! (?:of|from|at)\b)|end (?:it|it all|things|my life|everything)|not (?:going to|gonna) be (?:around|here)|go (?:tonight|for good)|join (?:her|him|them)\b(?! (?:for|at|in|on)\b)|be with (?:her|him|them) again)",
        r"\bcheck(?:ing)? out (?:early|for good|permanently|of life|of this life|of this world)\b(?! (?:of|from|at)\b)",
        r"\b(?:died|passed(?: away| on)?|lost (?:her|him|them)|gone now)\b.{0,80}\b(?:join|be with) (?:her|him|them|my \w+)(?: again)? (?:soon|very soon|now|tonight|shortly|before long)\b",
        r"\b(?:join|be with) (?:her|him|them|my \w+)(?: again)? (?:soon|very soon|tonight|shortly|before long)\b.{0,80}\b(?:died|passed(?: away| on)?|since (?:she|he|they) (?:went|left us))\b",
        r"\b(?:(?:whats|what is|wheres|where is) the|(?:theres|there is|there s) no) (?:point|use|reason) (?:in |of |to )?(?:carrying on|carry on|going on|go on|living|live|being alive|being here|staying alive|anything anymore|trying anymore|keep going|keeping going)\b(?! (?:with|taking|on)\b)",
        r"\b(?:googl\w*|search\w*|look\w* up|research\w*|reading up on|read up on) (?:\w+ ){0,2}how (?:high|tall|far) (?:a |the |up )?(?:fall|drop|bridge|building|jump|cliff|ledge|floor)\b",
        r"\bmade my peace\b(?=.{0,80}\b(?:decided|tonight|goodbyes?|ready|its time|it is time|end it)\b)|\b(?:decided|said my goodbyes|said goodbye|ready|its time)\b.{0,60}\bmade my peace\b",
        record_word=False,
    ),
    *_rules(
        "self_harm",
        r"\bwant(?:s|ing)? to cut (?:myself |me )?(?:so bad\w*|really bad\w*|right now|tonight|again)\b|\b(?:razor|blade|knife) is (?:in|on) my (?:hand|lap|wrist)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\ballergic to (?:\w+ ){1,4}(?:and|but) (?:\w+ ){0,3}(?:getting|gone|going|is|now|started) (?:\w+ ){0,2}(?:wheez\w*|blotchy|swell\w*|swollen|hives|faint\w*|hoarse|struggling to breathe)\b",
        # round seventeen (frozen23's class, fresh wordings): an allergy and the voice going hoarse or
        # croaky now, a sign of the airway swelling (NICE CG134)
        r"^(?!.*\b(?:if|in case|what happens|in (?:19|20)\d\d|years ago|last year|as a (?:child|kid|baby))\b)(?=.*\b(?:allerg\w*|alergi\w*)\b)"
        r"(?=.*\b(?:voice (?:is |has |s )?(?:going|gone|went|getting|changing|changed|sounding)|(?:gone|going|getting|sounds?|sounding) (?:really |very |all |a bit |so )?(?:hoarse|croaky|husky|raspy))\b)",
        record_word=False,
    ),
    *_rules(
        "seizure",
        r"\b(?:fell|collapsed|went down|dropped) (?:\w+ ){0,3}(?:and |then )(?:started|began|is|was|keeps) (?:jerking|shaking|convulsing|fitting|seizing|twitching)\b",
        record_word=False,
    ),
    *_rules(
        "clinician_acute",
        r"\bpeaked t(?: waves?)?\b|\b(?:k|potassium) (?:of |is |came back |at |now )?(?:[7-9](?: \d)?|6 [5-9])\b(?= (?:\w+ ){0,6}(?:monitor|ecg|t waves|now|brady\w*|arrhythm\w*|wide))",
        r"\bsangrado (?:\w+ ){0,1}(?:activo|abundante|masivo|importante|profuso)\b|\b(?:la )?(?:presion|tension|saturacion|sat) (?:esta |se esta |sigue )?(?:cayendo|bajando (?:rapido|mucho)|en picada|desplomandose)\b",
        record_word=False,
    ),
    # round thirteen: a neutropenic patient with a fever (NICE CG151: neutropenic sepsis, antibiotics
    # within the hour), a high-alert medicine given in error (ISMP's high-alert list: insulin,
    # concentrated potassium, heparin, opioids, …), a fetal heart slowing and not recovering
    *_rules(
        "clinician_acute",
        r"\bneutropeni\w* (?:\w+ ){0,6}(?:temp(?:erature)? (?:of |is |now |at )?(?:3[89]|4[01])(?:\.\d)?|febrile|spiking|spiked|pyrexial|feverish|fever|rigors|rigoring)\b",
        r"\b(?:febrile|pyrexial|spiking|temp(?:erature)? (?:of |is |now |at )?(?:3[89]|4[01])(?:\.\d)?) (?:\w+ ){0,6}neutropeni\w*\b",
        r"\b(?:prolonged )?decel\w* (?:\w+ ){0,2}(?:to|down to|at|into the) [4-8]\ds?\b|\bfetal (?:brady\w*|heart rate (?:of |is |at |down to |dropped to )?[4-9]\d\b)",
    ),
    *_rules(
        "overdose",
        r"\b(?:accidentally|by mistake|in error|inadvertently|wrongly|mistakenly) (?:\w+ ){0,6}(?:insulin|kcl|potassium chloride|iv potassium|heparin|morphine|oxycodone|fentanyl|diamorphine|hydromorphone|methotrexate|iv magnesium|digoxin|vincristine)\b",
        r"\b(?:insulin|kcl|potassium chloride|iv potassium|heparin|morphine|oxycodone|fentanyl|diamorphine|hydromorphone|methotrexate|digoxin|vincristine) (?:\w+ ){0,8}(?:by mistake|in error|accidentally|inadvertently)\b",
        r"\b(?:gave|given|giving|administered|ran|run|injected|pushed) (?:\w+ ){0,2}(?P<given>\d{2,4}) ?(?:units|iu|u|mmol|mg|mcg|micrograms) (?:of )?(?:\w+ ){0,2}instead of (?:\w+ ){0,1}\d{1,3}\b",
    ),
    # round thirteen, after frozen16 (fresh wordings in tests/agent/test_safety_round13b.py): a cut
    # gone too deep, self-harm "just done"; a known food allergy met with a breathing or swelling
    # sign; a fever with an offensive discharge after a birth (puerperal sepsis, RCOG GTG 64b)
    *_rules(
        "self_harm",
        r"\bcut\w* (?:\w+ ){0,8}(?:too deep|very deep|really deep|so deep|way too deep|too far and|gaping|wont stop bleeding|cant stop the bleeding)\b",
        r"\bself ?harm\w* (?:\w+ ){0,6}(?:just (?:did it|done it|did|now)|tonight|again tonight|right now)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\b(?:nut|peanut|tree nut|egg|milk|dairy|shellfish|fish|sesame|wasp|bee|latex|penicillin) allerg\w* (?:\w+ ){0,20}(?:starting to wheeze|wheezing|wheezy|wheeze|throat (?:is |feels )?(?:tight|closing|swelling)|lips? (?:are |is )?(?:swelling|swollen|puffing up)|tongue (?:is )?swell\w*|struggling to breathe|cant breathe|floppy)\b",
    ),
    *_rules(
        "pregnancy",
        r"\b(?:had (?:my|the|a|our) baby|gave birth|given birth|delivered|since the birth|postpartum|post partum|since my c ?section|since my caesarean)\b (?:\w+ ){0,10}(?:high (?:fever|temp\w*)|fever|shivering|shivery|rigors|shaking)\b (?:\w+ ){0,8}(?:foul|smelly|offensive|horrible smelling|bad smelling)\b",
        record_word=False,
    ),
    # round fourteen, after frozen16's last four misses (fresh wordings in
    # tests/agent/test_safety_round14.py): a medicine taken twice by mistake with a symptom now (the
    # person is unwell: poison advice is needed, not a pharmacist's "skip the next one"); a carbon
    # monoxide alarm going off (UK Health Security Agency: get out, call for help); a bleed with a
    # falling blood pressure (haemorrhagic shock); heavy bleeding said by the gestation alone
    *_rules(
        "overdose",
        # a medicine or a dose in it (round fifteen: "been vomiting twice since lunch" is no double dose)
        r"^(?=.*\b(?:took|taken|take|taking|swallowed|given|gave|injected|tome|tomo|me tome|pills?|tablets?|meds|medicines?|medication|doses?|insulin|lithium|pastillas?|medicinas?|dosis)\b)"
        r"(?=.*\b(?:twice|two doses|double (?:dose\w*|(?:(?:my|the|his|her) )?(?:\w+ )?(?:tablets?|pills?|meds|medicines?|insulin|lithium|\w+(?:pril|olol|statin|formin|sartan|pine|zole|pam|lam|ide|ine|ium|ate|one|in)))|"
        r"(?:took|taken|had|swallowed|given) (?:\w+ ){0,3}(?:again|a second time|another lot)|dos veces|doble dosis|otra vez (?:las|mis|la|el) (?:pastillas|medicinas|pastilla))\b)"
        r"(?=.*\b(?<!not )(?<!no )(?<!isnt )(?<!not feeling )(?:dizzy|drowsy|sleepy|confused|shaky|shaking|faint|fainting|weird|strange|funny|odd|awful|terrible|spinning|woozy|out of it|spaced out|"
        r"vomiting|throwing up|heart (?:is )?(?:racing|pounding)|blurry|slurring|mareado|mareada|confundido|confundida|somnolient[oa]|raro|rara|vomitando|desmay\w*)\b)",
        record_word=False,
    ),
    *_rules(
        "poisoning",
        r"\b(?:carbon monoxide|co|gas) (?:alarm|detector|monitor)s? (?:\w+ ){0,3}(?:going off|gone off|went off|beeping|sounding|ringing|screaming|keeps? (?:going|beeping|sounding))\b",
        r"\b(?:alarma|detector|sensor) (?:de )?(?:monoxido|co|gas)(?: de carbono)? (?:\w+ ){0,3}(?:sonando|suena|sono|pitando|pita|no para de (?:sonar|pitar))\b",
        record_word=False,
    ),
    *_rules(
        "bleeding",
        r"\b(?:heavy|heavily|massive|brisk|torrential|frank|fresh|profuse|uncontrolled) (?:\w+ ){0,2}(?:bleed\w*|haemorrhag\w*|hemorrhag\w*|haematuria|hematuria|haematemesis|hematemesis|melaena|melena|blood loss|pr bleed|pv bleed)\b"
        r".*\b(?:(?:bp|sbp|systolic|pressure)\b(?: (?:is|now))?(?: \d{2,3}(?:/\d{2,3})?)?(?: and| now)? (?:dropping|falling|dropped|crashing|tanking|plummeting)|hypotensive|shocked|in shock|haemodynamically unstable|hemodynamically unstable|peri ?arrest)\b",
        r"\b(?:pv bleed|bleed\w*|haematemesis|hematemesis|melaena|melena) (?:\w+ ){0,3}(?:soaking|soaked|through) (?:\w+ ){0,2}(?:pads?|sheets?|towels?|bed)\b",
        record_word=False,
    ),
    *_rules(
        "pregnancy",
        r"\b(?:pregnant|weeks|months|embarazada|semanas)\b.*\b(?:bright red blood|(?:a lot|lots|loads|so much|too much) of (?:\w+ ){0,2}blood(?! (?:tests?|work|results?|pressure|sugar|count))|(?:big|large|passing|passed) clots|gush\w*|blood (?:running|pouring|gushing|everywhere)|mucha sangre|sangre roja)\b",
        record_word=False,
    ),
    # round fourteen, after frozen17 (measured once, kept frozen; fresh wordings in
    # tests/agent/test_safety_round14.py): a count already taken past a day's limit, even asked as
    # "how many is too many" (AMOUNT_ALREADY_TAKEN survives the dose-question filter); "allergic to X"
    # with a sting or an adrenaline pen already used; a fit past five minutes (status epilepticus,
    # NICE NG217: treat at 5 minutes); a clinician's stroke signs in Spanish shorthand with an onset
    *_rules("overdose", AMOUNT_ALREADY_TAKEN.pattern, record_word=False),
    *_rules(
        "anaphylaxis",
        r"^(?!.*\b(?:if|in case|what happens|what do i do if)\b)(?=.*\b(?:allergic to|allergy to|allergies to) (?:\w+ ){0,2}(?:bees?|wasps?|hornets?|stings?|insect stings?)\b)(?=.*\b(?:stung|(?:bee|wasp|hornet) sting|a sting)\b)",
        r"^(?!.*\b(?:how many times|how often|when (?:was|did|were)|last time)\b)(?=.*\b(?:allerg\w*|anaphyla\w*|reaction|epi ?pen|adrenaline)\b).*\b(?:used|gave|given|had to use|had to give|jabbed|injected|did) (?:\w+ ){0,3}(?:epi ?pens?|adrenaline(?: pens?| auto ?injectors?| shot)?|auto ?injectors?|jext|emerade|(?:1|one|the|my|her|his|a|first|second) pen)\b",
        # round seventeen (frozen22's class, fresh wordings): the same in Spanish, an adrenaline pen
        # already used ("ya usamos el autoinyector", "me inyecté la adrenalina")
        r"^(?!.*\b(?:cuando|ultima vez|cuantas veces|como se usa|folleto)\b).*\b(?:(?:use|usamos|uso|usaron|le puse|me puse|le pusimos|le pusieron|me pusieron|inyecte|me inyecte|le inyecte|le inyectamos) (?:ya )?(?:el|la|su|mi|una?) |(?:usamos|usaron|le puse|me puse|le pusimos|le pusieron|me pusieron|inyecte|me inyecte|le inyecte|le inyectamos) )(?:autoinyector\w*|epi ?pen|adrenalina|pluma de adrenalina|inyeccion de adrenalina)\b",
        record_word=False,
    ),
    *_rules(
        "seizure",
        r"\b(?:seizure|seizing|fit|fitting|convuls\w*|tonic clonic|jerking|shaking)\b (?:\w+ ){0,6}(?:more than|over|longer than|past|beyond|greater than|>) ?(?:5|five|[6-9]|[1-5]\d|ten|fifteen|twenty) ?(?:min|mins|minutes)\b",
        r"\b(?:convulsion\w*|convulsionando|convulsiona|crisis)\b (?:\w+ ){0,4}(?:mas de|por mas de|desde hace) (?:5|cinco|[6-9]|[1-5]\d|diez|quince|veinte) ?(?:min|mins|minutos)\b",
        record_word=False,
    ),
    *_rules(
        "stroke",
        r"\b(?:hemiparesia|hemiplejia|disartria|afasia|desviacion de (?:la )?comisura|paralisis facial|hemiparesis|hemiplegia|dysarthria|aphasia|facial droop)\b"
        r".*\b(?:(?:desde hace|hace|de inicio hace|inicio hace|iniciado hace) (?:\d+|media|una|dos|tres|unos \d+) (?:min\w*|hora\w*)|\d+ ?(?:min|mins|minutes|hours?|hrs?) ago|onset (?:\d|at|was)|since \d|last known well)\b",
        record_word=False,
    ),
    # round fourteen, after frozen18 (measured once, kept frozen; fresh wordings in
    # tests/agent/test_safety_round14.py): a non-blanching rash (NICE NG240, suspected
    # meningococcal disease), an obstetric emergency named, a fall on an anticoagulant with a
    # head-injury sign (NICE NG232), a large haemoptysis, ST elevation in Spanish
    *_rules(
        "someone_else",
        r"\b(?:non ?blanching|purpuric|purpura|petechial) (?:\w+ ){0,2}(?:rash|spots)\b|\brash (?:\w+ ){0,4}(?:doesnt|does not|wont|will not|didnt|did not) (?:fade|blanch)\b(?! (?:in|on) (?:19|20)\d\d)|\bno desaparece al presionar\b",
    ),
    *_rules(
        "pregnancy",
        r"\b(?:cord prolapse|prolapsed cord|shoulder dystocia|uterine rupture|ruptured uterus|placental abruption|prolapso de cordon|distocia de hombros)\b",
    ),
    *_rules(
        "unconscious",
        r"^(?=.*\b(?:warfarin|apixaban|rivaroxaban|edoxaban|dabigatran|eliquis|xarelto|anticoagula\w*|blood thinners?|doac|noac|sintrom|acenocumarol)\b)"
        r"(?=.*\b(?:fell|fall|fallen|a fall|head injury|hit (?:his|her|my|their|its) head|banged (?:his|her|my|their) head|se cayo|golpe en la cabeza)\b)"
        r"(?=.*\b(?:gcs (?:\w+ ){0,3}(?:[3-9]|1[0-4])\b|vomit\w*|drowsy|confused|unresponsive|vomitando|somnolient[oa]|confundid[oa]))",
        record_word=False,
    ),
    *_rules(
        "bleeding",
        r"\b(?:massive|major|large|large volume|big|heavy|brisk|frank|torrential|significant) (?:volume )?(?:haemoptysis|hemoptysis)\b|\bhemoptisis (?:masiva|abundante|importante)\b",
    ),
    *_rules(
        "chest_pain",
        r"\belevacion (?:del |de )?(?:segmento )?st\b(?! (?:en|el) (?:19|20)\d\d)",
    ),
    # round fourteen, frozen18's remaining classes (fresh wordings): an urge to self-harm now, with
    # the means at hand or said overwhelming; an arrest said of anyone by name
    *_rules(
        "self_harm",
        r"\burges? to (?:cut|self ?harm|hurt (?:myself|me)|burn myself)\b(?! (?:years|when i was|in (?:19|20)\d\d))",
        r"^(?!.*\b(?:used to|years ago|in the past|when i was)\b)(?=.*\b(?:blades?|razors?|knife|knives|scissors|lighter)\b).*\burges?\b",
        r"^(?!.*\b(?:used to|years ago|in the past|when i was)\b).*\burges? (?:\w+ ){0,3}(?:so strong|really strong|really bad|so bad|overwhelming|too strong|unbearable|taking over)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\b(?:nut|peanut|tree nut|egg|milk|dairy|shellfish|fish|sesame|wheat|soy|kiwi|latex|penicillin) allerg\w* (?:\w+ ){0,10}(?:ate|eaten|had|has had|just had|bit|took|swallowed|licked|touched|drank) (?:\w+ ){0,10}(?:wheez\w*|vomit\w*|swell\w*|swollen|hives|throat|cant breathe|struggling to breathe|floppy|blotchy|pale)\b",
        record_word=False,
    ),
    # a sepsis query on a neutropenic patient (NICE NG51 / CG151: treat as an emergency); "h/o
    # neutropenic sepsis" is a chart question (record framing exempts this rule)
    *_rules(
        "someone_else",
        r"\b(?:query|suspected|suspect|likely|possible|probable|looks like|think (?:its|it is|shes|hes)) neutropenic sepsis\b|\bneutropenic sepsis (?:now|in (?:bay|bed|room|cubicle|resus)|on the ward)\b",
    ),
    *_rules(
        "clinician_acute",
        r"\b(?:has|have|hes|shes|s) (?:just )?(?:arrested|coded)\b(?! (?:my|him|her|them|a|the|someone|me|us)\b)|\bjust coded\b",
        record_word=False,
    ),
    # a tearing pain (an aortic dissection's words), and a child into a sibling's or parent's tablets
    *_rules(
        "chest_pain",
        r"\btearing (?:pain|feeling|sensation|ache)\b|\b(?:pain|feels?) like (?:something|it) (?:is |s )?(?:tearing|ripping)\b",
    ),
    *_rules(
        "overdose",
        r"\b(?:my (?:\w+ )?(?:child|son|daughter|toddler|baby|kid|boy|girl|little one|\d+ year old)|the (?:baby|kids?|child|toddler)) (?:\w+ ){0,4}(?:took|taken|swallowed|ate|had|got into) (?:\w+ ){0,4}"
        rf"(?:{MEDS}) (?:\w+ ){{0,2}}(?:plus|and|as well as|with|on top of) (?:\w+ ){{0,2}}(?:his|her|their|my) (?:\w+ )?(?:brothers|sisters|siblings|dads|mums|moms|grandmas|nans|grandads|grandpas|friends)\b",
        r"\b(?:my (?:\w+ )?(?:child|son|daughter|toddler|baby|kid|boy|girl|little one|\d+ year old)|the (?:baby|kids?|child|toddler)) (?:\w+ ){0,3}(?:took|taken|swallowed|ate|had|got into) (?:\w+ ){0,2}(?:his|her|their|my|the) (?:\w+ )?"
        rf"(?:brothers|sisters|siblings|dads|mums|moms|grandmas|nans|grandads|grandpas|friends|neighbours|neighbors)(?: \w+)? (?:{MEDS})\b",
        record_word=False,
    ),
    # round six: acute red flags in Spanish as a parent or bystander says them, often with a
    # question about where to go ("se le cayó la cara de un lado, ¿lo llevo al hospital?")
    *_rules(
        "stroke",
        r"\bse (?:le |me )?(?:ha |han )?(?:cayo|caido|cae|esta cayendo|torcio|torcido|tuerce|esta torciendo) (?:la cara|la boca|un lado de la cara|media cara)\b",
        r"\bno (?:puede|puedo|podia|logra) (?:hablar|levantar (?:el|la) (?:brazo|pierna|mano)|mover (?:el|la|un|una) (?:brazo|pierna|lado|mano))\b",
        r"\b(?:habla|hablando) (?:muy )?(?:raro|enredado|arrastrado|trabado)\b|\bse le traba la lengua\b|\bno se le entiende (?:nada|al hablar)\b",
        record_word=False,
    ),
    *_rules(
        "unconscious",
        r"\bno (?:se )?(?:despierta|despertaba|reacciona|responde|mueve)\b|\bno (?:lo|la|le) (?:puedo|podemos) despertar\b",
        r"\b(?:esta|se quedo|quedo) (?:muy )?(?:inconsciente|desmayad[oa]|tirad[oa] en el suelo|sin sentido|flojit[oa]|muy flojo|muy floja)\b",
        record_word=False,
    ),
    *_rules(
        "bleeding",
        r"\b(?:so much|a lot of|lots of|loads of|too much|so much of) (?:(?:fresh|bright red|bright|dark|red) )?blood\b(?! (?:tests?|work|results?|pressure|sugar|count))",
    ),
    *_rules(
        "bleeding",
        r"\b(?:sangro|sangra|sangrado|sangran) (?:muchisimo|mucho|sin parar|demasiado|a chorros|abundante)\b|\bno (?:para|deja) de sangrar\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        # round seven: hives spreading with a breathing or fainting sign
        r"\b(?:hives|welts|rash) (?:\w+ ){0,6}(?:wheez\w*|faint|dizzy|cant breathe|short of breath|throat|tongue|lips swell\w*)\b",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"\b(?:cara|labios|lengua|garganta|boca|ojos)\b (?:\w+ ){0,4}(?:hinchad[oa]s?|inflamad[oa]s?)\b|\bse (?:me |le )?(?:esta )?(?:cerrando|cierra) la garganta\b",
        record_word=False,
    ),
    *_rules(
        "overdose",
        rf"\b(?:se tomo|se ha tomado|se trago|se comio|se bebio|tomo|me tome|me trague) (?:\w+ ){{0,2}}(?:muchas|muchos|un monton de|varias|un frasco|una caja|un blister|todo el|toda la|todas las|todos los|\d{{2,}}) (?:\w+ ){{0,2}}(?:{MEDS}|jarabe|gotas)\b",
        record_word=False,
    ),
    # round fifteen, after frozen19 (measured once, kept frozen; fresh wordings in
    # tests/agent/test_safety_round15.py): blue fingers or lips with a breathing word (central
    # cyanosis), "can't walk … without gasping"; "sh" as people write self-harm; someone fitting said
    # telegraphically, or with no rescue medicine to hand; a birth about to happen (crowning, the urge
    # to push, labour too fast to reach hospital); a ward arrest said "pt arrested" or by its place;
    # a tachyarrhythmia with hypotension; chest pain in Spanish ward words
    *_rules(
        "breathing",
        r"^(?=.*\b(?:breath\w*|gasp\w*|wheez\w*|copd|asthma\w*|emphysema|chest|air|sats|oxygen|o2|inhaler|nebuli[sz]er|puffed|winded|respir\w*|ahog\w*|aire)\b)"
        r".*(?:\b(?:fingers?|fingertips|finger tips|fingernails|finger nails|nails|toes|lips|mouth|face|tongue|skin) (?:are |is |look |looks |have |has |going |gone |turning |turned |went |all |a bit |really |bit )*(?:blue|bluish|blueish|purple|dusky)\b"
        r"|\b(?:blue|bluish|blueish|purple|dusky) (?:\w+ )?(?:fingers?|fingertips|finger tips|fingernails|nails|lips|tinge)\b"
        r"|\b(?:dedos|unas|labios|boca|cara) (?:\w+ ){0,2}(?:morad[oa]s?|azul(?:es|ad[oa]s?)?)\b)",
        r"\b(?:cant|cannot|can barely|unable to|not able to) (?:\w+ ){1,6}without (?:gasping|fighting for (?:breath|air)|struggling for (?:breath|air)|stopping to catch (?:my |his |her )?breath)\b",
        record_word=False,
    ),
    *_rules(
        "self_harm",
        r"\bsh (?:again|tonight|last night|just now|earlier|today|urges?|thoughts|relapse)\b|\b(?:did|done|doing|relapsed (?:on|with|into)?|relapsing|urges? to|want to|wanna|going to|gonna|cant stop|about to) sh\b|\b(?:shd|sh d) (?:again|last night|tonight|just now|today)\b",
    ),
    *_rules(
        "seizure",
        r"\b(?:fitting|seizing|convulsing|having (?:a|another) (?:fit|seizure))\b (?:\w+ ){0,6}(?:no|dont have|do not have|havent got|have not got|without|forgot|left|cant find|run out of|ran out of|out of) (?:\w+ ){0,3}(?:rescue|emergency|buccal|midazolam|diazepam|epistatus|buccolam|rectal)\b",
        r"\b(?:no|dont have|do not have|havent got|without|forgot|left|cant find|ran out of|run out of) (?:\w+ ){0,2}(?:rescue|emergency|buccal|midazolam|diazepam|buccolam|epistatus) (?:\w+ ){0,6}(?:fitting|seizing|convulsing|having (?:a|another) (?:fit|seizure))\b",
        r"\b(?:friend|mate|son|daughter|husband|wife|partner|dad|father|mum|mom|mother|brother|sister|boyfriend|girlfriend|colleague|flatmate|roommate|neighbour|neighbor|grandson|granddaughter|nan|grandad|grandma|grandpa|man|woman|guy|lady|someone|somebody|kid|child|baby|toddler) (?:is |keeps |started |just started |now )?(?:fitting|seizing|convulsing)\b(?! (?:in|into|well|nicely|the|a|his|her|their|fine|ok|okay|better|through|for)\b)",
        record_word=False,
    ),
    *_rules(
        "pregnancy",
        r"\b(?:crowning|(?:baby'?s? )?head (?:is )?(?:out|coming out|showing|visible)|can (?:see|feel) (?:the )?(?:baby'?s? )?head)\b",
        r"^(?!.*\b(?:went|was|were|last time|with my first|previous|before)\b).*\b(?:labou?r|contractions) (?:is |are )?(?:going |coming |happening |progressing |moving )?(?:way |much )?(?:too |really |very |so )?(?:fast|quick|quickly)\b(?=.*\b(?:cant|can not|cannot|wont make it|not going to make it|no time|no way|ambulance|help|right now)\b)",
        r"^(?=.*\b(?:labou?r|contractions|baby|waters|pregnant|weeks)\b).*\b(?:urge|need|needs|have|has|got|want|wants) to push\b(?! (?:back|for|forward|through|the|my|her|it|an?)\b)",
        r"\b(?:giving birth|having the baby|baby is coming|baby coming|baby arriving) (?:\w+ )?(?:now|right now|here|at home|in the car|on the (?:floor|bathroom|kitchen)|any minute)\b",
        r"\b(?:cant|can not|cannot|wont|not going to|never going to) (?:get|make it) (?:\w+ ){0,2}(?:hospital|maternity|labour ward|labor ward|birth cent(?:re|er)|midwife)\b(?=.*\b(?:labou?r|contractions|crowning|push\w*|waters|baby (?:is )?coming)\b)",
        r"\b(?:se (?:le |me )?ve la cabeza|ya (?:viene|sale|esta saliendo|esta naciendo) (?:el )?(?:bebe|nino|nina)|el bebe (?:ya )?(?:viene|esta saliendo|va a nacer)|(?:tengo|tiene) ganas de pujar|no (?:llegamos|llego|vamos a llegar|va a llegar) al hospital)\b",
        record_word=False,
    ),
    *_rules(
        "clinician_acute",
        r"\b(?:pt|patient|pte|mr \w+|mrs \w+|ms \w+|miss \w+|bed \d+|bay \d+|cubicle \d+|room \d+) arrested\b(?! (?:by|for|before|previously|last|on (?:19|20)\d\d|in (?:19|20)\d\d)\b)",
        r"(?<!was )(?<!got )(?<!been )(?<!were )(?<!being )\barrested (?:in|on|at|during) (?:the )?(?:mri|ct|scanner|x ray|xray|cath lab|theatre|theater|recovery|resus|majors|minors|ward|bay|bed|cubicle|endoscopy|dialysis|waiting room|lift|corridor|ambulance|icu|itu|hdu|ccu|side room|car park|angio\w*)\b",
        r"^(?=.*\b(?:fast af|rapid af|af|afib|a fib|atrial fibrillation|atrial flutter|flutter|svt|rvr|tachyarrhythmia|tachy\w*|narrow complex|broad complex)\b)(?=.*\b(?:hypotensi\w*|shocked|in shock|(?:going |gone |looks |looking )?(?:grey|gray|clammy|mottled)|peri ?arrest|(?:pressure|bp|systolic) (?:\w+ ){0,2}(?:dropping|falling|soft|crashing))\b)"
        r"(?=.*\b(?:now|pt|patient|bed \d+|bay \d+|cubicle \d+|in front of me|monitor|\d{3})\b)",
        record_word=False,
    ),
    *_rules(
        "chest_pain",
        r"\bdolor (?:\w+ )?(?:toracico|precordial|retroesternal)\b",
    ),
    # round sixteen (frozen20's classes, fresh wordings): a farewell written beside hopelessness ("no
    # point anymore, the letters to my girls are done"); a known allergen just eaten or drunk with a
    # reaction sign, whichever order the three are said in (a past reaction or a question about what
    # would happen is not one); a blocked or dislodged airway that cannot be ventilated
    *_rules(
        "suicide",
        r"^(?=.*\b(?:whats the point|no point|pointless|cant go on|cant do (?:this|it) (?:anymore|any more)|cant take (?:it|this) (?:anymore|any more)|"
        r"nothing left|hopeless|giving up on (?:everything|life)|given up on (?:everything|life)|tired of (?:it all|everything|living|life|being here)|"
        r"done with (?:it all|everything|life)|had enough of (?:everything|life|it all)|no reason to (?:stay|live|carry on|go on)|no way forward|sin sentido|ya no aguanto|para que seguir)\b)"
        r"(?=.*(?:\b(?:written|wrote|writing|left|leaving|finished|done|recorded|escribi|he escrito|deje) (?:\w+ ){0,3}(?:notes?|letters?|cards?|messages?|videos?|cartas?|notas?)\b|"
        r"\b(?:notes?|letters?|cards?|messages?|videos?|cartas?|notas?) (?:\w+ ){0,4}(?:are |is |s )?(?:written|done|finished|ready|sorted|escritas?|listas?)\b))",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        r"^(?!.*\b(?:what (?:would|will|could|should|happens)|what if|if i (?:ate|eat|had|have|drink|drank)|would|last time|when i was|as a (?:kid|child|baby)|years? ago|used to|in (?:19|20)\d\d|once|the time|that time|previously)\b)"
        r"(?=.*\b(?:allergic|allergy|allergies|anaphyla\w*|alergic[oa]|alergia)\b)"
        r"(?=.*\b(?:ate|eaten|drank|drunk|had (?:some|a bit|a bite|a sip|a mouthful|a taste)|just had|a bite of|swallowed|licked|chewed|took|taken|been given|was given|got given|comio|bebio|se comio|se tomo)\b)"
        r"(?=.*\b(?:(?:mouth|throat|tongue|lips?) (?:\w+ ){0,2}tingl\w*|tingl\w* (?:\w+ ){0,2}(?:mouth|throat|tongue|lips?)|itchy (?:mouth|throat|tongue|lips)|"
        r"(?:mouth|throat|tongue|lips?) (?:is |are |feels |feel |keeps )?(?:\w+ (?:and )?)?(?:swell\w*|swollen|puff\w*|itchy|numb|tight)|face (?:is |keeps )?(?:\w+ (?:and )?)?(?:swell\w*|swollen|puff\w*)|"
        r"wheez\w*|hives|welts|(?:lips?|face|skin) (?:\w+ )?(?:blue|bluish|purple|grey|gray)|cant breathe|struggling to breathe|short of breath|"
        r"vomiting|being sick|throwing up|floppy|faint\w*|hinchad[oa]s?|hormigueo|me pica la garganta|le pica la garganta)\b)",
        record_word=False,
    ),
    *_rules(
        "breathing",
        r"\b(?:cant|cannot|can not|unable to|failing to|struggling to|impossible to) (?:ventilate|oxygenate|bag (?:him|her|them|the patient|the pt|pt)|bag mask|bag and mask|bvm)\b(?! (?:the |my |a )?(?:room|bathroom|house|kitchen|flat|loft|home))",
        r"\b(?:trach\w*|tracheostomy|trachy|et tube|ett|breathing tube|endotracheal tube|airway|laryngectomy) (?:\w+ ){0,3}(?:blocked|occluded|obstructed|displaced|dislodged|fallen out|fell out|came out|come out|pulled out)\b"
        r"(?=.*\b(?:cant|cannot|unable|no air|desat\w*|sats|not breathing|struggling|now|right now|just)\b)",
        r"\b(?:blocked|occluded|obstructed|displaced|dislodged) (?:\w+ ){0,2}(?:trach\w*|tracheostomy|trachy|et tube|ett|breathing tube|endotracheal tube|airway)\b"
        r"(?=.*\b(?:cant|cannot|unable|no air|desat\w*|sats|not breathing|struggling|now|right now|just)\b)",
        record_word=False,
    ),
    # round sixteen, after frozen21 (measured once, kept frozen; fresh wordings in
    # tests/agent/test_safety_round16b.py). NOT_PAST_R16: none of these is read in a message that
    # places it in the past ("last year", "years ago", "in 2019", "used to", "as a child").
    # A clinician's bedside acute signs with no rhythm or arrest word: a shocked patient (becoming
    # hypotensive, a pressure that cannot be recorded, mottled with falling consciousness), an active
    # upper GI bleed (haematemesis or melaena with a rate of 120 or more, or said active), a
    # respiratory arrest or naloxone given without response, a patient saying he is about to kill
    # himself (the STEMI said with "has crushing chest pain" is read as present by `ACUTE`)
    *_rules(
        "clinician_acute",
        r"(?<!was )(?<!were )(?<!been )\b(?:becoming|getting|going|increasingly|now|rapidly) (?:more )?(?:hypotensive|shocked|peri ?arrest)\b",
        r"\b(?:bp|blood pressure|pressure|systolic) (?:is |now |has become |became )?(?:unrecordable|unrecordably low|not recordable|cant be (?:recorded|obtained)|not obtainable|unobtainable)\b",
        r"\bmottled\b(?=.*\b(?:barely|unresponsive|unrousable|responsive|responding|drowsy|hypotensive|unrecordable|confused|gcs)\b)",
        NOT_PAST_R16
        + r"(?=.*\b(?:haematemesis|hematemesis|melaena|melena|malaena|coffee ground\w*|vomiting (?:\w+ )?blood|gi bleed\w*|variceal bleed\w*|upper gi)\b)"
        r"(?=.*\b(?:(?:hr|pulse|heart rate|rate) (?:of |is |now |at )?(?:1[2-9]\d|2\d\d)|actively|active bleed\w*|ongoing|hypotensive|shocked|in shock)\b)",
        record_word=False,
    ),
    # (these two name record items too: a record or leaflet question about them is exempt)
    *_rules(
        "clinician_acute",
        r"(?<!had a )(?<!previous )(?<!prior )(?<!hx of )(?<!h o )\b(?:respiratory|resp|cardiorespiratory) arrest\b(?! (?:in|on|during|last) (?:19|20|last|previous|her|his)\b)",
        r"\b(?:naloxone|narcan) (?:\w+ ){0,4}(?:no response|not responding|not working|no effect|no improvement|still not breathing|still unresponsive)\b",
    ),
    *_rules(
        "suicide",
        r"\b(?:going to|gonna|about to|wants to|planning to|threatening to|trying to) (?:hang|kill|shoot|stab|drown|poison|hurt) (?:himself|herself|themselves|themself)\b",
    ),
    *_rules(
        "suicide",
        # a farewell said as an apology and an appointment not needed past a night named
        r"^(?=.*\b(?:sorry|apologi\w*|forgive me|goodbye)\b)(?=.*\b(?:wont|will not|shant|no longer) (?:be )?(?:needing|need|be needing|be around|be here)\b)"
        r"(?=.*\bafter (?:tonight|today|this weekend|tomorrow)\b)"
        r"(?!.*\b(?:because|since|better|sorted|resolved|recovered|moving|moved|cancel\w*|rebook\w*|reschedul\w*|private\w*|elsewhere|discharged|another)\b)",
        record_word=False,
    ),
    # seizures in a cluster, a first seizure come round from with injury or incontinence, someone
    # seizing now (in Spanish too), whatever record word is near ("ran out of my epilepsy medication")
    *_rules(
        "seizure",
        NOT_PAST_R16
        + r"(?!.*\b(?:leaflets?|folletos?|what does|what do the|care plan|guidance|what if|if (?:i|he|she|they|you) (?:have|has|get|had))\b)"
        r"(?=.*\b(?:seizures?|fits?|convulsions?|crisis|convulsiones|ataques)\b (?:\w+ ){0,3}(?:back to back|one after (?:another|the other)|una tras otra|seguidas)\b|"
        r".*\bback to back (?:seizures|fits|convulsions)\b|"
        r".*\b(?:\d+|two|three|four|five|six|several|multiple|dos|tres|cuatro|cinco|varias) (?:seizures|fits|convulsions|crisis|convulsiones|ataques)(?: \w+)? (?:in|within|en) (?:an?|one|the last|half an|una|la ultima|media) (?:hour|hr|hora)\b)",
        NOT_PAST_R16
        + r"(?=.*\b(?:came round|come round|came to|come to|woke up|woken up|coming round) (?:\w+ ){0,3}(?:on|in) (?:the )?(?:\w+ )?(?:floor|ground|bathroom|street|pavement|bath)\b)"
        r"(?=.*\b(?:wet (?:myself|himself|herself)|incontinent|bit (?:my|his|her) tongue|bitten (?:my|his|her) tongue|tongue (?:is )?bitten|bruised|bruise|bleeding|blood|cut|gash|injured|hurt)\b)"
        r"(?=.*\b(?:never had (?:a |one )?(?:seizure|fit|convulsion)s?(?: before)?|first (?:ever )?(?:seizure|fit|convulsion)|not epileptic|no history of (?:seizures|fits|epilepsy))\b)",
        r"\b(?:estoy|esta|estas|sigue|sigo) (?:convulsionando|teniendo (?:una? )?(?:convulsiones|convulsion|crisis(?! de\b)(?: epilepticas?| convulsivas?)?|ataques? epilepticos?))\b",
        r"\b(?:im|i am|hes|he is|shes|she is|theyre|they are) (?:(?!not |never )\w+ )?(?:seizing|convulsing|having a (?:seizure|fit|convulsion))\b(?! (?:of|about|over|review|assessment|clinic|appointment|check|test)\b)",
        record_word=False,
    ),
    # diabetic emergencies: a low reading with drowsiness (or sugar already taken and no rise), a
    # meter reading "HI" or high with vomiting and drowsiness, type 1 with vomiting and deep or fast
    # breathing, high ketones or drowsiness (DKA)
    *_rules(
        "unconscious",
        NOT_PAST_R16
        + r"(?=.*\b(?:meter|sugar|sugars|glucose|bm|bg|libre|sensor) (?:\w+ ){0,2}(?:is|are|says|reads|showing|shows|at|of|still|only|just|down to|dropped to|fell to|now)(?: still| only| just| now)? (?:[12](?: \d)?|0 \d)\b(?! (?:hours?|days?|weeks?|months?|years?|times|units?|tablets?|percent)))"
        r"(?=.*\b(?:sleepy|drowsy|drifting off|cant stay awake|cant keep (?:my|his|her) eyes open|passing out|cant think|confused|not making sense|slurring|going under|floppy|unresponsive|cant wake)\b)",
        NOT_PAST_R16
        + r"(?=.*\b(?:meter|sugar|sugars|glucose|bm|monitor|libre|sensor|dexcom|reading)\b (?:\w+ ){0,3}(?:says|reads|showing|shows|is|are|saying|reading) (?:just |only |still )?(?:hi|high|very high|sky high)\b)"
        r"(?=.*\b(?:vomit\w*|being sick|throwing up|been sick)\b)(?=.*\b(?:drowsy|sleepy|drifting off|cant stay awake|confused|cant keep (?:my|his|her) eyes open|breathing (?:deep|fast|heavy))\b)",
        NOT_PAST_R16
        + r"(?=.*\b(?:type 1|type one|t1|t1d|diabetic|diabetes|insulin)\b)(?=.*\b(?:vomit\w*|being sick|throwing up|been sick)\b)"
        r"(?=.*\b(?:breathing (?:\w+ ){0,2}(?:deep|fast|heavy|rapid|funny|strange|weird)|deep (?:and fast |fast )?breath\w*|ketones? (?:\w+ ){0,2}(?:[3-9]|high|hi|over 3|above 3)|drowsy|hard to wake|fruity)\b)",
        record_word=False,
    ),
    # asthma: a peak flow said with being unable to talk or breathe
    *_rules(
        "breathing",
        NOT_PAST_R16
        + r"(?=.*\b(?:peak flow|peak flows|pefr)\b)(?=.*\b(?:(?:can (?:hardly|barely|not)|cant|cannot|struggling to|unable to) (?:talk|speak|finish (?:a |my )?sentences?|get (?:my |the )?words out|breathe)|too breathless to (?:talk|speak))\b)",
        record_word=False,
    ),
    # a heart attack's or stent's pain come back now
    *_rules(
        "chest_pain",
        r"^(?=.*\b(?:stent|stents|heart attack|angina|bypass|angioplasty|stemi|nstemi|cardiac)\b)"
        r"(?=.*\b(?:same|that|similar) (?:\w+ )?(?:pain|tightness|pressure|ache|heaviness|crushing feeling)\b (?:\w+ ){0,6}(?:(?:has|have|s|just|is|its) (?:just )?(?:come|coming|came) back|is back|back again|started again|starting again|returned|happening again)\b)"
        r"(?!.*\b(?:last (?:year|month|week)|years? ago|months? ago|used to)\b)",
        record_word=False,
    ),
    # opioids: more than usual used with sinking consciousness and naloxone or no one by
    *_rules(
        "overdose",
        r"^(?=.*\b(?:used|took|taken|had|done|did|shot|injected|smoked|using) (?:\w+ )?(?:more than (?:usual|normal|i (?:normally|usually))|too much|a lot more|way more|double)\b)"
        r"(?=.*\b(?:going under|nodding off|passing out|cant stay awake|cant keep (?:my )?eyes open|drifting off|slipping away|fading|breathing (?:is )?(?:slow|slowing|shallow))\b)"
        r"(?=.*\b(?:naloxone|narcan|heroin|gear|fent\w*|opioids?|opiates?|methadone|morphine|oxy\w*|no one|nobody|noone|alone|on my own|by myself|(?:friend|mate|they|everyone) (?:has |have )?(?:left|gone))\b)",
        record_word=False,
    ),
    # lips and tongue swelling, in Spanish
    *_rules(
        "anaphylaxis",
        r"^(?!.*\b(?:cuando (?:era|como|tomo|bebo|me tomo)|a veces|siempre|hace (?:\w+ )?(?:anos|meses)|el ano pasado|una vez|la ultima vez|si (?:como|tomo|me tomo)|que pasa si)\b)"
        r"(?=.*\b(?:se (?:me|le|te) (?:estan |esta |empiezan a |empieza a )?(?:hinchan|hincha|hinchando|inflan|infla|inflando|cierra|cerrando)|(?:labios?|lengua|garganta|boca) (?:\w+ ){0,2}(?:hinchad[oa]s?|hinchando|inflamad[oa]s?|cerrando))\b)"
        r"(?=.*\b(?:labios?|lengua|garganta)\b)",
        record_word=False,
    ),
    # round eighteen (frozen24's classes, fresh wordings), none read in a question asked of the record
    # or placed in the past. A tearing or ripping chest pain, or one going through to the back at its
    # worst (an aortic dissection's signs)
    *_rules(
        "chest_pain",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:chest|shoulder ?blades?|between (?:my|his|her|their) shoulders)\b)"
        + r".*\b(?:tearing|ripping|ripped|torn)\b",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:worst|never (?:felt|had)|sudden\w*)\b)"
        + rf"(?=.*\b(?:{PAIN}) (?:\w+ ){{0,3}}chest\b|.*\bchest {gap(3)}{PAIN}\b)"
        + r".*\bchest (?:\w+ ){0,6}(?:to|into|through to|through|in) (?:my|his|her|their|the) (?:back|spine|shoulder ?blades?)\b",
        record_word=False,
    ),
    # a sudden worst-ever headache with a stiff neck, light hurting, fainting or vomiting (a
    # thunderclap headache: NICE CKS, subarachnoid haemorrhage)
    *_rules(
        "stroke",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:headache|head ache|head pain|pain in (?:my|his|her|the) head)\b)"
        + r"(?=.*\b(?:worst|thunderclap|explosive|exploding|out of (?:nowhere|the blue)|all at once|like being hit|sudden\w* (?:\w+ )?(?:severe|splitting|excruciating|agonising|agonizing|blinding|terrible|awful|horrendous))\b)"
        + r".*\b(?:stiff neck|neck (?:is |feels |went |gone )?(?:\w+ )?stiff|cant (?:bend|move|turn) (?:my |his |her )?neck|light (?:\w+ ){0,2}(?:hurts?|hurting)|hurts? (?:my |his |her )?eyes|pass(?:ing)? out|passed out|faint\w*|blacking out|being sick|vomit\w*|throwing up|threw up|thunderclap)\b",
        record_word=False,
    ),
    # an overdose said as a span of time ("a fortnights worth of my tablets in one go")
    *_rules(
        "overdose",
        NOT_PAST_R16
        + r".*\b(?:took|taken|take|taking|swallowed|had|downed|popped|ate|necked)\b (?:\w+ ){0,3}(?:days?|weeks?|fortnights?|months?)\b (?:\w+ ){0,6}(?:at once|in one go|all together|altogether|at the same time|all in one|in one sitting|in one hit)\b",
        record_word=False,
    ),
    # the lips, tongue or face grown big after a new medicine (angioedema), with no word of allergy
    *_rules(
        "anaphylaxis",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:new|first|started|starting|since i took|since taking|after taking)\b)"
        + r"(?=.*\b(?:tablets?|pills?|medicines?|medications?|meds|dose|antibiotics?|injection|jab|\w+pril|\w+sartan|\w+cillin)\b)"
        + r".*\b(?:lips?|tongue|face|mouth|throat)\b (?:\w+ ){0,3}(?:huge|massive|enormous|big|bigger|blown up|ballooned|ballooning|thick|fat|puffy|swelling|swollen|swelled|puffed)\b",
        record_word=False,
    ),
    # a first-ever fit told by its signs ("never had a fit before and hes shaking and wet himself")
    *_rules(
        "seizure",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:never (?:had|fitted|seized|happened|done)|no history of|first (?:ever|time)|not (?:an )?epileptic|isnt (?:an )?epileptic)\b)"
        + r".*\b(?:jerking|convulsing|frothing|foaming|wet (?:himself|herself|themselves|myself)|bit (?:his|her|their|my) tongue|(?:went|gone|go|going|is|hes|shes) (?:all )?(?:rigid|stiff)|(?:shaking|twitching) all over|whole body (?:is )?(?:\w+ )?(?:shaking|twitching|jerking))\b",
        record_word=False,
    ),
    # a clinician's acute wordings: on an anticoagulant with a sudden headache or a new unequal pupil;
    # a drain bleeding a volume in under an hour; a neonate's heart rate under 60 (NLS algorithm)
    *_rules(
        "clinician_acute",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + r"(?=.*\b(?:heparin|enoxaparin|dalteparin|tinzaparin|clexane|fragmin|lmwh|apixaban|rivaroxaban|edoxaban|dabigatran|doac|warfarin|anticoag\w*|thrombolys\w*|alteplase|tenecteplase)\b)"
        + r".*\b(?:(?:unequal|asymmetric\w*|fixed|blown|new) (?:\w+ )?pupils?|pupils? (?:\w+ )?(?:unequal|asymmetr\w*|blown|fixed)|pupil asymmetry|anisocoria|(?:sudden|acute|new|severe|thunderclap|worst) (?:\w+ ){0,2}headache)\b",
        NOT_PAST_R16
        + r"(?=.*\bdrains?\b)"
        + r".*\b[1-9]\d{2,3} ?(?:ml|mls|millilitres?|milliliters?|cc)\b (?:\w+ ){0,3}(?:in|over|within) (?:the )?(?:last |past )?(?:\d{1,2} ?(?:min|mins|minutes)|(?:an?|one|1) ?(?:hour|hr)|hour|hr|half an hour)\b",
        r"\bneonatal (?:resus\w*|life support)\b(?! (?:course|training|certificate|update|record|records|notes))",
        r"\b(?:baby|babys|newborn|neonate|infant)\b (?:\w+ ){0,6}(?:hr|heart rate|pulse) (?:is |of |now |still |under |below |less than |<)*(?:60|[1-5]\d)\b(?! ?(?:years?|yrs?|minutes?|mins?)\b)",
        r"\b(?:baby|newborn|neonate)\b (?:\w+ ){0,2}(?:born|delivered) (?:flat|floppy|not breathing|blue|white|lifeless)\b",
        record_word=False,
    ),
    # Tagalog (the lexicon `TL` above): chest pain, no breath, a numb face or no speech, a poison
    # drunk, lips or throat swelling
    *_rules(
        "chest_pain",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + rf".*(?:\b{TL['pain']} (?:\w+ ){{0,3}}{TL['chest']}\b|\b{TL['chest']} (?:\w+ ){{0,2}}{TL['pain']}\b)",
        record_word=False,
    ),
    *_rules("breathing", NOT_ASKED_OF_RECORD_R18 + rf".*\b{TL['no_breath']}\b", record_word=False),
    *_rules(
        "stroke",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + rf".*(?:\b{TL['numb']} (?:\w+ ){{0,4}}{TL['face']}\b|\b{TL['face']} (?:\w+ ){{0,3}}{TL['numb']}\b|\b{TL['no_speech']}\b)",
        record_word=False,
    ),
    *_rules(
        "poisoning",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + rf".*(?:\b{TL['poisoned']}\b|\b{TL['swallowed']} (?:\w+ ){{0,3}}{TL['poison']}\b)",
        record_word=False,
    ),
    *_rules(
        "anaphylaxis",
        NOT_ASKED_OF_RECORD_R18
        + NOT_PAST_R16
        + rf".*(?:\b{TL['swollen']} (?:\w+ ){{0,3}}{TL['airway']}\b|\b{TL['airway']} (?:\w+ ){{0,3}}{TL['swollen']}\b)",
        record_word=False,
    ),
)

NEGATORS = re.compile(
    r"\b(?:no|not|dont|do not|didnt|did not|doesnt|does not|hasnt|havent|denies|denied|without|never|nor|isnt|arent|wasnt|werent|no longer|none|negative for|ruled out|nobody|no one|noone|nadie|no tengo|no he tenido|sin|nunca|nobodys)\s*$"
)

# round sixteen (frozen20's false alarms, fresh wordings): practical errands that share words with an
# emergency or an advice request, read as record, leaflet or booking questions by BOTH the emergency
# side (`RECORD_FRAMING`: the semantic side and record words' rules defer) and the advice side
# (`ADVICE_RECORD_FRAMING`): a booking in Spanish ("agenda el control de la presión con el médico"),
# a visit before an operation, what a leaflet says about a test or the site (jewellery on for a scan,
# fasting for a blood test, smoking or parking on the grounds, the bus to the hospital), how many
# of something the record or a prescription holds, and a past visit's findings
ERRANDS = (
    r"\b(?:reserva\w*|agenda\w*|programa\w*|pide|pideme|pedir|apunta\w*) (?:\w+ ){0,2}(?:una? )?(?:cita|revision|consulta|turno|control|hora con)\b|\b(?:necesito|quiero|quisiera|queria) (?:una? )?(?:cita|turno)\b|"
    r"\b(?:see|speak to|talk to|meet) (?:the|a|an|my) (?:\w+ )?(?:anaesthetist|anesthetist|surgeon|consultant|physio|physiotherapist|dietitian|dietician|pharmacist|specialist|midwife|nurse|pre ?op\w*|pre assessment\w*|team) (?:\w+ ){0,2}before (?:my|the|her|his) (?:\w+ )?(?:op|operation|surgery|procedure|scan|delivery|section)\b|"
    r"\b(?:wear|keep|leave|have) (?:\w+ ){0,4}(?:on|in) (?:for|during|in) (?:a|an|my|the) (?:\w+ ){0,2}(?:mri|scan|ct|x ray|xray|ultrasound|ecg|mammogram|operation|surgery|procedure|op)\b|"
    r"\b(?:fast|fasting|starve|not eat|stop eating) (?:\w+ ){0,2}(?:for|before) (?:a|an|my|the) (?:\w+ ){0,2}(?:test|bloods|blood test|scan|procedure|op|operation|surgery|colonoscopy|endoscopy|ultrasound|appointment)\b|"
    r"\b(?:can|could|may) (?:i|we|you|visitors|patients) (?:\w+ )?(?:smoke|vape|park) (?:\w+ ){0,1}(?:on|in|at|outside|near) (?:the )?(?:hospital|ward|grounds|site|premises|car park|entrance)\b|\b(?:smoking|vaping|parking) (?:on|at) (?:the )?hospital\b|"
    r"\bhow (?:do|can|should) i (?:get|travel|go) (?:to|into) (?:the )?(?:\w+ ){0,2}(?:hospital|clinic|surgery|practice|centre|center|unit|department) (?:by|on (?:the|a)) (?:bus|train|tram|metro|underground|tube|bike|foot)\b|"
    r"\bhow many (?:\w+ ){0,4}(?:are|were|was|is|have been) (?:\w+ ){0,2}(?:on|in) (?:my|the|her|his) (?:\w+ )?(?:script|prescription|record|records|notes|chart|file|list|repeat|box|pack)\b|"
    r"\bhow many (?:\w+ ){0,4}(?:are|were|is|was|have been|got) (?:noted|recorded|documented|listed|logged|written|coded)\b|\bon my (?:last |latest |repeat |current )?script\b|"
    r"\bwhat (?:was|were) (?:found|the findings)\b"
)

RECORD_FRAMING = re.compile(
    ERRANDS + "|"
    r"\b(?:history|hx|h/o|h o|pmh|pmhx|historial|expediente|diagnos\w*|record\w*|chart|notes?|documented|listed|ever|previous\w*|prior|past|"
    r"last (?:year|month|week|time|visit|seizure|stroke)|in (?:19|20)\d\d|since (?:19|20)\d\d|years? ago|when (?:was|did|were|is)|cuando|"
    r"was i|did i|have i (?:had|been)|what (?:caused|was|happened|did)|when i (?:came in|was (?:in|admitted|seen|brought in))|what (?:\w+ ){1,2}did (?:they|the doctors?|the hospital) (?:get|find|measure|record|check|do)|why was i|treated for|seen for|admitted for|admissions|"
    r"discharge\w*(?<!discharge lounge)(?! lounge)|follow.?up|book\w*|reschedul\w*|re schedul\w*|appointments?|citas?|clinic(?! (?:pt|patient|nurse|room)\b)(?<!antenatal clinic)(?<!in clinic)|slot|referral|leaflets?|folleto|signs of|symptoms of|"
    r"warning signs|how do i (?:recognise|recognize|spot|prepare|use|store)|what is (?:a|an)|what are|show me|list|summar\w*|"
    # round thirteen (frozen15): a service named after a condition, its phone number, the last bloods
    r"(?:chest pain|stroke|seizure|first fit|falls?|heart failure|breathlessness|pain|tia|epilepsy|diabetes|memory) (?:clinic|service|unit|team|nurses?|ward|helpline|line)|"
    r"phone number|contact (?:details|number)|last (?:bloods|blood tests?|results?|labs)|"
    # the allergy words as people mistype them too ("is shellfish in my alergies": round seventeen)
    r"reactions? to|al+erg(?:y|ys|ie|ies|ic to)|prescri\w*|on my record|on file|what does (?:my|the)|"
    r"medications?|medicines?|meds|levels?|dose|dosage|treated|admission|admitted|date of|doctor|hospital|what year|which)\b|^(?:any|is there an?|date of)\b|"
    # a value's trend or latest reading, whatever the (possibly misspelt) name of the test:
    # "has my creatinien gone down", "did my a1c come back up", "my latest cholestrol result"
    r"\b(?:has|have|did|is|are) my (?:\w+ ){1,3}(?:gone|go|come|came|went|got|gotten|been going|going|coming) (?:up|down|back)\b|"
    r"\bmy (?:latest|last|most recent|newest|previous) (?:\w+ ){0,2}(?:results?|levels?|readings?|tests?|values?|numbers?)\b|"
    # Spanish record words (round five: "tengo registrada alguna alergia", "qué dice el informe")
    r"\b(?:registrad[oa]s?|informe|resultados?|analisis|analitica|rango|grupo sanguineo|vacunas?|consulta|medico de cabecera|"
    r"en que ano|cuantas veces|cuantos|cuantas|operaron|me quitaron|que dice|historia clinica|diagnosticos?|receta|medicamentos|"
    # lead, round eight (frozen7: "¿cuáles son los síntomas de un ictus?" got the emergency reply)
    r"informacion sobre|info sobre|folletos?|sintomas de|senales de|signos de|como (?:reconocer|identificar|saber si|se usa|se pone|usar|poner))\b|"
    # lead, round ten (frozen8: "where's the maternity unit", "how do i register my newborn with the
    # practice" got the emergency reply from the classifier): finding one's way and registering
    r"\bwhere(?:s| is| are| do i find) (?:the )?(?:\w+ ){0,2}(?:unit|ward|department|dept|clinic|entrance|reception|pharmacy|car park|parking|cafe|canteen|toilets?|lifts?|wing|building|suite|centre|center)\b|"
    r"\b(?:bath|bathe|shower|swim|swimming|wash|washing) (?:\w+ ){0,3}(?:after|before|with) (?:my|the|a|an) (?:\w+ ){0,2}(?:cast|stitches|wound|op|operation|surgery|biopsy|dressing|scar|plaster|drain|procedure)\b|\bdoes my (?:file|record|chart|notes?) (?:\w+ )?(?:mention|say|show|list|include)\b|\bcopy of\b|\barrange\b|\broutine\b|\bhome visit\b|\bmy file\b|\blogged\b|\bon here\b|\bhow do i (?:get to|find) the\b|\b(?:opening|visiting) (?:hours|times)\b|\bregist(?:er|ering|ration)\b"
)
# a clinician's chart question carries these too ("how many a&e attendances with chest pain",
# "does the mri report mention a stroke"); for patients they stay ordinary words, since "how many
# pills does it take" must never be read as a record question
CLINICIAN_RECORD_FRAMING = re.compile(
    # round fourteen: a past event asked about ("was there a cord prolapse in her last delivery")
    r"^(?:was|were) there\b|\b(?:last|previous|prior|first) (?:delivery|deliveries|pregnancy|pregnancies|birth|labour|labor|admission|episode)\b|"
    r"\b(?:how many|attendances?|visits?|episodes?|encounters?|mention\w*|reports?|scans?|ecgs?|echo|imaging|results?|coded|"
    r"documented|recorded|per the|on the (?:ecg|scan|report|notes)|antecedentes|al ingreso|al alta|baseline)\b|"
    # lead, round six (frozen5: "has she had a stroke before" got the emergency reply)
    r"\b(?:has|had|have) (?:she|he|they|the patient|pt|patient) (?:ever |previously |already |before )?(?:had|been)\b|"
    r"\b(?:before|previously|prior)\s*$|"
    # lead, round seven: chart shorthand that opens the question ("pmh: seizures?", "h/o cva?")
    r"^(?:any |does (?:she|he|the patient) have (?:a |any )?)?(?:pmh|pmhx|hx|h/o|h o|past medical history)\b"
)
# a past event dated in the past and asked about as a record question, nothing happening now:
# "back in 2018 i was seen for self harm, what was the follow up plan in my notes", "i was
# pregnant in 2020 and had some bleeding, what did the scan say back then"
PAST_DATED = re.compile(
    r"\b(?:in|back in|during|since) (?:19|20)\d\d\b|\b(?:\d+|two|three|four|five|ten|many|several) years? ago\b|\byears ago\b|"
    r"\blast (?:summer|winter|spring|autumn|fall|year|january|february|march|april|may|june|july|august|september|october|november|december)\b|"
    r"\bback then\b|\bat the time\b|\ba long time ago\b|\bhace (?:\w+ )?anos\b|\ben (?:19|20)\d\d\b|"
    # lead, round eight (frozen7: "the time i took too many pills, what did the ER doctor put in my
    # notes" got the emergency reply): an event placed in the past by the words around it
    r"\bthe (?:time|day|night|visit|admission|one|episode) (?:when |that )?(?:i|she|he|they) (?:\w+ ){0,2}(?:was|were|took|swallowed|had|got|tried|did|ended up|went|stopped|collapsed|fainted|passed out)\b|"
    # round fifteen: a life stage gone by ("the time he stopped breathing as a baby")
    r"\bas a (?:baby|newborn|child|kid|toddler|teenager|teen)\b|"
    r"\b(?:when|where) (?:i|she|he) was (?:brought in|admitted|taken in|rushed in|seen|treated)\b|\bwhen (?:i|she|he) was (?:\d+ (?:weeks|months) )?(?:pregnant|expecting)\b|\b(?:the|that) (?:visit|admission|encounter|one) (?:\w+ ){0,2}for\b|"
    r"\bcuando (?:me|se) (?:tome|tomo|trague|trago|intente|intento|ingresaron|trajeron|llevaron|dio)\b|\b(?:del|el) ano pasado\b"
)
RECORD_INTENT = re.compile(
    r"\b(?:did|does|has|have) (?:the|my|her|his) \w+ (?:write|wrote|note|record|document|mention)\w*\b|\b(?:write|wrote|written|noted|jotted) down\b|"
    r"\bwhat (?:did|was|were|does|do) (?:the|they|my|it|he|she)\b|\b(?:notes?|record\w*|chart|letter|report|scan|discharge|follow ?up|"
    r"diagnos\w*|which (?:doctor|hospital)|who saw me|what medicines|how long was i|is that in|written|letter|did (?:they|the doctors?|the midwife|the nurses?) (?:write|note|record|put)|"
    r"(?:find|which|show me|open) (?:the |my |that )?(?:visit|admission|appointment|encounter|letter|notes?|one))\b|\bque (?:dijeron|dice|pusieron|escribio|escribieron)\b|\binforme\b"
)
PRESENT_STATE = re.compile(
    r"\b(?:im|i am|she is|shes|he is|hes|theyre|it is|its) (?:\w+ ){0,2}(?:pregnant|bleeding|having|in pain|struggling|choking|fitting)\b|"
    r"\b(?:again|still|right now|keeps)\b"
)
ACUTE = re.compile(
    r"\b(?:just (?:collapsed|arrested|coded|gone|went|stopped|fallen|fell|passed out|fainted|started|crashed|vomited|brought up|threw up|coughed up|seized|dropped|desatted)|no pulse|pulseless|"
    r"in front of me|(?:im|i am) (?:seeing|with)|acabo de|acaba de|acaban de|ahora mismo|en este momento|(?:i|we) just did|(?:ive|i have|weve|we have) just (?:done|taken|recorded)|not breathing|(?<!time i )(?<!time he )(?<!time she )(?<!when i )(?<!when he )(?<!when she )stopped breathing|cpr|compressions|(?<!fine )(?<!ok )(?<!okay )(?<!better )(?<!well )(?<!good )now|right now|currently|at the moment|today|tonight|this (?:morning|evening|afternoon)|"
    r"suddenly|all of a sudden|just (?:started|now|happened)|started|starting to|(?<!not )(?<!no )(?<!dont )(?<!of me )(?<!record of )(?<!history of )(?:im having|i am having|having)|getting worse|"
    r"hour|hours ago|minutes|mins|wont stop|cant stop|ahora|"
    # a symptom that will not go away is happening now ("un dolor fuerte en el pecho que no se me pasa")
    r"wont go away|wont ease|not going away|no se (?:me |le )?(?:pasa|quita|va))\b|"
    # lead, round eight (a tuning line missed: "airway closing up after the penicillin dose,
    # adrenaline drawn up" passed as a chart question about a dose): swelling shut in progress,
    # rescue treatment being readied
    r"\b(?:closing up|swelling up|drawn up|drawing up|(?:adrenaline|epinephrine|epi) (?:given|going in|in|ready))\b|"
    # lead, round six (frozen5: "i was only going to ask about my repeat prescription but my chest has
    # gone really heavy and tight and i can hardly stand up" passed as a record question)
    r"\b(?:has|have|is|its|just|suddenly) (?:gone|going|gotten|got|getting) (?:really |very |all |so )?(?:heavy|tight|numb|weak|floppy|grey|gray|blue|cold|blurry|dark)\b|"
    r"\b(?:can (?:hardly|barely|not)|cant|cannot) (?:stand|stand up|breathe|walk|talk|speak|swallow|stay awake|keep my eyes open)\b|"
    r"\b(?:going|meaning|wanting) to ask (?:\w+ ){0,10}but\b|"
    # lead, round ten (frozen8: "kid allergic to egg ate some and is vomiting and is floppy", "first
    # ever seizure … he's still shaking", "obs patient in clinic just had a massive pph" were read
    # as record questions): a state in progress, an event that has just happened, swelling fast
    r"\b(?:is|are|hes|shes|theyre|keeps|still|now) (?:now |still )?(?:vomiting|being sick|floppy|limp|shaking|fitting(?! in (?:well|ok|okay|fine|nicely|at|with)\b)|seizing|convulsing|jerking|wheezing|gasping|turning blue|going blue|swelling|bleeding|unresponsive|unrousable|grey|gray|clammy|cyanosed|cyanotic|mottled)\b|"
    # round thirteen (frozen15): a state still going after an event ("he's still really confused"),
    # a swelling that is starting, a first fit just had, a paramedic on scene, pain that goes on
    r"\bstill (?:really |very |so |quite )?(?:confused|drowsy|disoriented|disorientated|out of it|not making sense|groggy|not with it|unconscious|not awake)\b|"
    r"\bstarting to (?:close|swell|tighten|go (?:blue|numb|tight|grey|gray))\b|\bjust had (?:a |an |his |her |their |my )?(?:first |1st )?(?:ever )?(?:fit|seizure|convulsion|blackout)\b|"
    r"\b(?:on scene|en route|on route|still in (?:\w+ )?pain|pain (?:is )?ongoing|ongoing (?:chest )?pain)\b|"
    r"\bjust had (?:a |an )?(?:massive|major|huge|big|heavy|sudden|bad|severe|torrential|large|significant)\b|\bswelling (?:up )?(?:fast|quickly|rapidly|so fast)\b|"
    # a body part described as it is now ("my chest is crushing, is it on file"): present, whatever
    # record word follows
    r"\bmy (?:chest|heart|throat|face|arm|lips|tongue|head) (?:is|feels|keeps) (?:\w+ )?(?:crushing|pounding|racing|burning|tight|heavy|swelling|swollen|numb|closing|exploding)\b|"
    # lead, round twelve (tuning lines from frozen12: "worst pain ive ever had" read its "ever" as a
    # history word, "not responding to first dose of lorazepam" its "dose" as a chart word): the
    # worst pain of a life is felt now; a treatment not working is happening now
    r"\bworst (?:pain|headache|chest pain) (?:i ?ve|i have|ive) ever (?:had|felt)\b|\bworst (?:pain|headache) of (?:my|his|her) life\b|"
    r"\b(?:not responding|no response|unresponsive) to (?:\w+ ){0,3}(?:lorazepam|midazolam|diazepam|buccal|benzo\w*|adrenaline|epinephrine|epi ?pen|naloxone|narcan|fluids)\b|"
    # frozen13: "happening again right this minute", "just became unresponsive while i was reading her chart"
    r"\b(?:right )?this (?:very )?minute\b|\bas (?:we speak|i type|i write)\b|"
    # round fifteen (frozen19): a Spanish clinician's "ahorita", a sweating patient, the patient in clinic now
    r"\bahorita\b|\bdiaforetic[oa]s?\b|\b(?:paciente|pte|pcte|senor|senora) (?:\w+ ){0,2}en (?:la )?consulta\b|\bjust (?:became|become|gone|went) (?:\w+ )?(?:unresponsive|unrousable|floppy|blue|grey|gray|limp|pale)\b|"
    # round sixteen (frozen21's class, fresh wordings): a patient who "has" a crushing or central chest
    # pain is in it now, whatever chart word follows ("… and st elevation on the ecg")
    r"\b(?<!who )has (?:got )?(?:a )?(?:crushing|central|severe|ongoing|new) (?:central |crushing )?chest pain\b|"
    # round seventeen (frozen22's class, fresh wordings): a person gripping their chest is in pain now,
    # and a trace that "shows" or "is showing" (not "did … show") is read at the bedside now
    r"\b(?:clutching|gripping|holding|clasping|grabbing) (?:at )?(?:his|her|their|my) chest\b|"
    r"\b(?:ecg|ekg|12 lead|trace|monitor|tracing) (?:is |now )?(?:shows|showing)\b|"
    # something that "does not stop" in Spanish is going on now, whatever chart word follows ("no para
    # de convulsionar a pesar de la medicacion": "medicacion" is a record word)
    r"\bno (?:para|paran|deja|dejan) de (?:convulsionar|temblar|sacudirse|sangrar|vomitar|tener (?:convulsiones|crisis|ataques))\b|"
    # round seventeen (frozen23's class): someone who "isn't moving" after a collapse or fall is down now,
    # whatever place word (a car park, the hospital) the record framing reads as a leaflet's
    r"\b(?:collapsed|fell|fallen|went down|dropped) (?:\w+ ){0,8}(?:isnt|is not|not|hasnt been|has not been|wont start) moving\b|"
    r"\bno paran? (?:las|los) (?:convulsiones|crisis|ataques|temblores|sangrados?|vomitos)\b|\b(?:convulsiona\w*|sangra\w*|vomita\w*|tiembla\w*) sin parar\b"
)
# "no bleeding now, just checking my record": a symptom explicitly denied AND a plain record or
# curiosity intent. Both are needed; the semantic side defers to it (an un-negated emergency
# rule still fires first: "no chest pain but i cant breathe, just checking" is an emergency)
DENIED_SYMPTOM = re.compile(
    r"\b(?:no|not|nothing|never|dont have|isnt|arent|without|no longer|not having|not feeling) (?:\w+ ){0,2}"
    r"(?:bleeding|blood|pain|pains|chest pain|fit|fits|seizures?|emergency|wrong|problems?|symptoms?|fever|low|down|depressed|unsafe|"
    r"suicidal|overdose|attack|trouble|issues?|sangrado|dolor|emergencia|"
    # round sixteen (frozen20's class, fresh wordings: "not lightheaded at all, only after my bp list")
    r"dizzy|lightheaded|light headed|faint|fainting|breathless|short of breath|contractions|in labou?r|cramps?|cramping|sick|unwell|"
    r"hurting|sore|numb|confused|in pain|overdos\w*|mareado|mareada|contracciones)\b|"
    r"\b(?:stopped|went away|gone away|settled|resolved|healed) (?:\w+ ){0,3}(?:ago|last (?:week|month|year)|since)\b|"
    r"\b(?:nobody|no one|noone|nadie) (?:\w+ ){0,2}(?:is |has |was |se )?(?:bleeding|hurt|injured|overdosed|unconscious|sick|in danger|having|esta|sangrando)\w*\b|"
    r"\b(?:breathing|chest|pain|bleeding|heart|everything|it|asthma|sugar) (?:is|are|feels|has been|was) (?:all )?(?:fine|ok|okay|normal|better|gone|settled|under control)\b|"
    r"\b(?:im|i am|i feel|feeling|i was) (?:all |totally |completely )?(?:fine|ok|okay|better|well|recovered) now\b|\b(?:baby|babys|baby is|bump) (?:\w+ )?(?:moving|kicking) (?:fine|normally|well|lots|as normal|as usual)\b|\bno tengo (?:\w+ )?(?:dolor|sintomas|nada)\b|\bno me pasa nada\b|"
    # frozen13's denials: "nothings wrong im just curious", "no estoy sangrando, solo quiero saber",
    # "no estoy pensando en hacerme daño", "no me duele nada, nomas quiero ver"
    r"\bnothings? (?:\w+ )?wrong\b|\bno me duele (?:nada|ya)\b|\bno estoy (?:sangrando|mal|enfermo|enferma|pensando en (?:hacerme (?:dano|algo)|suicidarme|matarme|morir|lastimarme))\b"
)
JUST_ASKING = re.compile(
    r"\b(?:just|only|simply|merely|solo|solamente) (?:\w+ ){0,2}(?:checking|check|looking|asking|curious|wondering|reading|know|mirando|preguntando|revisando|saber|ver|consultar|mirar|revisar|preguntar|leer)\b|"
    r"\b(?:solo|nomas|nada mas|no mas) (?:quiero|necesito|quisiera) (?:\w+ )?(?:ver|leer|saber|consultar|revisar|mirar|la carta|el informe|mis)\b|\b(?:cancel|reschedule|rebook|move|book)\b|"
    r"\b(?:record|chart|notes?|results?|history|file|letter|med list|expediente|historial|resultados?)\b|"
    r"\bwhat (?:was|were|did|does|is|are) (?:my|the)\b|\bmy (?:latest|last|most recent)\b|\bno emergency\b|\bnot an emergency\b|"
    # round sixteen: a plain errand after the denial ("not in labour, just need my next midwife appt")
    r"\b(?:appointments?|appts?|citas?|prescriptions?|script|letter|list)\b|\b(?:just|only) (?:need|want|wanted|needed|after|looking for) (?:my|the|a|an|to)\b"
)
# present-tense first-person ideation: never a record question, whatever the framing
IDEATION = re.compile(
    r"\b(?:want(?! to (?:know|see|check|ask|find|read|book|view|understand|get|look|make|talk|speak|change|cancel|confirm))|wanna|going|gonna|(?<!up )(?<!care )(?<!treatment )(?<!safety )(?<!management )(?<!crisis )plan|planning|feel|feeling|thinking|think|keep|cant|wish|ready)\b"
)


# a modal question about a dose-sized amount (round six): "can i take a double dose of my
# metformin", "can my 12 year old take a whole adult aspirin" ask permission; an amount of
# tablets taken ("took 30", "can i take 20 of my sleeping pills") stays with the overdose rules
DOSE_QUESTION = re.compile(
    r"\bshould (?:\w+ ){1,2}still be taking\b|\b(?:can|could|should) (?:we|i) (?:stop|drop|cut (?:out|down)) (?:some|any|a few)\b|"
    r"\b(?:can|could|should|may|do) (?:i|we|she|he|they|my (?:\w+ ){0,2}\w+) (?:\w+ )?(?:take|have|give|use) (?:him |her |them |my (?:\w+ ){1,3})?(?:a |an )?"
    r"(?:double|triple|extra|another|half|(?:whole|full) (?:adult )?(?:\w+ )?(?:tablet|pill|aspirin|dose|capsule|paracetamol|ibuprofen|dose))\b(?! (?:of )?(?:bottle|pack|packet|box|strip))|"
    # round sixteen (frozen20's class, fresh wordings: "they started me on 20mg, could i go to 40 if it's
    # not helping"): the prescribed strength said, and another number asked about
    r"^(?=.*\b(?:gave me|give me|prescribed|put me on|started me on|im on|i am on|my dose is|dose is|on) (?:\w+ ){0,2}\d+(?:\.\d+)? ?(?:mg|mcg|micrograms?|milligrams?|units?|ml|g)\b)"
    r".*\b(?:is it|its|would it be|can i|could i|should i|may i|ok to|okay to|safe to|alright to) (?:\w+ ){0,2}(?:take|have|use|try|inject|go up to|go to|up it to|move to) \d+(?:\.\d+)?(?: ?(?:mg|mcg|units|ml))?\b"
    r"(?! (?:of )?(?:\w+ )?(?:bottle|pack|packet|box|strip|tablets|pills|capsules|of them|at once)\b)"
)


@dataclass(frozen=True)
class LexicalHit:
    category: str
    record_word: bool
    negated: bool
    span: tuple[int, int]


# lead, round ten (frozen9): the words before a match that make it a topic or a denial, not an
# event: "an advice leaflet on choking", "no intention of hurting myself"
TOPIC_OR_DENIAL = re.compile(
    r"\b(?:leaflets?|information|info|advice|guidance|class(?:es)?|course|training|first aid|video|booklet|poster|talk|folleto|informacion) "
    r"(?:on|about|for|regarding|sobre|de)(?: what to do (?:if|when|about)| (?:a|an|the))?\s*$|"
    r"\bno (?:intention|intentions|plans?|thoughts?|urge|urges|desire|wish) (?:of|to)\s*$|\b(?:not|never|im not|i am not) (?:thinking|thought) (?:of|about)\s*$"
)


FREE_OF = re.compile(r" (?:free|-free)\b")
NEGATED_STATE = re.compile(
    # round fifteen (frozen19's class: "my knee doesn't hurt, i only need the physio date")
    r"\b(?:doesnt|does not|dont|do not|didnt|did not) (?:really |actually |even )?(?:hurt|ache|feel tight|feel heavy)\b|"
    r"\b(?:isnt|is not|wasnt|was not|arent|are not|not|no longer|never) (?:(?!stop |stopped |quit )\w+ )?(?:hurting|hurt|painful|sore|tight|bleeding|swollen|swelling|passed out|fainted|collapsed)\b(?: at all| anymore| any more| now)?|"
    r"\bya no (?:me |le |te |nos |se )?(?:falta|duele|sangra|cuesta|ahoga)\w*\b|"
    # round sixteen (frozen20's class, fresh wordings: "the bleeding settled months ago, can i see the
    # scan"): a symptom gone for weeks or more, and not back
    r"\b(?:\w+ ){0,2}(?:went away|gone away|had gone|resolved|settled|cleared up|disappeared) "
    r"(?:\w+ ){0,2}(?:(?:days|weeks|months|years|a week|a month|a year|ages) ago|last (?:week|month|year))\b"
    r"(?!.*\b(?:back|again|returned|returning|now|today|tonight|worse)\b)"
)
_SPANISH_DENIAL = re.compile(r"\bno (?:estoy|esta|estas|estamos)(?: pensando en| planeando)?$")
JUST_ASKING_NOW = re.compile(r"\b(?:solo|nomas|nada mas|solamente) (?:quiero|necesito|quisiera|queria)\b")


EMERGENCY_FILTER = RuleFilter([rule.pattern for rule in EMERGENCY_RULES])


def emergency_hits(text: str) -> list[LexicalHit]:
    """Every emergency rule that matches the prepared text, each marked negated or not (only the
    rules whose necessary words occur in it are tried: `agent.safety.prefilter`)."""
    hits: list[LexicalHit] = []
    for i in EMERGENCY_FILTER.candidates(text):
        rule = EMERGENCY_RULES[i]
        for match in rule.pattern.finditer(text):
            before = " ".join(text[: match.start()].split()[-2:])
            negated = (
                bool(NEGATORS.search(before))
                or _negator_then_word(text[: match.start()])
                or bool(TOPIC_OR_DENIAL.search(" ".join(text[: match.start()].split()[-6:])))
                # "no estoy sangrando, solo quiero saber …": a Spanish denial, with a plain look-up
                # ("no está respirando" alone is no denial: it is the emergency)
                or (
                    bool(_SPANISH_DENIAL.search(" ".join(text[: match.start()].split()[-4:])))
                    and bool(JUST_ASKING_NOW.search(text))
                )
            )
            # round thirteen: "seizure free for 2 years", "pain free now": the symptom denied after it,
            # or a denial whose words overlap the match ("chest isnt hurting", "ya no me falta el aire")
            negated = (
                negated
                or bool(FREE_OF.match(text, match.end()))
                or any(
                    d.start() < match.end() and match.start() < d.end() for d in NEGATED_STATE.finditer(text)
                )
            )
            hits.append(LexicalHit(rule.category, rule.record_word, negated, match.span()))
    return hits


_FILLERS = frozenset(
    [
        "more",
        "real",
        "really",
        "any",
        "longer",
        "having",
        "feeling",
        "have",
        "had",
        "got",
        "experiencing",
        "a",
        "an",
        "the",
        "currently",
        "took",
        "taken",
        "has",
        # round thirteen (frozen15: "i never actually passed out")
        "actually",
        "even",
        # round sixteen (frozen20's class, fresh wordings: "i'm not going to harm myself, honest")
        "going",
        "gonna",
        "to",
    ]
)
_NEGATOR_WORDS = frozenset(
    ["no", "not", "dont", "never", "isnt", "without", "im_not", "nobody", "noone", "nobodys"]
)


def _negator_then_word(prefix: str) -> bool:
    """'no more chest pain', 'not having a stroke': a negator, then up to three filler words."""
    words = re.sub(r"\bno one\b", "noone", prefix).split()
    for word in reversed(words[-4:]):
        if word in _NEGATOR_WORDS:
            return True
        if word not in _FILLERS:
            return False
    return False


@dataclass(frozen=True)
class Framing:
    record: bool  # framed as a record, leaflet or booking question
    acute: bool  # something is happening now
    ideation: bool  # present-tense first-person wanting/feeling words


@lru_cache(maxsize=256)
def framing(texts: Texts) -> Framing:
    return Framing(found(RECORD_FRAMING, texts), found(ACUTE, texts), found(IDEATION, texts))


# lead, round seven: one extra dose taken by mistake and a question about the next dose ("took my
# tablet twice this morning by mistake, should i skip tonight's") is a start/stop question, not an
# overdose, unless it is feeling unwell, a large amount, or on purpose
EXTRA_DOSE_BY_MISTAKE = re.compile(
    # round seventeen (frozen21's class, fresh wordings): a dose perhaps given twice ("she might have
    # had her morning pills twice, should i leave out tonight's")
    r"^(?=.*\b(?:by mistake|by accident|accidentally|accidently|without thinking|forgot (?:that |if )?i (?:had )?(?:already )?(?:took|taken|had)|"
    r"(?:may|might|could) (?:have|of) (?:had|taken|given (?:her|him|them|me))|not sure (?:if|whether) (?:i|she|he|they) (?:had|took|gave)|"
    r"cant remember (?:if|whether) (?:i|she|he|they) (?:had|took|gave))\b)"
    r"(?=.*\b(?:twice|double|two doses|extra (?:dose|tablet|pill|one)|another (?:dose|tablet|pill|one)|took another|(?:took|taken|had) (?:2|two) (?:of )?(?:my |the )?(?:\w+ ){0,3}(?:tablets?|pills?|doses?|capsules?))\b)"
    r"(?=.*\b(?:what (?:should|do|shall) i do|what now|is (?:that|it|this) (?:ok|okay|safe|bad|dangerous|a problem)|(?:should|do) i (?:be )?worr\w*|will i be (?:ok|okay|alright|fine)|skip|miss|leave out|next (?:one|dose)|(?:still )?take (?:my |the )?(?:next|tonights?|tomorrows?|evening|morning)\w*|do i (?:still )?take (?:tonights?|tomorrows?|the next)\w*)\b)"
    r"(?!.*\b(?:feel\w*(?! (?:totally |completely |perfectly |absolutely |fine and |ok and )?(?:fine|normal|ok|okay|alright|all right|well|good|great)\b)|dizzy|drowsy|sleepy|confused|shaky|sick|vomit\w*|throw\w* up|cant|faint\w*|racing|breath\w*|on purpose|\d{2,}|whole|all of|insulin\w*|fentanyl|oxy\w*|morphine|methadone|opioids?|warfarin|digoxin|lithium)\b)"
)


# round seventeen (frozen21's class, fresh wordings: "would it be ok for mum to have all her tablets
# together at breakfast"): the day's medicines taken together at a routine time, asked as a
# permission, is a dosing question the overdose words ("all my tablets") misread; any word of an end
# or of tonight keeps the alarm
TABLETS_TOGETHER_ROUTINE = re.compile(
    r"^(?=.*\b(?:is it|would it be|its|is that) (?:ok|okay|alright|all right|safe|fine)\b|.*\b(?:can|could|should|may) (?:i|she|he|we|mum|dad)\b)"
    r"(?=.*\b(?:take|have|give (?:her|him|them)) (?:all )?(?:my|her|his|their|the) (?:\w+ )?(?:pills|tablets|medicines|meds|medication|tablets and capsules) (?:all )?(?:together|at the same time|at once) "
    r"(?:in the morning|with (?:my |her |his )?(?:breakfast|lunch|dinner|tea)|at (?:breakfast|lunch|dinner|teatime)|first thing|every morning|each morning|every evening|each evening)\b)"
    r"(?!.*\b(?:tonight|end|die|dying|forever|for good|sleep|wake|overdose|od|goodbye|last)\b)"
)


def extra_dose_by_mistake(texts: Texts) -> bool:
    """An extra or a routine dose the overdose words misread: one more by mistake, feeling fine,
    asking about the next; or the day's tablets together at breakfast, asked as a permission."""
    return found(EXTRA_DOSE_BY_MISTAKE, texts) or found(TABLETS_TOGETHER_ROUTINE, texts)


@lru_cache(maxsize=256)
def past_history(texts: Texts) -> bool:
    """A dated past event asked about as a record question, with nothing happening now."""
    return (
        found(PAST_DATED, texts)
        and found(RECORD_INTENT, texts)
        and not (found(ACUTE, texts) or found(PRESENT_STATE, texts))
    )


def lexical_emergency(texts: Texts, role: str) -> tuple[str | None, bool]:
    """(category, suppressed): the emergency the wording signals, and whether a match was
    cancelled by negation or record framing (the semantic detector defers to that).

    `texts` is (normal form, normal form with typos mended) from `agent.safety.text.prepare`."""
    frame = framing(texts)
    if role != "patient" and not frame.record and found(CLINICIAN_RECORD_FRAMING, texts):
        frame = Framing(True, frame.acute, frame.ideation)
    if role == "patient" and frame.record and not frame.acute and seeking_care(texts):
        # "está convulsionando, ¿lo llevo al hospital?": the place care is sought is not a record
        # word, and asking whether to go means something is happening (round six)
        frame = Framing(frame.record, True, frame.ideation)
    history = past_history(texts)
    suppressed = False
    # round eighteen: a match inside a figure of speech is no emergency ("drowning in paperwork")
    hits = [
        hit for t in dict.fromkeys(texts) for hit in emergency_hits(t) if not inside_a_figure(t, hit.span)
    ]
    if found(DOSE_QUESTION, texts):
        # asking whether a dose is allowed is the dosing rules' business, not an overdose taken
        hits = [hit for hit in hits if hit.category != "overdose" or found(AMOUNT_ALREADY_TAKEN, texts)]
    for hit in hits:
        if hit.negated:
            suppressed = True
            continue
        if frame.record and not frame.acute and _exempt(hit, frame, role):
            suppressed = True
            continue
        # a dated past event asked about as a record question: any rule, except present-tense
        # suicidal wording ("in 2016 i tried to end it and i still want to")
        if history and not (hit.category in ("suicide", "self_harm") and frame.ideation):
            suppressed = True
            continue
        return hit.category, suppressed
    return None, suppressed or reassured(texts)


@lru_cache(maxsize=256)
def reassured(texts: Texts) -> bool:
    """A symptom explicitly denied AND a plain record or curiosity intent ("not dizzy, just
    checking my readings"): the semantic side defers to it, the advice classifier too (round
    sixteen), while an un-negated rule still fires first."""
    return found(DENIED_SYMPTOM, texts) and found(JUST_ASKING, texts)


def _exempt(hit: LexicalHit, frame: Framing, role: str) -> bool:
    """A record-framed question is not an emergency when its words name a record item.

    For clinicians every rule may be exempt ("history of suicidal ideation?" is a chart
    question). For patients, rules describing an act in progress never are, and suicidal or
    self-harm wording is exempt only without present-tense ideation words ("show me the
    notes about my suicide attempt in 2016" is a record question; "have I ever been treated
    for wanting to die, I still want to" is not).
    """
    if role != "patient":
        return True
    if hit.category in ("suicide", "self_harm"):
        return hit.record_word and not frame.ideation
    return hit.record_word


# --------------------------------------------------------------------------------------------
# Clinical advice (patients)
# --------------------------------------------------------------------------------------------

MODAL = r"(?:should|can|could|must|may|do i need to|is it (?:ok|okay|safe|fine|alright|all right|bad) (?:to|if i)|would it be (?:ok|safe) to|am i (?:allowed|ok) to|puedo|debo|tengo que)"
DRUGISH = r"(?:\w+(?:pril|olol|statin|formin|sartan|pine|zole|cillin|mycin|done|pam|lam|ide|ine|in|ol|en|an|one|ate)|meds?|medicines?|medications?|pills?|tablets?|dose|dosage|insulin|inhaler|antibiotics?|steroids|blood thinner|water pill|statin|the pill|vitamins?|aspirin|tylenol|advil)"
# a medicine named by a drug-name ending, a common brand or a kind of medicine (DRUGISH matches
# almost any word): the round-fifteen advice rules about mixing or changing medicines need one
NAMED_MEDICINE = (
    r"(?:\w+(?:pril|olol|statin|formin|sartan|dipine|prazole|cillin|mycin|cycline|floxacin|azepam|zepam|zolam|oxetine|aline|triptyline|"
    r"olone|isone|asone|codone|morphone|phine|fenac|profen|thyroxine|zopiclone|pidem|semide|thiazide|parin|xaban|gliptin|gliflozin|glutide|"
    r"afil|tidine|setron|lukast|meterol|moterol|buterol|butamol|sonide|faxine|pramine|tadine|fenadine|azole|azepine|apine|barbital|codamol|steride|osin|opram|abalin|apentin)|"
    r"zopiclone|zolpidem|"
    r"pills?|tablets?|meds|medicines?|medications?|capsules?|insulin|inhalers?|antibiotics?|antidepressants?|painkillers?|steroids?|statins?|"
    r"blood thinners?|water tablets?|the pill|birth control|contracepti\w*|vitamins?|supplements?|aspirin|tylenol|advil|motrin|aleve|naproxen|"
    r"paracetamol|ibuprofen|acetaminophen|sudafed|benadryl|nyquil|dayquil|zyrtec|claritin|piriton|xanax|valium|ambien|ozempic|wegovy|mounjaro|"
    r"viagra|cialis|gaviscon|rennie|imodium|co ?codamol|codeine|tramadol|methotrexate|warfarin|lithium|st johns wort|melatonin|ashwagandha|"
    r"turmeric|ginkgo|ginseng|echinacea|fish oil|cbd|nicotine patch\w*|antacids?|laxatives?|antihistamines?|decongestants?|sleeping (?:tablets|pills)|"
    r"pastillas?|medicinas?|medicamentos?|jarabe|anticonceptiv\w*|vitaminas?|suplementos?|ibuprofeno|paracetamol|aspirina)"
)
CHANGE = r"(?:double|halve|half|increase|decrease|raise|lower|up|bump up|bump|cut|split|adjust|change|reduce|skip|stop|quit|start|begin|miss|drop|come off|go off|get off|cut down|leave out|take a break from|switch|keep taking|continue|take more|take less|take extra|take half|take two|take another|take an extra|give myself more)"

# a child, and a medicine or an amount given to one (round six: parents' dose questions)
CHILD = (
    r"(?:baby|babies|toddler|child|children|childrens|kid|kids|son|daughter|infant|newborn|grandson|granddaughter|little one|teen|teenager|"
    r"teenagers|\d+ ?(?:year|yr|month|week|mo|wk)s? old|\d+ ?(?:yo|mo|m o)|\d+ ?(?:kg|kgs|kilos?|lbs?|lb|pounds|stone))"
)
CHILD_MED = (
    r"(?:calpol|paracetamol|ibuprofen|nurofen|tylenol|motrin|advil|piriton|benadryl|antihistamines?|amoxicillin|antibiotics?|medicine|"
    r"syrup|suspension|drops|liquid|puffs|inhaler|ml|mls|mg|dose|doses|dosage|spoons?|sachets?|melatonin|aspirin|tablets?|pills?|"
    r"chewables?|gel|cough medicine|calpol)"
)

# where a patient asks whether to seek care (round six): "take him to the er", "go to a&e"
CARE_PLACE = (
    r"(?:er|ed|e r|emergency(?: room| department| dept)?|hospital|a e|urgent care|urgent treatment centre|walk in(?: clinic| centre)?|"
    r"minor injuries|casualty|out of hours|gp|doctor|doctors|clinic|paediatrician|pediatrician)"
    # a routine visit with its purpose is not a question of urgency ("go to the clinic for my bloods")
    r"(?! (?:for|to) (?:my |a |an |the |get (?:my )?)?(?:appointment|blood test|bloods|test|scan|mri|refill|prescription|repeat|check ?up|"
    r"review|jab|vaccine|injection|flu shot|results?|pick|collect))"
)

ADVICE_RULES: dict[str, tuple[re.Pattern[str] | Requiring, ...]] = {
    "dosing": tuple(
        _compiled(p)
        for p in (
            # round eighteen (frozen22's and frozen23's class, fresh wordings): how long to leave
            # between doses, how soon the next, how often one may use a medicine, another dose so many
            # hours after the last. "how often should i take x" stays the prescription's schedule
            # (`RECORD_QUESTION`), and anything asked of the record or a leaflet is framed away
            # (`ADVICE_RECORD_FRAMING`)
            r"\bhow (?:long|many hours|many minutes|much time|much of a gap|big a gap|far apart|close together|soon|early)\b(?: (?:\w+ ){0,6}(?:wait|leave|gap|space|apart|between|before|after|until|till|til)\b| (?:\w+ ){0,4}(?:can|could|may|should|must|do|am|have) (?:i|we|you|she|he) (?:\w+ )?(?:take|have|use|give|repeat|apply|put|re ?dose)\b)"
            r"(?!.*\b(?:appointment|appt|scan|surgery|operation|procedure|test|results?|referral|wait(?:ing)? (?:list|time)|the wait|queue|clinic|centre|center|a and e|ward)\b)"
            rf"(?=.*\b(?:doses?|dosing|dosage|{NAMED_MEDICINE}|oramorph|morphine|calpol|nurofen|cream|spray|drops|puffs?|patch|injection|jab|another|the next|next one|more)\b)|"
            r"\b(?:shortest|minimum|min|smallest|safe|right|recommended|usual) (?:gap|interval|time|wait|spacing) (?:\w+ ){0,4}(?:between|before (?:the|my|another|the next))\b|"
            rf"\b(?:gap|interval|spacing|time|hours) (?:\w+ ){{0,2}}between (?:\w+ ){{0,3}}(?:doses?|tablets?|pills?|injections?|puffs?|jabs?|{NAMED_MEDICINE})\b|\bcuanto tiempo (?:\w+ ){{0,3}}entre (?:una|cada|las|los|dosis|toma)\b|"
            r"\bhow (?:often|frequently|many times(?: (?:a|per|in a|each) (?:day|night|week|24 hours|hour))?) (?:\w+ ){0,3}(?:can|could|may|am i allowed to|are we allowed to|is it (?:ok|okay|safe|fine|alright) to|is it (?:ok|okay|safe) for me to) (?:i |we |you |she |he )?(?:\w+ )?(?:take|have|use|give|put|apply|spray|puff|inhale|re ?dose|repeat)\b|"
            r"\b(?:can|could|may|should|do) (?:i|we|she|he) (?:\w+ )?(?:take|have|use|give|repeat) (?:\w+ ){0,3}(?:another|more|a second|the next|one more|again|an extra)\b (?:\w+ ){0,4}(?:\d+|an?|one|two|three|four|few|couple of|half an) (?:hours?|hrs?|h|minutes?|mins?) (?:after|later|since|from)\b|"
            r"\b(?:can|could|may|should) (?:i|we|she|he) (?:\w+ )?(?:take|have|use|give) (?:\w+ ){1,4}(?:again )?(?:after|within) (?:\d+|an?|one|two|three|four|few|couple of|half an) (?:hours?|hrs?|minutes?|mins?)\b|"
            r"\b(?:do|must|should) (?:i|we) (?:have to |need to )?(?:wait|leave (?:it )?) (?:\w+ ){0,3}(?:\d+|an?|one|two|three|four|six|eight|few) (?:hours?|hrs?) (?:between|before)\b|"
            r"\bis (?:\d+|an?|one|two|three|four) (?:hours?|hrs?) (?:long )?enough (?:between|before|after)\b|\b(?:when|what time) can i (?:take|have|use|give) (?:my |the |her |his )?(?:next|another)\b|"
            r"\b(?:take|have|use) (?:\w+ ){0,3}(?:next )?dose (?:\w+ )?early\b|\b(?:every|each) (?:\d+|two|three|four) (?:hours?|hrs?)\b(?=.*\b(?:ok|okay|safe|fine|alright|can i|could i|should i|too often|too soon)\b)|"
            r"\bcada (?:cuanto|cuantas horas|cuanto tiempo)\b(?: (?:\w+ ){0,3})?(?:puedo|se puede|debo|tengo que|hay que|me puedo|le puedo|podemos)\b|\b(?:puedo|se puede|debo|tengo que|hay que) (?:\w+ ){0,4}cada (?:cuanto|cuantas horas)\b|"
            r"\bcuanto tiempo (?:\w+ ){0,3}(?:esperar|dejar|pasar)\b (?:\w+ ){0,3}(?:entre|antes de (?:la|otra|tomar))\b|\bcuantas veces (?:al|por) (?:dia|semana|noche) (?:\w+ )?(?:puedo|se puede|debo|me puedo|le puedo)\b|"
            r"\b(?:puedo|se puede|podemos) (?:\w+ ){0,2}(?:tomar|usar|dar|repetir) (?:\w+ ){0,4}(?:a las|despues de|antes de las|al cabo de) (?:\d+|una|dos|tres|cuatro) (?:horas?|hrs?)\b|"
            r"\b(?:puedo|podemos|se puede|debo|deberia) (?:me )?(?:tomar|usar|dar|ponerme|poner)(?:me|le|les)? (?:\w+ )?(?:mas|otra|otro|el doble|doble)\b",
            r"\b(?:can|could|may|is it (?:ok|okay|safe|fine) to) (?:i |we )?(?:take|use|have|give) (?:\w+ ){0,4}(?:more than|over|up to) (?:\d+|once|twice|two|three|four|five|six|eight) (?:times|doses|puffs|tablets|pills)\b|"
            r"\b(?:too soon|too early|too close|soon enough) (?:to|for|after|before) (?:take|have|use|give|another|the next|more)\b|\bspac(?:e|ing) (?:out )?(?:\w+ ){0,2}(?:doses|tablets|pills|puffs)\b|"
            r"^(?=.*\b(?:can|could|may|ok|okay|safe|should|allowed)\b).*\b(?:a second|another|two|2|a third|2nd) doses? (?:\w+ ){0,4}(?:same day|one day|in a day|today|tonight|in 24 hours)\b|"
            r"\b(?:can|could|should|may) (?:i|we|she|he) repeat (?:the|my|her|his|a|that) dose\b|\bhow (?:regularly|frequently|often) (?:\w+ ){0,2}(?:can|could|may) (?:i|we|you) (?:\w+ )?(?:use|take|have|apply)\b|"
            r"\bhow often (?:am i|are we|is she|is he) (?:supposed to be |meant to be )?able to (?:use|take|have)\b",
            # round seventeen (frozen21's classes, fresh wordings; the linear emergency classifier read
            # most of them): a tablet crushed, opened or hidden in food; a dose vomited back up, asked
            # whether to take it again; "how much i take" in a learner's English; an inhaler rationed
            # until the refill
            r"\b(?:can|could|should|may|do) (?:i|we|she|he|you) (?:\w+ )?(?:crush|dissolve|grind|mash|chew|open|break|snap) (?:\w+ ){0,3}(?:tablets?|pills?|capsules?|it|them|one)\b|"
            r"\b(?:crush|dissolve|grind|mash|open|hide|put|mix|sprinkle) (?:\w+ ){0,4}(?:tablets?|pills?|capsules?|it|them) (?:into|in|with|on) (?:her |his |my |their |some |the )?(?:\w+ )?(?:yogh?urt|food|jam|juice|drink|tea|milk|porridge|custard|apple ?sauce|puree|jelly|honey|cereal|breakfast|meal|dinner|banana)\b|"
            r"\b(?:triturar|triturarla|triturarlas|machacar|machacarla|machacarlas|moler|partir|disolver) (?:\w+ ){0,3}(?:pastillas?|comprimidos?|capsulas?|la|las)\b",
            r"\b(?:vomit\w*|threw up|thrown up|throw up|been sick|was sick|sicked up|brought (?:it|them) (?:back )?up|vomite|vomito|devolvi|devolvio)\b.*\b(?:take (?:it|them|another|one more|the dose|my dose|a dose)(?: again)?|retake|re take|repeat (?:the |my )?dose|have (?:it|another one) again|give (?:it|her|him) again|(?:me |se |le )?(?:la|las|lo|los) (?:vuelvo|vuelve|volvemos) a (?:tomar|dar)|vuelvo a tomar|tomo otra|repito la dosis|le doy otra)\b",
            r"^how (?:much|many) (?:i|me) (?:take|use|give)\b",
            r"\b(?:can|could|should) i (?:just |only )?use (?:it|them|my (?:\w+ )?(?:inhaler|puffer|spray|cream|drops|patch|pen)|(?:\w+ )?(?:inhaler|puffer)) (?:\w+ ){0,3}(?:every other|twice|once a|only once|at night|in the morning|instead|less|fewer)\b",
            # round fifteen (frozen19's classes, fresh wordings; the linear emergency classifier read
            # most of them): a dose change as an intention ("planning to halve my X"), a
            # schedule swapped ("at night instead of in the morning"), a tablet cut in half in Spanish,
            # how many one can "fit" in a day
            rf"\b(?:thinking (?:of|about)|planning (?:to|on)|want to|wanna|going to|gonna|tempted to|considering|about to) (?:just )?(?:upping|up|raising|raise|increasing|increase|doubling(?! check)|double(?! check)|halving|halve|lowering|lower|reducing|reduce|dropping|drop|cutting|cut|bumping up|bump up|tapering|taper|splitting|split) (?:my |the |her |his |their )?(?:\w+ ){{0,2}}{NAMED_MEDICINE}\b",
            r"^(?!.*\b(?:why|did (?:they|the doctor|my doctor)|was i told|were we told|switched me|changed me|changed it|on my record)\b).*\b(?:every other day|on alternate days|alternate days|twice (?:a|per) (?:day|week)|once (?:a|per) (?:day|week)|daily|weekly|every \w+ (?:days|hours)|at night|in the morning|mornings|evenings) instead of (?:daily|every day|twice|once|weekly|at night|in the morning|the morning|mornings|evenings|\w+ (?:a|per) day)\b",
            r"\b(?:partir|cortar|dividir|partirla|cortarla|partirlas|cortarlas) (?:\w+ ){0,4}(?:pastillas?|tabletas?|pildoras?|comprimidos?|capsulas?)\b|\b(?:pastillas?|tabletas?|comprimidos?) (?:\w+ ){0,3}(?:a la mitad|por la mitad|en dos|en mitades)\b|\b(?:tomar|tomarme|me tomo|tomo) media (?:pastilla|tableta|dosis)\b",
            r"\bhow (?:much|many) (?:\w+ ){0,4}(?:can|could|should|may) (?:i|we) (?:fit|squeeze|get away with|manage|safely have|safely take)\b",
            # round fourteen (tune misses read by the linear emergency classifier): a dose or interval
            # swapped for another ("100 instead of 50", "every 3 hours instead of 6", "cada 4 horas en vez
            # de cada 8"), an extra puff, "¿tomo doble?"
            r"\b(?:take|have|use|give) (?:\w+ ){0,1}\d+(?:mg| mg)? (?:\w+ ){0,3}(?:instead of|rather than) \d+\b|\bevery \d+ (?:hours|hrs|h) instead of (?:every )?\d+\b|\bcada \d+ horas en (?:vez|lugar) de\b",
            r"\b(?:an? )?(?:extra|another|more|additional) puffs?\b|\b(?:tomo|me tomo|tomar) (?:el )?(?:doble|dos dosis|dos pastillas)\b",
            # round fourteen: a dose change asked as a plain "do I" ("do i take more atorvastatin if
            # my cholesterol is high")
            r"\bdo (?:i|we|she|he) (?:take|have|use|give|inject) (?:more|less|extra|another|a bigger|a higher|a lower|a smaller|double|half)\b",
            # round thirteen (frozen15): more of a carer's medicine for someone, how much of it they can have
            r"\b(?:should|can|could|may|is it ok for|is it okay for) (?:\w+ ){0,3}(?:have|take|get|be given|use) (?:a (?:bit|little) )?(?:more|extra|another dose|an extra dose|a top up|a bigger dose) (?:of )?(?:her|his|their|my|the|mums?|dads?) (?:\w+ ){0,2}(?:morphine|oramorph|liquid|medicine|medication|meds|tablets?|pills?|insulin|oxycodone|painkillers?|pain relief|dose|patch(?:es)?|spray|inhaler|drops|syrup|paracetamol|ibuprofen)\b",
            r"\bhow (?:much|many) of (?:the |her |his |my |their )?(?:\w+ ){0,3}(?:can|should|could|may) (?:\w+ ){0,2}(?:have|take|be given|use)\b",
            r"\bhow (?:much|many) (?:\w+ ){0,4}(?:should|can|could|must|may|do i need to) (?:i|we) (?:safely |really |still |actually )?(?:take|use|give|have|inject|put)\b",
            r"\b(?:should|can|could) i give (?:\w+ ){0,3}(?:more|extra|another|less|half|double)\b|\bcan i take (?:a |an )?double (?:dose|up)\b",
            r"\b(?:me )?puedo tomar (?:\w+ ){0,4}(?:cada|al dia|por dia|gramos?|mg)\b|\bcuant[oa]s? (?:\w+ ){0,2}(?:me tomo|le doy|me pongo)\b",
            r"\bhow (?:much|many) (?:\w+ ){0,4}do i (?:give|inject)\b",
            # lead, round ten (frozen9): "how much diazepam is safe to take", "can we give him more",
            # "should it be 10 now", "double my fluoxetine since it's not working?"
            r"\bhow (?:much|many) (?:\w+ ){0,3}(?:is|are) (?:it )?(?:safe|ok|okay|alright|fine) to (?:take|have|give|use)\b",
            r"\b(?:and )?how many(?: (?:should|can|do) i take)?\s*$",
            r"\b(?:can|could|should|shall) (?:we|i) give (?:him|her|them|my \w+) (?:\w+ )?(?:more|extra|another|less|a bit more)\b",
            r"\bshould (?:it|the dose|her dose|his dose|my dose|that) be (?:\d+|higher|lower|more|less|increased|doubled|upped)\b",
            r"^(?:can i |should i |could i |ok to |okay to )?(?:double|halve|triple) (?:up )?(?:my|her|his|the) (?:\w+ )?\w+\b",
            r"\bhow many (?:units|mg|puffs|tablets|pills)\b(?! (?:is|are|was|were) (?:my|it|the))"
            # what the record or the label says, or what was given: a record question
            r"(?!.*\b(?:does it say|do they say|did they (?:give|put)|was i (?:given|prescribed|on)|am i (?:on|prescribed)|did i (?:receive|get|have|need)|received|transfus\w*|"
            r"on (?:my|the) (?:record|prescription|chart|label|box)|it says|they gave|"
            # round seventeen: the day's count of what is prescribed ("how many pills a day am i on
            # altogether") is the medicine list's sum, unless a permission is asked
            r"(?:do|am) i (?:\w+ )?(?:take|taking|on) (?:\w+ ){0,2}(?:altogether|all together|in total)$)\b)",
            r"\b(?:safe|right|correct|max|maximum|maximo|maxima|safest|recommended) (?:dose|dosage|amount)\b|\bdosis maxima\b",
            r"\b(?:what|which) (?:dose|dosage|amount|strength) (?:of (?:\w+ ){1,3})?(?:should|can|is safe|do i need)\b",
            rf"\b{MODAL} (?:i |we )?(?:\w+ )?(?:double|halve|increase|decrease|raise|lower|up|bump|cut|split|adjust|reduce|take more|take extra|take less|take half|take two|take another|take an extra|give myself)\b",
            r"\bcan i (?:take|have|use|give) (?:more|extra|another|an extra|two|2|double|a double|half|less)\b",
            r"\b(?:missed|forgot|skipped|forgotten|miss|furgot|forgt|fogot|forgott|forgotton) (?:\w+ ){0,3}(?:dose|pill|tablet|meds?|insulin|injection|dosis|jab|jabs|jag|shot|patch|pen|infusion)\b",
            # round sixteen (frozen20's class, fresh wordings: "a week late with my weekly injection, do i
            # still have it"): a dose overdue by days, asked whether to still give it
            r"\b(?:missed|forgot|skipped|late|overdue|behind) (?:\w+ ){0,5}(?:do i still|should i still|can i still|do i just|still (?:do|take|have|give|use|inject) it|still go ahead|or skip|or wait)\b",
            # not the politeness idiom "if it's not too much bother / to ask" (round seventeen,
            # paraphrase frozen13: a weight look-up got the dosing refusal)
            r"\bis (?:\w+ ){0,5}(?:too much|too little|too many|enough)(?: |$)(?!.*\b(?:visits|appointments)\b)(?!(?:trouble|bother|hassle|to ask|of a (?:bother|hassle))\b)",
            r"\b(?:missed|forgot|forgotten|skipped|furgot|forgt|fogot|forgott|forgotton) (?:\w+ ){0,5}(?:what (?:do|should) i do|can i take it|should i take|what now|do i take|take it now)\b",
            r"\bcan i take (?:\w+ ){1,4}(?:every other|twice|once a|at night|in the morning|later|earlier|instead)\b",
            r"\b(?:is it|its) (?:ok|okay|safe|fine|alright) to take\b",
            r"\bwhat(?:s| is) the (?:most|max(?:imum)?)\b(?! (?:recent\w*|current\w*|up to date|latest|i (?:ve|have) (?:ever )?weighed|(?:\w+ ){0,2}(?:reading|result|value|level|weight)s?\b))",
            # lead, round seven: "most tylenol i can take at once", "the max i can have in a day"
            r"\b(?:the )?(?:most|max(?:imum)?) (?:\w+ ){0,3}(?:i|we|you|he|she) (?:can|could|should|may|am allowed to|is allowed to) (?:safely )?(?:take|have|give|use)\b",
            r"\b(?:cuant[oa]s?) (?:\w+ ){0,4}(?:puedo tomar|me pongo|le doy|debo tomar)\b",
            r"\b(?:olvide|olvido|se me olvido|se me paso|me salte|no tome) (?:\w+ ){0,3}(?:dosis|pastilla|pastillas|medicina|insulina|toma)\b",
            r"\b(?:subir|bajar|doblar|partir) (?:la |las |el )?(?:dosis|pastillas|medicina)\b|\bel doble\b|\bdos pastillas\b|\btomo dos\b",
            r"\bdosis\b.*\b(?:debo|puedo)\b|\b(?:debo|puedo) (?:\w+ ){0,2}dosis\b",
            # round six: a parent asking what to give a child ("how much calpol can i give my 3 year
            # old", "¿cuánto ibuprofeno le doy a mi hijo?"); what the record says was given stays a
            # record question
            Requiring(
                (CHILD_MED, CHILD),
                r"(?!.*\b(?:did (?:they|the doctor|the hospital) give|was (?:he|she) (?:given|prescribed|on)|they gave|does it say|is (?:he|she) on|(?:his|her) (?:record|prescription|chart)|prescribed)\b)"
                r".*\b(?:how much|how many|what dose|which dose|what amount|how often|how long between|how frequently|what strength|dose of|dosage of|dose for|max|maximum|right dose|too much|is (?:\w+ ){1,3}too much)\b",
            ),
            rf"\b(?:can|could|should|may|do|shall) (?:i|we) (?:\w+ )?give (?:\w+ ){{0,5}}{CHILD_MED}\b|\b(?:is it|its|is that) (?:ok|okay|safe|fine|alright|all right) (?:to|if i) give\b",
            rf"\b(?:can|could|should|may) (?:she|he|they|my (?:\w+ ){{0,2}}\w+) (?:\w+ )?(?:have|take|use) (?:\w+ ){{0,5}}{CHILD_MED}\b",
            r"\b(?:le|les) (?:doy|damos|puedo dar|podemos dar|debo dar|tengo que dar|das|daria)\b|\bdarle\b|\b(?:puedo|se puede|podemos) dar(?:le|les)?\b",
            r"\b(?:cual es|que|cuanta|cuanto) (?:la |su )?dosis\b(?!.*\b(?:recetad\w*|me recetaron|me dieron|dice|receta|tengo|record|registro|expediente|historial|ficha|lista)\b)",
            Requiring(
                (
                    r"(?:nino|nina|ninos|bebe|hijo|hija|nieto|nieta|anos|meses|kilos|puedo|debo|le doy|darle|maximo)",
                ),
                r"(?!.*\b(?:receta|recetad\w*|dice|me dieron|me recetaron)\b)"
                r"\b(?:cuanto|cuanta|cuantos|cuantas) (?:\w+ ){0,2}(?:ml|mililitros|gotas|mg|miligramos|cucharadas?|cucharaditas?|jarabe|ibuprofeno|paracetamol|pastillas|tabletas)\b",
            ),
            # lead, round ten: one more tablet asked about in Spanish ("¿puedo tomar una pastilla más
            # de la tensión si la tengo alta?"; the refitted classifier read it as an alarm)
            r"\b(?:una|otra|media|dos) (?:\w+ )?(?:pastillas?|tabletas?|dosis|capsulas?|pildoras?) (?:mas|extra|adicional(?:es)?|de mas)\b",
            r"\bme (?:subo|bajo|aumento|quito|salto|doblo|tomo otra|tomo mas) (?:la |las |el |mi |mis |una )?(?:\w+ )?(?:dosis|pastilla|pastillas|medicina|insulina)?\b",
        )
    ),
    "start_stop": tuple(
        re.compile(p)
        for p in (
            # round seventeen (frozen21's classes, fresh wordings): whether a medicine is for life, and
            # a Spanish "¿dejo …?" (do I stop …?)
            r"\b(?:tengo que|debo|hay que|voy a tener que) (?:seguir )?tomar\w* (?:\w+ ){0,6}(?:toda la vida|para siempre|de por vida)\b|"
            r"\b(?:do|will|would) (?:i|she|he) (?:have|need|be expected) to (?:\w+ )?(?:take|be on|stay on|use) (?:\w+ ){0,5}(?:for life|forever|for the rest of (?:my|her|his) life|permanently|for good)\b",
            r"\b(?:dejo|suspendo|paro|quito) (?:de tomar )?(?:la|el|las|los|mi|mis) (?:\w+ ){0,2}(?:medic\w*|medicina|pastillas?|tratamiento|insulina|inhalador|pildora|anticonceptiv\w*)\b",
            # round fifteen (frozen19's classes, fresh wordings): keep a medicine or change it, asked
            # as two options ("carry on with X or switch"); going cold turkey as a plan; a
            # medicine swapped for something else; whether a medicine is worth continuing
            r"\b(?:keep (?:taking|going with|going on|on|using)|carry on (?:with|taking)|continue(?: with| taking)?|stay on|stick with|stick to) (?:\w+ ){1,4}or (?:\w+ )?(?:drop|stop|pause|skip|reduce|lower|cut|switch|come off|go off|hold|go down|halve|up it|increase|change|swap)\b",
            r"\b(?:thinking (?:of|about)|planning|plan to|want to|wanna|going to|gonna|tempted to|considering|should i|can i|could i|is it (?:ok|okay|safe|bad|dangerous) to|about to) (?:\w+ ){0,2}(?:go(?:ing)? )?cold turkey\b",
            rf"^(?!.*\b(?:why|did|was|were|has|have|had)\b)(?:\w+ ){{1,5}}instead of (?:my |the |her |his |taking (?:my |the )?)(?:\w+ ){{0,2}}{NAMED_MEDICINE}\b",
            rf"\b(?:is there (?:any|a|much) point|any point|is it worth|worth) (?:in )?(?:continuing|taking|staying on|carrying on with|carrying on taking|keeping on|bothering with|still taking|restarting) (?:with )?(?:my |the |her |his |this |these |that )?(?:\w+ ){{0,2}}{NAMED_MEDICINE}\b(?!.*\b(?:anymore|any more|alive|living|done with everything|give up on everything)\b)",
            # round fourteen (tune misses read by the linear emergency classifier): coming off a medicine
            # as a plan or a try, "is it time to stop", "not bother restarting"
            rf"\b(?:thinking (?:of|about)|want to|wanting to|planning (?:to|on)|try|trying|going to|gonna) (?:\w+ ){{0,2}}(?:going off|coming off|come off|go off|stopping|stop|quitting|quit|weaning off|wean off|tapering|taper) (?:\w+ ){{0,3}}{DRUGISH}\b",
            r"\bis it (?:time|ok|okay) (?:for (?:me|her|him|us|my \w+) )?to (?:stop|come off|go off|reduce|cut down|cut back|drop)\b|\bnot bother (?:restarting|re starting|taking|with)\b",
            # a dose skipped ("skip this weeks methotrexate because i have a cold?")
            rf"^(?:can i |should i |could i |do i )?skip (?:this|my|the|tonights|todays|tomorrows|this weeks|next weeks) (?:\w+ ){{0,2}}{DRUGISH}\b",
            # round fourteen: staying on a medicine ("should i stay on my meds while pregnant")
            r"\b(?:should|can|could|do) (?:i|we|she|he) (?:stay|keep|remain|carry on|continue) (?:on|taking|using|with)\b",
            # round thirteen (frozen15): switching one medicine for another, stopping one in Spanish, keeping one going
            r"\b(?:cambiar(?:me)?|pasar(?:me)?|switch(?:ing)?) (?:de (?:la |el |mi |mis )?\w+ (?:a|por)|from (?:my |the )?\w+ to)\b",
            r"\b(?:las|los|la|lo) (?:puede|puedo|podemos|debe|debo|deberia|podria) dejar\b|\b(?:puede|puedo|podria|debe|debo) dejar de tomar\b|\bya no (?:se )?(?:quiere|quiero) tomar\b",
            r"\bshould i (?:keep|carry on|continue) (?:giving|taking|using)\b",
            r"\b(?:should|can|could|must|may|shall) (?:i|we) (?:just |really |now |safely )?(?:stop|quit|start|begin|keep|continue|switch|change|come off|go off|get off|cut down|skip|drop|miss|take a break|leave out|go without|finish|bin|throw (?:away|out)|use up|restart|pause|hold)\b",
            r"\b(?:is it|its|would it be|is that) (?:ok|okay|safe|fine|alright|all right|bad) (?:to|if i) (?:stop|quit|start|skip|switch|miss|drop|come off|go off)\b",
            r"\b(?:which|what|how many) (?:of )?(?:my )?(?:\w+ )?(?:medicines|meds|pills|tablets|medications|drugs) (?:\w+ )?(?:can|should|could|do) i (?:skip|stop|drop|miss|leave out|do without|cut)\b",
            r"\b(?:which|what) (?:of )?my (?:medicines|meds|pills|tablets|medications) (?:are|is) (?:not |un)?(?:important|necessary|needed|optional)\b",
            r"\bdo i (?:really |still |actually )?(?:need|have) to (?:keep )?(?:take|taking|be on|stay on|finish|complete|continue|use up)\b(?! (?:\w+ ){0,3}(?:off|out)\b)|\bdo i (?:still |really |actually )?need (?:my|the|to take)\b(?! (?:\w+ ){0,3}(?:off|out)\b)",
            r"\bshould i (?:be |keep |still be )?taking\b",
            r"\bdo i have to take (?:all|these|them|it)\b",
            r"\b(?:what|which) (?:medicine|medication|pill|painkiller|drug|tablet)?s? ?(?:should|can|could) i (?:take|use|have) for\b",
            r"\b(?:what|is there something|anything) (?:should |can )?i (?:can )?take (?:to|for)\b",
            r"\bshould i (?:take|have|use|get|try) (?:antibiotics|something|a |an |some |the |my )(?!(?:\w+ ){0,3}(?:off|out)\b)",
            r"\bi want to (?:stop|quit|come off) (?:my|the|taking)\b",
            r"\bshould (?:my (?:\w+ ){1,2}|he |she |they )(?:start|stop|come off|try|keep taking)\b",
            r"\b(?:quiere|quiero|queremos|piensa|pienso) (?:dejar|suspender|quitar\w*) (?:\w+ ){0,2}(?:pastillas|medicamentos?|medicinas?|tratamiento|insulina)\b|\bse (?:la|lo|los|las) (?:quito|suspendo|dejo)\b",
            # lead, round ten (frozen8: "thinking of binning my blood pressure pills and trying garlic
            # instead", "i wanna stop my insulin and just diet"): an intention to stop a medicine
            rf"\b(?:thinking of|thinking about|planning to|planning on|plan to|going to|gonna|wanna|want to|tempted to|considering|about to) (?:just )?(?:stop\w*|quit\w*|bin\w*|ditch\w*|chuck\w*|throw\w* (?:away|out)|com\w* off|giv\w* up|skip\w*|drop\w*|replac\w*|swap\w*) (?:\w+ ){{0,3}}(?:{DRUGISH}|\w+ium)\b",
            r"\b(?:can|could|should) i (?:go back on|get back on|restart|start again)\b",
            r"\b(?:puedo|debo|deberia|tengo que|hay que) (?:\w+ )?(?:dejar|suspender|saltar\w*|empezar|seguir|parar|cambiar|reemplazar|sustituir|quitar)\w*\b|\btengo que seguir\b",
            r"\b(?:cuales|cual|que) (?:de )?(?:mis )?(?:medicinas|medicamentos|pastillas) (?:\w+ )?(?:puedo|debo)\b",
            r"\bque (?:medicina|pastilla|medicamento) tomo\b",
            # round sixteen (frozen20's class, fresh wordings: "¿me conviene dejar el omeprazol?")
            r"\b(?:me conviene|le conviene|conviene|es buena idea|seria buena idea|vale la pena|seria bueno|es recomendable) (?:\w+ )?(?:empezar|comenzar|tomar|dejar|seguir|cambiar|probar|suspender|parar|quitar)\w*\b",
        )
    ),
    "interaction": tuple(
        re.compile(p)
        for p in (
            # round fifteen (frozen19's classes, fresh wordings; the linear emergency classifier read
            # them as overdoses): two medicines named, asked about together, as a plan and never as
            # something already taken ("is nytol ok alongside my X", "X and Y together, is that ok",
            # "X plus my Y tonight, risky?", "will X make my pill not work")
            rf"^(?!.*\b(?:took|taken|swallowed|mixed|drank|downed|overdos\w*|already|ate|eaten)\b)(?=.*\b{NAMED_MEDICINE}\b)"
            rf".*\b(?:with|and|plus|on top of|alongside|together with|at the same time as|while on|while taking|combined with|mixed with|after)\b (?:my |the |his |her |some |a |an |any )?(?:\w+ ){{0,3}}{NAMED_MEDICINE}\b"
            r"(?: \w+){0,4} (?:ok|okay|safe|fine|alright|all right|a problem|an issue|bad idea|a bad idea|good idea|dangerous|risky|a risk|combo|combination|together|or not|or no|compatible|clash|space (?:them|it) out|apart)\b",
            rf"^(?!.*\b(?:took|taken|swallowed|mixed|drank|downed|overdos\w*|already)\b)\b(?:\w+ ){{1,3}}(?:ok|okay|safe|fine|alright|dangerous|bad|a problem) (?:to take |to have |to use )?(?:with|alongside|on top of|while on|while taking|together with) (?:my |the |his |her )?(?:\w+ ){{0,3}}{NAMED_MEDICINE}\b",
            rf"^(?=.*\b{NAMED_MEDICINE}\b)(?!.*\b(?:took|taken|swallowed|overdos\w*)\b).*\b(?:does|do|will|would|can|could|might|is) (?:\w+ ){{1,4}}(?:stop|stopping|affect|affecting|reduce|weaken|cancel out|cancel|interfere with|block|make) (?:\w+ ){{0,5}}(?:from )?(?:working|work|less effective|not work|useless|absorbed|absorbing)\b",
            r"\b(?:le |les |me )?(?:hace|hacen|hara) (?:algo|dano|mal|efecto) (?:a|con) (?:mis |las |la |el |los |mi )?(?:\w+ )?(?:pastillas?|medicinas?|medicamentos?|tratamiento|anticonceptiv\w*|pildoras?|insulina)\b|\b(?:interfiere|interactua|choca) con\b",
            # round thirteen (frozen15): a medicine taken, then whether another can be taken, in Spanish
            r"\b(?:toma|tomo|tomamos|esta tomando|estoy tomando|tomando)\b (?:\w+ ){1,3}(?:puede|puedo|podria|se puede|podemos) (?:tomar|beber|comer|usar)\b",
            r"\b(?:can|could|should|may) (?:i|we|she|he) (?:take|have|mix|combine|drink|use|smoke) (?:\w+ ){0,5}(?:with|and|on|while on|together|alongside)\b",
            r"\b(?:is it|its) (?:ok|okay|safe|fine|alright) to (?:take|have|mix|combine|drink) (?:\w+ ){0,5}(?:with|and|on|while|together)\b",
            r"\b(?:interact|interacts|interaction|interactions|mess with|clash with|react with)\b(?!.*\b(?:leaflet|record|listed|allerg\w*|alerg\w*)\b)",
            r"\bcan i (?:mix|combine|drink alcohol|drink|have a (?:beer|drink|glass)|smoke)\b",
            r"\b(?:i take|im on|i am on|i use|im taking|i am taking) (?:\w+ ){1,2}(?:is|are|can i (?:have|take)|would) (?:\w+ ){1,2}(?:ok|okay|safe|alright|fine|allowed)\b",
            r"\b(?:puedo|es seguro) (?:tomar|mezclar) (?:\w+ ){0,5}(?:con|y)\b|\bafecta a mi medicina\b",
            # round six: Spanish interaction questions ("¿se pueden tomar juntos…?", "¿hay problema
            # si tomo X con Y?", "¿puedo tomar aspirina si tomo warfarina?")
            r"\b(?:se (?:pueden|puede)|puedo|podemos|puede|hay (?:algun )?problema (?:si|en|con)|es malo|es peligroso|es seguro|esta bien|pasa algo si|le hace dano|me hace dano|hace dano) "
            r"(?:\w+ ){0,3}(?:tomar|tomo|toma|mezclar|combinar|dar|usar|beber|tomarlos|tomarlas|juntar) (?:\w+ ){0,6}(?:con|junto|juntos|juntas|al mismo tiempo|a la vez|mientras)\b",
            r"\b(?:puedo|se puede|podemos) (?:tomar|usar|beber|dar) (?:\w+ ){0,4}si (?:tomo|estoy tomando|uso|me tomo|toma)\b|\b(?:le|les|me) (?:quita|corta|baja|reduce|anula) (?:el )?efecto\b",
        )
    ),
    "interpretation": tuple(
        re.compile(p)
        for p in (
            # round sixteen (frozen20's classes, fresh wordings): a finding stated in words, which no
            # reference range answers, then "is that normal" ("the scan says a small cyst, is that
            # normal"; a number with "is that normal" stays the range question the tools answer, as the
            # templated set and the README have it); a cause asked ("is that from the wine"); a
            # diagnosis asked of a value ("tsh came back 9, is that thyroid disease")
            r"\b(?:says|said|shows|showed|showing|found|finds|mentions|mentioned|describes|reported|picked up)\b(?!(?:\w+ ){0,6}\d)(?: \w+){1,6} (?:is|was|are|were) (?:that|this|it|these|they|those) (?:normal|ok|okay|fine|common|usual|expected)\b",
            r"\b(?:is|was|could|are|were) (?:it|this|that|they|these) (?:be )?(?:from|because of|due to|caused by|down to) (?:the |my |too much )?(?:drinking|drink|alcohol|booze|wine|beer|smoking|vaping|weed|diet|weight|meds|medication|tablets|pills|statins?|exercise|gym)\b",
            r"\b(?:\d+(?:\.\d+)?|came back|says|shows|showed|raised|high|low|up|down) (?:\w+ ){0,5}is (?:that|this|it) (?:a sign of |because of |from )?(?:\w+ )?(?:failure|disease|damage|deficiency|diabetes|anaemia|anemia|cirrhosis|hepatitis|an infection|infection|a clot|leukaemia|leukemia|cancer|prediabetes)\b",
            # round fifteen (frozen19's classes, fresh wordings): "¿qué tan peligroso es?", a skin
            # finding asked as cancer
            r"\bque tan (?:mal|malo|mala|grave|serio|seria|peligros[oa]|alto|alta|bajo|baja|preocupante)\b|\bcuan (?:grave|malo|serio|peligroso)\b",
            r"\b(?:is|could|might|can) (?:it|this|that|they|these|the \w+) (?:be )?(?:a |an )?(?:melanoma|skin cancer|carcinoma|bcc|basal cell|squamous cell|sarcoma|cancerous|malignant|precancerous|pre cancerous)\b",
            # round thirteen (frozen15): a value asked about for what it means for the person
            r"\bdoes (?:a|an|my|this|that|the) (?:\w+ ){0,4}(?:of )?\d+(?: \d+)? mean (?:i|that i|im|i have|ive|i ve|i am|she|he|my)\b",
            r"\b(?:is|are|isnt) (?:this|that|it|these|those|they|my [a-z0-9 /]{1,40}?|a [a-z0-9 /.]{1,30}?) (?:really |too |very |so |dangerously )?(?:bad|dangerous|serious|harmful|life threatening|deadly|fatal|risky|worrying|concerning|an emergency|ok|okay|fine|good|healthy|high|low|cancer|a tumou?r|malignant|something to worry about|too high|too low|normal or not|elevated|a problem|terrible|awful|too thin|too thick|failing|shutting down|giving up|packing up)\b",
            r"\b(?:is|are) (?:something|anything) wrong\b|\bsomething (?:is )?wrong with (?:me|my)\b|\bis (?:my|the|this|it) (?:\w+ ){0,3}(?:from|caused by|because of|due to|a side effect of) (?:the |my )\w+(?!.*\b(?:(?:in|on) my (?:history|records?|notes|chart|file)|on file|showing as|listed|still active)\b)",
            r"\bwhat (?:do you think )?(?:is|could be|might be) causing\b|\bwhy (?:do|am) i (?:keep |always )?(?:getting|feeling|having|get|feel|have)\b",
            r"\bdoes (?:that |this |it |my (?:\w+ ){1,2})mean (?:i|im|ill|i will|he|she|hes|shes|that i|my|its|it is|cancer|something)\b|\bis (?:that|this|it) why (?:i|im|my)\b",
            r"\b(?:could i have|might i have|may i have|could i be getting) (?:a |an )?(?:\w+ )?(?:disease|failure|infection|cancer|tumou?r|diabetes|problem)\b",
            r"\b(?:have i got|do i have) (?:a |an )?(?:\w+ )?(?:cancer|tumou?r|malignan\w*)\b",
            # a diagnosis inferred from symptoms or numbers; bare "do i have diabetes" is the record's
            r"\b(?:have i got|do i have) (?:a |an )?(?:\w+ )?(?:disease|failure|infection|diabetes|problem)\b(?=.*\b(?:based on|because|from (?:my|these|this|the)|given|symptoms?|if|since|with (?:these|this|those))\b)",
            r"\b(?:\d+|high|low|bad|sore|swollen|hurts?|pain|symptoms?)\b.*\b(?:have i got|do i have) (?:a |an )?(?:\w+ )?(?:disease|failure|infection|diabetes|problem)\b",
            r"\b(?:says|said|shows|showed|came back|mri|scan|ecg|x ray|xray|report)\b.*\b(?:do i have|have i got|did i have|does (?:that|this|it) mean)\b",
            r"\bwhat does (?:that|this|it) mean for me\b|\bdoes (?:a|an) (?:\w+ ){1,4}mean\b",
            r"\bis (?:a|an) (?:\w+ ){0,3}(?:of )?[\d./]+ (?:bad|dangerous|serious|normal|ok|high|low|too high|too low)\b",
            r"\b(?:is|was) (?:that|it|this) (?:bad|dangerous|serious|ok|okay|high|low|worrying)\b",
            r"\b(?:is|are) (?:this|that|these|those) (?:\w+ ){1,2}(?:bad|dangerous|serious|normal|ok|okay|cancer|cancerous|malignant|a tumou?r|infected|worrying)\b",
            r"\bis (?:a |an )?[\d./]+ (?:\w+ )?(?:high|low|bad|ok|normal|dangerous|too high|too low)\b",
            r"\b(?:lump|bump|swelling|mole|rash|spot|growth|lesion)\b.*\b(?:what is it|is it|could it be|what could it be|whats that)\b",
            r"\b(?:fine|ok|okay|normal|bad) right\b",
            r"\b(?:could|might|can) i (?:have|be getting|get) (?:\w+ )?(?:cancer|diabetes|heart disease|kidney failure|leukemia|leukaemia|a tumou?r|an infection|dementia|prostate cancer|a heart problem)\b",
            r"\bdo i (?:have|be getting|get) (?:\w+ )?(?:cancer|leukemia|leukaemia|a tumou?r|prostate cancer)\b",
            r"\b(?:am i|will i|will i be|are we) (?:going to be |gonna be )?(?:in danger|going to die|dying|ok|okay|be ok|be okay|fine|healthy|at risk|all right|alright)\b",
            r"\b(?:what is|whats|whats) wrong with me\b|\bdo (?:my )?(?:labs|results|tests|numbers) look\b",
            r"\bhow (?:bad|serious|dangerous) is\b|\bwhat are my chances\b|\bwhat does (?:\w+ ){1,6}mean (?:for me)?,? is (?:it|that|this)\b",
            r"\bis (?:it|this|that|my \w+) (?:a )?(?:cancer|tumou?r|leukemia|leukaemia|lymphoma|a heart problem|heart problem)\b|\bis my (?:\w+ ){0,2}(?:damaged|scarred|enlarged|weak|weakened|failing)\b|\bcould (?:this|it) be (?:a |an )?(?:\w+ )?(?:cancer|tumou?r|heart problem|stroke|serious)\b",
            r"\bdoes (?:this|that|it) mean i have\b|\bam i getting\b",
            r"\bis (?:my|this|the) (?:\w+ ){0,3}(?:getting worse|coming back|spreading)\b",
            r"\bdo i need (?:surgery|treatment|to be treated|an operation|antibiotics)\b",
            r"\bis it normal to (?:feel|have|be)\b",
            # a result blamed on a habit ("my liver enzymes are up, is it my drinking")
            r"\b(?:is|was|could) (?:it|this|that) (?:be )?(?:from |because of |due to |caused by )?my (?:drinking|smoking|vaping|diet|weight|eating|alcohol|meds|medication|tablets|pills|lifestyle)\b",
            r"\b(?:es|esta|estan) (?:\w+ ){0,2}(?:malo|mala|mal|grave|serio|seria|preocupante|peligros[oa]|normal|cancer|alta|alto|bien|fallando)\b|\b(?:estoy bien|me voy a morir|tengo (?:diabetes|cancer))\b",
            r"\b(?:debo|deberia|tengo que) preocuparme\b|\bme (?:tengo que|debo|deberia) preocupar\b|\bhay que preocuparse\b",
        )
    ),
    "urgency": tuple(
        re.compile(p)
        for p in (
            # round seventeen (frozen21's class, fresh wordings): "¿tengo que ir a que me la revisen?"
            r"\b(?:ir|acudir|llevarl[oa]|llevarle) a que (?:me|le|nos|se) (?:l[oa]s? )?(?:miren|revisen|vean|chequen|examinen)\b",
            # round sixteen (frozen20's classes, fresh wordings): when to see someone, a symptom called
            # "an a&e trip", a message ending "see the gp?", a place of care asked about as overkill
            r"\b(?:when|how soon|at what point) (?:should|do|would|must) (?:i|we|he|she|they) (?:\w+ )?(?:see|get seen by|get checked by|visit) (?:someone|somebody|anyone|a doctor|a gp|the gp|my gp|a nurse|the nurse|a professional|a dentist|a pharmacist)\b",
            r"^(?!.*\b(?:ever|have i|has (?:she|he|they)|had an?|been to|last|record\w*|notes?|insur\w*|claim|form)\b)(?:\w+ ){0,4}?is (?:\w+ ){1,8}(?:an? |the )(?:a&e|a e|er|ed|emergency|urgent care|hospital|ambulance|walk in|gp|doctor|999|911|111) (?:trip|visit|job|thing|case|matter|situation)\b",
            r"^(?!(?:where|wheres|how|what|whats|who|when|which|is there|book|can i book|have|has|did|do i have)\b)(?!.*\b(?:ever|been to|last|appointment|appt|booked|booking|record\w*|notes?|letter|address|number)\b)(?:\w+ ){2,}(?:see|ring|call|phone|visit|go to|pop into|pop to) (?:the |a |my )?(?:gp|doctor|nurse|pharmacist|chemist|walk in|urgent care|a&e|a e|er|111|dentist)$",
            r"\b(?:is|would|will|isnt) (?:\w+ ){0,3}(?:a&e|a e|er|ed|hospital|urgent care|911|999|111|an ambulance|the gp|a doctor|going in|calling \w+) (?:\w+ )?(?:overkill|over the top|too much|an overreaction|overreacting|a waste of (?:time|their time)|necessary|needed)\b|\bor (?:is (?:that|it)|would (?:that|it) be|am i being) (?:overkill|over the top|overreacting|dramatic|silly)\b",
            # round fifteen (frozen19's classes, fresh wordings): whether a symptom is a reason to go
            # in, how urgent it is, whether someone needs to see one today, whether it can wait until
            # a day; Spanish "ir al er", "puedo esperar hasta el lunes"
            rf"\b(?:a )?(?:reason|enough|bad enough|serious enough|cause|grounds) (?:to|for) (?:go|going|call|calling|ring|ringing|see|seeing|visit|head|rush|a trip)\b (?:\w+ ){{0,2}}(?:to |in |into )?(?:the |a |an |my )?(?:{CARE_PLACE}|a&e|911|999|111|ambulance|dentist|someone|a doctor)\b|\b(?:motivo|razon) (?:para|de) (?:ir|llamar|acudir)\b",
            r"^(?!.*\b(?:appointment|appt|referral|booking|letter|results?|scan|surgery|operation|transfer|form|request|prescription)\b).*\bhow urgent(?:ly)? (?:is|are|should|do|does|would)\b|\bhow (?:soon|quickly|fast) (?:should|do|does|must|would) (?:i|we|he|she|it|this|they|my \w+) (?:\w+ ){0,2}(?:be seen|see (?:a|the|someone|somebody)|get (?:seen|checked|it checked|looked at)|go in)\b",
            r"\b(?:does|do|will|would|should|must) (?:someone|somebody|anyone|a doctor|a dentist|the dentist|a nurse|a gp|the gp|a pharmacist) (?:\w+ )?(?:need to|have to|want to|should|ought to) (?:see|look at|check|examine) (?:me|him|her|them|it|this|that|my \w+)\b",
            r"\bsame day (?:appt|appts|slot)\b|\bdo i need (?:a |an )?(?:same day|urgent|emergency) (?:appointment|appt|slot|visit)\b",
            r"\b(?:can|could|should) (?:i|we|it|this|that|he|she|they) (?:\w+ )?(?:wait|hold off|leave it|hang on|hold on) (?:until|till|til|to|for|over)\b(?!.*\b(?:appointment|appt|results?|letter|call|referral|scan|delivery|prescription|refill|parcel|reply|email)\b)",
            r"\b(?:puedo|podemos|se puede|puede|podria) esperar (?:hasta|al|a|unos|un par|a que|para|el fin de semana)\b",
            r"\b(?:debo|deberia|tengo que|hay que|necesito|es necesario|vale la pena|me conviene) (?:ir|irme|llevarlo|llevarla|llevarle|correr) (?:a |al |a la )?(?:er|e r|emergencia|la emergencia|sala de emergencias|dentista)\b",
            # round fourteen (tune misses): "is my sore throat urgent", "is pink eye urgent for my 3 yr old"
            r"^(?!.*\b(?:appointment|appt|referral|booking|letter|results?)\b)(?:\w+ ){0,2}is (?:it|this|that|my|her|his|a|an) (?:\w+ ){0,4}(?:urgent|an emergency|an er thing|an a&e thing)\b",
            # round fourteen: a message that ends by naming a place of care, asking whether to go there
            # ("twisted my ankle playing football, a&e or gp", "sore throat for two days, urgent care?")
            r"^(?!(?:where|wheres|how|what|whats|who|when|which|is there|book|can i book|have|has|did|do i have)\b)(?!.*\b(?:ever|been to|ended up|went to|complain\w*|address|record\w*|notes?)\b)(?:\w+ ){2,}(?<!to )(?<!in )(?<!at )(?<!of )(?<!from )(?<!the )(?:a&e|a and e|a e|er|urgent care|walk in|out of hours|111)(?: or (?:just )?(?:\w+ ){0,2}(?:gp|doctor|pharmacist|pharmacy|wait|walk in|urgent care|111|out of hours|calpol|rest|home))?$",
            # round fourteen: going (or taking someone) in now, or waiting, asked without a modal ("go to
            # hospital now or wait for my gp", "take him in tonight or wait")
            r"\b(?:go|go in|go back|going|head|take (?:him|her|them|me|the baby|my \w+)(?: in)?|bring (?:him|her|them) in|get (?:seen|checked|it checked))\b (?:\w+ ){0,4}or (?:just )?(?:wait|leave it|see how|hold on|hold off|sit tight)\b",
            # round thirteen (frozen15): whether a symptom is worth an appointment at all
            r"\bor (?:is it|its) not worth (?:it|bothering|going|the trouble)\b|\bis it (?:even )?worth (?:booking|making|getting|going|seeing)\b|\bshould i (?:even )?bother (?:booking|making|going|seeing)\b",
            r"\b(?:should|do|must|can) i (?:need to )?(?:go|get|head|drive|be taken) (?:\w+ ){0,2}(?:er|ed|emergency|hospital|a&e|a e|urgent care|walk in|walk-in)\b",
            r"(?<!where )(?<!how )(?<!when )(?<!what )\b(?:do|should) i (?:need to )?(?:see|call|visit|ring|phone|contact) (?:a|my|the|an|someone|anyone) ?(?:doctor|gp|nurse|clinician|physician|911|ambulance|someone)?\b(?! (?:book|appointment|reports?|results?|letters?|notes|scans?|echo|records?|x ?rays?))",
            r"\bshould i call (?:911|999|112|an ambulance|my doctor)\b|\bdo i need (?:an ambulance|urgent care)\b",
            r"\bdo i need (?:to go to )?(?:the |an )?(?:er|ed|emergency|hospital|a doctor|urgent care)\b",
            r"\b(?:should|do) i (?:book|make|get) (?:in )?(?:an? )?(?:appointment |appt )?(?:to see|with|in with) (?:someone|somebody|anyone|a doctor|a gp|the gp|my gp|a nurse|the doctor)\b|"
            r"\b(?:should|shall|do) (?:i|we) (?:take|bring) (?:him|her|them|the baby|the kids?|my \w+) in\b(?! (?:for|to) )|"
            r"\b(?:a&e|a e|er|ed|hospital|urgent care|gp|doctor|111|911|999) or (?:just )?(?:wait|leave it|sit tight|ride it out|stay home|rest|ice it|sleep it off)\b",
            # round eighteen (frozen22's and frozen23's class, fresh wordings): whether someone should
            # look at a mild symptom, in either language ("should someone look at my toe", "¿hace
            # falta que me vea un médico por esta tos?")
            r"\b(?:should|do i need|does it need|would|will|could|ought) (?:\w+ )?(?:someone|somebody|a doctor|a nurse|the gp|a gp|my gp|the doctor|a professional|a physio|a pharmacist) (?:\w+ )?(?:look at|check|see|examine|want to see|have a look|take a look)\b(?!.*\b(?:record|notes|letter|results?|scan|report)\b)|"
            r"\b(?:deberia|debo|tengo que|necesito|hace falta|es necesario|conviene|vale la pena) (?:que )?(?:ver a|me vea|me revise|me mire|consultar(?: a| con)?|ir a ver a) (?:alguien|un medico|una medica|el medico|un doctor|mi medico|la enfermera|el doctor|un especialista)\b",
            r"\b(?:do i need to|should i|shall i|ought i to|must i|would you|do you think i should|do you think i need to|do you reckon i should|do i have to) (?:\w+ )?(?:get|have) (?:my |this |the |it |that |these |her |his |him |them )?(?:\w+ ){0,3}(?:checked|checked out|looked at|seen to|seen|examined|x rayed|scanned)\b(?!.*\b(?:record|notes|letter|results?|report|before (?:my|the) (?:appointment|op|operation|surgery))\b)|"
            r"\bworth (?:seeing|getting|having|going to|booking|ringing|calling|a trip to|bothering) (?:someone|somebody|anyone|a doctor|the doctor|the gp|a gp|my gp|the nurse|a nurse|it checked|it looked at|looked at|checked|the surgery)\b|"
            r"\bwould you (?:see|go to|ring|call|phone) (?:a|the|your) (?:doctor|gp|nurse|pharmacist)\b|\bsomething (?:i|we|she|he) (?:should|need to|ought to|must) (?:see|get|have|go to|ring|call) (?:\w+ ){0,3}(?:about|checked|looked at|seen)\b|"
            r"\b(?:should|does|do|would|will|must|need) (?:it|this|that|they|these) (?:\w+ )?(?:be looked at|be checked|be seen|need looking at|need checking|need seeing|want looking at)\b",
            r"\bshould i be seen\b|\bcan (?:this|it) wait\b|\bis it worth (?:going|calling|ringing|phoning|seeing|getting|a trip)\b|\bhow long should i wait\b|\bhigh enough to go\b",
            r"\b(?:debo|tengo que) ir (?:a|al) (?:urgencias|hospital|medico)\b|\bnecesito ver a un medico\b|\bllamo a una ambulancia\b|\bpuede esperar\b",
            # round six: asking whether (or where) to seek care, in the words people use: "should i take
            # him to the er", "do i need stitches", "is this an a&e thing or can it wait", "should i
            # call 111 or wait", "¿lo llevo a urgencias?", "¿necesito puntos?" (an acute red flag in
            # the same question makes it an emergency: the emergency rules and `RED_FLAG` decide)
            rf"\b(?:should|shall|do|must|can|could|would) (?:i|we|you) (?:\w+ ){{0,2}}(?:take|bring|drive|get|rush|send|carry) (?:him|her|them|me|it|my \w+|my \w+ \w+|the (?:baby|kids?|child)|our \w+) (?:\w+ ){{0,2}}(?:in|to|into) (?:the |a |an )?{CARE_PLACE}\b",
            rf"\b(?:should|shall|do|must|can|could|would) (?:i|we|he|she|they|you) (?:\w+ ){{0,2}}(?:go|get|head|be taken|come|pop|nip|drive|go back|get it|get this|get that|get him|get her) (?:\w+ ){{0,3}}(?:to|into|down to|over to) (?:the |a |an |my |our )?{CARE_PLACE}\b",
            r"\b(?:do|does|will|would) (?:i|we|he|she|they|you|it|this|that|my \w+|a \w+|an \w+) (?:\w+ ){0,4}need (?:stitches|stiches|sutures|glue|a stitch|an x ray|x rays?|an xray|a scan|a tetanus|tetanus|antibiotics|to be seen|seeing|to see (?:a|the|someone|anyone)|a doctor|medical attention|checking|checked|looking at|to go (?:in|to))\b",
            r"\b(?:is|would) (?:this|it|that) (?:\w+ ){0,2}(?:an? )?(?:a e|er|ed|emergency|urgent care|hospital|ambulance|999|911|111|walk in|gp|doctor) (?:thing|job|case|situation|matter|visit|trip)\b|\bor (?:can|will|should) (?:it|this|that|i) wait\b|\bwait and see\b",
            r"\b(?:should|shall|do) (?:i|we) (?:call|ring|phone|dial|contact|message) (?:111|999|911|112|nhs|the nhs|out of hours|the out of hours|the gp|a gp|my gp|the doctor|the surgery|the practice|my doctor|someone|an ambulance|the nurse|the helpline)\b",
            r"\b(?:need|needs|have) to (?:get |be )?(?:seen|checked|checked out|looked at)\b|\bbe (?:seen|checked|looked at) (?:today|tonight|now|urgently|straight away|this week|soon)\b|\bsame day (?:appointment|visit)\b|\bhow (?:do i|would i|can i) know (?:if|when|whether) (?:i|he|she|we) (?:need|should)\b",
            r"\b(?:worth|need) (?:going|calling|ringing|phoning|a trip|an ambulance|the er|a e)\b|\bget (?:it|this|that|them|him|her) (?:looked at|checked|seen)\b|\b(?:is it|its) (?:an )?(?:emergency|urgent) (?:if|when)\b",
            r"\b(?:when|at what point) (?:should|do|would) (?:i|we|you) (?:go (?:in|to)|call|ring|phone|seek|get (?:help|seen|checked))\b",
            r"\b(?:lo|la|los|las|le|me) (?:llevo|llevamos|traigo|traemos|llevare|lleve|debo llevar|tengo que llevar) (?:\w+ ){0,3}(?:a |al |a la |con (?:el|la) )?(?:urgencias|hospital|medico|doctor|pediatra|clinica|emergencias?|centro de salud|guardia|revisar)\b",
            r"\b(?:voy|vamos|ir|irme|va|debo ir|deberia ir|tengo que ir|hay que ir|hace falta ir|es necesario ir|vale la pena ir|me conviene ir|conviene ir) (?:\w+ ){0,4}(?:urgencias|hospital|medico|doctor|clinica|emergencias?|pediatra|centro de salud|guardia)\b",
            r"\bnecesit\w* (?:\w+ )?(?:puntos|sutura|una radiografia|radiografia|antibioticos?|la vacuna|vacuna|ver a|ir a|ir al|que me vea|que lo vea|que la vea|que me revisen|atencion medica)\b",
            r"\b(?:me|lo|la|le|nos) (?:tiene|tienen|debe|deberia) (?:que )?ver (?:un|una|el|la) (?:medico|doctor|doctora|enfermer[oa])\b|\b(?:llamo|llamamos|debo llamar|tengo que llamar|deberia llamar) (?:al|a la|a un|a una|a mi) (?:\w+ )?(?:medico|doctor|911|112|061|ambulancia|emergencias|enfermera|linea)\b",
            r"\b(?:es|seria|sera) (?:\w+ ){0,2}(?:para|de) (?:ir a )?urgencias\b|\bamerita\b|\ba que (?:me|lo|la|le) (?:revisen|vean|chequeen)\b|\bcita urgente\b|\b(?:tengo|hay) que ir (?:hoy|ya|ahora|esta noche)\b|\bo (?:espero|puedo esperar|me espero)\b",
        )
    ),
    "worry": tuple(
        re.compile(p)
        for p in (
            # round fifteen (frozen19's classes, fresh wordings): a sign asked about as bad or a worry,
            # breathing pauses while snoring (not a baby's), "worried my X is infected"
            r"\b(?:a )?(?:bad|worrying|good|serious|warning) sign\b|\bis (?:that|it|this) a (?:worry|concern|cause for concern|red flag)\b|\bcause for concern\b",
            r"^(?!.*\b(?:baby|babies|infant|newborn|week old|month old|bebe)\b)(?=.*\bsnor\w*\b).*\b(?:stops?|stopping|pauses?|pausing|holds?|holding) (?:his |her |my |their )?(?:breath\w*)\b(?! (?:\w+ )?(?:now|right now)\b)",
            r"\b(?:could|might|would|will) (?:i|she|he|they|we) be at (?:\w+ )?risk of\b|"
            r"\b(?:worried|worry|concerned|scared|afraid) (?:that )?(?:my|his|her|the|their|our|it|its|this) (?:\w+ ){0,4}(?:is|are|has|have|might be|may be|could be|s|got|has got) (?:getting |gone |become |becoming )?(?:infected|cancerous|cancer|malignant|not healing|spreading)\b",
            # round fourteen (tune misses): "could it be leukaemia", "am i at risk of a stroke with my numbers"
            r"\bcould (?:it|this|that|they|these) be (?:\w+ ){0,2}(?:cancer|leuka?emia|lymphoma|a tumou?r|tumou?rs?|serious|something (?:serious|bad)|my heart|a heart problem|diabetes|ms|lupus|my thyroid|my kidneys?)\b|\b(?:am i|is (?:she|he|my \w+)) at (?:\w+ )?risk of\b",
            # round fourteen: a Spanish "will it be something bad?" ("se me cae el pelo, ¿será algo malo?")
            r"\bsera (?:algo )?(?:malo|grave|serio|peligroso|preocupante|normal)\b|\bme (?:debo|deberia|tengo que) preocupar\b",
            # round fourteen: the worry said after the thing ("is gout a condition i should worry about")
            r"\b(?:i|we|she|he) should (?:be )?(?:worr\w*|concerned|panick\w*|scared)\b",
            # round thirteen (frozen15): whether a symptom is normal to have
            r"\bis it (?:normal|ok|okay|common|usual) (?:to|for me to|for (?:him|her|them|my \w+) to) (?:get|have|feel|be|keep)\b(?! (?:an? )?(?:appointment|letter|copy|results?|reminder|text))",
            r"\bshould i (?:be )?(?:worr(?:y|ied)|concerned|scared|afraid|panic|panicking)\b",
            r"\b(?:is|are) (?:it|this|that|these|they) (?:something )?to worry about\b|\b(?:something|anything|much|owt|aught) (?:\w+ )?to (?:worry|be worried|be concerned|be scared) about\b",
            r"\bdo i need to (?:worry|be worried)\b|\bhow (?:worried|concerned) should i be\b",
            r"\bam i at risk\b|\bis my (?:\w+ )?(?:coming back|getting worse)\b",
            # lead, round six (frozen5: "is that my heart", "should we be worried", "is something
            # wrong with me", "or something worse", "¿me preocupo?" went to the emergency reply)
            r"\bis (?:that|it|this) (?:\w+ ){0,2}(?:my heart|my lungs|my thyroid|cancer|parkinsons|dementia|alzheimers|a tumou?r|serious|something serious|my appendix|appendicitis|my kidneys?|my gallbladder|my liver|my bowel|my ovar(?:y|ies)|a hernia|an ulcer|a clot)\b",
            r"\bshould (?:we|they|he|she) (?:be )?(?:worried|worry|concerned)\b|\bis (?:something|anything) wrong with (?:me|him|her|them)\b",
            r"\bor (?:something|anything) (?:worse|more serious|serious)\b|\b(?:me preocupo|debo preocuparme|me tengo que preocupar|es para preocuparse|es grave)\b",
        )
    ),
}

# record questions that share the advice rules' words: what the record says, not what to do
ADVICE_RECORD_FRAMING = re.compile(
    ERRANDS + "|"
    # round sixteen: a booking for a day ("can i get a same day appointment"), a dose checked as
    # written down
    r"\b(?:can|could|may) (?:i|we|you) (?:get|make|book|have|arrange) (?:me |her |him )?an? (?:\w+ ){1,2}(?:appointment|appt)\b|\b(?:written|noted|jotted) down\b|"
    r"\b(?:eat|drink|drive|shower|fly|bathe|exercise|work|water|food) (?:\w+ ){0,3}(?:before|after) (?:a|an|my|the) (?:\w+ ){0,2}(?:mri|scan|test|surg\w*|operation|colonoscopy|endoscopy|x ray|xray|ultrasound|procedure|appointment|blood test|stitches|op|biopsy|injection|jab|vaccine|dressing|cast)\b|"
    # lead, round ten (frozen8–10: care arrangements, procedure preparation, what to bring, rebooking,
    # repeat orders, the portal and the ward read as advice): practical and booking questions
    r"\b(?:request|ask for|have|get|see) (?:a |an )?(?:female|male|woman|man|different) (?:doctor|gp|nurse|clinician)\b|"
    r"\b(?:chaperone|interpreter|translator|interprete|traductor)\b|\barrange\b|\bhome visit\b|"
    r"\bque dosis (?:de (?:\w+ ){1,2})?(?:tomo|toma|estoy tomando|me toca|tengo|me recetaron)\b|"
    r"\b(?:solo |nomas )?(?:quiero|queria|necesito) (?:ver|leer|consultar|revisar|saber|tener) (?:el|la|los|las|mi|mis) (?:\w+ )?(?:informe|resultados?|analisis|notas?|historial|expediente|citas?|vacunas|recetas)\b|\bquiero mis (?:analisis|resultados|notas|citas)\b|"
    r"\b(?:ir|venir|estar|voy|vengo|estoy|hay que (?:ir|estar)|tengo que (?:ir|estar)|debo (?:ir|estar)) en ayunas\b|\ben ayunas (?:para|antes)\b|\bayuno (?:para|antes)\b|\b(?:change|switch|move) (?:my |the |this )?(?:\w+ ){0,2}(?:to|into) (?:a )?(?:phone|video|telephone|online) (?:call|consultation|appointment|appt|one)\b|"
    # round seventeen (frozen21's class, fresh wording: "want to come off my prep" was read as a bowel
    # prep errand): the prep of a procedure, never "my prep" or "on prep" (PrEP, the HIV medicine)
    r"\b(?:bowel|colonoscopy|the|drink|drinking|finish|finished|start|started) prep\b|\bprep (?:for|before|drink|solution|sachets?|leaflet|instructions)\b|\b(?:how long|when) before (?:a |an |my |the )?(?:\w+ ){0,2}(?:mri|scan|test|surg\w*|operation|colonoscopy|endoscopy|procedure|op|appointment)\b|"
    r"\bfasting (?:blood |glucose |cholesterol )?(?:test|bloods|sample)\b|\b(?:eat|drink) (?:\w+ ){0,2}before\s*$|"
    r"\bbring (?:my |our |your |her |his )?(?:own )?(?:\w+ )?(?:medicines?|medications?|meds|tablets|pills|inhalers?|clothes|things|bag|list|letters?|paperwork|documents|id|insurance card|glasses|food|snacks|pyjamas)\b|\bwhat (?:should|do) i bring\b|"
    r"\b(?:be )?(?:moved|changed|rescheduled|cancelled|canceled|rebooked|swapped) to (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|another day|the \w+)\b|"
    r"\b(?:can|could|may) (?:i|we|you) (?:get|make|book|have|arrange) (?:me |her |him )?an? (?:appointment|appt)\b|"
    r"\b(?:order|request|renew)\w* (?:\w+ ){0,3}(?:repeats?|prescriptions?|refills?)\b|"
    r"\b(?:patient )?portal\b|\bonline account\b|\bacceso\b|\bmi historial\b|\bmy phone\b|\bon the ward\b|\bwifi\b|\bstor(?:e|ing|age)\b|"
    r"\b(?:is there|any) (?:\w+ )?(?:advice|leaflet|information|info|guidance) (?:on|about)\b|\bnot asking (?:if|whether|for|about)\b|"
    r"\b(?:according to (?:my |the )?(?:records?|prescriptions?|charts?|notes?|leaflets?)|what does the (?:leaflet|record|hospital|note|doctor)|"
    r"on my record|in my record|(?:did|has) (?:my|the) doctor (?:say|said|write|stop|change)|when (?:did|was)|who prescribed|"
    r"what (?:was|were) the instructions|leaflet|hospital guidance|patient information|book(?! (?:in )?to (?:see|be seen))|"
    r"en mi (?:historial|expediente|registro|lista|ficha|historia)|segun mi (?:expediente|historial|receta|registro)|registrad[oa]s?|antecedentes)\b|"
    # lead, round six (frozen5: "puedo cambiar mi cita del jueves?" → start/stop advice): changing,
    # moving or cancelling an appointment is booking, in either language
    r"\b(?:cambiar|cancelar|anular|mover|reprogramar|adelantar|atrasar|aplazar|pedir|reservar|agendar|change|cancel|move|reschedule|push back|bring forward)\b (?:\w+ ){0,3}(?:cita|citas|turno|consulta|appointment|appt)\b|"
    # the account's own details (lead, round eight: "can i change my emergency contact" got the
    # start/stop refusal): changing a contact, an address or a pharmacy is not a treatment
    r"\b(?:change|update|add|remove|edit|cambiar|actualizar) (?:\w+ ){0,2}(?:emergency contact|next of kin|address|phone number|email|contact details|pharmacy|contacto de emergencia|direccion|telefono)\b|"
    # round seventeen (frozen21's hard negatives, fresh wordings: "can i move my nominated chemist",
    # "how do i get proxy access for my dad", "¿cómo cambio mi correo?"): the account's pharmacy, a
    # proxy's access, a detail changed in the first person
    r"\b(?:switch|swap|move|nominate|choose|pick) (?:my |our |her |his |the )?(?:nominated )?(?:pharmacy|chemist)\b|\bnominated (?:pharmacy|chemist)\b|"
    r"\b(?:set up|get|give|request|apply for|have|add) (?:\w+ ){0,2}(?:proxy(?: access)?|online access|access to (?:my|her|his|their) (?:record|account))\b|"
    r"\b(?:cambio|cambia|actualizo|actualiza|pongo) (?:\w+ ){0,2}(?:direccion|domicilio|correo|telefono|farmacia|contacto)\b|"
    # a record item asked whether it is written down ("is my gestational diabetes documented"), or
    # whether a relative's illness is in the family history
    r"^(?:is|was|are|were) (?:my |her |his )?(?:\w+ ){1,6}(?:recorded|documented|noted down|written down)$|\b(?:in|on) (?:my|her|his) family history\b|"
    # leaflet preparation ("can i wear deodorant for a mammogram"): what to do before a test
    r"\b(?:wear|use|put on|bring|have on) (?:\w+ ){0,3}(?:for|before|to) (?:a|an|my|the) (?:\w+ ){0,2}(?:mammogram|mri|scan|ct|x ray|xray|ultrasound|ecg|procedure|appointment|blood test|operation|surgery)\b|"
    # round fifteen (frozen19's hard negatives, fresh wordings): a leaflet in Spanish, what a medicine
    # is called, a place's address, the account's language or name, a medicine's status on the list,
    # a Spanish appointment made or what to bring on the day, a dose "en mi record"
    r"\bfolletos?\b|\bwhat (?:is|s) (?:it|that|this|the \w+) called\b|\bwhats (?:it|that|this) called\b|\bthe name of (?:it|that|this|the (?:\w+ )?(?:inhaler|tablet|medicine|pill|cream|spray))\b|"
    r"\b(?:address|postcode|directions|location|opening hours|phone number) (?:of|for|to) (?:the )?\w+|"
    r"\b(?:change|update|set|edit|cambiar|actualizar) (?:\w+ ){0,2}(?:preferred language|language|preferred name|title|pronouns|password|notifications?|settings|preferences|idioma|nombre)\b|"
    r"\b(?:showing|listed|marked|recorded|down|coded) as (?:active|inactive|current|stopped|ended|resolved|as needed|prn|discontinued|completed)\b|"
    r"\b(?:hacer|sacar|pedir|programar|solicitar|concertar|agendar\w*|reservar\w*|apartar) (?:\w+ ){0,2}(?:cita|turno|consulta|hora)\b|\b(?:me |le )?(?:puede|puedes|podria|podrias) (?:agendar|apuntar|anotar|reservar|programar)\w*\b|"
    r"\bque (?:tengo que|debo|hay que|necesito|debo de) (?:llevar|traer)\b|\b(?:llevar|traer) (?:\w+ ){0,3}(?:el dia de|a la cita|a la consulta|al hospital|a la operacion|a la cirugia)\b|\bsegun (?:la hoja|el folleto|las instrucciones|la carta|el papel|la guia)\b|"
    r"\ben mi record\b"
)


# a recorded value compared with its reference range is a record question (the labs tool shows
# the range): "is that above the normal range?", "is my tsh within normal limits", "was it
# flagged". Judging it ("is that bad", "too high", "should I worry") stays advice.
RANGE_COMPARISON = re.compile(
    r"\b(?:(?:above|below|over|under|within|inside|outside|in|out of|higher than|lower than|beyond) (?:the |my |a )?(?:normal |reference |healthy |usual |lab |target )?(?:range|limits?)|"
    r"(?:normal|reference) (?:range|limits?|values?)|in range|out of range|flagged|abnormal|"
    # round seventeen (frozen21's hard negatives, fresh wordings: "was my ferritin under normal")
    r"(?:above|below|over|under) normal|"
    r"(?:above|below|over|under|at|within|meeting|meet|hit) (?:the |my )?(?:target|goal)|"
    r"(?:dentro|fuera) (?:del |de )?(?:rango|limite)|rango (?:normal|de referencia))\b|"
    # a bare "is my hba1c high": the record's high/low flag answers it ("too high" stays advice)
    r"^(?:is|was|are|were) (?:my|her|his|their|the) (?:\w+ ){1,5}(?:high|low|raised|elevated|flagged)$"
)
JUDGEMENT = re.compile(
    r"\b(?:bad|dangerous|serious|harmful|worr\w*|concern\w*|scared|afraid|ok|okay|fine|safe|good|"
    r"too (?:high|low)|cancer\w*|die|dying|treat\w*|should|need|must|malo|grave|peligros\w*|preocup\w*)\b"
)


# a stated fact or a list asked about with no number, change or feared diagnosis in it (round
# seventeen's confirmation shapes below): "i take 4 of these, right?" or "is cancer one of my
# problems" stays with the advice rules
_NO_NUMBER_OR_FEAR = (
    r"(?!(?:\w+ ){0,6}(?:(?:\d+|two|three|four|five|six|double|extra|more|less|all|half) (?:of|tablets?|pills?|mg|milligrams?|times|a day|at once|doses?|puffs?|units?|ml)|"
    r"at once|together|can|could|should|with|instead|ok|okay|safe|fine|alright|bad|"
    r"cancer|tumou?r|malignan\w*|leuka?emia|lymphoma|serious|dangerous|terminal)\b)"
)


# round eighteen: long-term conditions a record lists, as people spell them ("diabeetis",
# "hypertenshun", "astma"), for the record-question shapes "have i got X" and "check if i have X";
# an acute or feared illness ("have i got an infection", "do i have dementia") is not among them
LONG_TERM_CONDITION = (
    r"(?:type (?:1|2|one|two) )?(?:diab\w*|dia?betis|hyper ?ten\w*|high (?:blood )?pres\w*|high bp|hbp|ast?h?a?ma|asma|copd|c o p d|"
    r"(?:high )?ch?ole?st\w*|arth?rit\w*|osteo ?arth\w*|osteopor\w*|hypo ?thyr\w*|hyper ?thyr\w*|under ?active thyroid|over ?active thyroid|"
    r"atrial fib\w*|a ?fib|chronic kidn?e?y disease|ckd|heart failure|sleep apn\w*|migr\w*|ec?z\w*ma|psoria\w*|an(?:a|e)?emi\w*|obes\w*|"
    r"pre ?diab\w*|glaucoma|angina|coeliac|celiac|crohns|ulcerative colitis|ibs|gout|epilep\w*|depres\w*|anxiety)"
)

# questions shaped as asking what the record holds; only the advice *classifier* defers to
# them (the lexical advice rules run first and catch "how many paracetamol can I take"):
# "what dose of lisinopril am i on", "am i allergic to X", "is my thyroid result normal"
RECORD_QUESTION = re.compile(
    # lead, round six (paraphrase frozen4, measured once: "Waht was my lastest wegiht?" got the
    # EMERGENCY reply from the linear classifier, "Have I evre had psoirasis?" too, "Am I diagnosd
    # with …", "Am I stil takign …", "… on my repeat prescription …", "active problems pls" the
    # advice refusal): the record-question shapes with the typos people make in their own words
    r"^(?:what|wht|wat|waht|whta|whats|wats|whts)s? (?:was|is|were|are|waz|iz|wsa) (?:my|her|his|the patients) (?:\w+ ){0,3}\w+$|"
    r"^(?:have|has|hve|hav|haev) (?:i|she|he|they|the patient) (?:\w+ )?(?:had|hda|ahd|been diagnosed|been told)\b(?! (?:too|enough|so)\b)|"
    r"\bam i (?:\w+ )?(?:diagnos\w*|diagnsed|dianosed|diganosed)\b|"
    r"\bam i (?:still|stil|sitll|stlil|stiill|sttill|stll|currently|curently) t[a-z]{3,6}\b|"
    r"\bon my (?:repeat |regular |current |usual )?(?:prescriptions?|repeats?|repeat list|med list|medication list|medicines list|record|chart|file)\b|"
    # lead, round seven (paraphrase frozen5, measured: "Do I hav … on my recrod?", "is X something I
    # take?" got the advice refusal from the classifier): the record word as people mistype it,
    # and a medicine asked about as "something I take"
    r"\b(?:on|in) my (?:recrod|recod|reocrd|rcord|reccord|recrd|recor|recodr|chrat|cahrt|fiel|flie)\b|"
    # round seventeen (the paraphrase suite's tune_frozen14): an item asked to be in the allergy list,
    # however "allergies" is spelt ("is grass pollen in my alergies")
    r"^(?:is|are) (?:\w+ ){1,3}(?:in|on) (?:my|her|his|their|the patients) (?:\w+ )?al+erg(?:y|ys|ie|ies)(?: list)?$|"
    r"\b(?:is|are) (?:\w+ ){1,3}(?:something|anything|one of the (?:things|medicines|meds|tablets|pills)) (?:that )?(?:i|im|i am|ive|i have|she|he|they|the patient)(?: (?!can\b|could\b|should\b|may\b|might\b|shouldnt\b|cant\b)\w+)? (?:take|takes|taking|on|prescribed|using|use|been given)\b|"
    # round sixteen: "is penicillin something i'm not allowed to have" asks what the record says to
    # avoid (the allergy list and the drug–allergy table answer it, and a "no" is no go-ahead); the
    # classifier refused it as advice with no row shown. "… something i shouldn't take" stays advice
    r"\b(?:is|are) (?:\w+ ){1,3}(?:something|anything|a thing|one of the things) (?:that )?(?:i|im|i am|she|shes|he|hes|they|the patient)(?: is| am| are)? (?:cant|cannot|can not|mustnt|must not|not allowed to|isnt allowed to|arent allowed to) (?:have|take|be given)$|"
    r"\b(?:active|current|ongoing) (?:problems?|problem list|conditions|diagnoses|dx)\b|\bam i (?:still )?down as\b|"
    # round fourteen: a carer asking for the names on a medicine list ("read me the names of my
    # mum's tablets, I fill her pill box")
    r"\b(?:read|tell|say|give) (?:me |us |out |back )*(?:the |a )?(?:names?|list) of (?:\w+ ){0,2}(?:tablets|pills|medicines|meds|medications)\b|\b(?:fill|sort|do|set up|make up) (?:\w+ ){0,2}(?:pill ?box|dosette|blister pack|pill organi[sz]er)\b|"
    # round fourteen (paraphrase frozen9, measured once: "Is X a medicine I take?", "Okay so, just
    # checking. Do I take X?", "X on my curent meds or not", "Is X one of my condtions??", "Is X a
    # condition I have?", "Do I suffer with X?" got the advice refusal from the classifier)
    r"\b(?:is|are) (?:\w+ ){1,4}(?:a|an) (?:medicine|medication|drug|tablet|pill|med|inhaler|injection) (?:that )?(?:i|she|he|they|the patient) (?:take|takes|am on|is on|use|uses|am taking|is taking)$|"
    r"\bdo(?:es)? (?:i|she|he|they|the patient) (?:still |currently |actually )?(?:take|use)(?: (?!with\b|and\b|before\b|after\b|if\b|together\b|at\b|instead\b|or\b|it\b|them\b|this\b|that\b|more\b|less\b|extra\b|another\b|double\b|half\b|\d+\b|two\b|three\b|both\b|next\b|tomorrows?\b|tonights?\b|todays?\b|now\b|her\b|him\b|in\b)\w+){1,3}(?: or not)?$|"
    r"^(?!.*\b(?:should|can|could|may|must|ok|okay|fine|alright|safe|od|overdos\w*|too many|too much)\b)(?:\w+ ){1,4}on (?:my|her|his|their|the patients) (?:\w+ )?(?:meds|medications|medicines|med (?:lsit|lst|list))(?: or not)?$|"
    r"\b(?:is|are) (?:\w+ ){1,5}one of (?:my|her|his|their|the patients) (?:\w+ )?(?:cond\w*|diagnos\w*|problems|health problems|illnesses|meds|medications|medicines|allerg\w*)$|"
    r"\b(?:is|are) (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma)\b)(?:\w+ ){1,4}(?:a|an) (?:condition|diagnosis|problem|health problem|disease|illness) (?:that )?(?:i|she|he|they|the patient) (?:have|has|had|suffer from|suffers from|am diagnosed with|is diagnosed with)$|"
    # lead, round ten (paraphrase frozen7, measured once: "Do I suffer from hypothyroidism?", "Is
    # essential hypertension something I have?" got the advice refusal from the classifier): a
    # condition asked about as one the record lists; cancer, a tumour or "anything serious" stays advice
    r"^(?:do|does) (?:i|she|he|they|the patient) (?:still )?suffer (?:from|with) (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma|anything|something|serious)\b)(?:\w+ ){0,4}\w+$|"
    r"\b(?:is|are) (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma)\b)(?:\w+ ){1,4}(?:something|one of the (?:conditions|things|problems|diagnoses)) (?:that )?(?:i|she|he|they|the patient) (?:have|has|had|suffer from|suffers from|live with|lives with|am diagnosed with|is diagnosed with)$|"
    # lead, round eight (frozen7): a plain look-up said to be one ("no danger, only curious about
    # my a1c", "solo quiero ver el informe"), and the record's contact details
    r"\b(?:just|only) (?:\w+ )?(?:curious about|want to see|want to know|want to check|need to see|need to know|want|need) (?:what )?(?:my|the|her|his)\b|"
    r"\bsolo (?:quiero|queria|necesito) (?:ver|leer|saber|consultar|revisar|mirar)\b|\b(?:emergency contacts?|next of kin|contacto de emergencia)\b|"
    # chart shorthand at the start of a patient's question too (round eight, consistency grammar:
    # "hi, hx of gout right now please?" got the advice refusal from the classifier)
    r"^(?:any |is there (?:a |any )?)?(?:pmh|pmhx|hx|h/o|h o|past medical history|medical history) (?:of |for |re |about )?\w+|"
    # "any problems with my kidneys on file?" (lead hunt, round six: the advice refusal, then
    # "I found nothing", for a body-system question the planner answers from the record)
    r"\b(?:on file|on record|on the system|in my (?:chart|file|records?|notes))\b|"
    # round thirteen (frozen15): a result from a stay, the dose the record holds, what a carer is after
    r"^(?:my|her|his|mums?|dads?) (?:\w+ ){1,3}from (?:the|my|her|his) (?:last )?(?:hospital stay|stay|admission|visit|appointment|bloods|check ?up|scan)$|"
    r"\b(?:im|i am) (?:just )?after (?:my|mums?|dads?|her|his|the)\b|"
    r"^(?:any|are there any|have i got any|do i have any) (?:problems?|issues?|conditions?|trouble|diagnoses) (?:with|in|of) (?:my|her|his|the) \w+|"
    r"\b(?:am i|is she|is he|are they|have i been|has she been|has he been|i am|im) (?:\w+ )?(?:being )?treated for\b|\bone of the (?:things|conditions|problems) (?:i|she|he|they|im)\b|"
    # the answerer's own booking replies ("book S2", "cancel B1"): a short handle the classifier
    # reads as noise (it called "cancel B1" interpretation advice once frozen4 joined the tuning)
    r"^(?:book|cancel|reschedule|confirm)(?: slot| appointment)? (?:[a-z]\d{1,2}|#?\d{1,2}|that one|the (?:first|second|third|last) one)$|"
    r"\b(?:what|which|wat|whats) (?:\w+ ){0,4}(?:am i|was i|have i been|did i get) (?:still |currently |now )?(?:on|taking|t[a-z]{4,5}|prescribed|given)\b|"
    r"\bam i (?:still |stil |sitll |stlil |stiill |sttill |currently |curently |now |meant to be |supposed to be |actually |already )?(?:on|taking|prescribed|t[a-z]{3,6}ing)\b|"
    r"\b(?:have|has) (?:i|she|he|they) (?:ever |still |recently |currently )?been (?:on|taking|prescribed|given)\b|"
    r"\b(?:am i|is she|is he|are they) (?:still )?(?:dealing|living|diagnosed) with\b|\bam i over (?:my|the|her|his)\b|"
    r"\b(?:am i|is she|is he|is the patient) (?:down|listed|registered|recorded|coded) as\b|\bis my record under\b|"
    # a medicine's purpose, prescriber or schedule as the record holds it: "why do i take x",
    # "who put me on it", "how much x am i supposed to take", "how often should i take x"
    r"^why (?:do|am|was|did|is|are) (?:i|she|he|they) (?:\w+ )?(?:take|taking|t[a-z]{3,6}ing|on|prescribed|given|get|started)\b|"
    r"\b(?:who|which doctor|what doctor|whcih doctor) (?:\w+ )?(?:prescribed|prescribes|prsecribed|put (?:me|her|him) on|gave (?:me|her|him)|started (?:me|her|him) on)\b|"
    r"\bhow (?:much|many|often) (?:\w+ ){0,4}(?:am i|is she|is he|are they) (?:supposed|meant|prescribed|told) to\b|"
    r"^how often (?:should|do) i (?:take|use) (?:my |the )?(?:\w+ ){1,3}$|"
    r"\b(?:meds|medications?|medicines?|drugs|pills|tablets|prescriptions?) (?:\w+ ){0,2}(?:i got|i was given|i was prescribed|are for|is for)\b|"
    r"\bwhat (?:do|did) i (?:take|get) for\b|^(?:is|are) (?:the |my )?(?:\w+ ){1,3}(?:for|to treat) (?:my|her|his|the) \w+|"
    r"\b(?:does|do|did) (?:\w+ ){1,3}make (?:me|her|him|them) (?:react|itch|swell|come out in)\b|"
    # trends and ages of readings: "is my potassium going up", "higher than the one before",
    # "getting better or worse over time", "is my latest bmi more than a year old"
    r"\b(?:going|gone|went|come|came|coming|trending) (?:up|down)\b|\b(?:higher|lower) than (?:the )?(?:one |reading |result |value |time )?(?:before|previous|last)\b|"
    r"\bbetter or worse\b|\bover time\b|\btrend\w*\b|\btrajectory\b|"
    r"\b(?:more than|over|older than) (?:a |one |1 |12 |twelve )?(?:year|years|yr|months?) old\b|\bolder than (?:a year|1y|one year|12 months)\b|\boverdue\b|"
    r"^my (?:\w+ ){1,4}(?:most recently|recently|at its (?:highest|lowest|peak)|latest|last|first|now)$|\bcurrent (?:med|meds|medication|medicine)s?$|"
    r"\b(?:problems|conditions|diagnoses|medicines|meds|medications) i (?:have|take|am on)\b|"
    r"^(?:is|are|has|have) (?:my|the|her|his) (?:\w+ ){1,5}(?:gone|cleared|cleared up|resolved|healed|went away)$|"
    r"^(?:has|have) (?:\w+ ){1,5}been (?:a problem|an issue|active|diagnosed|recorded|listed)\b|"
    # whether a list of the record holds a thing: "is epinephrine one of my meds", "is diabetes
    # on my list of conditions", "does my chart say i have hypertension", "is my pharyngitis
    # still active", "have i ever had the hpv vaccine" (found in the evaluation's dev bank,
    # refused as advice once the advice classifier was switched on)
    r"\b(?:one of|on|in|among|part of) (?:my|her|his|their|the) (?:current |active |regular |usual |present |ongoing )?(?:list|meds|medications|medicines|prescriptions|conditions|problems|problem list|diagnoses|health problems)\b|"
    # round thirteen (paraphrase frozen8, measured once, then tuning: "Is ashtma in my diagnosises",
    # "Is X one of the things the doctor has me on?", "Don't I take X?" got the advice refusal)
    r"\b(?:in|on|among) (?:my|her|his|their|the) (?:\w+ )?(?:diagnos\w*|dx|problem list)\b|"
    r"\bone of the (?:things|medicines|meds|tablets|pills|drugs) (?:that )?(?:the |my )?(?:doctors?|gps?|hospital|team|clinic)?\s?(?:has|have|had|put|keeps?) (?:me|her|him|them|got me) on\b|"
    r"^(?:dont|do not|doesnt|does not) (?:i|she|he|they|the patient) (?:still |already )?(?:take|have|use|get|need)\b(?! to\b)|"
    r"\b(?:does|did|do) (?:my|her|his|their|the) (?:chart|record|file|notes?|records) (?:say|show|list|mention|have)\b|"
    r"^(?:is|are) (?:my |her |his |their |the )?(?:\w+ ){1,6}(?:still |stil |sitll |stlil )?(?:active|acctive|current|ongoing|resolved)\b|"
    r"^(?:have|has) (?:i|she|he|they|we|the patient) (?:ever )?(?:had|been given|received|got)\b(?! (?:too|enough|so)\b)|"
    r"\b(?:allergic|alergic|allegric|allergy|allergies|alergia|alergias|alergico|alergica)\b|\bwhat reactions?\b|"
    r"\bhow many\b|\brefills?\b|\bwhat (?:should|do) i (?:need to )?bring\b|\bwhat are the (?:signs|symptoms)\b|"
    r"\bhospitals? (?:advice|guidance|leaflet|information|policy)\b|"
    r"\b(?:historial|expediente)\b|\bcuando (?:me|fue|tuve)\b|\bnormal\b|"
    # short Spanish record questions (round six): "¿sigo tomando X?", "¿quién me recetó X?",
    # "¿tengo antecedentes de X?", "¿desde cuándo tomo X?", "¿para qué me dieron X?"
    r"^(?:sigo|todavia|aun|aun sigo|todavia sigo) (?:tomando|con|tengo|estoy|en)\b|"
    r"\b(?:quien|que (?:doctor|doctora|medico|medica)|cual (?:doctor|medico)) (?:me |le )?(?:receto|recetaron|mando|mandaron|dio|dieron|puso|pusieron|atendio|atendieron|opero|vio)\b|"
    r"\bdesde (?:cuando|hace cuanto) (?:tomo|tengo|estoy|uso|me)\b|\bpara que (?:me (?:dieron|recetaron|mandaron|pusieron|sirve)|tomo|es (?:el|la|mi))\b|"
    r"\bantecedentes\b|\b(?:aparece|aparecen|figura|figuran|consta|constan|esta anotad[oa]|sale en)\b|"
    r"^(?:me|le) (?:recetaron|hicieron|operaron|pusieron|diagnosticaron|dieron|vacunaron|mandaron)\b|"
    r"\bhay (?:alguna |algun |algunas |algunos )?(?:nota|notas|registro|resultado|informe|apunte)s?\b|\bcuanto (?:me )?(?:salio|dio|salieron|tengo de)\b|"
    r"\b(?:tengo|hay) (?:algun|alguna|algunos|algunas) (?:\w+ )?(?:programad|pendiente|agendad)\w*\b|\bprogramad[oa]s?\b|"
    r"\b(?:cual|cuales|que) (?:es|son|fue|fueron) (?:mi|mis) (?:\w+ ){0,3}(?:resultados?|medicamentos?|alergias?|diagnosticos?|vacunas?|citas?|medico)\b|"
    # general guidance the leaflets give ("what should i eat with diabetes", "exercise with asthma")
    r"\bwhat (?:should|can|could) i (?:eat|drink|cook)\b|\b(?:foods?|diet|meals?|recipes?|exercise|exercising|physical activity|lifestyle|comida|dieta|ejercicio)\b|"
    # whether the record holds something: "do i have hypertension?", "do i take lisinopril?"
    # (a diagnosis feared, "do i have cancer", is the lexical advice rules' business)
    r"^(?:do|does|did) (?:i|she|he|they|we|the patient) (?:\w+ )?(?:have|hav|hve|haev|take|get|use)\b(?! to\b)|"
    # round eighteen (frozen22's and frozen23's class, fresh wordings: "hav i got high blood pressure",
    # "asthma diagnosed for me yes or no", "¿tengo asma?"): a condition asked about as the record's,
    # typos and all; a feared diagnosis, "anything wrong", or a reason given ("because my sugar is
    # 9") stays the advice rules' business
    rf"^(?:(?:can|could|cud|would|will) (?:you|u) )?(?:please |pls )?(?:check|see|look|find out|tell me) (?:if|whether) (?:i|she|he) (?:have|hav|hve|has|got|have got|ve got) (?:a |an )?{LONG_TERM_CONDITION}(?: (?:or not|on (?:file|record)|at all))?$|"
    rf"^(?:have|has|hve|hav|haev|av) (?:i|she|he|they|the patient) (?:got|gt|gotten) (?:a |an )?{LONG_TERM_CONDITION}(?: (?:or not|on (?:file|record)|at all))?$|"
    rf"^{LONG_TERM_CONDITION}(?: \w+)? (?:diagnosed|diagnosd|diagnoised|diagnsed|dianosed|listed|recorded|documented|coded|registered)(?: (?:for|in|with|on) (?:me|her|him|them|my (?:record|file|notes|chart)))?(?: (?:yes or no|or not|at all|anywhere))?$|"
    # lead, round eight (paraphrase frozen6: "Have I evr been seen in the emergancy room?" got the
    # emergency reply from the classifier): a visit asked about, its "ever" mistyped
    r"^(?:have|has|hve|hav|haev) (?:i|she|he|they|the patient) (?:ever |evr |evre |eveer |eva |ver )?been (?:seen|to|taken|admitted|treated|in)\b|\b(?:do|does) (?:i|she|he|they) (?:\w+ )?(?:have|take) it$|"
    r"\b(?:is|are) (?:she|he|they|the patient) (?:still |currently |now )?(?:on|taking|prescribed)\b|"
    # a value stated to be checked against the record: "my a1c is 6.1, right?"
    r"\b(?:\d+(?: \d+)?|it|that|this) (?:\w+ )?(?:right|correct|true|accurate|is that (?:right|correct)|am i right|verdad|cierto|correcto)$|"
    # round fifteen (frozen19's hard negatives, fresh wordings): following a leaflet's instructions
    # ("how do i return the sample kit per the leaflet"), a Spanish appointment asked for, what
    # to bring on the day, a medicine's status on the list ("are any listed as as needed")
    r"\b(?:per|following|according to|as in|from|in) the (?:instructions|instruction sheet|information sheet|leaflet|sheet|kit|booklet|guide)\b|\bsegun (?:la hoja|el folleto|las instrucciones|la carta|el papel|la guia)\b|"
    r"\bhow (?:do|should|can) i (?:collect|give|provide|do|send|return|post|drop off|hand in|label|store|take) (?:a |the |my |in )?(?:\w+ )?(?:sample|specimen|kit|pot|form)\b|"
    r"\b(?:hacer|sacar|pedir|programar|solicitar|concertar|agendar\w*|reservar\w*) (?:\w+ ){0,2}(?:cita|turno|consulta)\b|\b(?:me |le )?(?:puede|puedes|podria|podrias) (?:agendar|apuntar|anotar|reservar|programar)\w*\b|"
    r"\bque (?:tengo que|debo|hay que|necesito|debo de) (?:llevar|traer)\b|"
    r"\b(?:listed|marked|recorded|written|showing|coded|flagged|down) as\b|"
    # round fifteen (paraphrase frozen11, measured once, then tuning: "Is X anywere in my
    # medicaiton histroy?", "Is X one of the tablets or puffers I take?", "is X something I
    # actually have?", "am I someone with X?", "Is X on my problm list?" got the advice refusal)
    r"\b(?:in|on) (?:my|her|his|their|the patients) (?:med\w*|drug|prescription\w*|perscription\w*) (?:hist\w*|histroy|hsitory|list|lsit|record\w*)\b|"
    r"\bone of the (?:things|medicines|meds|tablets|pills|puffers|inhalers|drugs|ones)(?: or \w+)? (?:that )?(?:i|she|he|they|the patient) (?:\w+ )?(?:take|takes|use|uses|am on|is on)$|"
    r"\b(?:is|are) (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma)\b)(?:\w+ ){1,4}something (?:that )?(?:i|she|he|they|the patient) (?:actually |really |definitely |officially )(?:have|has|suffer from|suffers from)$|"
    r"^(?:am i|is she|is he|is the patient) (?:someone|somebody|a person|a patient) (?:with|who has|who have) (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma)\b)(?:\w+ ){0,4}\w+$|"
    r"\b(?:on|in) (?:my|her|his|their|the patients) (?:problm|porblem|probelm|prblem|problme|proble) (?:list|lsit)\b|"
    # round sixteen (frozen20's hard negatives, fresh wordings): a list of the record asked for ("just
    # the list of my allergies"), what a Spanish consultation or result said ("¿qué anotó la
    # enfermera?", "¿sale el colesterol en mis análisis?", "¿cuál es el valor?")
    r"\b(?:list|summary|rundown) of (?:all )?(?:my |her |his |their )?(?:current |active )?(?:conditions|medicines|meds|medications|allergies|diagnoses|problems|vaccinations|vaccines|immuni[sz]ations|tablets|jabs)\b|"
    r"\bque (?:dijo|dijeron|puso|pusieron|escribio|escribieron|anoto|anotaron|encontro|encontraron|vio|vieron)\b|\bsale (?:\w+ ){0,4}en (?:mi|mis|el|la|los|las)\b|"
    r"\bcual (?:es|fue|era) (?:el|la) (?:numero|valor|cifra|resultado|nivel)\b|"
    # round sixteen (paraphrase tune_frozen12: "Am I a X sufferer?", "Do I react badly to X?" got the
    # advice refusal from the classifier): a condition or an allergy asked about as the person's own
    r"^(?:am i|is she|is he|is the patient) an? (?!(?:\w+ ){0,3}(?:cancer|tumou?r|malignan\w*|leuka?emia|lymphoma)\b)(?:\w+ ){1,4}(?:sufferer|patient)$|"
    r"^(?:do|does|did) (?:i|she|he|they|the patient) (?:\w+ )?react (?:badly |at all |in any way )?to\b|"
    # round seventeen (the paraphrase suite's frozen13, measured once: twenty record wordings got the
    # advice refusal, one the emergency reply, from the classifiers; fresh wordings here): a recorded
    # fact stated and asked to be confirmed ("she uses X, correct?"), membership of the medicine or
    # problem list ("is X still part of my treatment plan", "one of my open issues", "an active
    # problem for me"), a past prescription ("did the gp ever put me on X, or not?"), a condition
    # someone mentioned ("is it on there?"), what "my paperwork says"; a number, a change or a
    # feared diagnosis stays the advice rules' business
    rf"^(?:so |and |ok |okay )?(?:(?:i|she|he|they|the patient) (?:still |currently |also |already )?(?:take|takes|have|has|have got|has got|am on|is on|are on|use|uses|am taking|is taking|was prescribed|was given)|(?:ive|shes|hes|theyve) (?:still |also |already )?got|(?:im|shes|hes|theyre) (?:still |currently |also |already )?(?:on|taking)) {_NO_NUMBER_OR_FEAR}(?:\w+ ){{1,5}}(?:right|correct|yes|yeah|true|no|dont i|doesnt she|doesnt he|havent i|hasnt she|hasnt he|am i not|is that right|is that correct)$|"
    rf"\b(?:is|are) {_NO_NUMBER_OR_FEAR}(?:\w+ ){{1,5}}(?:part of|still part of|included in|in|on) (?:my|her|his|their|the patients) (?:current |daily |usual |regular )?(?:regimen|regime|treatment|treatment plan|care plan|routine|medication|medications|medicines|meds|prescriptions?|tablets|pills)$|"
    rf"\b(?:is|are) {_NO_NUMBER_OR_FEAR}(?:\w+ ){{1,5}}(?:one of (?:my|her|his|their|the patients) (?:current |active |ongoing |open |medical |health )?(?:issues|problems|conditions|diagnoses))$|"
    rf"^(?:confirm|check|verify|is it true|tell me if|tell me whether|can you confirm) (?:that |if |whether )?{_NO_NUMBER_OR_FEAR}(?:\w+ ){{1,5}}(?:is|are) (?:still )?(?:a|an) (?:live|current|active|ongoing|open|present) (?:problem|issue|condition|diagnosis)(?: for (?:me|her|him|them))?$|"
    r"\b(?:doctor|doctors|gp|dr \w+|they|anyone|somebody|someone|the hospital) (?:ever |once |previously )?(?:give|gave|given|prescribe|prescribed|put) (?:me|her|him) (?:on )?(?:\w+ ){1,3}(?:before|in the past|previously|at some point|ever)(?: or (?:never|not))?$|\b(?:before|ever|in the past) or (?:never|not)$|"
    r"\b(?:is|was|are|were) (?:that|it|this|they|those) (?:\w+ )?(?:in there|on there|in the (?:system|records?|notes|file|chart)|written (?:down|anywhere)|recorded|documented|noted|in my (?:family )?history)$|"
    r"^(?:is|was|are|were) (?:my |her |his )?(?:\w+ ){1,6}(?:recorded|documented|noted down|written down|in there|on there)$|\b(?:in|on) (?:my|her|his) family history\b|"
    r"\b(?:in|on) (?:my|her|his) (?:papers|paperwork|documents|letters?|notes|records?|file|chart) (?:it )?(?:is written|was written|says|said|it says|mentions|shows)\b|"
    # frozen21's hard negatives (fresh wordings): what a Spanish medicine is called ("¿cómo se llaman
    # mis pastillas?"); a booking asked for by the service's name ("an urgent review appointment")
    r"\bcomo se llaman? (?:mi|mis|el|la|los|las|esta|este|estas|estos)\b|"
    r"^(?:please |pls |can you |could you |would you )?(?:book|schedule|arrange|get) (?:me|us|her|him|my \w+) (?:in )?(?:for )?(?:a|an) (?:\w+ ){0,3}(?:appointment|appt|slot|consultation|review|check ?up)\b"
)


@lru_cache(maxsize=256)
def range_comparison(texts: Texts) -> bool:
    """Asks how a value stands against its reference range, without asking what that means."""
    return any(RANGE_COMPARISON.search(t) and not JUDGEMENT.search(t) for t in dict.fromkeys(texts))


# a question that fetches something ("what tablets do i take", "dame mi resultado de vitamina
# d", "did my kidney numbers get better") and carries no word of asking what to do or how bad
# it is: the advice classifier reads it as a request for advice far too often (short record
# questions sit next to short advice questions in the embedding, Spanish ones most of all)
RECORD_FETCH = re.compile(
    r"^(?:(?:hi|hey|hello|hola|ok|okay|so|um|please|pls|quick question|sorry|can you|could you|would you|puedes|puede|por favor|"
    # round sixteen: "me puedes decir …", "¿me podría mostrar …?"
    r"me (?:puedes|puede|podrias|podria)|(?:puedes|puede|podrias|podria) (?:me )?|"
    # round eighteen (frozen22's and frozen23's chatty record questions, fresh wordings): "can you
    # remind me" followed by a what-question about a recorded value
    r"remind me|remind me of)\s+)*"
    r"(?:what|whats|wat|wats|whts|wht|waht|whta|which|when|whens|who|where|how many|how often|how long|give me|show me|tell me|list|get me|pull up|find|read me|"
    r"how (?:is|are|has|have|was|were|does|do) (?:my|the)|"
    r"dame|muestrame|ensename|dime|cual|cuales|cuando|que|quien|donde|como (?:salio|salieron|va|van|esta|estan)|cuantos|cuantas|"
    r"decir|decirme|dar|darme|mostrar|mostrarme|ensenar|ensenarme|buscar|buscarme|leer|leerme|"
    # round sixteen (paraphrase tune_frozen12: "My currnet wegiht pls", "Most recnt wegiht resutl?",
    # "My maxium wegiht?" got the EMERGENCY reply from the linear classifier): a latest or extreme
    # value asked for by name, with the typos people make in those words
    r"(?:my |the |her |his )?(?:current|curent|currnet|currant|crrent|currrent|cuurent|latest|lastest|latets|lateset|latset|newest|"
    r"most (?:recent|recnt|recetn|resent|rescent)|highest|highst|hihgest|higest|heighest|lowest|lowst|lowset|max|maximum|maxium|maxmum|maximun|"
    r"min|minimum|minium|peak|top|last|lst)|"
    r"did|has|was|were|latest|last)\b"
)
ASKS_WHAT_TO_DO = re.compile(
    r"\b(?:should|shall|can i|could i|may i|must|ought|need to|do i need|safe|ok to|okay to|ok if|okay if|alright to|worr\w*|"
    r"dangerous|serious|bad|worse|cancer\w*|tumou?r|die|dying|wrong|mean for me|too (?:high|low|much|many|little|thin|thick)|enough|"
    r"terrible|awful|problem|failing|shutting down|disease|infection|causing|why|do you think|ok for|okay for|"
    r"puedo|debo|deberia|tengo que|hay que|peligros\w*|grave|malo|mal|preocup\w*|demasiad\w*|fallando)\b"
)


def terse_fetch(texts: Texts) -> bool:
    """Four words or fewer with no word of asking what to do ("A1C and LDL?", "my statins"),
    counted without the wrapping ("latest potassium, thanks")."""
    return len(core_form(texts).split()) <= 4 and not found(ASKS_WHAT_TO_DO, texts)


def record_question(texts: Texts) -> bool:
    """Shaped as asking what the record holds (silences the advice classifier, not the rules)."""
    return range_comparison(texts) or any(
        RECORD_QUESTION.search(t) or (RECORD_FETCH.match(t) and not ASKS_WHAT_TO_DO.search(t))
        for t in dict.fromkeys(texts)
    )


@lru_cache(maxsize=256)
def advice_record_framed(texts: Texts) -> bool:
    """A record, leaflet or booking question that may share the advice words."""
    return found(ADVICE_RECORD_FRAMING, texts)


def seeking_care(texts: Texts) -> bool:
    """Asks whether, or where, to seek care ("should i take him to the er", "¿necesito puntos?")."""
    return advice_rule_matches("urgency", texts)


# the advice rules in one list, each category a span of it, for one filter over them all
_ADVICE_LIST = [(category, rule) for category, rules in ADVICE_RULES.items() for rule in rules]
ADVICE_FILTER = RuleFilter(
    [rule.pattern if isinstance(rule, Requiring) else rule for _c, rule in _ADVICE_LIST]
)


@lru_cache(maxsize=1024)
def _advice_candidates(text: str) -> tuple[tuple[str, Requiring | re.Pattern[str]], ...]:
    return tuple(_ADVICE_LIST[i] for i in ADVICE_FILTER.candidates(text))


def advice_rule_matches(category: str, texts: Texts) -> bool:
    """Whether an advice rule of the category matches one of the prepared forms (only the rules
    whose necessary words occur in a form are tried: `agent.safety.prefilter`)."""
    return any(
        rule.search(t) for t in dict.fromkeys(texts) for c, rule in _advice_candidates(t) if c == category
    )


# Signs of danger happening now that are too common to be emergency rules on their own ("he's
# very drowsy", "she's gone grey", "está muy dormido") but decide a seeking-care question: "he's
# very drowsy and confused, should I take him to A&E?" is an emergency, "he's had a temperature
# since yesterday, should I take him to the ER?" is a question about where to go (round six)
RED_FLAG: tuple[Rule, ...] = (
    *_rules(
        "unconscious",
        r"\b(?:very |really |so |too |extremely )?(?:drowsy|floppy|limp|unrousable|hard to wake|hard to rouse|barely awake|not waking|"
        r"cant stay awake|wont stay awake|cant keep (?:his|her|their) eyes open|out of it|not (?:himself|herself) at all)\b",
        r"\b(?:confused|disoriented|disorientated|not making sense|doesnt know (?:where|who))\b(?! (?:about|by|with|over|why))",
        r"\b(?:muy |bien )?(?:dormid[oa]|adormilad[oa]|somnolient[oa]|flojit[oa]|aturdid[oa]|confundid[oa]|desorientad[oa])\b(?! (?:con|sobre|por) )|\bno (?:me |nos )?reconoce\b",
        record_word=False,
    ),
    *_rules(
        "breathing",
        r"\b(?:pale and clammy|cold and clammy|clammy|grey|gray|mottled|turning purple|going purple|blue lips|lips (?:are |look )?blue|"
        r"morad[oa]s?|palid[oa] y sudando|sudando fri[oa]|labios azules)\b",
        r"\b(?:breathing (?:really |very )?(?:fast|hard|funny|strange)|sucking in (?:under )?(?:his|her) ribs|ribs sucking in|grunting|"
        r"respira (?:muy )?(?:rapido|raro|con dificultad)|se le hunden las costillas)\b",
        record_word=False,
    ),
)


def red_flag(texts: Texts) -> str | None:
    """The category of an un-negated acute sign (`RED_FLAG`) in a seeking-care question, or None."""
    for t in dict.fromkeys(texts):
        for rule in RED_FLAG:
            for match in rule.pattern.finditer(t):
                before = " ".join(t[: match.start()].split()[-2:])
                if not NEGATORS.search(before) and not _negator_then_word(t[: match.start()]):
                    return rule.category
    return None


# lead, round ten (frozen8: "my troponin was raised, did i have a heart attack", "my liver results are
# high, have i ruined my liver", "cholesterol 7.2 am i going to have a heart attack"): a result asked
# about for what it means for the person's health, read even when worded against a range
INFERENCE = (
    re.compile(
        r"\b(?:was|were|is|are|came back|come back) (?:\w+ )?(?:raised|high|elevated|abnormal|positive|borderline|off|up)\b (?:\w+ )?(?:did|do|does|have|could|has) (?:i|that|it|this) (?:\w+ )?(?:have|had|mean|got)\b"
    ),
    re.compile(
        r"\b(?:have|did|has) (?:i|it|that) (?:\w+ )?(?:ruined|damaged|destroyed|wrecked|harmed|hurt|killed) my\b"
    ),
    # a verdict asked for in two words ("bad or fine", "normal or a problem"), range words or not
    re.compile(
        r"\b(?:bad|good|ok|okay|normal|fine) or (?:bad|good|fine|ok|okay|a problem|something (?:serious|to worry about)|worrying)\b"
    ),
    re.compile(
        r"\b(?:dio|salio|tengo|tuve|es de) (?:\w+ ){0,2}\d+\b.*\bsoy (?:diabetic[oa]|prediabetic[oa])\b"
    ),
    re.compile(
        r"\b(?:am i|will i|could i|might i) (?:going to |gonna |likely to |about to )?(?:have|get|develop) (?:a |an )?(?:heart attack|stroke|cancer|diabetes|kidney failure|liver failure|dementia)\b"
    ),
    # round seventeen (frozen21's class, fresh wordings): what a finding means for the person ("what
    # does the nodule on my scan mean for me", "what do my kidney numbers mean for my future", a
    # Spanish "significa … para mí"), or whether it means a disease or an outcome ("does a 5 cm cyst mean it
    # will rupture", "does this result mean i have diabetes"); what a word means for the account stays a
    # record question ("what does gdpr mean for my records")
    re.compile(
        r"\bmeans? for (?:me|my (?:\w+ )?(?:heart|health|future|life|kidneys?|liver|lungs?|chances|prognosis|outlook|body|baby|pregnancy|risk|life expectancy))\b|"
        r"\bsignifica (?:\w+ ){0,5}para (?:mi|mi salud|mi corazon|mi futuro)\b|\bque significa para mi\b|"
        r"\b(?:does|do|did|would|could) (?:\w+ ){1,7}mean (?:that )?(?:i (?:have|ve got|ve|am|m|will|ll)|im|ive|ill|it (?:is|will|s)|its|it ll|theres) (?:\w+ ){0,2}(?:got|going to|gonna|cancer\w*|diabet\w*|tumou?rs?|clots?|infect\w*|leuk\w*|lupus|pneumonia|stroke|dementia|failure|disease|damaged|burst|rupture|spread|die|dying|worse|serious|malignant)\b"
    ),
)


def _infers(texts: Texts) -> bool:
    return any(found(p, texts) for p in INFERENCE)


WORTH_SEEKING = re.compile(
    # round eighteen: "should i book in about my sore shoulder" asks whether to seek care (the booking
    # framing would otherwise pass it)
    r"\bshould i (?:even )?(?:book (?:in |an appointment )?|make an appointment |get an appointment |ring (?:the )?(?:gp|surgery|doctor) |call (?:the )?(?:gp|surgery|doctor) )about (?:my|this|the|a|an|her|his)\b|"
    r"\bor (?:is it|its) not worth (?:it|bothering|going|the trouble)\b|\bis it (?:even )?worth (?:booking|making|getting|going|seeing)\b|\bshould i (?:even )?bother\b"
)
# round seventeen (frozen21's class, fresh wordings: "my leaflet lists liver problems as a side effect,
# do i need to worry about that"): what a leaflet or the record says, asked whether to worry about
# it, is a worry question whatever the framing around it
WORRY_ABOUT_IT = re.compile(
    r"\b(?:should|do|must) (?:i|we) (?:need to )?(?:be )?(?:worried|worry|concerned|panic) about (?:that|this|it|them|those)\b|\bis (?:that|this|it) something (?:i|we) should (?:worry|be worried) about\b"
)


def lexical_advice(texts: Texts) -> str | None:
    """The advice category the wording signals (patients only), or None."""
    if any(WORTH_SEEKING.search(t) for t in texts):
        return "urgency"  # "should i book the gp for my headaches or is it not worth it" (round thirteen)
    if any(WORRY_ABOUT_IT.search(t) for t in texts):
        return "worry"
    if advice_record_framed(texts):
        return None
    for category in ADVICE_RULES:
        if category == "interpretation" and _infers(texts):
            return category
        if category == "interpretation" and range_comparison(texts):
            continue
        if advice_rule_matches(category, texts):
            return category
    return None
