"""A refused form takes its reader to what went wrong: the page comes back with an error summary
at the form's top ("There is a problem"), which has the focus, and lists each error, a field's
as a link naming the field to its input; each refused field is aria-invalid and described by its
own error (a radio group: its fieldset). The same include on every form (_error_summary.html);
without scripts it all stands, as the server's HTML shows."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.fairplay.conftest import rated_race_game  # noqa: F401  (fixture)

VOID = {"input", "br", "img", "meta", "link", "hr", "source", "wbr", "col", "area", "base"}


class Page(HTMLParser):
    """Every element's tag and attributes in page order, its text, and what it is within."""

    def __init__(self, html: str):
        super().__init__()
        self.elements: list[dict] = []
        self.open: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "within": list(self.open)}
        self.elements.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag):
        while self.open and self.open.pop()["tag"] != tag:
            pass

    def handle_data(self, data):
        for element in self.open:
            element["text"] += data

    def by_id(self, ref: str) -> dict:
        return next(e for e in self.elements if e["attrs"].get("id") == ref)

    def text(self, element: dict) -> str:
        return " ".join(element["text"].split())

    def inside(self, outer: dict, tag: str) -> list[dict]:
        return [
            e
            for e in self.elements
            if e["tag"] == tag and any(around is outer for around in e["within"])
        ]

    def fieldset(self, element: dict) -> dict:
        return next(e for e in reversed(element["within"]) if e["tag"] == "fieldset")


def refused_nickname(client, **_):
    return client.post(reverse("nickname"), {"nickname": "!no"})


def refused_login(client, **_):
    return client.post(reverse("login"), {"username": "", "password": ""})


def refused_signup(client, **_):
    data = {"username": "carol", "password1": "correct-horse-9", "password2": "other-horse-9"}
    return client.post(reverse("signup"), data)


def refused_race(client, **_):
    # a deal number of one's choice without the number, and no visibility (a radio group)
    data = {"variant": "penguin", "deal": "seed", "max_players": "8"}
    return client.post(reverse("races:new"), data)


def refused_arena(client, **_):
    data = {"variant": "penguin", "starts_at": "2000-01-01T00:00", "minutes": "30"}
    return client.post(reverse("arenas:new"), data | {"race_time_limit_s": "300"})


def refused_report(client, make_account, rated_race_game):  # noqa: F811
    client.force_login(make_account().user)
    url = reverse("fairplay:report", args=[rated_race_game().public_id])
    return client.post(url, {"reason": "nonsense", "note": ""})


REFUSALS = {
    "nickname": (refused_nickname, {"id_nickname": "Nickname"}),
    "login": (refused_login, {"id_username": "Username", "id_password": "Password"}),
    "signup": (refused_signup, {"id_password2": "Password confirmation"}),
    "race": (refused_race, {"id_seed": "Deal number", "id_visibility_0": "Visibility"}),
    "arena": (refused_arena, {"id_starts_at": "Starts at (UTC)", "id_visibility_0": "Visibility"}),
    "report": (refused_report, {"report-reason": "Why"}),
}


def summary_of(page: Page) -> dict:
    (summary,) = [e for e in page.elements if e["attrs"].get("id") == "error-summary"]
    return summary


@pytest.mark.django_db
@pytest.mark.parametrize("name", REFUSALS)
def test_a_refused_form_leads_to_each_refused_field(client, make_account, rated_race_game, name):  # noqa: F811
    """The summary comes first in the form, takes the focus as the page loads, is named
    "There is a problem", and links each refused field by its label to its input; each such
    input is aria-invalid and described (itself, or its radio group's fieldset) by its own
    error, which is on the page."""
    refuse, fields = REFUSALS[name]
    answer = refuse(client, make_account=make_account, rated_race_game=rated_race_game)
    assert answer.status_code in (200, 400)
    page = Page(answer.content.decode())
    summary = summary_of(page)
    assert summary["attrs"].get("tabindex") == "-1" and "autofocus" in summary["attrs"]
    assert page.text(page.by_id(summary["attrs"]["aria-labelledby"])) == "There is a problem"
    form_fields = [e for e in page.elements if e["tag"] in ("input", "select", "textarea")]
    first_field = next(e for e in form_fields if e["attrs"].get("type") != "hidden")
    assert page.elements.index(summary) < page.elements.index(first_field)
    autofocused = [e for e in page.elements if "autofocus" in e["attrs"]]
    assert autofocused[0] is summary, "a field's autofocus would win over the summary's"

    links = {e["attrs"]["href"].removeprefix("#"): page.text(e) for e in page.inside(summary, "a")}
    assert set(links) == set(fields)
    for ref, label in fields.items():
        field = page.by_id(ref)
        assert field["attrs"].get("aria-invalid") == "true", ref
        described = page.fieldset(field) if field["attrs"].get("type") == "radio" else field
        error_id = re.sub(r"_0$", "", ref) + "_error"
        assert error_id in described["attrs"].get("aria-describedby", "").split(), ref
        error = page.text(page.by_id(error_id))
        assert error and links[ref] == f"{label}: {error}"
    invalid = {e["attrs"]["id"] for e in form_fields if e["attrs"].get("aria-invalid")}
    assert {re.sub(r"_\d+$", "", ref) for ref in invalid} == {
        re.sub(r"_0$", "", ref) for ref in fields
    }


