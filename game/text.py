"""Plain-text views of a match for the terminal (standings, the match list), and the marks that
keep a right-to-left name from turning the sentence around it."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Final

import wcwidth

from blitzcam.game.rules import Match, Player, Round, Standings, at_table
from blitzcam.game.store import MatchSummary

# Unicode's bidirectional controls (UAX #9)
FIRST_STRONG_ISOLATE: Final = "\u2068"
POP_DIRECTIONAL_ISOLATE: Final = "\u2069"
LEFT_TO_RIGHT_MARK: Final = "\u200e"


# every mark of direction Unicode has, those above and the others (no name holds one: game/names)
DIRECTION_MARKS: Final = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNMARKED: Final = dict.fromkeys(map(ord, DIRECTION_MARKS))


def unmarked(text: str) -> str:
    """`text` without its marks of direction (`isolated`, `left_to_right`): its letters, as a
    person counts them (a joiner stays: it makes one emoji of several)."""
    return text.translate(_UNMARKED)


def isolated(name: str) -> str:
    """`name` set apart from the words around it: "محمد and Ann lead" keeps its word order
    (unisolated, the Arabic name pulls "and" into its right-to-left run)."""
    return f"{FIRST_STRONG_ISOLATE}{name}{POP_DIRECTIONAL_ISOLATE}"


def left_to_right(sentence: str) -> str:
    """An English sentence marked left-to-right: Qt takes a paragraph's direction from its first
    strong letter, without skipping isolates, so one starting with an Arabic or Hebrew name was
    laid out right to left ("after round 1 ... محمد")."""
    return f"{LEFT_TO_RIGHT_MARK}{sentence}"


def describe_status(standings: Standings, *, name: Callable[[str], str] = str) -> str:
    """The match's state in a few words; `name` dresses each player's name (`isolated` for a
    window)."""
    if standings.status == "won":
        return f"won by {name(standings.winners[0])} after round {standings.decided_after}"
    if standings.status == "shared":
        winners = listed([name(winner) for winner in standings.winners])  # (as the board says)
        return f"shared win: {winners} after round {standings.decided_after}"
    return "in progress"


# more level leaders (or winners) than this are counted, not named: "Ann and Bob and Cy and Di
# and Ed and Flo and Gus and Hal lead" took two lines of the headline, past a 600-px screen's
# bottom (eight sharing a win took four at 150 %, every total card pushed off the screen)
MOST_LEADERS_NAMED: Final = 3


def sides_of(standings: Standings) -> str:
    """What a match's sides are called where they are counted ("3 teams share the lead")."""
    return "teams" if standings.team_totals is not None else "players"


def describe_standing(standings: Standings, *, name: Callable[[str], str] = str) -> str:
    """`describe_status`, and for a match in progress who leads with how many ("in progress:
    Ann leads with 33"): a list of matches of the same players read "in progress" alike."""
    status = describe_status(standings, name=name)
    leaders = standings.leaders
    if standings.status != "in-progress" or not standings.running_totals or not leaders:
        return status
    board = standings.team_totals if standings.team_totals is not None else standings.totals
    best = board[leaders[0]]
    if len(leaders) > MOST_LEADERS_NAMED:  # (as the board's headline counts them)
        return f"{status}: {len(leaders)} {sides_of(standings)} share the lead with {best}"
    who = listed([name(leader) for leader in leaders])
    return f"{status}: {who} {'leads' if len(leaders) == 1 else 'lead'} with {best}"


def seat_note(player: Player) -> str:
    """How a player who joined or left a match under way is said beside their name ("" for
    one at the table from the first round): the terminal's table and the app's cards alike."""
    notes = []
    start = f"{player.start} point{'' if abs(player.start) == 1 else 's'}"  # ("with 8": 8 what?)
    if player.joined:
        notes.append(f"joined after round {player.joined} with {start}")
    elif player.start:  # (joined before the first round, or one deleted under a latecomer)
        notes.append(f"started with {start}")
    if player.sat_out:
        notes.append(f"sat out {rounds_said(player.sat_out)}")
    if player.left is not None:
        notes.append(f"left after round {player.left}")
    return ", ".join(notes)


def round_counts(round_: Round, *, name: Callable[[str], str] = str) -> str:
    """'Ann 4/4, Bob 12/0': each player's Dutch/Blitz cards in a round, as a question about
    it names them; `name` dresses each name (`isolated` for a window: a right-to-left name
    drew its neighbour's counts beside it)."""
    return ", ".join(f"{name(who)} {t.dutch}/{t.blitz}" for who, t in round_.tallies.items())


