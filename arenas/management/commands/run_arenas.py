"""Make the scheduled arenas of the next day, place the free players of the running arenas
(the scheduler runs it every minute: the arena pages' sockets place players every second while
one is open, this covers a moment when none is), resign the racers who have left races that
nobody still plays (as the rooms do every few seconds, and after an arena's end, when no room
ticks), and mend the boards that still change from the players' totals (a close whose board
write was lost shows right within the minute)."""

import logging

from django.core.management.base import BaseCommand
from redis.exceptions import RedisError

from arenas.board import changing, mend_changing
from arenas.holdups import resign_holdups
from arenas.placement import place_all
from arenas.schedule import MAKE_AHEAD_HOURS, make_coming, make_standard_schedule


class Command(BaseCommand):
    help = (
        "Make the scheduled arenas of the coming hours; place the running arenas' free players; "
        "resign the racers who left their races or idle in them while others wait; mend the "
        "boards from the record."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--hours", type=int, default=MAKE_AHEAD_HOURS, help="How far ahead to schedule."
        )
        parser.add_argument(
            "--standard-schedule",
            action="store_true",
            help="First make the standard schedule, once in the database's life and only where "
            "there is no schedule: an arena of each game every hour, 30 minutes long (edit it "
            "in the admin; the scheduler passes this).",
        )

    def handle(
        self, *args, hours: int = MAKE_AHEAD_HOURS, standard_schedule: bool = False, **options
    ) -> None:
        if standard_schedule and (rows := make_standard_schedule()):
            self.stdout.write(f"made the standard schedule ({rows} games)")
        made = make_coming(hours)
        races = place_all()
        held = sum(resign_holdups(arena) for arena in changing())
        try:
            mended = mend_changing()
        except (RedisError, OSError):  # the next minute tries again
            logging.getLogger(__name__).exception("could not mend the arenas' boards")
            mended = 0
        self.stdout.write(
            f"scheduled {made} arenas, opened {races} arena races, resigned {held} racers who "
            f"left or idled, mended {mended} board entries"
        )
