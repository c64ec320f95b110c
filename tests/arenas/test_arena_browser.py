"""Two browsers in one arena (issue 27): Ann sets up a public arena that starts now with the
form, joins it, and waits alone (the page says so, her row highlighted on the board); Bob opens
its link and joins; the server places them both in one race of the arena, and each page goes
there with no click. Both resign: each race page waits there for the next race from the
racer's resignation on (a Pause button beside), and shows the result with no rematch and a way
back to the arena; the arena places them in the next race from the race's page, again with no
click, and the page becomes the next race's in place: no page load and no new socket between
two races."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser_support import relay_socket
from tests.races.test_race_browser import Player, people_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def people(make_page, live_url):  # noqa: F811
    yield from people_on(make_page, live_url)


def join(player: Player, url: str, go: bool = True) -> None:
    """Join on the arena's page, then wait for its answer with the page's socket open (made the
    player's by the answer's ticket), or for the race page: with a player already waiting, the
    server places the newcomer as soon as their socket is theirs, and their page may leave for
    the race before a wait sees the answer (a wait on the selector goes on across the
    navigation)."""
    if go:
        player.page.goto(url)
    player.page.click("#join-button")
    player.wait('#arena[data-pressed="1"][data-socket="open"], #race')


# Reports each time a race page's "over" section changes, as it is then: the arena places the
# racers again as soon as the race closes, and on a slow machine a page left for the next race
# before a wait on the selector saw the section shown (CI, stop 51).
WATCH_RACE_OVER = """
addEventListener("DOMContentLoaded", () => {
  const over = document.getElementById("race-over");
  if (!over) return;
  const seen = (id) => Boolean(document.getElementById(id)?.checkVisibility());
  const tell = () => window.raceOverSeen({
    path: location.pathname,
    shown: seen("race-over"),
    owner: seen("owner-link") ? document.getElementById("owner-link").getAttribute("href") : null,
    rematch: seen("rematch-button"),
  });
  new MutationObserver(tell).observe(over, {attributes: true, subtree: true, childList: true});
  tell();
});
"""


def watch_race_over(player: Player) -> list[dict]:
    """What each of the player's race pages showed in its "over" section, as it changed."""
    seen: list[dict] = []
    player.page.expose_function("raceOverSeen", lambda state: seen.append(state))
    player.page.add_init_script(WATCH_RACE_OVER)
    return seen


def set_up(page, live_url: str, name: str = "Browser arena", starts_in_minutes: int = 0) -> str:
    """A public arena of Penguin starting now (or in so many minutes), set up with the form; its
    page's address."""
    page.goto(f"{live_url}/arenas/new/")
    page.fill("#id_name", name)
    page.select_option("#id_variant", "penguin")
    starts = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=starts_in_minutes)
    page.fill("#id_starts_at", starts.strftime("%Y-%m-%dT%H:%M"))
    page.check("input[name=visibility][value=public]")
    page.uncheck("#id_join")  # the tests join with the arena page's button
    page.click("form button[type=submit]")
    # Not /arenas/new/ itself, which the page is still on when the wait starts.
    page.wait_for_url(re.compile(r"/arenas/(?!new/)[\w-]+/$"))
    phase = "running" if starts_in_minutes == 0 else "upcoming"
    assert page.locator("#arena").get_attribute("data-phase") == phase
    return page.url


def racing_together(ann: Player, bob: Player, base: str) -> str:
    """Ann sets up an arena that starts now, both join, and the arena places them in one race,
    which runs on both their pages; the arena's page's address."""
    arena_url = set_up(ann.page, base)
    join(ann, arena_url)
    join(bob, arena_url)
    race = re.compile(r"/races/[A-Z0-9]{6}/$")
    for player in (ann, bob):
        player.page.wait_for_url(race, timeout=20_000)
        player.wait('#race[data-socket="open"][data-role="racer"][data-seq][data-phase="running"]')
    return arena_url