def seat_changes(before: Match, after: Match) -> str:
    """What a change did to who is at the table, as a clause to follow what it did to the
    rounds ('; Cy back at the table'), or "": an undo puts back whoever left after the round,
    a redo takes them away again, and the table said nothing of it."""
    was = {p.name for p in at_table(before)}
    now = {p.name for p in at_table(after)}
    back = [p.name for p in after.players if p.name in now - was]
    away = [p.name for p in before.players if p.name in was - now]
    parts = [f"{' and '.join(back)} back at the table"] if back else []
    parts += [f"{' and '.join(away)} off the table again"] if away else []
    return "".join(f"; {part}" for part in parts)


def round_count(n: int) -> str:
    """'1 round', '3 rounds'."""
    return f"{n} round" if n == 1 else f"{n} rounds"


def rounds_said(numbers: tuple[int, ...]) -> str:
    """'round 4', 'rounds 4-5', 'rounds 4-5 and 8': round numbers in order, runs joined."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    said = [f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs]
    return f"round{'s' if len(numbers) > 1 else ''} {listed(said)}"


def listed(items: Sequence[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cy'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def taken_off_said(gone: Sequence[str]) -> str:
    """'Di and Ed taken off the match': the players a change took away with their only rounds
    (the app and `blitzcam match` say it alike)."""
    return f"{listed(gone)} taken off the match"


def played_no_round(name: str) -> str:
    """'Cy had played no round: taken off the match': one who left before playing a round."""
    return f"{name} had played no round: taken off the match"


def shown_width(text: str) -> int:
    """The columns `text` takes in a terminal: two for a wide character (Chinese, Japanese,
    Korean, most emoji, one of several joined: 👩‍💻, a skin tone or a flag), none for a mark
    on another, an invisible control, or a Hangul syllable's later letters; one for the rest.
    Padded by its length, a column of such names pushed the columns after it out of line.
    (wcwidth's rules: ❤️ with its emoji selector counted 1 and a Hangul syllable of letters 3
    by the rules written here before.)"""
    return max(0, wcwidth.width(text))


def padded(text: str, width: int) -> str:
    """`text` and the spaces that make it `width` terminal columns (`shown_width`)."""
    return text + " " * max(0, width - shown_width(text))


def _header(player: Player, *, name_most: int | None = None) -> str:
    """'Ann (green-pump, North; joined after round 2 with 7)' over a player's column; the name
    cut to `name_most` columns (with "…") where given, the rest kept whole."""
    said = player.deck + (f", {player.team}" if player.team else "")
    note = seat_note(player)
    name = player.name
    if name_most is not None and shown_width(name) > name_most:
        name = cut_to_width(name, name_most - 1) + "…"
    return f"{name} ({said}{'; ' + note if note else ''})"


ROUND_COLUMN: Final = 7  # "round  ": the rounds' numbers and the gap after them
CELL_WIDTH: Final = 14  # a player's cell, at least: "12 D  3 B  +6"
# a name's columns in a header, at most, where the table is cut to a terminal's width
# ("Wilhelmina van Oranje-Nassau (green-pump)" fit one player to a block of 80 columns)
NAME_KEPT: Final = 14


def standings_table(
    match_id: int, match: Match, standings: Standings, *, columns: int | None = None
) -> str:
    """Round-by-round Dutch/Blitz/score per player, then totals and the result. With `columns`
    (a terminal's width), where the table is wider, long names are cut in the headers and the
    players are shown in as many blocks, one under another, as fit it (eight players made
    lines of 200-370 columns, every round wrapped over several lines of an 80-column
    terminal); a block is one player at least, 21 columns or more (a header longer than the
    terminal, as the title, runs on)."""
    names = [player.name for player in match.players]
    headers = [_header(p) for p in match.players]
    widths = [max(shown_width(h), CELL_WIDTH) for h in headers]
    if columns is not None and ROUND_COLUMN + sum(w + 2 for w in widths) - 2 > columns:
        # too wide whole: long names cut (their deck, team and note kept: cut whole, half the
        # players lost their team, and two Marias their decks), none to another's
        cut = [_header(p, name_most=NAME_KEPT) for p in match.players]
        if len(set(cut)) == len(cut):
            headers = cut
            widths = [max(shown_width(h), CELL_WIDTH) for h in headers]
    lines = [
        f"match {match_id}: target {match.settings.target}, {match.settings.variant} — "
        f"{describe_status(standings)}",
    ]
    for n, block in enumerate(_blocks(widths, columns)):
        if n:
            lines.append("")  # (a block of the next players, under the last)
        lines.append("round  " + "  ".join(padded(headers[i], widths[i]) for i in block))
        for number, round_ in enumerate(match.rounds, start=1):
            cells = []
            for i in block:
                tally = round_.tallies.get(names[i])  # none: not at the table that round
                cell = "—"
                if tally is not None:
                    cell = f"{tally.dutch:>2} D {tally.blitz:>2} B {tally.score:>+4}"
                cells.append(cell.ljust(widths[i]))
            lines.append(f"{number:>5}  " + "  ".join(cells))
        totals = "  ".join(f"{standings.totals[names[i]]:>14}".ljust(widths[i]) for i in block)
        lines.append(f"{'total':>5}  {totals}")
    if standings.team_totals is not None:
        lines.append(
            "teams  "
            + ", ".join(
                f"{team} {total}"
                + (
                    ""
                    if team in standings.contenders or team in standings.winners
                    else " (out of the running: all left)"
                )
                for team, total in standings.team_totals.items()
            )
        )
    if standings.status == "in-progress" and match.rounds:
        lines.append(f"leading: {listed(standings.leaders)}")  # ("Ann, Bob, Ann, Jr": four?)
    return "\n".join(lines)


def _blocks(widths: list[int], columns: int | None) -> list[list[int]]:
    """The players' columns (indices) in blocks whose lines fit `columns` (None: one block),
    in order, one at least to a block."""
    if columns is None:
        return [list(range(len(widths)))]
    blocks: list[list[int]] = []
    used = columns  # (the first column opens a block)
    for i, width in enumerate(widths):
        if used + 2 + width > columns:
            blocks.append([])
            used = ROUND_COLUMN - 2
        blocks[-1].append(i)
        used += 2 + width
    return blocks


ZWJ: Final = 0x200D  # the zero-width joiner, which makes one emoji of several


def cut_to_width(text: str, columns: int) -> str:
    """The longest start of `text` that takes `columns` or fewer in a terminal (`shown_width`),
    never cut inside a character that several code points make (an emoji without its
    presentation selector drew as a plain symbol, an accent cut from its letter)."""
    end = len(text)
    while end > 0 and (shown_width(text[:end]) > columns or _inside_a_character(text, end)):
        end -= 1
    return text[:end]


def _inside_a_character(text: str, at: int) -> bool:
    """Whether a cut before `text[at]` would part what shows as one character: a mark (an
    accent, an Indic vowel sign), a variation selector, a skin tone or a joiner with what it
    belongs to."""
    if at >= len(text):
        return False
    after, before = ord(text[at]), ord(text[at - 1])
    return (
        unicodedata.category(text[at]).startswith("M")
        or 0xFE00 <= after <= 0xFE0F  # variation selectors (VS16: shown as an emoji)
        or 0x1F3FB <= after <= 0x1F3FF  # skin tones
        or after == ZWJ
        or before == ZWJ
    )


def local_time(moment: datetime) -> str:
    """A stored moment as 'YYYY-MM-DD HH:MM' in local time; as stored (with its offset) where
    local time cannot hold it (year 9999 east of UTC overflowed, a traceback for `list`)."""
    try:
        return f"{moment.astimezone():%Y-%m-%d %H:%M}"
    except (OverflowError, OSError, ValueError):
        return f"{moment:%Y-%m-%d %H:%M %z}".strip()


def left_mark(player: Player) -> str:
    """What a list of a match's players says after the name of one who left the table."""
    return "" if player.playing else " (left)"


STATUS_WIDTH: Final = 36  # the status column of `match list`, at least, in terminal columns


def match_list(summaries: list[MatchSummary], *, unreadable: int = 0) -> str:
    """One line per match, its last change in local time (the store keeps UTC)."""
    if not summaries:
        if unreadable:
            return f"no readable matches ({unreadable} could not be read)"
        return "no matches yet: start one with `blitzcam match new`"
    lines = []
    # (a match of 5000 rounds was two columns wider than the others)
    rounds_width = max(2, *(len(str(s.rounds_played)) for s in summaries))
    statuses = [describe_status(s.standings) for s in summaries]
    # as wide as the widest (a long winner's name pushed the players' column out of line)
    status_width = max(STATUS_WIDTH, *(shown_width(status) for status in statuses))
    for s, status in zip(summaries, statuses, strict=True):
        players = ", ".join(p.name + left_mark(p) for p in s.players)
        lines.append(
            f"{s.match_id:>4}  {local_time(s.updated_at)}  "
            f"{s.rounds_played:>{rounds_width}} "
            f"{'round' if s.rounds_played == 1 else 'rounds':<6}  "
            # (a winner's name is in it: padded by length, a Chinese one pushed the players'
            # column out of line, as `padded` does not)
            f"{padded(status, status_width)}  {players}"
        )
    return "\n".join(lines)
