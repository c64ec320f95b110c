"""Close every race whose time is up (for cron or a systemd timer).

Sockets close their race at its end by themselves, and any page or socket that looks at an
overdue race closes it; this command covers races nobody was watching when their time ran out.
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from races.actions import do_close_if_due
from races.models import Race


class Command(BaseCommand):
    help = "Close the races whose time limit (or two-hour cap) has passed."

    def handle(self, *args, **options):
        overdue = Race.objects.filter(status=Race.Status.STARTED, ends_at__lte=timezone.now())
        closed = sum(do_close_if_due(race) for race in overdue)
        self.stdout.write(f"closed {closed} race{'s' if closed != 1 else ''}")