@pytest.mark.django_db
def test_a_forms_own_refusal_is_in_the_summary_without_a_link(client, make_account):
    """A wrong password is the form's error, no field's: the summary says it, links nothing."""
    make_account("dora")
    answer = client.post(reverse("login"), {"username": "dora", "password": "wrong-pass-1"})
    page = Page(answer.content.decode())
    assert not page.inside(summary_of(page), "a")
    items = page.inside(summary_of(page), "li")
    assert len(items) == 1
    assert "correct username and password" in page.text(items[0])


@pytest.mark.django_db
def test_a_form_not_refused_has_no_summary(client):
    assert 'id="error-summary"' not in client.get(reverse("races:new")).content.decode()


# ------------------------------------------------------------------ in Chromium


def submit(page):
    page.click("form.card-form button[type=submit]")
    page.wait_for_load_state()


def refuse_in_browser(page, live_url: str, name: str) -> None:
    if name == "nickname":
        page.goto(f"{live_url}/accounts/nickname/")
        page.fill("#id_nickname", "!no")
    elif name == "signup":
        page.goto(f"{live_url}/accounts/signup/")
        page.fill("#id_username", "carol")
        page.fill("#id_password1", "correct-horse-9")
        page.fill("#id_password2", "other-horse-9")
    elif name == "race":
        page.goto(f"{live_url}/races/new/")
        page.check("input[name=deal][value=seed]")
        page.check("#id_rated")
    elif name == "arena":
        page.goto(f"{live_url}/arenas/new/")
        page.fill("#id_starts_at", "2000-01-01T00:00")
        # no visibility, past the browser's own check: a radio group refused by the server
        page.evaluate(
            "() => { document.getElementById('arena-form').noValidate = true;"
            " document.querySelectorAll('[name=visibility]').forEach(r => r.checked = false); }"
        )
    submit(page)


BROWSER_REFUSALS = {
    "nickname": {"id_nickname": "Nickname"},
    "signup": {"id_password2": "Password confirmation"},
    "race": {"id_seed": "Deal number", "id_rated": "Rated"},
    "arena": {"id_starts_at": "Starts at (UTC)", "id_visibility_0": "Visibility"},
}


@pytest.mark.browser
@pytest.mark.parametrize("name", BROWSER_REFUSALS)
def test_a_refused_form_takes_the_focus_to_its_summary(make_page, live_url, name):
    """Submitted and refused, the page has the focus on the summary; each of its links names
    its field and, followed with Enter, puts the focus on that field, which is invalid and
    described by its error (a radio group: the group is)."""
    from playwright.sync_api import expect

    page = make_page()
    refuse_in_browser(page, live_url, name)
    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    expect(summary).to_have_accessible_name("There is a problem")
    links = summary.get_by_role("link")
    expect(links).to_have_count(len(BROWSER_REFUSALS[name]))
    for ref, label in BROWSER_REFUSALS[name].items():
        link = summary.locator(f'a[href="#{ref}"]')
        expect(link).to_contain_text(label)
        link.focus()
        page.keyboard.press("Enter")
        field = page.locator(f"#{ref}")
        expect(field).to_be_focused()
        expect(field).to_have_attribute("aria-invalid", "true")
        error = page.locator(f"#{ref.removesuffix('_0')}_error").inner_text().strip()
        assert error, ref
        described = page.get_by_role("group", name=label) if ref.endswith("_0") else field
        expect(described).to_have_accessible_description(re.compile(re.escape(error)))


@pytest.mark.browser
def test_a_refused_log_in_takes_the_focus_to_why(make_page, live_url):
    """A wrong password: the focus is on the summary, which says why, before the username's own
    autofocus."""
    from playwright.sync_api import expect

    page = make_page()
    page.goto(f"{live_url}/accounts/login/")
    page.fill("#id_username", "nobody-here")
    page.fill("#id_password", "wrong-pass-1")
    submit(page)
    summary = page.locator("#error-summary")
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("correct username and password")
