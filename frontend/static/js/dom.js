// Writes that leave the page alone when nothing changed. Setting an element's text to the text it
// already has still makes the browser lay it out and paint it again: a clock ticking ten times a
// second for a display that changes once a second would repaint nine times for nothing (on a
// phone, its battery).

/** Set `node`'s text, unless it is that text already. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Show or hide `node`, unless it is so already. */
export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

/** Set one property of `node`'s inline style, unless it has that value already. */
export function setStyle(node, property, value) {
  if (node.style[property] !== value) node.style[property] = value;
}
