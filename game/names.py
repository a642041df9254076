"""Players' and teams' names as blitzcam keeps, checks and quotes them: Unicode's composed
form, the characters a name may hold (the invisible joiners real names need, never a control
or a mark that reorders the text), and values quoted short in one-line error messages."""

from __future__ import annotations

import json
import reprlib
import unicodedata
from typing import Final

MAX_NAME_LENGTH: Final = 40


def is_name_character(ch: str) -> bool:
    """Whether a name may hold `ch`: printable text, and the invisible characters real names
    need (the joiners of Persian and Indic spellings and of emoji such as 👩‍💻, the tags of
    a flag emoji). Controls, line breaks and the marks that reorder text on screen are not."""
    return ch.isprintable() or ch in _NAME_JOINERS or _is_tag(ch)


_NAME_JOINERS: Final = frozenset("\u200c\u200d")  # zero-width non-joiner, joiner


class _JsonWordsRepr(reprlib.Repr):
    """reprlib's shortening, with true, false and null in JSON's words at any depth (a match
    file's `[true, null]` is not Python's `[True, None]`)."""

    def repr_bool(self, value: bool, level: int) -> str:
        return json.dumps(value)

    def repr_NoneType(self, value: None, level: int) -> str:  # noqa: N802 (reprlib's name)
        return "null"


def _brief_repr() -> reprlib.Repr:
    shortened = _JsonWordsRepr()  # keywords only from Python 3.12
    shortened.maxstring = shortened.maxother = shortened.maxlong = 60
    shortened.maxlist = shortened.maxdict = shortened.maxtuple = 6
    shortened.maxlevel = 2
    return shortened


_BRIEF: Final = _brief_repr()


def brief(value: object) -> str:
    """A value as an error message quotes it: its repr, cut short (a 5 MB string given as a
    name is a one-line error, not a 5 MB one); true, false and null in JSON's words, the only
    place they come from (a match file's `"target": true` was "got True")."""
    return _BRIEF.repr(value)


def shown_name(name: str) -> str:
    """A name as messages show it: quoted when it holds what a terminal would act on (a
    newline, an escape code), so that a message stays one line of plain text, or when it is
    empty or has outer spaces ("player Ann : not a player" seemed to refuse Ann); cut short
    when longer than a name may be."""
    plain = (
        0 < len(name) <= MAX_NAME_LENGTH
        and name == name.strip()
        and all(is_name_character(ch) for ch in name)
    )
    return name if plain else brief(name)


def written_name(name: str) -> str:
    """A player's or team's name as blitzcam keeps it: in Unicode's composed form (NFC), any
    space written as a plain one. 'José' typed as é on one keyboard and as e + a combining
    accent on another (or pasted from a file name on macOS), or 'Anne Marie' with a no-break
    space, is then one name, found whichever way it is typed again."""
    if not isinstance(name, str) or name.isascii():
        return name
    spaced = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in name)
    return unicodedata.normalize("NFC", spaced)


def misplaced_invisible(name: str) -> str | None:
    """Why the invisible characters a name may hold are where they cannot join anything (a
    name of joiners alone shows nothing), or None."""
    if not any(ch.isprintable() and not ch.isspace() for ch in name):
        return "a name must show a letter, a digit or a sign"
    for i, ch in enumerate(name):
        if ch in _NAME_JOINERS:
            around = name[i - 1 : i] + name[i + 1 : i + 2]
            if len(around) < 2 or any(c.isspace() or c in _NAME_JOINERS for c in around):
                return f"{character_name(ch)} joins two characters, and stands beside none here"
        elif _is_tag(ch) and not (i and (name[i - 1] == _FLAG or _is_tag(name[i - 1]))):
            return f"{character_name(ch)} belongs after a flag (U+1F3F4)"
    return None


_FLAG: Final = "\U0001f3f4"  # the black flag a subdivision flag's tags follow


def _is_tag(ch: str) -> bool:
    return "\U000e0020" <= ch <= "\U000e007f"


def seen_as(name: str) -> str:
    """A name as it looks: without the joiners, which show nothing ('Ann' and 'An' + ZWJ + 'n'
    would be two players who look the same)."""
    return "".join(ch for ch in name if ch not in _NAME_JOINERS)


