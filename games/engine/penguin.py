"""Penguin: one deck, circular ranks from the beak, runs in suit, seven cells."""

from functools import cache

from .cards import NAMES, PRETTY, RANK, RANK_LABELS, RANK_WORDS, SUIT, card_of
from .errors import IllegalMove
from .game import Game
from .notation import CC, CF, CT, SUFFIX, TC, TF, TT


def next_rank(rank: int) -> int:
    """The rank after ``rank``, circularly: … Q, K, A, 2 …"""
    return rank % 13 + 1


def previous_rank(rank: int) -> int:
    """The rank before ``rank``, circularly: the King before the Ace."""
    return (rank - 2) % 13 + 1


@cache
def sits_on_table(beak: int) -> tuple[int, ...]:
    """For every card, the one card it may sit on in the tableau (its suit, one rank above,
    circularly), or -1 where that card would have the beak's rank (nothing sits on it)."""
    table = []
    for card in range(52):
        above = next_rank(RANK[card])
        table.append(-1 if above == beak else card_of(above, SUIT[card]))
    return tuple(table)


def _to_free_cells(names: list[list[str]]) -> list[list[tuple[str, ...]]]:
    """``[source][free]``: the move names from that source to every cell whose bit is set in
    ``free`` (bit j: cell j is empty), so listing the cell moves is one lookup. (A cell that
    is a source is never empty, so ``c<i>-c<i>`` never appears.)"""
    return [
        [tuple(row[j] for j in range(7) if free >> j & 1) for free in range(128)] for row in names
    ]


TO_FREE_CELLS_FROM_T = _to_free_cells(TC[:7])
TO_FREE_CELLS_FROM_C = _to_free_cells(CC)


class Penguin(Game):
    """Runs of any length move as a unit onto the card their back card may sit on, or onto
    an empty pile if the back card is one rank below the beak; cells hold one card each;
    single cards go to the foundations, built up in suit from the beak's rank."""

    VARIANT = "penguin"
    NAME = "Penguin"
    TABLEAU = 7
    PILE_SIZES = (7,) * 7
    CELLS = 7
    SUMMARY = (
        "Seven piles dealt face up and seven cells: runs in suit of any length move as one, "
        "and foundations wrap round from the beak's rank."
    )

    @classmethod
    def _lay_out(cls, deck, seed):
        beak = deck[0]
        rank = RANK[beak]
        starters = [c for c in deck[1:] if RANK[c] == rank]
        rest = [beak] + [c for c in deck[1:] if RANK[c] != rank]
        tableau, _ = cls.deal_in_rounds(rest, cls.PILE_SIZES)
        foundations = [[c] for c in starters] + [[]]
        return cls(tableau, [0] * 7, foundations, [[] for _ in range(7)], [], [], seed)

    def _setup(self):
        self.beak = RANK[next(p[0] for p in self.f if p)]
        self.space_rank = previous_rank(self.beak)
        self.sits_on = sits_on_table(self.beak)

    @classmethod
    def _check_foundations(cls, foundations):
        started = [p for p in foundations if p]
        if len(started) < 3:
            raise ValueError(
                "Penguin starts with three foundations holding the beak's rank; "
                f"this state has only {len(started)} started"
            )
        beak = RANK[started[0][0]]
        for i, pile in enumerate(foundations):
            if not pile:
                continue
            expected = []
            rank = beak
            for _ in pile:
                expected.append(card_of(rank, SUIT[pile[0]]))
                rank = next_rank(rank)
            if pile != expected or len(pile) > 13:
                raise ValueError(
                    f"foundation {i} of Penguin is not built up in suit from the beak's rank "
                    f"({RANK_LABELS[beak - 1]}): " + " ".join(NAMES[c] for c in pile)
                )

    def run_length(self, pile: list[int]) -> int:
        """How many front cards of ``pile`` form a run (each may sit on the one behind it)."""
        sits_on = self.sits_on
        n = 1 if pile else 0
        for k in range(len(pile) - 1, 0, -1):
            if sits_on[pile[k]] != pile[k - 1]:
                break
            n += 1
        return n

    def _foundation_wants(self):
        """The empty foundations and, per card, the started foundation it would go on."""
        empty_f = []
        wanted = {}
        for j, pile in enumerate(self.f):
            if not pile:
                empty_f.append(j)
            elif len(pile) < 13:
                top = pile[-1]
                wanted[top + 1 if RANK[top] < 13 else top - 12] = j
        return empty_f, wanted

    def legal_moves(self):
        out = []
        sits_on = self.sits_on
        space_rank = self.space_rank
        beak = self.beak
        empty_f, wanted = self._foundation_wants()
        front = {}
        empty_t = []
        for i, pile in enumerate(self.t):
            if pile:
                front[pile[-1]] = i
            else:
                empty_t.append(i)
        free = 0  # bit j set: cell j is empty
        for j, cell in enumerate(self.c):
            if not cell:
                free |= 1 << j
        singles = []  # (card, its moves to the free cells, its move names to foundations)
        for i, pile in enumerate(self.t):
            if not pile:
                continue
            names = TT[i]
            k = 1
            top = len(pile) - 1
            while True:  # the runs of 1, 2, … front cards
                back = pile[top - k + 1]
                target = front.get(sits_on[back])
                if target is not None:
                    out.append(names[target] + SUFFIX[k])
                if RANK[back] == space_rank:
                    for j in empty_t:
                        out.append(names[j] + SUFFIX[k])
                if k > top or sits_on[back] != pile[top - k]:
                    break
                k += 1
            singles.append((pile[-1], TO_FREE_CELLS_FROM_T[i][free], TF[i]))
        for i, cell in enumerate(self.c):
            if not cell:
                continue
            card = cell[0]
            names = CT[i]
            target = front.get(sits_on[card])
            if target is not None:
                out.append(names[target])
            if RANK[card] == space_rank:
                for j in empty_t:
                    out.append(names[j])
            singles.append((card, TO_FREE_CELLS_FROM_C[i][free], CF[i]))
        for card, to_cells, to_foundation in singles:
            out += to_cells
            j = wanted.get(card)
            if j is not None:
                out.append(to_foundation[j])
            elif RANK[card] == beak:
                for j in empty_f:
                    out.append(to_foundation[j])
        return out

    def _check(self, sk, si, src, dk, di, dst, n):
        if n > 1:
            if sk != "t" or dk != "t":
                raise IllegalMove("only single cards go to a cell or a foundation")
            if self.run_length(src) < n:
                raise IllegalMove(f"the {n} front cards of t{si} are not a run in suit")
        back = src[-n]
        if dk == "t":
            if dst:
                if self.sits_on[back] != dst[-1]:
                    raise IllegalMove(f"{PRETTY[back]} cannot go on {PRETTY[dst[-1]]}")
            elif RANK[back] != self.space_rank:
                rank = RANK_WORDS[self.space_rank - 1]
                raise IllegalMove(f"only {rank}, one rank below the beak, may fill an empty pile")
        elif dk == "c":
            if dst:
                raise IllegalMove(f"c{di} already holds {PRETTY[dst[0]]}")
        elif dst:
            top = dst[-1]
            if len(dst) == 13:
                raise IllegalMove(f"{PRETTY[back]} cannot go on a finished foundation")
            if SUIT[back] != SUIT[top] or RANK[back] != next_rank(RANK[top]):
                raise IllegalMove(f"{PRETTY[back]} cannot go on {PRETTY[top]} on a foundation")
        elif RANK[back] != self.beak:
            rank = RANK_WORDS[self.beak - 1]
            raise IllegalMove(f"only {rank} (the beak's rank) may start a foundation")
