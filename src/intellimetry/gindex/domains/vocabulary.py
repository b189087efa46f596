"""Vocabularies and slot values of the task domains (the project's own word lists, not the authors' data)."""
from __future__ import annotations

import random

_NOUNS = (
    "lantern harbor meadow pepper violin glacier compass orchard ribbon falcon quartz saddle thimble walnut "
    "canyon beacon biscuit cactus dolphin ember feather garnet hammock jasmine kettle lagoon marble oyster "
    "pebble quilt raven satchel tundra umbrella velvet willow yarn anchor blossom candle daisy engine "
    "fountain gadget horizon island jigsaw kayak ladder mosaic notebook orbit puzzle riddle scooter teapot "
    "tractor voyage whistle almond bracelet cobalt drizzle easel gravel helmet jacket koala lemon mitten "
    "nutmeg otter parcel rocket sparrow tulip wagon button cabin dune forest garden harvest journal kitchen "
    "library mountain napkin ocean piano river summit tiger valley window planet meteor comet station "
    "bridge tunnel market festival recipe budget invoice meeting report project deadline seminar lecture "
    "workshop concert holiday birthday dentist groceries laundry parking payroll backup server sprint "
    "review launch webinar podcast newsletter playlist"
).split()
_ADJECTIVES = (
    "amber brave calm dusty eager fuzzy gentle hollow icy jolly keen lively mellow nimble olive polished "
    "quiet rapid silent tidy urban vivid warm young zesty ancient bright crisp daring early fancy golden "
    "humble loyal modern narrow proud rustic shiny tender vast wild weekly daily monthly urgent"
).split()
_VERBS = (
    "check water call book renew pay send clean review update feed pack order print submit visit plan "
    "cancel collect prepare"
).split()
_WORDS = _NOUNS + _ADJECTIVES + _VERBS
_FIRST_NAMES = (
    "alice bruno chen dara elena farid greta hiro ines jonas kofi lena mateo nadia omar priya quinn rosa "
    "sven tomas uma vera wei yusuf zoe"
).split()
_LAST_NAMES = (
    "adams berg costa diaz evans fischer garcia haddad ito jensen kim lopez moreau novak okafor patel "
    "rossi silva tanaka varga weber xu young zhang"
).split()
_TLDS = ("com", "org", "net", "io", "dev", "co.uk", "edu")
_TIME_ZONES = ("Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "Africa/Lagos",
               "America/Sao_Paulo", "Asia/Kolkata", "Europe/London")
_HTTP_METHODS = ("get", "post", "put", "delete", "patch")
_STATUS_CODES = ("200", "201", "202", "204", "400", "404")
_FORM_FIELDS = (
    ("name", "text"), ("first name", "text"), ("last name", "text"), ("email address", "email"),
    ("password", "password"), ("age", "number"), ("height", "number"), ("weight", "number"),
    ("price", "number"), ("quantity", "number"), ("score", "number"), ("rating", "number"),
    ("date of birth", "date"), ("start date", "date"), ("due date", "date"), ("date of submission", "date"),
    ("appointment time", "time"), ("comments", "multiline"), ("address", "multiline"),
    ("description", "multiline"), ("notes", "multiline"), ("phone number", "text"), ("city", "text"),
    ("company", "text"), ("country", "text"), ("website", "text"), ("title", "text"),
    ("newsletter", "checkbox"), ("terms accepted", "checkbox"), ("dark mode", "switch"),
)
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_MONTHS = ("", "January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")

# module names of the node packages
_RED, _CHATBOT, _BROWSER = "node-red", "node-red-contrib-chatbot", "maya-red-browser-automation"
_SYSTEM, _DASHBOARD = "maya-red-system-utils", "maya-red-dashboard"


def _words(rng: random.Random, lo: int, hi: int) -> str:
    """A phrase of lo..hi random words."""
    return " ".join(rng.sample(_WORDS, rng.randint(lo, hi)))


def _topic(rng: random.Random) -> str:
    """A short reminder topic or skill name."""
    form = rng.randrange(4)
    if form == 0:
        return f"{rng.choice(_VERBS)} the {rng.choice(_NOUNS)}"
    if form == 1:
        return f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
    if form == 2:
        return f"{rng.choice(_VERBS)} {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
    return _words(rng, 1, 5)


def _distinct(rng: random.Random, k: int, make) -> list:
    """k distinct values of make(rng), in draw order."""
    values = []
    while len(values) < k:
        value = make(rng)
        if value not in values:
            values.append(value)
    return values


def _listing(items) -> str:
    """'a', 'a and b', 'a, b, and c'."""
    items = [str(item) for item in items]
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _clauses(items) -> str:
    """Clauses joined as 'a, and b' or 'a, b, and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ", and " + items[-1]


def _domain_name(rng: random.Random) -> str:
    """A host name such as 'golden-harbor.org'."""
    words = [rng.choice(_WORDS) for _ in range(rng.randint(1, 2))]
    return "-".join(words) + "." + rng.choice(_TLDS)


def _email(rng: random.Random) -> str:
    """An e-mail address."""
    local = f"{rng.choice(_FIRST_NAMES)}.{rng.choice(_LAST_NAMES)}"
    if rng.random() < 0.4:
        local += str(rng.randint(1, 99))
    return f"{local}@{_domain_name(rng)}"


def _url(rng: random.Random) -> str:
    """A web address, sometimes with a path."""
    url = "https://" + ("www." if rng.random() < 0.3 else "") + _domain_name(rng)
    if rng.random() < 0.4:
        url += "/" + "-".join(rng.choice(_NOUNS) for _ in range(rng.randint(1, 2)))
    return url


def _hashtag(rng: random.Random) -> str:
    """A hashtag, e.g. '#lantern' or '#GoldenHarbor'."""
    if rng.random() < 0.5:
        return "#" + rng.choice(_NOUNS)
    return "#" + rng.choice(_ADJECTIVES).capitalize() + rng.choice(_NOUNS).capitalize()


def _file_name(rng: random.Random) -> str:
    """A CSV file name."""
    if rng.random() < 0.3:
        return f"{rng.choice(_NOUNS)}_{rng.randint(2015, 2030)}.csv"
    return f"{rng.choice(_WORDS)}-{rng.choice(_NOUNS)}.csv"


def _user_name(rng: random.Random) -> str:
    """A chat user name."""
    return rng.choice(_FIRST_NAMES) + (str(rng.randint(1, 99)) if rng.random() < 0.5 else "")


def _number(value: float) -> str:
    """A number as written in a sentence: 60.0 -> '60', 0.5 -> '0.5'."""
    return f"{value:g}"
