"""/ws/daily/: daily attempts over a websocket, the practice protocol unchanged.

The practice consumer already sends only the player's view (no seed, no hidden card) and times
every game on the server; a daily attempt is a Game like any other, so this consumer is that one
limited to daily games. The boards hear of every move through daily/signals.py.
"""

from games.consumers import GameConsumer
from games.models import Game


class DailyGameConsumer(GameConsumer):
    """One socket, one of the player's daily attempts at a time."""

    kinds = (Game.Kind.DAILY,)
