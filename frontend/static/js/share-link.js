// The replays' "Copy link" button: the page's address (which keeps the position shown) to the
// clipboard, or shown in the button where the clipboard is refused.

/** Make `button` copy the address; `before()` runs first (to write the moment into it). */
export function copyLinkButton(button, before = () => {}) {
  const label = button.textContent;
  button.addEventListener("click", async () => {
    before();
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = "Copied";
    } catch (err) {
      button.textContent = location.href;
    }
    setTimeout(() => (button.textContent = label), 2000);
  });
}
