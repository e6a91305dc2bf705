"""Name, address and demographic pools, drawn the way Synthea draws them.

Synthea appends a number to every name part ("Denny560 Krajcik437", "Celinda332 Vivian245"),
so names are unique across a cohort and cannot be mistaken for real people; some names carry
non-ASCII letters or apostrophes ("Cristine925 O'Conner199"), which file names, search and
display must survive.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MALE_GIVEN = (
    "James",
    "John",
    "Robert",
    "Michael",
    "William",
    "David",
    "Richard",
    "Joseph",
    "Thomas",
    "Charles",
    "Daniel",
    "Matthew",
    "Anthony",
    "Mark",
    "Steven",
    "Andrew",
    "Kevin",
    "Brian",
    "George",
    "Edward",
    "Ronald",
    "Timothy",
    "Jason",
    "Jeffrey",
    "Ryan",
    "Jacob",
    "Gary",
    "Nicholas",
    "Eric",
    "Stephen",
    "Jonathan",
    "Larry",
    "Justin",
    "Scott",
    "Frank",
    "Benjamin",
    "Gregory",
    "Samuel",
    "Raymond",
    "Patrick",
    "Alexander",
    "Dennis",
    "Tyler",
    "Aaron",
    "Henry",
    "Douglas",
    "Peter",
    "Nathan",
    "Walter",
    "Harold",
    "Carl",
    "Keith",
    "Roger",
    "Gerald",
    "Arthur",
    "Lawrence",
    "Noah",
    "Albert",
    "Bruce",
    "Wendell",
    "Lamar",
    "Bret",
    "Denny",
    "Rodrigo",
    "Dominic",
    "Ahmed",
    "Jimmy",
    "Arron",
    "Elmer",
)
FEMALE_GIVEN = (
    "Mary",
    "Patricia",
    "Jennifer",
    "Linda",
    "Elizabeth",
    "Barbara",
    "Susan",
    "Jessica",
    "Sarah",
    "Karen",
    "Nancy",
    "Lisa",
    "Betty",
    "Margaret",
    "Sandra",
    "Ashley",
    "Kimberly",
    "Emily",
    "Donna",
    "Michelle",
    "Dorothy",
    "Carol",
    "Amanda",
    "Melissa",
    "Deborah",
    "Stephanie",
    "Rebecca",
    "Sharon",
    "Laura",
    "Cynthia",
    "Kathleen",
    "Amy",
    "Angela",
    "Shirley",
    "Anna",
    "Brenda",
    "Pamela",
    "Emma",
    "Nicole",
    "Helen",
    "Samantha",
    "Katherine",
    "Christine",
    "Debra",
    "Rachel",
    "Carolyn",
    "Janet",
    "Catherine",
    "Maria",
    "Heather",
    "Diane",
    "Ruth",
    "Julie",
    "Olivia",
    "Joyce",
    "Virginia",
    "Cristine",
    "Lela",
    "Sharmaine",
    "Zelda",
    "Milda",
    "Sharie",
    "Celinda",
    "Vivian",
    "Leanora",
    "Delcie",
)
NON_ASCII_MALE = (
    "José",
    "Andrés",
    "Ramón",
    "Jesús",
    "Joaquín",
    "Björn",
    "Søren",
    "François",
    "Łukasz",
    "Jürgen",
)
NON_ASCII_FEMALE = (
    "Zoë",
    "Renée",
    "Chloé",
    "Inés",
    "Mónica",
    "Sofía",
    "Lucía",
    "Siobhán",
    "Małgorzata",
    "Anaïs",
)

FAMILY = (
    "Krajcik",
    "Kuhlman",
    "Bosco",
    "Abernathy",
    "Kuvalis",
    "Lesch",
    "Quitzon",
    "Torphy",
    "Wolf",
    "Labadie",
    "Nitzsche",
    "Cummings",
    "Casper",
    "Rosita",
    "Koelpin",
    "Spencer",
    "Pacocha",
    "Crooks",
    "Feil",
    "Kuhic",
    "Miller",
    "Nader",
    "Becker",
    "Kub",
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Thompson",
    "White",
    "Harris",
    "Sanchez",
    "Clark",
    "Ramirez",
    "Lewis",
    "Robinson",
    "Walker",
    "Young",
    "Allen",
    "King",
    "Wright",
    "Scott",
    "Torres",
    "Nguyen",
    "Hill",
    "Flores",
    "Green",
    "Adams",
    "Nelson",
    "Baker",
    "Hall",
    "Rivera",
    "Campbell",
    "Mitchell",
    "Carter",
    "Roberts",
    "Gottlieb",
    "Hartmann",
    "Schaden",
    "Rempel",
    "Wiza",
    "Hettinger",
    "Zieme",
)
NON_ASCII_FAMILY = (
    "Núñez",
    "Peña",
    "Ibáñez",
    "Muñoz",
    "Gómez",
    "Fernández",
    "Müller",
    "Schröder",
    "Dvořák",
    "Nguyễn",
)
APOSTROPHE_FAMILY = ("O'Conner", "O'Keefe", "O'Hara", "D'Amore", "O'Reilly", "D'Angelo")

STREET_NAMES = (
    "Ferry",
    "Hartmann",
    "Mount Auburn",
    "Maple",
    "Oak",
    "Pine",
    "Cedar",
    "Elm",
    "Washington",
    "Lake",
    "Hill",
    "Walnut",
    "Chestnut",
    "Spruce",
    "Willow",
    "Highland",
    "Prospect",
    "Summer",
    "Pleasant",
    "Union",
)
STREET_SUFFIXES = (
    "Street",
    "Avenue",
    "Road",
    "Lane",
    "Fork",
    "Highlands",
    "Way",
    "Court",
    "Drive",
    "Terrace",
)


@dataclass(frozen=True)
class Town:
    city: str
    postal_code: str
    latitude: float
    longitude: float


TOWNS = (
    Town("Boston", "02108", 42.3588, -71.0638),
    Town("Cambridge", "02138", 42.3770, -71.1167),
    Town("Worcester", "01608", 42.2626, -71.8023),
    Town("Springfield", "01103", 42.1015, -72.5898),
    Town("Lowell", "01852", 42.6334, -71.3162),
    Town("Quincy", "02169", 42.2529, -71.0023),
    Town("Newton", "02458", 42.3370, -71.2092),
    Town("Framingham", "01701", 42.2793, -71.4162),
    Town("Milford", "01757", 42.1398, -71.5162),
    Town("Hopkinton", "01748", 42.2287, -71.5226),
    Town("Salem", "01970", 42.5195, -70.8967),
    Town("Brockton", "02301", 42.0834, -71.0184),
    Town("Plymouth", "02360", 41.9584, -70.6673),
    Town("Pittsfield", "01201", 42.4501, -73.2454),
)


@dataclass(frozen=True)
class RaceEthnicity:
    race: str  # attribute name on codes.Race
    hispanic: bool
    note_text: str  # how Synthea's notes describe it, e.g. "non-hispanic white"


RACE_MIX = (
    (RaceEthnicity("WHITE", False, "non-hispanic white"), 0.62),
    (RaceEthnicity("WHITE", True, "hispanic white"), 0.10),
    (RaceEthnicity("BLACK", False, "non-hispanic black"), 0.12),
    (RaceEthnicity("BLACK", True, "hispanic black"), 0.02),
    (RaceEthnicity("ASIAN", False, "non-hispanic asian"), 0.11),
    (RaceEthnicity("NATIVE", False, "non-hispanic native"), 0.03),
)


def weighted(rng: random.Random, options):
    """Pick from (value, weight) pairs (weights need not sum to 1)."""
    total = sum(w for _, w in options)
    point = rng.random() * total
    for value, weight in options:
        point -= weight
        if point < 0:
            return value
    return options[-1][0]


def numbered(rng: random.Random, name: str) -> str:
    """Synthea's disambiguating suffix: `Denny` -> `Denny560`."""
    return f"{name}{rng.randint(1, 999)}"


def street_address(rng: random.Random) -> str:
    line = f"{rng.randint(10, 999)} {rng.choice(STREET_NAMES)} {rng.choice(STREET_SUFFIXES)}"
    if rng.random() < 0.25:
        line += f" Unit {rng.randint(1, 90)}"
    return line
