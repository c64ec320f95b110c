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

/** Put `children` in place of `parent`'s: a link of the old ones that had the focus (a keyboard
 * user going down a list drawn again and again) gives it to the new link with its address. */
export function replaceKeepingFocus(parent, children) {
  const focused = parent.contains(document.activeElement) ? document.activeElement : null;
  const href = focused?.getAttribute("href");
  parent.replaceChildren(...children);
  if (href) parent.querySelector(`a[href="${CSS.escape(href)}"]`)?.focus({ preventScroll: true });
}

/** node -> Map(property -> [the value set, the browser's form of it]), for `setStyle`. */
const styled = new WeakMap();

/** Set one property of `node`'s inline style, unless it has that value already. The browser
 * reads a value back in its own form ("9.615384615384615%" as "9.61538%"), so the value is
 * compared with the one set last, while the property still reads as it did after that. */
export function setStyle(node, property, value) {
  let set = styled.get(node);
  if (!set) styled.set(node, (set = new Map()));
  const last = set.get(property);
  if (last && last[0] === value && node.style[property] === last[1]) return;
  node.style[property] = value;
  set.set(property, [value, node.style[property]]);
}