def test_two_browsers_join_an_arena_and_are_placed_in_one_race(people, live_url):  # noqa: F811
    ann, bob = people(), people()
    over_seen = {"ann": watch_race_over(ann), "bob": watch_race_over(bob)}
    page = ann.page
    arena_url = set_up(page, live_url)

    page.goto(arena_url)
    page.evaluate("window.sameDocument = true")
    opened = len(ann.sockets)
    join(ann, arena_url, go=False)
    ann.wait("#arena-board tr.you")
    # Alone in a running arena, from the lobby's counts of the live board (the page rendered
    # "Waiting for another free player" with the Join answer).
    ann.wait("#arena-status:has-text('You are the only player so far')")
    assert len(ann.sockets) == opened  # the page's socket made hers by the ticket, not reopened
    # joined in place: the same document, with the player's own buttons, and no page load
    assert page.evaluate("window.sameDocument === true")
    assert page.is_visible("#pause-button") and not page.is_visible("#join-button")
    assert page.evaluate("document.activeElement.id") == "pause-button"  # the focus kept
    join(bob, arena_url)

    race = re.compile(r"/races/[A-Z0-9]{6}/$")
    ann.page.wait_for_url(race, timeout=20_000)
    bob.page.wait_for_url(race, timeout=20_000)
    assert ann.page.url == bob.page.url
    placed = [f for f in ann.frames if f.get("type") == "placed"]
    assert placed and ann.page.url.endswith(placed[-1]["url"])
    first = ann.page.url
    for player in (ann, bob):
        player.page.evaluate("window.samePage = true")  # gone with any page load
    for player in (ann, bob):
        # Its board, shown at the start (after the countdown): the race runs.
        player.wait('#race[data-socket="open"][data-role="racer"][data-seq][data-phase="running"]')
        player.sockets.clear()  # the first race's, open: any other is a new one
    ann.page.click("#resign-button")  # the confirm() is accepted
    # Done while Bob races on: Ann's page waits for the next race already (the arena places her
    # as soon as the race closes, over a socket open before the close).
    ann.wait('#race[data-phase="running"] #next-race:not([hidden])')
    # ... and says what for: the race ends when Bob, still playing it, is done.
    ann.wait("#next-race-status:has-text('1 racer still plays this one')")
    bob.page.click("#resign-button")

    # After the race's `arena` event the race's page waits on the race's socket, which places
    # them again: the page shows the next race in place.
    def next_race(url: str) -> bool:
        return url != first and race.search(url) is not None

    for name, player in (("ann", ann), ("bob", bob)):
        player.page.wait_for_url(next_race, timeout=30_000)
        # Over, before it left: no rematch (the arena places its racers) and a way back to the
        # arena.
        over = [
            seen
            for seen in over_seen[name]
            if first.endswith(seen["path"]) and seen["shown"] and seen["owner"]
        ]
        assert over, (name, over_seen[name])
        assert over[-1]["owner"] == arena_url.removeprefix(live_url)
        assert not any(seen["rematch"] for seen in over)
        assert [f["url"] for f in player.frames if f.get("type") == "arena"] == [
            arena_url.removeprefix(live_url)
        ]
        assert len([f for f in player.frames if f.get("type") == "placed"]) == 2
    assert ann.page.url == bob.page.url
    code = ann.page.url.rstrip("/").rsplit("/", 1)[1]
    for player in (ann, bob):
        # The same document, now the next race's: its code, links and socket, and a board to
        # play. The same socket, too: the server went on to the next race on it.
        assert player.page.evaluate("window.samePage === true")
        assert [url for url in player.sockets if "/ws/race/" in url] == [], player.sockets
        player.wait('#race[data-socket="open"][data-role="racer"][data-seq][data-phase="running"]')
        assert player.page.inner_text("#race-code") == code
        # Its header still names the arena, with its time left, and invites nobody.
        assert player.page.get_attribute("#event-link", "href") == arena_url.removeprefix(live_url)
        assert re.fullmatch(r"ends in 0:[0-5]\d:[0-5]\d", player.page.inner_text("#event-clock"))
        assert player.page.locator("#invite-link").count() == 0
        assert player.page.get_attribute("#results-link", "href") == f"/races/{code}/results/"
        assert player.page.is_hidden("#next-race") and player.page.is_hidden("#race-over")
        assert player.page.title().startswith(f"Race {code} ")
        snapshots = [f for f in player.frames if f.get("type") == "snapshot"]
        assert snapshots[-1]["race"]["code"] == code
    board = ann.board()
    ann.click_move(board["legal"][0])  # the new race's board plays
    ann.wait(f'#race[data-seq="{board["seq"] + 1}"]')
    # Back: the earlier race's address, and its own page (loaded, not the new race's), which
    # stays (its wait names the race it came back from: a page opened just after its player's
    # placement is otherwise sent to that race), with a link back to it.
    ann.page.go_back()
    ann.page.wait_for_function("window.samePage === undefined")
    assert ann.page.url == first
    ann.wait("#race-over:not([hidden])")
    ann.wait("#came-back:not([hidden])")
    assert ann.page.get_attribute("#came-back-link", "href") == f"/races/{code}/"
    ann.page.wait_for_function("document.getElementById('next-race-you').textContent !== ''")
    # (the wait's first answer came: the room has the page)
    ann.page.click("#came-back-link")
    ann.page.wait_for_url(f"{live_url}/races/{code}/")
    ann.wait('#race[data-socket="open"][data-role="racer"][data-phase="running"]')
    ann.wait(f'#race[data-seq="{board["seq"] + 1}"]')  # her board as she left it


