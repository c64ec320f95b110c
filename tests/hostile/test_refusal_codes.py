"""The hostile suites hold every refusal to the list of codes a client may get: that list is the
sockets' own source, so a refusal a socket can send is never taken for a crash."""

import pytest
from hostile_harness import check_refusal

from tests.protocol_source import SOCKETS, sent_codes


@pytest.mark.parametrize("socket", SOCKETS)
def test_every_refusal_a_socket_can_send_is_one_the_hostile_suites_take(socket):
    """Each code the socket's modules can answer with (hints, `unavailable`, `bad_ticket`,
    `quick_race`, `no_winnable_deal`, `no_players`...) passes `check_refusal`; `server_error`,
    a crash, is the one left out."""
    for code in sorted(sent_codes(socket) - {"server_error"}):
        check_refusal({"type": "error", "code": code, "reason": "why"})
    with pytest.raises(AssertionError):
        check_refusal({"type": "error", "code": "server_error", "reason": "a bug"})
