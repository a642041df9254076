"""Plain-text views of a match for the terminal: standings and the match list."""

from __future__ import annotations

from blitzcam.game.rules import Match, Standings
from blitzcam.game.store import MatchSummary


def describe_status(standings: Standings) -> str:
    if standings.status == "won":
        return f"won by {standings.winners[0]} after round {standings.decided_after}"
    if standings.status == "shared":
        return f"shared win: {', '.join(standings.winners)} after round {standings.decided_after}"
    return "in progress"


def standings_table(match_id: int, match: Match, standings: Standings) -> str:
    """Round-by-round Dutch/Blitz/score per player, then totals and the result."""
    names = [player.name for player in match.players]
    headers = [f"{p.name} ({p.deck}{', ' + p.team if p.team else ''})" for p in match.players]
    widths = [max(len(h), 14) for h in headers]
    lines = [
        f"match {match_id}: target {match.settings.target}, {match.settings.variant} — "
        f"{describe_status(standings)}",
        "round  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)),
    ]
    for number, round_ in enumerate(match.rounds, start=1):
        cells = []
        for name, width in zip(names, widths, strict=True):
            tally = round_.tallies[name]
            cells.append(f"{tally.dutch:>2} D {tally.blitz:>2} B {tally.score:>+4}".ljust(width))
        lines.append(f"{number:>5}  " + "  ".join(cells))
    totals = "  ".join(
        f"{standings.totals[name]:>14}".ljust(width)
        for name, width in zip(names, widths, strict=True)
    )
    lines.append(f"{'total':>5}  {totals}")
    if standings.team_totals is not None:
        lines.append(
            "teams  "
            + ", ".join(f"{team} {total}" for team, total in standings.team_totals.items())
        )
    if standings.status == "in-progress" and match.rounds:
        lines.append(f"leading: {', '.join(standings.leaders)}")
    return "\n".join(lines)


def match_list(summaries: list[MatchSummary], *, unreadable: int = 0) -> str:
    """One line per match, its last change in local time (the store keeps UTC)."""
    if not summaries:
        if unreadable:
            return f"no readable matches ({unreadable} could not be read)"
        return "no matches yet: start one with `blitzcam match new`"
    lines = []
    for s in summaries:
        players = ", ".join(p.name for p in s.players)
        lines.append(
            f"{s.match_id:>4}  {s.updated_at.astimezone():%Y-%m-%d %H:%M}  "
            f"{s.rounds_played:>2} rounds  "
            f"{describe_status(s.standings):<36}  {players}"
        )
    return "\n".join(lines)
