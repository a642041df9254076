"""Factories for game records, shared by the game tests."""

from __future__ import annotations

from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.rules import Match, Player, Round, Settings, Tally


def players(n: int = 2, *, teams: tuple[str, ...] | None = None) -> tuple[Player, ...]:
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    return tuple(
        Player(name=names[i], deck=DECK_NAMES[i], team=None if teams is None else teams[i])
        for i in range(n)
    )


def round_of(**tallies: tuple[int, int]) -> Round:
    return Round({name: Tally(dutch=d, blitz=b) for name, (d, b) in tallies.items()})


def match_of(*rounds: Round, n: int = 2, target: int = 75, variant: str = "standard",
             teams: tuple[str, ...] | None = None) -> Match:
    return Match(players=players(n, teams=teams), settings=Settings(target, variant),  # type: ignore[arg-type]
                 rounds=rounds)


def backups_on_a_read_only_medium(monkeypatch) -> None:
    """An upgrade's backup (`*.bak`) cannot be written: as on a read-only medium, whose errno
    (EROFS) the store reads as the place's problem."""
    import errno
    from pathlib import Path

    unlink = Path.unlink

    def read_only_medium(self: Path, missing_ok: bool = False) -> None:
        if self.name.endswith(".bak"):
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", read_only_medium)
