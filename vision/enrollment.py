"""Deck enrollment: the single card found in a photo (`vision.card_finder`), its light evened
(`vision.paper_light`) and stored as the deck's reference, written atomically to
data_dir()/decks/<deck>.png, where the deck profile picks it up; what each deck is read
against, an enrolled back forgotten, and the decks the identity network reads nearly alike
(`vision.lookalike`). The `blitzcam decks` commands that say all this are
blitzcam/commands/decks.py.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from blitzcam.errors import SavedThenInterrupted, UserError, WrittenThenInterrupted
from blitzcam.game.decks import DECK_NAME_MAX, DECK_NAMES, meant_deck
from blitzcam.vision.card_finder import card_in, rectify, width_seen
from blitzcam.vision.card_focus import SOFT_BELOW, drawing_sharpness
from blitzcam.vision.detections import UNKNOWN_NAME
from blitzcam.vision.images import decode_picture, has_colour, write_png_atomic
from blitzcam.vision.lookalike import (
    LookAlike,
    OtherDeck,
    look_alikes,
    nearer_another,
)
from blitzcam.vision.paper_light import (
    CLIPPED_CARD_FROM,
    GLARE_NOTE_FROM,
    clipped_white,
    evenly_lit,
    paper_grey,
    uneven_once_evened,
    whited_out,
)
from blitzcam.vision.references import (
    DECK_NAME_PATTERN,
    WINDOWS_DEVICES,
    builtin_profile,
    card_patches,
    default_profile,
    load_reference_file,
    name_to_offer,
    usable_enrolled,
    user_decks_dir,
)

if TYPE_CHECKING:
    from blitzcam.vision.capture_source import Frame, ImageFiles
    from blitzcam.vision.embedding import Embedder, References
    from blitzcam.vision.references import DeckProfile

# A card whose paper reads darker than this grey (its median, of 255) was photographed in too
# little light: stored all the same, with advice. Enrolled from a photo darkened step by step
# (the eight decks, read and shot noise), each back read like its drawing as in full light down
# to a paper of grey 25 (0.990 alike against 0.997), and fell apart under 17 (0.66 at 12, three
# of eight nearer another deck's drawing): the line leaves room for a real sensor's noise.
DARK_PAPER_BELOW: Final = 40
CUT_OUT_BACKGROUND: Final = 40  # the grey a transparent cut-out of a card is laid on
CAMERA_WARMUP_FRAMES: Final = 10  # auto-exposure settles before a frame is used
CAMERA_TRIES: Final = 40  # frames of a camera or stream looked at for a card, once settled
FILE_TRIES: Final = 900  # ... of a video or folder: half a minute of video at 30 frames a second


@dataclass(frozen=True, slots=True)
class Enrolled:
    """A deck's back stored: the file, how much of its drawing glare had whited out, how light
    its paper was in the photo, and how sharp its drawing."""

    path: Path
    whited_out: float = 0.0  # (vision/paper_light.py)
    paper_grey: float = 255.0  # the photographed card's median grey, before its light is evened
    sharpness: float = float("inf")  # (vision/card_focus.py)

    def dark_note(self) -> str | None:
        """Advice when the photo was too dark for the back to be read as it will be on the
        table (stored all the same: a back of the user's own may be printed dark)."""
        if self.paper_grey >= DARK_PAPER_BELOW:
            return None
        return (
            f"the photo is very dark (the card's paper at grey {self.paper_grey:.0f} of 255): "
            "in so little light its drawing is mostly the camera's noise; enroll it again in "
            "more light"
        )

    def photo_notes(self) -> list[str]:
        """Every note on the photo: glare, darkness, a drawing out of focus."""
        notes = (self.glare_note(), self.dark_note(), self.focus_note())
        return [note for note in notes if note is not None]

    def focus_note(self) -> str | None:
        """Advice when the drawing came out soft (stored all the same: a back of one's own may
        be drawn soft)."""
        if self.sharpness >= SOFT_BELOW:
            return None
        return (
            "the photo looks out of focus (its drawing's edges are soft): its cards may be "
            "read as another deck; hold the camera further off, let it focus, and enroll it "
            "again"
        )

    def glare_note(self) -> str | None:
        """Advice when glare took enough of the drawing to make the back read less like
        itself (stored all the same: a dull print may be white there)."""
        if self.whited_out < GLARE_NOTE_FROM:
            return None
        return (
            f"glare whited out {self.whited_out:.0%} of the drawing (white to the last bit, "
            "brighter than the paper around it): its ink there is lost; tilt the card or the "
            "light a little and enroll it again"
        )


def enroll_image(
    deck: str,
    image_bgr: np.ndarray,
    *,
    source: str,
    out_dir: Path | None = None,
    pixel_scale: float = 1.0,
) -> Enrolled:
    """Find, rectify, check and store one deck's back: the file written, and how much of its
    drawing glare had whited out. `pixel_scale`: as `card_in` takes it."""
    cards, problem = card_in(image_bgr, pixel_scale=pixel_scale)
    if problem is not None:
        raise UserError(f"{source}: {problem}")
    photographed = rectify(image_bgr, cards[0].corners)
    # a shadow across it divided out: stored shadowed, the back read as another deck
    card, _ = evenly_lit(photographed)
    if (evenness := uneven_once_evened(card)) is not None:
        raise UserError(
            f"{source}: the light over the card is uneven, even once blitzcam evened it (its "
            f"darkest paper at {evenness:.0%} of its lightest): a shadow over part of it? light "
            "it evenly, with no hand, phone or lamp's edge shadowing it, and try again"
        )
    # raises when the card, read as a profile will read it, shows no drawing
    try:
        card_patches(card, name=source, deck=deck)
    except UserError as exc:
        # (glare over all of the drawing was "no drawing found: is it a back, in focus and
        # lit?", where a little less of it was stored with the advice that mends it)
        # (a grey picture's paper is white too: "no colour" is its whole answer, not glare)
        share = clipped_white(photographed)
        if share < CLIPPED_CARD_FROM or not has_colour(photographed):
            raise
        raise UserError(
            f"{exc}: the light whites out {share:.0%} of the card (white to the last bit: glare, "
            "or too much light); tilt the card or the light a little and try again"
        ) from None
    folder = out_dir or user_decks_dir(made=True)
    target = folder / f"{deck}.png"
    others = [path for path in enrolled_files(folder, deck) if path.name != target.name]
    try:
        if target.is_symlink() and not target.exists():  # a link to nothing: replaced (written
            target.unlink()  # through, the new back went nowhere: "No such file or directory")
        write_png_atomic(target, card)
    except WrittenThenInterrupted:  # (the old back gone: "interrupted" alone said it was kept)
        raise SavedThenInterrupted() from None
    except OSError as exc:
        raise UserError(f"{target}: cannot store the deck's back: {exc.strerror or exc}") from None
    try:  # (stored: a Ctrl+C from here on is said as after the change, the old back gone)
        for other in others:  # a <deck>.PNG beside it would be a second reference, refused
            try:
                if _same_file(other, target):  # one entry on a case-blind disk (macOS,
                    continue  # Windows): the new back itself, under the old name's case
                other.unlink()
            except OSError as exc:
                raise UserError(
                    f"{other}: the deck's earlier back could not be removed "
                    f"({exc.strerror or exc}); {target} is stored beside it: remove "
                    f"{other.name} by hand"
                ) from None
        sharpness = drawing_sharpness(card, seen_width=width_seen(cards[0].corners))
        return Enrolled(target, whited_out(photographed), paper_grey(photographed), sharpness)
    except KeyboardInterrupt:
        raise SavedThenInterrupted() from None


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names are one file (False when either is not there)."""
    try:
        return a.samefile(b)
    except OSError:
        return False


def enrolled_files(folder: Path, deck: str) -> tuple[Path, ...]:
    """The files in `folder` that hold `deck`'s back: <deck>.png in any case of its suffix (a
    link to a file that is not there too: it is what forgetting the deck removes)."""
    try:
        listing = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError as exc:
        reason = exc.strerror or exc
        raise UserError(f"{folder}: cannot list the deck references: {reason}") from None
    return tuple(
        path
        for path in listing
        if path.stem == deck
        and path.suffix.lower() == ".png"
        and (path.is_file() or (path.is_symlink() and not path.exists()))
    )


class FrameEnroller:
    """Enrollment from a live frame, for the app: `enroll(deck, frame)` -> a one-line result.

    Raises UserError when the view shows no card or no drawing; the caller shows its message.
    """

    def __init__(self, out_dir: Path | None = None) -> None:
        self._out_dir = out_dir

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str:
        return f"{deck}: enrolled (stored {self.enroll_to(deck, frame_bgr).path})"

    def enroll_to(self, deck: str, frame_bgr: np.ndarray) -> Enrolled:
        """`deck`'s back from `frame_bgr`, stored (UserError as `enroll`)."""
        return enroll_image(
            check_deck_name(deck), frame_bgr, source="the camera view", out_dir=self._out_dir
        )

    @staticmethod
    def card_problem(frame_bgr: np.ndarray) -> str | None:
        """Why `frame_bgr` holds no one card to enroll, as `enroll` would refuse it (None: it
        holds one; its drawing is judged as it is enrolled)."""
        return card_in(frame_bgr)[1]


