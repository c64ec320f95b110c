"""Contrast of the text axe-core cannot judge on the card table (docs/frontend.md,
"Accessibility"): it gives up on text over the felt, whose background is a gradient, and on a
card's letters that the next card in a fan covers in part. `board_texts(page)` lists every
text on the visible tables with its colour and what is behind it; `worst_contrast(text)`
composes them (the felt at its lightest and darkest points, a pile's slot tint, a court card's
tint, a corner's opacity) as WCAG 2 does, and `required(text)` is 4.5:1, or 3:1 for large text.
"""

from __future__ import annotations

import re

# The felt's gradient (css/board.css, .board): up to 10 % white at the top, 25 % black at the
# bottom, over --table-felt.
FELT_EXTREMES = ((255, 255, 255, 0.10), (0, 0, 0, 0.25), (0, 0, 0, 0.0))

BOARD_TEXTS = """() => {
  const out = [];
  const colour = (el, prop = "color") => getComputedStyle(el)[prop];
  for (const board of document.querySelectorAll(".board")) {
    if (board.offsetParent === null) continue;
    const walker = document.createTreeWalker(board, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!node.textContent.trim() || el.offsetParent === null) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") continue;
      const layers = [];  // backgrounds between the text and the felt, nearest first
      let opacity = 1;
      let felt = true;
      for (let up = el; up && up !== board; up = up.parentElement) {
        const s = getComputedStyle(up);
        opacity *= Number(s.opacity);
        layers.push(s.backgroundColor);
        if (up.classList.contains("card")) { felt = false; break; }
        if (up.classList.contains("pile")) {
          layers.push(getComputedStyle(up, "::before").getPropertyValue("--slot-fill"));
        }
      }
      out.push({
        text: node.textContent.trim().slice(0, 40),
        where: `${el.className} in ${el.closest("[data-pile]")?.dataset.pile || "board"}`,
        color: style.color,
        opacity,
        layers,
        felt,
        table: getComputedStyle(board).getPropertyValue("--table-felt"),
        size: parseFloat(style.fontSize),
        weight: Number(style.fontWeight),
      });
    }
  }
  return out;
}"""


def parse_colour(text: str) -> tuple[float, float, float, float]:
    """(r, g, b, alpha) of a computed CSS colour: rgb(), rgba(), color(srgb …) or #rrggbb."""
    text = text.strip()
    if text.startswith("#"):
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16), 1.0)
    numbers = [float(n) for n in re.findall(r"[\d.]+", text.split("(", 1)[1])]
    if text.startswith("color("):  # color(srgb r g b / a), channels 0–1
        r, g, b = (n * 255 for n in numbers[:3])
    else:
        r, g, b = numbers[:3]
    alpha = numbers[3] if len(numbers) > 3 else 1.0
    return (r, g, b, alpha)


def over(top: tuple[float, float, float, float], under: tuple[float, float, float]):
    r, g, b, a = top
    return tuple(a * c + (1 - a) * u for c, u in zip((r, g, b), under, strict=True))


def luminance(rgb) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def backdrops(text: dict) -> list[tuple[float, float, float]]:
    """What is behind the text: one colour for a card (its face is opaque), the felt's
    lightest, darkest and plain points for text on the table."""
    layers = [parse_colour(c) for c in text["layers"] if c.strip()]
    if text["felt"]:
        table = parse_colour(text["table"])[:3]
        bases = [over(shade, table) for shade in FELT_EXTREMES]
    else:
        bases = [layers.pop()[:3]]  # the card's face
    result = []
    for base in bases:
        colour = base
        for layer in reversed(layers):
            colour = over(layer, colour)
        result.append(colour)
    return result


def worst_contrast(text: dict) -> float:
    fg = parse_colour(text["color"])
    alpha = fg[3] * text["opacity"]
    return min(ratio(over((*fg[:3], alpha), bg), bg) for bg in backdrops(text))


def required(text: dict) -> float:
    """WCAG 1.4.3: 3:1 for large text (24 px, or 18.66 px bold), 4.5:1 otherwise."""
    large = text["size"] >= 24 or (text["size"] >= 18.66 and text["weight"] >= 700)
    return 3.0 if large else 4.5
