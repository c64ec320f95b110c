"""solitaire_site/daphne_server.py, the Daphne the service runs: autobahn's debug line of a new
socket's options is formatted only if it is written (the close frames instead of resets are
held live, tests/hostile/test_live_frame_limits.py)."""

import inspect
from pprint import pformat

from autobahn.websocket import protocol

import solitaire_site.daphne_server  # noqa: F401 (what it changes in autobahn, at import)


class Counted:
    """An option whose formatting is counted."""

    formatted = 0

    def __repr__(self) -> str:
        Counted.formatted += 1
        return "Counted()"


def test_a_new_socket_s_options_are_formatted_only_for_a_line_that_is_written():
    options = [("failByDrop", False, "WebSocketServerFactory"), ("option", Counted(), "Factory")]
    Counted.formatted = 0
    line = protocol.pformat(options)
    assert Counted.formatted == 0
    assert f"\n{line}" == "\n" + pformat(options)  # as the line is written
    assert Counted.formatted > 0


def test_autobahn_still_formats_the_options_through_the_name_put_off():
    """Guards the change: if autobahn stops calling `pformat` for its debug line of a new
    socket, the change has nothing left to do and goes."""
    source = inspect.getsource(protocol.WebSocketProtocol._connectionMade)
    assert "attrs=pformat(configAttrLog)" in source
