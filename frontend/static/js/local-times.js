// A page's moments in the reader's own time zone (js/times.js `localizeTimes`): the server
// writes them in UTC, as a page without scripts shows them.

import { localizeTimes } from "./times.js";

localizeTimes(document);
