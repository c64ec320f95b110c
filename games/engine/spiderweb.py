"""Spiderweb: one-deck Spider with two empty piles and the empty foundations as cells."""

from .cards import KING, NAMES, PRETTY, RANK
from .errors import IllegalMove
from .game import Game
from .notation import DEAL, FT, SUFFIX, TF, TT


class Spiderweb(Game):
    """Runs in suit move as a unit onto a card one rank above their back card, any suit, or
    onto an empty pile; an empty foundation is a cell for one card; a complete suit goes to a
    foundation holding no card and stays there."""

    VARIANT = "spiderweb"
    NAME = "Spiderweb"
    TABLEAU = 7
    PILE_SIZES = (6, 6, 5, 5, 5, 0, 0)
    DEALT_DOWN = (5, 5, 4, 4, 4, 0, 0)
    FOUNDATION_CELLS = True
    HAS_STOCK = True
    MAX_STOCK = 25
    DEAL_ONTO = 5
    SUMMARY = (
        "One-deck Spider: build complete suits from King to Ace under cover of face-down "
        "cards; two piles start empty and empty foundations serve as cells."
    )

    @classmethod
    def _check_foundations(cls, foundations):
        for i, pile in enumerate(foundations):
            if len(pile) > 1 and (
                RANK[pile[0]] != KING or pile != list(range(pile[0], pile[0] - 13, -1))
            ):
                raise ValueError(
                    f"foundation {i} of Spiderweb must be empty, a single card (a cell) or a "
                    "complete suit from King to Ace: " + " ".join(NAMES[c] for c in pile)
                )

    def foundation_count(self):
        """Cards in completed suits; a single card in a foundation used as a cell is not
        counted."""
        return sum(len(p) for p in self.f if len(p) == 13)

    def run_length(self, pile: list[int], down: int) -> int:
        """How many front cards of ``pile`` are face up, of one suit, consecutive upwards."""
        n = 1 if pile else 0
        for k in range(len(pile) - 1, down, -1):
            if pile[k - 1] != pile[k] + 1 or RANK[pile[k]] == KING:
                break
            n += 1
        return n

    def legal_moves(self):
        out = []
        onto: dict[int, list[int]] = {}  # a rank -> the piles whose front card is one above it
        empty_t = []
        for i, pile in enumerate(self.t):
            if pile:
                r = RANK[pile[-1]] - 1
                if r in onto:
                    onto[r].append(i)
                else:
                    onto[r] = [i]
            else:
                empty_t.append(i)
        empty_f = [j for j, p in enumerate(self.f) if not p]
        down = self.down
        for i, pile in enumerate(self.t):
            if not pile:
                continue
            names = TT[i]
            top = len(pile) - 1
            card = pile[top]
            k = 1
            while True:  # the runs of 1, 2, … front cards
                suffix = SUFFIX[k]
                for j in onto.get(RANK[card], ()):
                    out.append(names[j] + suffix)
                for j in empty_t:
                    out.append(names[j] + suffix)
                if top - k < down[i] or pile[top - k] != card + 1 or RANK[card] == KING:
                    break
                card += 1
                k += 1
            names = TF[i]
            for j in empty_f:
                out.append(names[j])
            if k == 13:
                for j in empty_f:
                    out.append(names[j] + ":13")
        for j, cell in enumerate(self.f):
            if len(cell) == 1:
                names = FT[j]
                for i in onto.get(RANK[cell[0]], ()):
                    out.append(names[i])
                for i in empty_t:
                    out.append(names[i])
        if self.stock:
            out.append(DEAL)
        return out

    def _check(self, sk, si, src, dk, di, dst, n):
        if sk == "f":
            if len(src) != 1:
                raise IllegalMove("a completed suit stays on its foundation")
            if dk != "t":
                raise IllegalMove("a card in a cell may only go back to the tableau")
        elif n > 1 and self.run_length(src, self.down[si]) < n:
            raise IllegalMove(
                f"the {n} front cards of t{si} are not face-up cards of one suit in sequence"
            )
        back = src[-n]
        if dk == "t":
            if dst and RANK[dst[-1]] != RANK[back] + 1:
                raise IllegalMove(f"{PRETTY[back]} cannot go on {PRETTY[dst[-1]]}")
        elif dst:
            what = "holds a card (a cell)" if len(dst) == 1 else "holds a completed suit"
            raise IllegalMove(f"f{di} {what}: only an empty foundation takes cards")
        elif n != 1 and n != 13:
            raise IllegalMove("only a single card or a complete suit goes to a foundation")