def test_the_next_race_in_place_starts_its_clock_afresh(people, live_url):  # noqa: F811
    """The page that becomes the next race's shows none of the last race's time: through the
    next race's countdown its clock reads 0:00, as a page loaded for that race does."""
    ann, bob = people(), people()
    arena_url = set_up(ann.page, live_url)
    join(ann, arena_url, go=False)
    join(bob, arena_url)
    race = re.compile(r"/races/[A-Z0-9]{6}/$")
    for player in (ann, bob):
        player.page.wait_for_url(race, timeout=20_000)
        player.wait('#race[data-socket="open"][data-phase="running"]')
    first = ann.page.evaluate("location.pathname")
    ann.page.wait_for_function("document.getElementById('race-clock').textContent >= '0:02'")
    for player in (ann, bob):
        player.page.click("#resign-button")
    in_countdown = ann.page.wait_for_function(
        """(first) => location.pathname !== first
            && document.getElementById("race").dataset.phase === "countdown"
            && [document.getElementById("race-clock").textContent,
                document.getElementById("race-remaining").textContent]""",
        arg=first,
        polling=50,
        timeout=30_000,
    )
    assert in_countdown.json_value() == ["0:00", ""]


def test_a_racer_waiting_for_the_next_race_sees_their_place_and_can_pause(people, live_url):  # noqa: F811
    """Alone in the arena after the race (the other player sat out), the race's page says it
    waits, shows the player's place on the arena's board, waits again when reloaded, and its
    Pause button sits them out: the arena's page then says so. An admin who moves the arena's
    end (`edited`, here from the test on the page's socket; the server's side:
    test_arena_edited.py) moves the page's wait and its header's clock with it."""
    ann, bob = people(), people()
    race_sockets = []  # Ann's race sockets, newest last
    relay_socket(
        ann.page, "**/ws/race/**", from_page=lambda text, side: race_sockets.append(side) or text
    )
    arena_url = racing_together(ann, bob, live_url)
    # Bob sits out the next races with the arena page's Pause form, then resigns with Ann: after
    # it Ann is the only free player. He pauses in a tab of his without scripts: a scripted
    # arena page opened within 15 s of its player's placement is sent back to that race by its
    # socket (`placed`, arenas.rooms.PLACED_GRACE), which on a slow machine came while the
    # form was being sent, and took the page away before it said "Resume".
    plain = bob.page.context.browser.new_context(java_script_enabled=False)
    plain.add_cookies(bob.page.context.cookies())
    tab = plain.new_page()
    tab.goto(arena_url)
    tab.click("#pause-button")
    tab.wait_for_selector("#join-button")  # "Resume"
    plain.close()
    for player in (ann, bob):
        player.wait('#race[data-socket="open"][data-role="racer"][data-seq][data-phase="running"]')
        player.page.click("#resign-button")
    for _ in range(2):  # then reloaded: the page opens after the race's `arena` event
        ann.wait("#next-race:not([hidden])")
        ann.page.wait_for_function(
            "document.getElementById('next-race-you').textContent.startsWith('In the arena: ')"
        )
        # Bob's resignation, which ends the race, may reach Ann's page after her own: until then
        # it says that one racer still plays it.
        ann.page.wait_for_function(
            "document.getElementById('next-race-status').textContent"
            " === 'Waiting for your next race of the arena…'"
        )
        ann.page.reload()
    ann.wait("#next-race:not([hidden])")
    ann.page.wait_for_function(
        "document.getElementById('next-race-you').textContent.startsWith('In the arena: ')"
    )
    status = "#next-race-status"

    def edited(ends_in_s: int, clock: str, said: str) -> None:
        now = int(ann.page.evaluate("Date.now()"))
        frame = {"type": "edited", "ends_at": now + ends_in_s * 1000, "now": now}
        race_sockets[-1].send(json.dumps(frame))
        ann.page.wait_for_function(
            f"document.getElementById('event-clock').textContent.startsWith({clock!r})"
        )
        ann.page.wait_for_function(f"document.querySelector({status!r}).textContent === {said!r}")

    waiting = "Waiting for your next race of the arena…"
    ended = "The arena has ended: its podium is on the arena's page."
    edited(2 * 3600 + 30, "ends in 2:00:", waiting)  # later: still waiting, the clock moved
    edited(-1, "ended", ended)  # into the past: the wait ends
    edited(3600 + 30, "ends in 1:00:", waiting)  # later again: it waits again
    ann.page.click("#next-race #pause-button")
    ann.page.wait_for_url(arena_url)
    assert "You are sitting out" in ann.page.inner_text("#arena-status")