def grab_card_frame(spec: str, passed: list[str] | None = None) -> tuple[np.ndarray, str]:
    """The first frame of the source that holds a single card, and what to call it: a
    camera's or stream's once its exposure has settled, a folder's or video's from its first
    picture. Without one, the last frame read, which enrollment says what is wrong with.
    `passed`: told why each of a folder's pictures that could not be read was passed over."""
    from blitzcam.vision.capture_source import ImageFiles
    from blitzcam.vision.sources import open_source

    last = None
    unreadable = [] if passed is None else passed  # a folder's pictures that cannot be read
    with open_source(spec) as source:
        warm_up = CAMERA_WARMUP_FRAMES if source.live else 0  # a file's pictures are as taken
        frames = _readable(source, unreadable) if isinstance(source, ImageFiles) else source
        # a camera or stream shows the card as it is now; a video may bring it in later
        tries = CAMERA_TRIES if source.live else FILE_TRIES
        looked = 0
        for index, frame in enumerate(frames):
            label = frame.origin
            if not source.live and not isinstance(source, ImageFiles):
                label += f" (frame {frame.index + 1})"
            last = frame.image, label
            if index < warm_up:
                continue
            # the first frame enrollment would take (a hand still in view can show two cards)
            if card_in(frame.image)[1] is None:
                return last
            looked += 1
            if looked >= tries:
                break
        if last is not None and looked > 1:  # (a folder's first pictures went unsaid)
            last = last[0], f"{last[1]}, the last of {looked} looked at"
    if last is None:
        if unreadable:  # (a single picture: its own error, as it was)
            raise UserError(unreadable[0] if len(unreadable) == 1 else (
                f"{spec}: none of its {len(unreadable)} pictures could be read (the first: "
                f"{unreadable[0]})"
            ))  # fmt: skip
        from blitzcam.vision.source_address import shown_address

        raise UserError(f"{shown_address(str(spec))}: the source gave no frames")
    return last


