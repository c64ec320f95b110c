"""Close every race whose time is up, start every quick race whose lobby time is up, and cancel
quick races left empty for a minute (for cron or a systemd timer; the scheduler runs it every
minute).

Sockets close their race at its end (and start a quick race at its lobby's end) by themselves,
and any page or socket that looks at an overdue race closes it; this command covers races
nobody was watching then.
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from races.actions import do_close_if_due
from races.models import Race
from races.quick import cancel_abandoned, start_due


class Command(BaseCommand):
    help = (
        "Close the races whose time limit (or two-hour cap) has passed; start the quick races "
        "whose lobby time is up."
    )

    def handle(self, *args, **options):
        overdue = Race.objects.filter(status=Race.Status.STARTED, ends_at__lte=timezone.now())
        closed = sum(do_close_if_due(race) for race in overdue)
        started = start_due()
        cancelled = cancel_abandoned()
        self.stdout.write(
            f"closed {closed} race{'s' if closed != 1 else ''}, "
            f"started {started} quick race{'s' if started != 1 else ''}"
            + (f", cancelled {cancelled} left empty" if cancelled else "")
        )
