"""`python -m solitaire_site.daphne_server …`: Daphne, taking the `daphne` command's options, whose
websockets close with 1009 a message over the size limit instead of resetting the connection.

Daphne hands `--websocket-max-message-size` and `--websocket-max-frame-size` to autobahn, which
checks them as soon as a frame's header arrives, before buffering the payload. But autobahn
fails a connection by dropping TCP (its `failByDrop` option, on by default) and Daphne has no
option to turn that off: a client sending a 1 MB frame saw a reset with no close frame, the same
as a network failure. With `failByDrop` off autobahn sends the close frame (1009, "message too
big") and ends the closing handshake, discarding the rest of the oversized payload unread; a
peer that does not answer the close is dropped after autobahn's close-handshake timeout (1 s).
Protocol violations are failed the same way (a close frame with 1002 or 1007 first).

And autobahn (26.10) pretty-prints every option of every new websocket for a debug line
(`WebSocketProtocol._connectionMade`: `self.log.debug("\n{attrs}", attrs=pformat(...))`) before
its logger decides to drop the line: 0.17 ms a connection, two a racer and race in an arena
(the race's socket and the arena page's), 1.7% of a Daphne's Python in an arena of 1,000
(docs/performance.md). Here the options are formatted when the line is written, if it ever is:
the same text at the debug level, nothing otherwise.
"""

from pprint import pformat

import autobahn.websocket.protocol
from daphne.cli import CommandLineInterface
from daphne.server import Server


class FormattedWhenWritten:
    """`pformat(value)` put off until a log line that shows it is written."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __str__(self) -> str:
        return pformat(self.value)


autobahn.websocket.protocol.pformat = FormattedWhenWritten


class ClosingServer(Server):
    """Daphne's server with autobahn's `failByDrop` off.

    `ready_callable` is Daphne's hook called in `run()` once the websocket factory exists and
    before the reactor starts: websocket protocols copy the factory's options when they connect.
    """

    def __init__(self, *args, ready_callable=None, **kwargs):
        self.then_ready = ready_callable
        super().__init__(*args, ready_callable=self.close_instead_of_drop, **kwargs)

    def close_instead_of_drop(self) -> None:
        self.ws_factory.setProtocolOptions(failByDrop=False)
        if self.then_ready is not None:
            self.then_ready()


class ClosingCommandLineInterface(CommandLineInterface):
    server_class = ClosingServer


if __name__ == "__main__":
    ClosingCommandLineInterface.entrypoint()
