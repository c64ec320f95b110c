"""axe-core in the browser tests: the site's pages listed from the URL configuration, checked
at a desktop and a phone width (tests/browser/test_accessibility.py).

`axe_source()` is the pinned axe-core (package.json, installed by `make install` with
`npm ci`); `run_axe(page)` injects it and returns what fails: every violation, and every
"needs review" result of critical or serious impact that `FALSE_ALARMS` does not explain
(docs/frontend.md says why each is one). `site_routes()` walks Django's URL resolver and
`route_path(route, values)` fills a route's path parameters (from seeded data:
tests/seeded_site.py), so a new page is checked without anyone adding it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from tests.required import unavailable

ROOT = Path(__file__).resolve().parent.parent
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0 and 2.1, levels A and AA, plus axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
SERIOUS = {"critical", "serious"}
# Django's own admin is not the product's: its pages are Django's to fix.
SKIPPED_NAMESPACES = {"admin"}


@dataclass(frozen=True)
class FalseAlarm:
    """A "needs review" result that is not a problem: axe-core's `rule` on a node that matches
    the CSS `selector`, for one of the `reasons` (axe's messageKey). docs/frontend.md
    ("Accessibility") says why each is one."""

    rule: str
    selector: str
    reasons: frozenset[str]
    why: str


FALSE_ALARMS = (
    FalseAlarm(
        "color-contrast",
        ".board *",
        frozenset({"bgGradient", "bgOverlap", "elmPartiallyObscured", "shortTextContent"}),
        "text on the card table: the felt is a gradient and fanned cards cover each other, "
        "which axe cannot see through; tests/accessibility/test_board_contrast.py computes it",
    ),
    FalseAlarm(
        "color-contrast",
        "svg[role=img] text",
        frozenset({"imgNode", "shortTextContent"}),
        "a chart's axis labels, inside an image; the chart test checks their fill on white",
    ),
    FalseAlarm(
        "color-contrast",
        "kbd",
        frozenset({"nonBmp"}),
        "the arrow keys' symbols in the help, which axe does not judge; every kbd has the same "
        "colours, which axe passes on the letter keys beside them",
    ),
)


@functools.cache
def axe_source() -> str:
    if not AXE_JS.exists():
        unavailable(f"{AXE_JS.relative_to(ROOT)} is missing: run `make install` (npm ci)")
    return AXE_JS.read_text()


@dataclass(frozen=True)
class Finding:
    kind: str  # "violation" or "needs review"
    rule: str
    impact: str
    targets: tuple[str, ...]
    summary: str

    def __str__(self) -> str:
        nodes = ", ".join(self.targets[:4]) + (" …" if len(self.targets) > 4 else "")
        return f"{self.kind} {self.rule} ({self.impact}, {len(self.targets)}): {nodes} — {self.summary}"


def run_axe(page) -> list[Finding]:
    """axe-core's findings on the page as it is now: violations, and serious needs-review
    results that are not known false alarms."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source())
    results = page.evaluate(
        """async ([tags, falseAlarms]) => {
            const r = await axe.run(document, {
                runOnly: {type: "tag", values: tags},
                resultTypes: ["violations", "incomplete"],
            });
            const alarms = (rule, n) => {
                const el = n.target.length === 1 ? document.querySelector(n.target[0]) : null;
                const reasons = [...n.any, ...n.all, ...n.none].map((c) => c.data?.messageKey);
                return falseAlarms.filter(([id, selector, known]) => id === rule.id && el
                    && el.matches(selector) && reasons.some((k) => known.includes(k))).length;
            };
            const keep = (list) => list.map((rule) => ({
                rule: rule.id, impact: rule.impact || "", help: rule.help,
                nodes: rule.nodes.map((n) => ({
                    target: n.target.join(" "), impact: n.impact || rule.impact || "",
                    message: [...n.any, ...n.all, ...n.none].map((c) => c.message).join("; "),
                    explained: alarms(rule, n) > 0,
                })),
            }));
            return {violations: keep(r.violations), incomplete: keep(r.incomplete)};
        }""",
        [AXE_TAGS, [[a.rule, a.selector, sorted(a.reasons)] for a in FALSE_ALARMS]],
    )
    findings = [
        Finding(
            "violation",
            rule["rule"],
            rule["impact"],
            tuple(n["target"] for n in rule["nodes"]),
            rule["nodes"][0]["message"] or rule["help"],
        )
        for rule in results["violations"]
    ]
    for rule in results["incomplete"]:
        nodes = [n for n in rule["nodes"] if n["impact"] in SERIOUS and not n["explained"]]
        if nodes:
            findings.append(
                Finding(
                    "needs review",
                    rule["rule"],
                    nodes[0]["impact"],
                    tuple(n["target"] for n in nodes),
                    nodes[0]["message"] or rule["help"],
                )
            )
    return findings


@dataclass(frozen=True)
class Route:
    name: str  # "namespace:name", or the pattern itself for an unnamed route
    pattern: str  # "races/<str:code>/"
    params: tuple[str, ...]


def site_routes() -> list[Route]:
    """Every route of the URL configuration outside `SKIPPED_NAMESPACES`, in order."""
    from django.urls import get_resolver
    from django.urls.resolvers import URLPattern, URLResolver

    routes: list[Route] = []

    def walk(patterns, prefix: str, namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = entry.namespace or ""
                if inner in SKIPPED_NAMESPACES:
                    continue
                full = f"{namespace}:{inner}" if namespace and inner else inner or namespace
                walk(entry.url_patterns, prefix + str(entry.pattern), full)
            elif isinstance(entry, URLPattern):
                pattern = prefix + str(entry.pattern)
                if entry.name:
                    name = f"{namespace}:{entry.name}" if namespace else entry.name
                else:
                    name = pattern
                params = tuple(re.findall(r"<(?:\w+:)?(\w+)>", pattern))
                routes.append(Route(name, pattern, params))

    walk(get_resolver().url_patterns, "", "")
    return routes


def route_path(route: Route, values: dict[str, str]) -> str:
    """The route's address with each `<converter:name>` replaced by `values[name]`."""
    missing = [p for p in route.params if p not in values]
    if missing:
        raise KeyError(f"{route.name} ({route.pattern}): no sample value for {missing}")
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), route.pattern)