def test_a_coming_arena_counts_down_and_sets_a_reminder(people, live_url):  # noqa: F811
    """The page counts down to the start; "Remind me" asks for a notification (refused here)
    and says the page itself will tell."""
    ann = people()
    page = ann.page
    coming_arena(page, live_url)
    assert page.locator("#arena").get_attribute("data-phase") == "upcoming"
    page.wait_for_function(
        "/^0:[23][0-9]:[0-5][0-9]$/.test(document.querySelector('#arena-countdown').textContent)",
        polling=100,
    )
    page.focus("#remind-button")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.querySelector('#arena-status').textContent.startsWith('Reminder set')",
        polling=100,
    )
    # still where the keyboard pressed it (a disabled button drops the focus to the page's start)
    assert page.evaluate("document.activeElement.id") == "remind-button"
    assert page.get_attribute("#remind-button", "aria-disabled") == "true"
    assert page.inner_text("#remind-button") == "Reminder set"


JOIN_PATH = re.compile(r"/arenas/[\w-]+/join/$")


def over_budget(page) -> None:
    """The page's joins answered as the forms' budget answers one too many (429, in words)."""
    page.route(
        JOIN_PATH,
        lambda route: route.fulfill(
            status=429, content_type="text/plain", body="Too many forms: wait a minute.\n"
        ),
    )


def test_a_button_the_server_refuses_or_cannot_answer_says_why_and_can_be_pressed_again(
    people, live_url
):  # noqa: F811
    """The forms' budget answers in plain text (429) and an unreachable server answers nothing:
    either way the page says why, in its status line, never shows an error page's HTML, and the
    button works again; the third press joins."""
    ann = people()
    page = ann.page
    arena_url = set_up(page, live_url)
    over_budget(page)
    page.click("#join-button")
    page.wait_for_function(
        "document.getElementById('arena-status').textContent.includes('Too many forms')"
    )
    assert page.is_enabled("#join-button")
    page.unroute(JOIN_PATH)
    page.route(JOIN_PATH, lambda route: route.abort())
    page.click("#join-button")
    page.wait_for_function(
        "document.getElementById('arena-status').textContent.includes('Could not reach')"
    )
    assert page.is_enabled("#join-button")
    assert "<" not in page.inner_text("#arena-status")
    page.unroute(JOIN_PATH)
    join(ann, arena_url, go=False)
    assert page.is_visible("#pause-button")


