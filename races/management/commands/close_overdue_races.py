"""Close every race whose time is up, resign the racers who hold up a race (they left it, or
idle in it while others wait: races/holdups.py), start every quick race whose lobby time is up,
and cancel quick races left empty for a minute (for cron or a systemd timer; the scheduler runs
it every minute).

Sockets close their race at its end (and start a quick race at its lobby's end) by themselves,
any page or socket that looks at an overdue race closes it, and each server looks for holdups
in the races its pages show; this command covers races nobody was watching then. An arena's
races are the arena's (`run_arenas`).
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from races.actions import do_close_if_due
from races.holdups import resign_in
from races.models import Race
from races.quick import cancel_abandoned, start_due


class Command(BaseCommand):
    help = (
        "Close the races whose time limit (or two-hour cap) has passed; resign the racers who "
        "left a race or idle in it while others wait; start the quick races whose lobby time "
        "is up."
    )

    def handle(self, *args, **options):
        overdue = Race.objects.filter(status=Race.Status.STARTED, ends_at__lte=timezone.now())
        closed = sum(do_close_if_due(race) for race in overdue)
        held = resign_in(None)
        started = start_due()
        cancelled = cancel_abandoned()
        self.stdout.write(
            f"closed {closed} race{'s' if closed != 1 else ''}, "
            f"resigned {held} racer{'s' if held != 1 else ''} who left or idled, "
            f"started {started} quick race{'s' if started != 1 else ''}"
            + (f", cancelled {cancelled} left empty" if cancelled else "")
        )
