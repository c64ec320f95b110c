// Card rendering: plain DOM + inline SVG, nothing downloaded.
//
// A card is the contract's two-character code ("TS" = ten of spades); "??" is a card the
// player may not see, drawn as a back. Every card element carries data-card with its code,
// so tests and other modules can find it.

import { counted } from "./words.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";

const RANK_LABEL = { T: "10" };
const RANK_NAME = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };

// Suit shapes in a 100×100 box; drawn with fill: currentColor so CSS picks the colour.
const SUIT_PATH = {
  S:
    "M50 3C41 20 7 38 7 61c0 14 10 23 22 23 8 0 14-4 18-9-1 9-5 16-13 21h32" +
    "c-8-5-12-12-13-21 4 5 10 9 18 9 12 0 22-9 22-23C93 38 59 20 50 3Z",
  H:
    "M50 92C22 68 4 51 4 30 4 15 15 5 28 5c10 0 18 6 22 14C54 11 62 5 72 5c13 0 24 10 24 25" +
    " 0 21-18 38-46 62Z",
  D: "M50 2 88 50 50 98 12 50Z",
  C:
    "M30 30a20 20 0 1 1 40 0a20 20 0 1 1-40 0ZM7 60a20 20 0 1 1 40 0a20 20 0 1 1-40 0Z" +
    "M53 60a20 20 0 1 1 40 0a20 20 0 1 1-40 0ZM42 36h16v30H42ZM54 62c0 16 5 26 14 33H32" +
    "c9-7 14-17 14-33Z",
};

export function isHidden(code) {
  return !code || code === "??";
}

/** {rank, suit, red, label, name} for a visible code, or null for "??". */
export function parseCard(code) {
  if (isHidden(code)) return null;
  const rank = code[0];
  const suit = code[1];
  return {
    rank,
    suit,
    red: suit === "D" || suit === "H",
    label: RANK_LABEL[rank] || rank,
    name: `${RANK_NAME[rank]} of ${SUIT_NAME[suit]}`,
  };
}

/** Short text for messages: "10♠", or "a face-down card". */
export function cardText(code) {
  const c = parseCard(code);
  return c ? `${c.label}${SUIT_SYMBOL[c.suit]}` : "a face-down card";
}

/** A number of cards: "1 card", "52 cards". */
export function cardCount(n) {
  return counted(n, "card", "cards");
}

/** A number of moves: "1 move", "40 moves". */
export function moveCount(n) {
  return counted(n, "move", "moves");
}

/** The rank's short label ("10" for T). */
export function rankLabel(rank) {
  return RANK_LABEL[rank] || rank;
}

/** An inline <svg> of one suit, sized by CSS. */
export function suitSvg(suit, className = "suit") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", SUIT_PATH[suit]);
  svg.appendChild(path);
  return svg;
}

function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * A card element. Face up: a corner strip (rank + suit, readable when fanned), a big centre
 * pip or court letter, and a turned corner at the bottom. "??": a patterned back with no
 * trace of the card.
 */
export function createCard(code) {
  const el = document.createElement("div");
  const c = parseCard(code);
  el.dataset.card = c ? code : "??";
  // An image named by its label: a screen reader reads "queen of hearts", not Q, Q and a letter.
  el.setAttribute("role", "img");
  if (!c) {
    el.className = "card face-down";
    el.setAttribute("aria-label", "face-down card");
    el.appendChild(span("card-back"));
    return el;
  }
  el.className = `card face-up suit-${c.suit} ${c.red ? "red" : "black"}`;
  el.setAttribute("aria-label", c.name);
  const corner = span("corner");
  corner.append(span("rank", c.label), suitSvg(c.suit, "suit corner-suit"));
  const centre = span("centre");
  if ("JQK".includes(c.rank)) {
    centre.classList.add("court");
    centre.append(span("court-letter", c.rank), suitSvg(c.suit, "suit court-suit"));
  } else {
    centre.append(suitSvg(c.suit, "suit pip"));
  }
  const foot = span("corner foot");
  foot.append(span("rank", c.label), suitSvg(c.suit, "suit corner-suit"));
  el.append(corner, centre, foot);
  return el;
}

const FOUR_COLOUR_KEY = "solitaire.fourColour";

/** Four-colour suits (♣ green, ♦ blue) as a saved preference, applied to <body>. */
export function fourColour() {
  try {
    return localStorage.getItem(FOUR_COLOUR_KEY) === "1";
  } catch {
    return false;
  }
}

export function setFourColour(on) {
  document.body.classList.toggle("four-colour", !!on);
  try {
    localStorage.setItem(FOUR_COLOUR_KEY, on ? "1" : "0");
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

export function applySavedCardPreferences() {
  document.body.classList.toggle("four-colour", fourColour());
}
