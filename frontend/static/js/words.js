// Numbers in words as a sentence says them, one way for every page's script: counts ("1 card",
// "2 cards", "0 cards") and places ("1st", "22nd"). Plain functions, nothing runs on import.

/** The noun for `n` things: `singular` for exactly one, `plural` for any other number (0 too). */
export function noun(n, singular, plural) {
  return n === 1 ? singular : plural;
}

/** A number and its noun: "1 card", "52 cards", "0 cards". */
export function counted(n, singular, plural) {
  return `${n} ${noun(n, singular, plural)}`;
}

const ORDINAL = { one: "st", two: "nd", few: "rd", other: "th" };
const rules = new Intl.PluralRules("en", { type: "ordinal" });

/** 1 -> "1st", 22 -> "22nd", 13 -> "13th". */
export function ordinal(n) {
  return `${n}${ORDINAL[rules.select(n)]}`;
}
