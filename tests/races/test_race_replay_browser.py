"""A race watched again, in Chromium against the live Daphne: three racers race over their
sockets (moves, an undo, resignations), then the replay's boards are checked at several moments
against what the server answered each racer then, and the keys, the live region, the links and
a phone's swap of boards work."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re

import pytest

from tests.live import Visitor, expect, named

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEED = 7318420953371  # Penelope's Web with moves to make (tests/races/test_race_live.py)


def race_code(url: str) -> str:
    return re.search(r"/races/([A-Z0-9]{6})/", url).group(1)


async def act(ws, frame: dict) -> dict:
    """Send a move or an undo and return its ack, waiting out the countdown if it is still on."""
    for _ in range(100):
        await ws.send(json.dumps(frame))
        while True:
            answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if answer["type"] in ("ack", "error"):
                break
        if answer["type"] == "ack":
            return answer
        assert answer["code"] == "not_started", answer
        await asyncio.sleep(0.1)
    raise AssertionError("the race never started")


async def run_race(base: str) -> tuple[str, dict[str, dict[int, dict]], dict[str, str]]:
    """Ann (a move, another, an undo, a third), Bob (two moves) and Carol (one) race; Bob,
    Carol, then Ann resign. Per racer (by the name they raced under), the view the server
    answered after each log row; and those names ("Ann": "Ann 7": a chosen name is one
    player's, and the live server keeps earlier tests' players)."""
    visitors = {name: Visitor() for name in ("Ann", "Bob", "Carol")}
    names = {name: named(name) for name in visitors}
    ann = visitors["Ann"]
    ann.get(f"{base}/races/new/")
    fields = {"variant": "penelopes-web", "deal": "seed", "seed": SEED, "max_players": 8}
    fields |= {"time_limit": "300", "visibility": "link", "name": names["Ann"]}
    code = race_code(ann.post(f"{base}/races/new/", fields))
    for name in ("Bob", "Carol"):
        visitors[name].get(f"{base}/races/{code}/")
        visitors[name].post(f"{base}/races/{code}/join/", {"name": names[name]})
    sockets = {name: await v.socket(base, code) for name, v in visitors.items()}
    views: dict[str, dict[int, dict]] = {}
    last: dict[str, dict] = {}
    try:
        for ws in sockets.values():
            await expect(ws, "snapshot")
        for ws in sockets.values():
            await ws.send(json.dumps({"type": "ready"}))
        for name, ws in sockets.items():
            state = await expect(ws, "state")
            views[name] = {state["seq"]: state["view"]}
            last[name] = state

        async def move(name: str, undo: bool = False) -> None:
            seq = last[name]["seq"]
            frame = {"type": "undo", "seq": seq}
            if not undo:
                frame = {"type": "move", "move": last[name]["legal"][0], "seq": seq}
            ack = await act(sockets[name], frame)
            views[name][ack["seq"]] = ack["view"]
            last[name] = ack
            await asyncio.sleep(0.5)  # moments apart on the race's clock (4 s in all)

        await move("Ann")
        await move("Bob")
        await move("Ann")
        await move("Carol")
        await move("Ann", undo=True)
        await move("Bob")
        await move("Ann")
        for name in ("Bob", "Carol", "Ann"):
            await sockets[name].send(json.dumps({"type": "resign"}))
            await asyncio.sleep(0.1)
        await expect(sockets["Ann"], "finished")
    finally:
        for ws in sockets.values():
            await ws.close()
    return code, {names[name]: view for name, view in views.items()}, names


def board_piles(page, racer_id: str) -> dict[str, list[str]]:
    """The cards a racer's board draws, per pile (`data-card`, "??" face down)."""
    return page.evaluate(
        """(id) => {
          const out = {};
          const fig = document.querySelector(`.rr-board[data-racer="${id}"]`);
          for (const pile of fig.querySelectorAll("[data-pile]")) {
            out[pile.dataset.pile] = [...pile.querySelectorAll(":scope > .card")].map((c) => c.dataset.card);
          }
          return out;
        }""",
        racer_id,
    )


def expected_piles(view: dict) -> dict[str, list[str]]:
    """What a board must draw of the server's view: the tableau (face-down cards as backs) and
    each foundation's top card."""
    out = {f"t{i}": pile for i, pile in enumerate(view["tableau"])}
    for i, pile in enumerate(view["foundations"]):
        out[f"f{i}"] = pile[-1:]
    return out


def check_boards(page, data: dict, views: dict[str, dict[int, dict]], ms: int) -> None:
    assert page.get_attribute("#race-replay", "data-t") == str(ms)
    for racer in data["racers"]:
        shown = sum(1 for step in racer["steps"] if step[1] <= ms)
        fig = f'.rr-board[data-racer="{racer["id"]}"]'
        assert page.get_attribute(fig, "data-frame") == str(shown), (racer["name"], ms)
        drawn = board_piles(page, racer["id"])
        for pile, cards in expected_piles(views[racer["name"]][shown]).items():
            got = drawn[pile] if pile.startswith("t") else drawn[pile][-1:]
            assert got == cards, (racer["name"], ms, pile)