def test_a_refused_press_gives_the_keyboard_s_focus_back_to_its_button(people, live_url):  # noqa: F811
    """A button pressed with the keyboard waits for the server's answer disabled, which drops
    the focus to the page; refused (the forms' budget), the focus is back on it, and Enter presses
    it again: the second press joins, and the focus goes on to the new first button."""
    ann = people()
    page = ann.page
    set_up(page, live_url)
    ann.wait('#arena[data-socket="open"]')
    over_budget(page)
    page.focus("#join-button")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.getElementById('arena-status').textContent.includes('Too many forms')"
    )
    assert page.evaluate("document.activeElement.id") == "join-button"
    page.unroute(JOIN_PATH)
    page.keyboard.press("Enter")
    ann.wait('#arena[data-pressed="1"][data-socket="open"]')
    assert page.evaluate("document.activeElement.id") == "pause-button"


def test_a_join_whose_ticket_is_refused_opens_the_socket_again_as_the_player_s(people, live_url):  # noqa: F811
    """The Join answer's ticket made the page's socket the player's; one the socket refuses (too
    old, or altered on the way: here the answer's ticket is replaced) has the page open its
    socket again, whose player the session names: the player's own row comes all the same."""
    ann = people()
    page = ann.page
    set_up(page, live_url)
    join_path = re.compile(r"/arenas/[\w-]+/join/$")

    def forged(route) -> None:
        response = route.fetch()
        body = response.json()
        body["ticket"] = "not-a-ticket"
        route.fulfill(response=response, json=body)

    page.route(join_path, forged)
    opened = len(ann.sockets)
    page.click("#join-button")
    ann.wait("#arena-board tr.you")
    assert [f["code"] for f in ann.frames if f.get("type") == "error"] == ["bad_ticket"]
    assert len(ann.sockets) == opened + 1  # opened again, once
    assert page.is_visible("#pause-button")


def coming_arena(page, live_url: str) -> str:
    """A public arena of Penguin starting in 30 minutes, set up with the form; its page's
    address (the page is on it)."""
    page.goto(f"{live_url}/arenas/new/")
    start = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=30)
    page.fill("#id_starts_at", start.strftime("%Y-%m-%dT%H:%M"))
    page.uncheck("#id_join")
    page.click("form button[type=submit]")
    # Not /arenas/new/ itself, which the page is still on when the wait starts.
    page.wait_for_url(re.compile(r"/arenas/(?!new/)[\w-]+/$"))
    return page.url


def starting_soon(page, url: str, seconds: float = 5) -> None:
    """The arena's page, when next loaded (once), as if the arena started `seconds` from now:
    its start as the page's script reads it. Reloaded at the start, the page is the server's
    again (the arena still to come): what the page said at its start stays."""

    def sooner(route) -> None:
        response = route.fetch()
        html = response.text()
        start = re.search(r'data-starts="([^"]+)"', html).group(1)
        soon = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)
        route.fulfill(response=response, body=html.replace(start, soon.isoformat()))

    page.route(url, sooner, times=1)


# A hidden tab's timers, at worst: the browser holds back its intervals (Chrome runs them once a
# minute after five minutes hidden), so that the page's tick every second never comes.
NO_INTERVALS = "window.setInterval = () => 0;"

# Its timeouts too: only those of no delay run (the page's own switch at the start is not).
NO_TIMERS = (
    NO_INTERVALS
    + """
const runsAtOnce = window.setTimeout;
window.setTimeout = (run, ms = 0, ...args) => (ms < 50 ? runsAtOnce(run, ms, ...args) : 0);
"""
)

# Each notification the page shows, noted in the tab's session storage (kept across a reload).
NOTE_NOTIFICATIONS = """
const Shown = window.Notification;
function Noted(title, options) {
  sessionStorage.setItem("notified", title);
  return new Shown(title, options);
}
Noted.requestPermission = (...args) => Shown.requestPermission(...args);
Object.defineProperty(Noted, "permission", { get: () => Shown.permission });
window.Notification = Noted;
"""


