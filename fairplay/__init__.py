"""Fair play: an assessment of every ranked result from the server's own record, a review queue
for people, and players' reports (docs/fair-play.md)."""