def _readable(source: ImageFiles, unreadable: list[str]) -> Iterator[Frame]:
    """A folder's pictures that can be read, in order; each one that cannot is said into
    `unreadable` and skipped (the folder's first card is what enrollment takes)."""
    from blitzcam.vision.sources import SourceError

    while True:
        try:
            frame = source.read_frame()
        except SourceError as exc:
            unreadable.append(str(exc))
            continue
        if frame is None:
            return
        yield frame


def check_deck_name(deck: str, *, new: bool = True) -> str:
    """`deck` if it can name a deck (and a file); UserError otherwise. A name Windows keeps for
    a device is refused for a `new` deck only: one stored under it before (or by hand) must
    still be forgotten."""
    if deck == UNKNOWN_NAME:
        then = "choose another" if new else "nothing is enrolled under it"
        raise UserError(f"deck name {deck!r} is reserved for backs of no deck: {then}")
    if not DECK_NAME_PATTERN.fullmatch(deck):
        # "Green Pump", "green_pump": as labels and counts read them (a typo in it: the deck
        # meant; the name kept for backs of no deck: none)
        offered = name_to_offer(deck)
        if offered is not None:
            raise UserError(f"deck name {deck!r}: did you mean {offered}? (names are written so)")
        # (a name only too long was told the rules it keeps, not that it is too long)
        long = f" ({len(deck)} of them here)" if len(deck) > DECK_NAME_MAX else ""
        raise UserError(
            f"deck name {deck!r}: expected one of {', '.join(DECK_NAMES)} or a name of a-z, "
            f"0-9 and dashes, up to {DECK_NAME_MAX}{long}, not starting with a dash"
        )
    if new and deck in WINDOWS_DEVICES:  # `con.png` is the console there, whatever its extension
        raise UserError(f"deck name {deck!r} names a device on Windows: choose another")
    return deck