def test_the_reminder_comes_at_the_start_even_in_a_tab_whose_ticks_are_held_back(people, live_url):  # noqa: F811
    """The page's switch at the start is a timeout to it, not only its tick every second: the
    reminder comes at the start, a notification (allowed here) and the page's own words."""
    ann = people()
    page = ann.page
    page.context.grant_permissions(["notifications"], origin=live_url)
    page.add_init_script(NO_INTERVALS + NOTE_NOTIFICATIONS)
    url = coming_arena(page, live_url)
    page.click("#remind-button")
    page.wait_for_function(
        "document.querySelector('#arena-status').textContent.startsWith('Reminder set: a notification')"
    )
    starting_soon(page, url)
    page.reload()
    page.wait_for_function(
        "document.querySelector('#arena-status').textContent.endsWith(' has started!')",
        timeout=20_000,
    )
    name = page.inner_text("h1")
    assert page.evaluate("sessionStorage.getItem('notified')") == f"{name} has started"
    assert page.get_attribute("#remind-button", "aria-disabled") is None  # the reminder is spent


def test_a_tab_shown_again_after_the_start_says_the_arena_has_started(people, live_url):  # noqa: F811
    """A tab whose timers were all held back while hidden switches to the running arena as soon
    as it is shown again, and says so in its status region: the countdown ticks silently, no
    live region around it."""
    ann = people()
    page = ann.page
    page.add_init_script(NO_TIMERS)
    url = coming_arena(page, live_url)
    # The clock's paragraph is no live region: only the milestones are said.
    live = "[aria-live], [role=status], [role=alert], [role=log], [role=timer]"
    assert page.evaluate(f"document.getElementById('arena-clock').closest('{live}')") is None
    assert page.get_attribute("#arena-announce", "role") == "status"
    starting_soon(page, url)
    page.reload()
    page.wait_for_function(
        "Date.now() >= Date.parse(document.getElementById('arena').dataset.starts)",
        polling="raf",
        timeout=20_000,
    )
    assert page.get_attribute("#arena", "data-phase") == "upcoming"  # nothing ran meanwhile
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    name = page.inner_text("h1")
    page.wait_for_function(
        f"document.getElementById('arena-announce').textContent === {name!r} + ' has started.'",
        timeout=20_000,
    )


def test_the_board_keeps_the_focus_as_it_updates_and_marks_the_player_s_own_row(people, live_url):  # noqa: F811
    """A keyboard user on a link of the live board stays there as the board updates (every
    5 s at least); their own row is the current one, "(you)" to a screen reader, in the row the
    script made as in the server's."""
    ann = people()
    page = ann.page
    arena_url = set_up(page, live_url)
    join(ann, arena_url, go=False)
    ann.wait("#arena-board tr.you")
    me = page.get_attribute("#arena", "data-player")

    def own_row() -> tuple:
        row = page.locator("#arena-board tr.you")
        hidden = row.locator(".visually-hidden").text_content()
        return row.get_attribute("data-player"), row.get_attribute("aria-current"), hidden

    assert own_row() == (me, "true", "(you)")  # made by the script, at the join
    page.reload()
    assert own_row() == (me, "true", "(you)")  # the server's
    ann.wait('#arena[data-board][data-socket="open"]')
    page.focus("#arena-board tr.you a")
    seen = int(page.get_attribute("#arena", "data-board"))
    page.wait_for_function(
        f"Number(document.getElementById('arena').dataset.board) > {seen}", timeout=15_000
    )
    focused = "document.activeElement.closest('#arena-board tr')?.dataset.player ?? null"
    assert page.evaluate(focused) == me
    assert own_row() == (me, "true", "(you)")


