"""Foundations that each take one suit (every variant but Eighty Thieves and Spiderweb).

The solver keeps them as ``found`` (cards home per suit) and ``fmap`` (which foundation pile
holds each suit, -1 before the suit starts). Only ``found`` enters the canonical key: which
pile a suit went to changes nothing but the names in the notation.
"""

from collections.abc import Callable


class SuitFoundations:
    nfound: int

    def read_foundations(
        self, foundations: list[list[str]], parse: Callable[[str], int]
    ) -> tuple[list[int], list[int]]:
        """``found`` and ``fmap`` of a state dict's foundations."""
        self.nfound = len(foundations)
        found = [0, 0, 0, 0]
        fmap = [-1, -1, -1, -1]
        for i, f in enumerate(foundations):
            if f:
                s = parse(f[-1]) & 3
                found[s] = len(f)
                fmap[s] = i
        return found, fmap

    def up(self, card: int, found: list[int], fmap: list[int]) -> int:
        """Put ``card`` on its suit's foundation (the first free pile if the suit has none
        yet: any empty pile may start a suit); the pile's index."""
        s = card & 3
        if fmap[s] < 0:
            used = set(fmap)
            fmap[s] = next(i for i in range(self.nfound) if i not in used)
        found[s] += 1
        return fmap[s]