def reads_as_another(
    deck: str, stored: Path, embedder: Embedder | None = None, *, poorly_lit: bool = False
) -> OtherDeck | None:
    """Whether the back stored for one of the eight decks reads more like another's drawing
    (blitzcam's own) than its deck's, or, its photo poorly lit (`poorly_lit`), hardly more like
    its own (`lookalike.nearer_another`), read by `embedder` (the shipped network: None); None for a
    deck of the user's own. UserError when the identity network cannot be loaded."""
    if deck not in DECK_NAMES:
        return None
    from blitzcam.vision.embedding import reference_vectors
    from blitzcam.vision.pipeline import profile_references

    embedder = embedder or identity_network()
    drawings = profile_references(embedder, builtin_profile())
    # in its quarter turns, as the profile reads it (else `decks list` and `count` say other
    # likenesses of the same file: 0.63 against 0.57)
    patches = np.asarray(load_reference_file(stored, deck))
    back = reference_vectors(embedder.embed, patches, np.zeros(len(patches), np.int64)).vectors
    return nearer_another(deck, back, drawings, DECK_NAMES, poorly_lit=poorly_lit)


def picture_to_enroll(data: bytes, *, name: str) -> tuple[np.ndarray, float]:
    """An image file's bytes (`name`'s) as enrollment reads them, and the file's pixels per
    pixel of it (ImageError when they cannot be decoded). A large picture is read shrunk
    (MAX_SIDE): a card in it is told in the file's pixels (a card 350 px wide in a 12000 x
    9000 photo was "only 113 pixels wide"). A transparent cut-out of a card (a phone's "lift
    the subject" PNG) is laid on dark grey rather than white, where a white card on white was
    "no card found"."""
    picture = decode_picture(data, name=name)
    image, pixel_scale = picture.frame, max(picture.scale)
    if picture.transparent and not card_in(image)[0]:
        on_dark = decode_picture(data, name=name, over=CUT_OUT_BACKGROUND).frame
        if card_in(on_dark)[0]:
            return on_dark, pixel_scale
    return image, pixel_scale


def identity_network() -> Embedder:
    """The shipped identity network (UserError when it cannot be loaded)."""
    from blitzcam.vision.embedding import Embedder
    from blitzcam.vision.pipeline import default_identity_path

    return Embedder(default_identity_path())


def profile_look_alikes(embedder: Embedder | None = None) -> list[LookAlike]:
    """The user's deck profile's look-alike pairs (`vision.lookalike`), as a count without
    `--decks` reads the decks, read by `embedder` (the shipped network: None). UserError when
    the identity network cannot be loaded."""
    profile, references, _ = _profile_read(embedder)
    return look_alikes(references, profile.names)