def test_a_streak_the_board_s_frames_bring_is_named_as_the_server_names_it(people, live_url):  # noqa: F811
    """The rows the script makes from the socket's frames mark a streak as the server's rows do:
    a flame a screen reader reads as "on a streak", not "fire" (the player's own row here, put
    on a streak on its way to the page)."""
    ann = people()
    page = ann.page

    def on_a_streak(text: str) -> str:
        frame = json.loads(text)
        if frame.get("type") == "standings":
            for row in frame["rows"]:
                row["streak"] = True
        return json.dumps(frame)

    relay_socket(page, "**/ws/arena/**", from_server=on_a_streak)
    arena_url = set_up(page, live_url)
    join(ann, arena_url, go=False)
    ann.wait("#arena-board tr.you .streak")
    flame = page.locator("#arena-board tr.you .streak")
    assert (flame.get_attribute("role"), flame.get_attribute("aria-label")) == (
        "img",
        "on a streak",
    )
    assert flame.text_content() == "🔥"


# The arena's page, the first time it loads in the tab, as an ended arena's with two races still
# finishing: its script reads the page's data once the document is parsed.
SHOWN_ENDED = """
if (!sessionStorage.getItem("shown-ended")) {
  sessionStorage.setItem("shown-ended", "1");
  new MutationObserver((_, observer) => {
    const arena = document.getElementById("arena");
    if (!arena) return;
    observer.disconnect();
    arena.dataset.phase = "ended";
    arena.dataset.ends = new Date(Date.now() - 60_000).toISOString();
    arena.dataset.finishing = "2";
  }).observe(document, { childList: true, subtree: true });
}
"""


def test_an_ended_arena_s_page_follows_its_last_races_then_loads_the_final_standings(
    people, live_url
):  # noqa: F811
    """While races under way at the end still count, the ended arena's page follows the board's
    frames: it says how many are still finishing, and loads the final standings once none is.
    (A running arena's page is shown as an ended one's, and the frames' `finishing` set on their
    way: an arena ends 5 minutes after its start at the soonest.)"""
    ann = people()
    page = ann.page
    url = set_up(page, live_url)
    finishing = [2]

    def counted(message: str) -> str:
        frame = json.loads(message)
        if frame.get("type") == "standings":
            frame["finishing"] = finishing[0]
        return json.dumps(frame)

    relay_socket(page, "**/ws/arena/**", from_server=counted)
    page.add_init_script(SHOWN_ENDED)
    page.goto(url)
    page.evaluate("window.samePage = true")  # gone with a reload
    heading = "document.getElementById('board-h').textContent"
    boards = "Number(document.getElementById('arena').dataset.board || 0)"
    page.wait_for_function(f"{boards} >= 1", timeout=30_000)  # the socket relays
    page.wait_for_function(f"{heading} === 'Standings — 2 races still finishing'")
    finishing[0] = 1
    # The next board comes within 5 s (rooms.BOARD_AT_LEAST_S); waited for up to six. One
    # clean-clone run waited in vain: the reload above had come into a room whose board's round
    # had ended on its own (tests/arenas/test_arena_room_rounds.py).
    page.wait_for_function(f"{heading} === 'Standings — 1 race still finishing'", timeout=30_000)
    assert page.evaluate("window.samePage === true")
    finishing[0] = 0
    page.wait_for_function("window.samePage === undefined", timeout=15_000)


def utc_day_time(at: dt.datetime) -> str:
    """As the arena page writes a start: "Mon 7 Dec, 09:05" (UTC)."""
    return f"{at:%a} {at.day} {at:%b}, {at:%H:%M}"