def test_the_race_again_shows_each_board_as_the_server_had_it(make_page, live_url):
    # Its own thread and event loop: Playwright's sync API keeps one running in this thread.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        code, views, names = pool.submit(asyncio.run, run_race(live_url)).result()
    data = json.loads(Visitor().get(f"{live_url}/api/races/{code}/replay/"))
    ann = data["racers"][0]
    assert [step[0] for step in ann["steps"]].count("undo") == 1
    assert {r["status"] for r in data["racers"]} == {"resigned"}

    page = make_page()
    page.goto(f"{live_url}/races/{code}/results/")
    page.click("text=Watch the race again")
    page.wait_for_selector('#race-replay[data-ready="1"]')
    assert page.locator(".rr-board").count() == 3
    check_boards(page, data, views, 0)

    # Moments: just after Ann's second move, at her undo (the board goes back), the end.
    second, undo = ann["steps"][1][1], ann["steps"][2][1]
    for ms in (second, undo, data["end_ms"]):
        page.goto(f"{live_url}/replay/race/{code}/?t={ms}")
        page.wait_for_selector('#race-replay[data-ready="1"]')
        check_boards(page, data, views, ms)
    page.goto(f"{live_url}/replay/race/{code}/?t={undo}")
    page.wait_for_selector('#race-replay[data-ready="1"]')
    ann_board = f'.rr-board[data-racer="{ann["id"]}"]'
    assert page.get_attribute(ann_board, "data-move") == "undo"
    assert "undo" in page.text_content(f"{ann_board} .rr-now")
    assert page.locator(".rr-lane .rr-undo").count() == 1
    assert f"{names['Ann']} resigned" in page.text_content("#rr-moments")

    # Keys: Home, → to the first move on any board, End; Space plays and pauses.
    page.keyboard.press("Home")
    assert page.get_attribute("#race-replay", "data-t") == "0"
    page.keyboard.press("ArrowRight")
    first = min(step[1] for r in data["racers"] for step in r["steps"])
    assert page.get_attribute("#race-replay", "data-t") == str(first)
    assert page.text_content("#rr-live").startswith("0:0")
    page.keyboard.press("End")
    check_boards(page, data, views, data["end_ms"])
    assert "resigned" in page.text_content("#rr-standings")
    order = page.eval_on_selector_all("#rr-standings li", "rows => rows.map(r => r.dataset.racer)")
    assert order == [r["id"] for r in sorted(data["racers"], key=lambda r: r["place"])]
    # A name in the standings keeps the keyboard's focus as they are drawn again.
    page.keyboard.press("Home")
    name = page.locator("#rr-standings li a").first
    href = name.get_attribute("href")
    name.focus()
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.getAttribute('href')") == href
    page.evaluate("document.activeElement.blur()")  # Space on a focused link is the link's
    # Space plays (1x: the race lasts seconds) and pauses; 16x plays on to the end and stops.
    page.keyboard.press("Home")
    page.keyboard.press(" ")
    page.wait_for_function("Number(document.querySelector('#race-replay').dataset.t) > 0")
    page.keyboard.press(" ")
    assert page.get_attribute("#race-replay", "data-playing") == "0"
    paused = int(page.get_attribute("#race-replay", "data-t"))
    assert 0 < paused < data["end_ms"] and f"t={paused}" in page.url
    page.wait_for_timeout(300)
    assert page.get_attribute("#race-replay", "data-t") == str(paused)
    page.check('input[name="rr-speed"][value="16"]')
    page.click('[data-step="play"]')
    page.wait_for_selector('#race-replay[data-playing="0"]')
    assert page.get_attribute("#race-replay", "data-t") == str(data["end_ms"])
    assert page.text_content("#rr-live").startswith("The end.")

    # The story: one sentence a racer, and each racer's row links to the race with their board.
    assert page.locator("#rr-verdicts li").count() == 3
    assert f"{names['Ann']}'s game is still being analysed" in page.text_content("#rr-verdicts")
    losing_move_shown(page, live_url, code, data, names["Ann"])
    phone = make_page(390, 844)
    carol = data["racers"][2]
    phone.goto(f"{live_url}/races/{code}/results/")
    phone.click(f'a[href$="?racer={carol["id"]}"]')
    phone.wait_for_selector('#race-replay[data-ready="1"]')
    assert phone.get_attribute("#race-replay", "data-big") == carol["id"]
    big = phone.locator(".rr-board.big").bounding_box()
    bob = phone.locator(f'.rr-board[data-racer="{data["racers"][1]["id"]}"]')
    assert bob.bounding_box()["width"] < big["width"] / 2
    bob.click()
    assert phone.get_attribute("#race-replay", "data-big") == data["racers"][1]["id"]
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def losing_move_shown(page, live_url: str, code: str, data: dict, ann: str) -> None:
    """Ann's losing move, as if the search had stored her second move (the live server runs
    none: REPLAY_ANALYSIS=0 in tests): her sentence names it by its cards, a mark on her lane,
    and its button shows that moment with her board large."""

    def stored(route) -> None:
        response = route.fetch()
        body = response.text().replace(
            '"analysed":false,"losing_frame":null', '"analysed":true,"losing_frame":2', 1
        )
        route.fulfill(response=response, body=body)

    page.route(re.compile(rf"/replay/race/{code}/"), stored)
    page.goto(f"{live_url}/replay/race/{code}/")
    page.wait_for_selector('#race-replay[data-ready="1"]')
    verdicts = page.text_content("#rr-verdicts")
    lost = (
        rf"{re.escape(ann)}'s 2nd move, .+, lost the game: before it the deal was still winnable\."
    )
    assert re.search(lost, verdicts)
    assert page.locator(".rr-lane .rr-lost").count() == 1
    page.locator("#rr-verdicts li.rr-lost button").click()
    assert page.get_attribute("#race-replay", "data-t") == str(data["racers"][0]["steps"][1][1])
    assert page.get_attribute("#race-replay", "data-big") == data["racers"][0]["id"]
    page.unroute(re.compile(rf"/replay/race/{code}/"))