def profile_checks(embedder: Embedder | None = None) -> tuple[list[LookAlike], list[OtherDeck]]:
    """The user's deck profile's look-alike pairs, and its decks whose own back reads as
    another's drawing (`pipeline.read_as_others`), from one reading of the profile; UserError
    as `profile_look_alikes`."""
    from blitzcam.vision.pipeline import read_as_others

    profile, references, embedder = _profile_read(embedder)
    return look_alikes(references, profile.names), read_as_others(embedder, profile, references)


def _profile_read(embedder: Embedder | None) -> tuple[DeckProfile, References, Embedder]:
    """The user's deck profile as a count without `--decks` reads it, its references, and the
    network that read them (`embedder`, or the shipped one)."""
    from blitzcam.vision.pipeline import profile_references

    embedder = embedder or identity_network()
    profile = default_profile(skip_unusable=True)
    return profile, profile_references(embedder, profile), embedder


def enrolled_decks() -> tuple[list[tuple[str, str]], list[str]]:
    """What each deck is read against, as (deck, "built-in" or the enrolled file), the eight
    first, then decks of the user's own; and a line for each enrolled file that cannot be used
    (a count without `--decks` refuses to start on it, the app leaves it out)."""
    problems: list[str] = []
    usable = {deck: path for deck, (path, _) in usable_enrolled(problems=problems).items()}
    rows = [(deck, str(usable[deck]) if deck in usable else "built-in") for deck in DECK_NAMES]
    rows += [(deck, str(path)) for deck, path in usable.items() if deck not in DECK_NAMES]
    return rows, problems


def unusable_decks(usable: Collection[str]) -> set[str]:
    """The decks with an enrolled back that cannot be used (the app reads one of the eight
    against its built-in art and leaves a deck of one's own out, a count refuses to start:
    `enrolled_decks` says why): a file that does not load, or two naming one deck. `usable`:
    the decks whose back loaded (`enrolled_decks` read them: not decoded a second time)."""
    from blitzcam.vision.references import enrolled_files as named_files

    try:
        folder = user_decks_dir()
        named = set(named_files(problems=[])) | set(DECK_NAMES)
        # a deck of one's own whose file is a link to nothing (a file that is none is not named
        # by the listing above: it had no row, where a damaged one had "not counted")
        named |= {
            path.stem
            for path in (folder.glob("*") if folder.is_dir() else ())
            if path.is_symlink() and DECK_NAME_PATTERN.fullmatch(path.stem)
        }
        return {
            deck
            for deck in named
            if (files := enrolled_files(folder, deck)) and (deck not in usable or len(files) > 1)
        }
    except UserError:  # (a folder that cannot be listed: said as a problem already)
        return set()


def forget_deck(deck: str) -> tuple[Path, ...]:
    """Remove `deck`'s enrolled back (one of the eight is then read against its built-in art
    again, a deck of the user's own is no longer counted); the files removed (a second,
    differently cased <deck>.PNG too, or it would become the deck's back). UserError when
    nothing is enrolled under that name."""
    # (unknown.png put there by hand stops `count`, which says so: it may go as any back)
    if deck != UNKNOWN_NAME or not enrolled_files(user_decks_dir(), deck):
        check_deck_name(deck, new=False)
    paths = enrolled_files(user_decks_dir(), deck)
    if not paths:
        read_against = "its built-in art" if deck in DECK_NAMES else "nothing: it is not counted"
        # (a typo's: as `enroll` says it, with the deck meant)
        meant = meant_deck(deck)
        typo = f"; did you mean {meant}?" if meant is not None else ""
        raise UserError(
            f"{deck}: no enrolled back to forget (it is read against {read_against}){typo}"
        )
    for path in paths:
        try:
            path.unlink()
        except OSError as exc:
            raise UserError(
                f"{path}: cannot remove the enrolled back: {exc.strerror or exc}"
            ) from None
    return paths
