// "Finding a deal the solver can win…": the page the winnable-deal address shows while the
// background search runs. It asks the server for news every couple of seconds and, once the
// pool has a deal or the search has ended without one, goes back to that address (which deals
// the deal, or says none was proved). Without this script a meta refresh does the same.

const box = document.getElementById("finding-winnable");

async function poll() {
  try {
    const response = await fetch(box.dataset.statusUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      const { status } = await response.json();
      if (status !== "searching") {
        location.replace(box.dataset.nextUrl);
        return;
      }
    }
  } catch (err) {
    // offline for a moment: the next round asks again
  }
  setTimeout(poll, Number(box.dataset.pollMs));
}

if (box) setTimeout(poll, Number(box.dataset.pollMs));