def test_a_coming_arena_s_page_follows_an_admin_s_change_and_reminds_at_the_new_start(
    people, live_url
):  # noqa: F811
    """An admin's change in place reaches the open page as an `edited` frame (here from the
    test, on the page's socket; the server's side: test_arena_edited.py): with no reload the
    page writes the arena's facts as the server does, says what moved, counts down to the new
    start, and the reminder set before comes at that start (the tab's ticks held back: only the
    switch armed for the new start brings it)."""
    ann = people()
    page = ann.page
    page.add_init_script(NO_INTERVALS)
    sockets = []

    def relay(page_side) -> None:
        server_side = page_side.connect_to_server()
        server_side.on_message(page_side.send)
        page_side.on_message(server_side.send)
        sockets.append(page_side)

    page.route_web_socket("**/ws/arena/**", relay)
    coming_arena(page, live_url)
    page.evaluate("window.samePage = true")  # gone with a reload
    page.wait_for_function("Number(document.getElementById('arena').dataset.board || 0) >= 1")
    root = page.locator("#arena")
    starts = dt.datetime.fromisoformat(root.get_attribute("data-starts"))
    ends = dt.datetime.fromisoformat(root.get_attribute("data-ends"))
    written = page.inner_text("#arena-facts")  # the server's
    assert written.endswith(" · races of 5 min · only by link")
    arena = {
        "type": "edited",
        "name": page.inner_text("h1"),
        "game": written.split(" · ")[0],
        "starts_at": int(starts.timestamp() * 1000),
        "ends_at": int(ends.timestamp() * 1000),
        "race_time_limit_s": 300,
        "visibility": "link",
    }

    def edited(count: int, **changes) -> None:
        now = int(page.evaluate("Date.now()"))
        sockets[-1].send(json.dumps({**arena, **changes, "now": now}))
        page.wait_for_function(f"document.getElementById('arena').dataset.edited === '{count}'")

    edited(1)  # as it was: the page writes it as the server did, and says nothing
    assert page.inner_text("#arena-facts") == written
    assert page.inner_text("#arena-announce") == ""

    page.click("#remind-button")
    page.wait_for_function(
        "document.querySelector('#arena-status').textContent.startsWith('Reminder set')"
    )
    later = ends + dt.timedelta(minutes=15)  # a schedule's new length: the start stays
    edited(2, ends_at=int(later.timestamp() * 1000))
    assert page.inner_text("#arena-facts") == written.replace(
        f" to {ends:%H:%M} UTC", f" to {later:%H:%M} UTC"
    )
    assert page.get_attribute("#arena-countdown", "datetime") == root.get_attribute("data-starts")
    assert page.inner_text("#arena-announce") == f"{arena['name']} now ends at {later:%H:%M} UTC."

    soon = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=6)
    name = "Moved arena"
    moved = {"name": name, "starts_at": int(soon.timestamp() * 1000)}
    edited(3, **moved, ends_at=int((soon + dt.timedelta(minutes=30)).timestamp() * 1000))
    assert page.inner_text("h1") == name and page.title().startswith(f"{name} — ")
    assert utc_day_time(soon) in page.inner_text("#arena-facts")
    countdown = page.get_attribute("#arena-countdown", "datetime")
    assert dt.datetime.fromisoformat(countdown.replace("Z", "+00:00")) == soon
    assert page.evaluate("window.samePage === true")
    # At the new start the page goes on to the running arena's page (the server's: the arena
    # still to come) and says the reminder's words there.
    page.wait_for_function(
        f"document.querySelector('#arena-status').textContent === {name + ' has started!'!r}",
        timeout=20_000,
    )
    assert page.evaluate("window.samePage === undefined")


def test_the_leave_button_warns_everyone_that_it_resigns_the_race_under_way(people, live_url):  # noqa: F811
    """While the player races, the arena page's Leave button is described by a note in sight,
    "Leaving the arena resigns the race you are in": a keyboard, touch or screen-reader player
    gets the warning a hover tooltip gave a mouse alone. Waiting for a race, leaving resigns
    nothing: no note. (The arena page is read in a tab without scripts: a scripted one opened
    just after its player's placement is sent back to the race.)"""
    ann, bob = people(), people()
    arena_url = set_up(ann.page, live_url)
    join(ann, arena_url)
    ann.wait("#arena-status:has-text('You are the only player so far')")
    assert ann.page.locator("#leave-note").count() == 0
    expect(ann.page.locator("#leave-button")).to_have_accessible_description("")
    join(bob, arena_url)
    ann.page.wait_for_url(re.compile(r"/races/[A-Z0-9]{6}/$"), timeout=20_000)

    plain = ann.page.context.browser.new_context(java_script_enabled=False)
    plain.add_cookies(ann.page.context.cookies())
    tab = plain.new_page()
    tab.goto(arena_url)
    warning = "Leaving the arena resigns the race you are in."
    expect(tab.locator("#leave-note")).to_be_visible()
    expect(tab.locator("#leave-note")).to_have_text(warning)
    expect(tab.locator("#leave-button")).to_have_accessible_description(warning)
    plain.close()
