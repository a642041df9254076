"""What `blitzcam match --json` prints: one JSON document per action, built from the two
documents the match file contract already fixes (the match file, `summarize`'s standings), so
that a script reads a match the same way whichever command it came from."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from blitzcam.game.match_file import match_to_json, standings_to_json
from blitzcam.game.rules import score_match

if TYPE_CHECKING:
    from blitzcam.game.rules import Match, Round
    from blitzcam.game.store import MatchSummary


def match_document(match_id: int, match: Match, **about_the_change: Any) -> dict[str, Any]:
    """A match after an action (or as `show` reads it): its number, `summarize`'s standings,
    the match file `export` writes, and what the action says of its change (`deleted_round`,
    `put_back`, ...) before them."""
    return {
        "match": match_id,
        **about_the_change,
        "standings": standings_to_json(score_match(match)),
        "match_file": match_to_json(match),
    }


def deleted_round(number: int, round_: Round) -> dict[str, Any]:
    """A round taken back (`undo`, `delete-round`): its number and tallies, as the match file
    writes a round's, so that a script keeps what it deleted."""
    return {
        "number": number,
        "tallies": {
            name: {"dutch": tally.dutch, "blitz": tally.blitz}
            for name, tally in round_.tallies.items()
        },
    }


def _iso(moment: datetime) -> str:
    """ISO 8601 as the store keeps it ("2026-12-07T22:13:58.123456+00:00"); a hand-edited date
    of no zone in UTC, as SQLite reads it (and the store orders matches by it)."""
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).isoformat()


def match_list_document(summaries: list[MatchSummary], *, unreadable: int) -> dict[str, Any]:
    """`match list`: every readable match, the most recently changed first, and how many could
    not be read (each said on standard error, as the table's are)."""
    matches = []
    for summary in summaries:
        standings = standings_to_json(summary.standings)
        matches.append(
            {
                "match": summary.match_id,
                "started": _iso(summary.created_at),
                "changed": _iso(summary.updated_at),
                "players": [
                    {
                        "name": player.name,
                        "deck": player.deck,
                        "team": player.team,  # (null without teams: every key always there)
                        "playing": player.playing,
                    }
                    for player in summary.players
                ],
                "rounds": summary.rounds_played,
                "status": standings["status"],
                "winners": standings["winners"],
            }
        )
    return {"matches": matches, "unreadable": unreadable}