def character_name(ch: str) -> str:
    if unicodedata.category(ch) == "Cc":
        return f"a control character (U+{ord(ch):04X})"
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, unicodedata.category(ch))})"


# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, 15.1): characters a text
# shows nothing for, as ranges (tags, which draw a subdivision's flag, are kept by `looks_as`);
# and U+2800, Braille's blank pattern, a symbol drawn as nothing ("North⠀" was a second team
# beside North, "⠀" a player of no name)
_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE001F), (0xE0080, 0xE0FFF),
)  # fmt: skip


def shows_nothing(ch: str) -> bool:
    """Whether `ch` is a character a text shows nothing for (a joiner, a variation selector,
    a Hangul filler): Unicode's default-ignorable characters, tags aside."""
    code = ord(ch)
    return any(low <= code <= high for low, high in _IGNORABLE)


# Cyrillic and Greek letters drawn as a Latin one is (Unicode's confusables, the whole-letter
# ones of these scripts): 'Аnn' with a Cyrillic А and 'Ann' are one name to the table
_LATIN_LOOKALIKES: Final = str.maketrans(
    "АВЕЅІЈКМНОРСТХУԚԜ" "аеѕіјһԁорсухԛԝӏ" "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ" "ο",
    "ABESIJKMHOPCTXYQW" "aesijhdopcyxqwl" "ABEZHIKMNOPTYX" "o",
)  # fmt: skip


# the steps of `looks_as`, in order, each with what it makes alike as said of two names
_LOOK_STEPS: Final = (
    ("a character that shows nothing", lambda t: "".join(c for c in t if not shows_nothing(c))),
    ("a letter's form (full-width, an accent apart)", lambda t: unicodedata.normalize("NFKC", t)),
    ("a letter of another script drawn alike", lambda t: t.translate(_LATIN_LOOKALIKES)),
    ("case", str.lower),
    ("spaces", lambda t: " ".join(t.split())),
)


def looks_as(name: str) -> str:
    """A name as it looks to the players at the table: without what shows nothing, its
    characters in their plain forms, in any case ('Ann', 'ann', 'Ａnn' in full-width letters,
    'Ann' + a variation selector, 'José' with its accent apart or joined, are one name to
    them). Lower case, not case-folded: folding spells 'ß' 'ss', and 'Weiß' and 'Weiss' are
    two names anyone can tell apart. Spaces count as one ('Team A' and 'Team  A' seated
    partners as two teams, leading together), and a Cyrillic or Greek letter drawn as a
    Latin one is that letter ('Аnn' with a Cyrillic А). For telling seats apart as they are
    given; stored matches load by `seen_as`, as they were scored."""
    for _, step in _LOOK_STEPS:
        name = step(name)
    return name


def how_alike(name: str, other: str) -> str:
    """What alone tells apart two names `looks_as` makes one ("case", "case and spaces"): the
    steps without which they would still differ. A refusal that listed every way two names
    can look alike left the reader to find theirs."""

    def seen(text: str, skipped: int) -> str:
        for at, (_, step) in enumerate(_LOOK_STEPS):
            text = text if at == skipped else step(text)
        return text

    parts = [
        said
        for at, (said, _) in enumerate(_LOOK_STEPS)
        if seen(name, skipped=at) != seen(other, skipped=at)
    ]
    if not parts:  # (alike only by two steps together: said as the whole)
        return "the way they are written"
    return " and ".join(parts) if len(parts) < 3 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def begins_with_a_mark(name: str) -> str | None:
    """Why `name` may not be given (None: it may): it begins with a mark on a letter, an accent
    typed first, which sits on whatever comes before the name in every message ("started match
    1: ́Ann")."""
    if name and unicodedata.category(name[0]).startswith("M") and shows_a_letter(name):
        return f"{character_name(name[0])} is a mark on the letter before it, and begins the name"
    return None


def shows_a_letter(name: str) -> bool:
    """Whether a name shows something of its own: a letter, a digit or a sign that is not a
    mark on another (a name of a Hangul filler, or of an accent alone, shows nothing)."""
    return any(
        ch.isprintable()
        and not ch.isspace()
        and not shows_nothing(ch)
        and not unicodedata.category(ch).startswith("M")
        for ch in name
    )
