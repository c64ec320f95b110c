"""The Game: state, play/undo, the state dict and its checks, shared by all five variants.

Each variant is a subclass that fills in the layout constants, the deal, ``legal_moves`` and
``_check`` (which refuses an illegal move with a reason). Cards are ints (see ``cards``); the
stock is kept reversed so that dealing pops from the end; Penguin's cells are kept as lists of
zero or one card so every move is "the n front cards of one list onto another".
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from . import notation
from .builds import check_builds
from .cards import CARD_BY_NAME, NAMES
from .errors import IllegalMove
from .shuffle import check_seed, shuffled, stream_key

HIDDEN = "??"

# An undo record: (source kind, source index, destination kind, destination index, count,
# turned) where ``turned`` says a face-down card was turned up by the move; or ("deal", k).
Record = tuple


class Game:
    """One game of one variant: play moves, take them back, list the legal ones."""

    VARIANT: ClassVar[str] = ""
    NAME: ClassVar[str] = ""
    DECKS: ClassVar[int] = 1
    TABLEAU: ClassVar[int] = 0
    FOUNDATIONS: ClassVar[int] = 4
    CELLS: ClassVar[int] = 0
    HAS_STOCK: ClassVar[bool] = False
    HAS_WASTE: ClassVar[bool] = False
    MAX_STOCK: ClassVar[int] = 0
    DEAL_ONTO: ClassVar[int] = 0
    """How many piles a deal covers, t0 first (fewer when the stock runs short)."""
    PILE_SIZES: ClassVar[tuple[int, ...]] = ()
    """Cards per tableau pile at the deal."""
    DEALT_DOWN: ClassVar[tuple[int, ...] | None] = None
    """Face-down cards per pile at the deal (a pile never has more later); None: all face up."""
    FOUNDATION_CELLS: ClassVar[bool] = False
    """Whether a single card may leave a foundation (Spiderweb's empty foundations are cells)."""
    SUMMARY: ClassVar[str] = ""

    _registry: ClassVar[dict[str, type[Game]]] = {}

    variant: str
    seed: int | None
    history: list[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.VARIANT:
            Game._registry[cls.VARIANT] = cls

    # ----------------------------------------------------------------- construction

    def __init__(
        self,
        tableau: list[list[int]],
        down: list[int],
        foundations: list[list[int]],
        cells: list[list[int]],
        stock: list[int],
        waste: list[int],
        seed: int | None = None,
        moves_before: int = 0,
    ) -> None:
        """Internal: build from int cards (``stock`` in dealing order). Use ``new_game`` or
        ``from_dict``."""
        self.variant = self.VARIANT
        self.seed = seed
        self.t = tableau
        self.down = down
        self.f = foundations
        self.c = cells
        self.stock = stock[::-1]
        self.w = waste
        self.history = []
        self._records: list[Record] = []
        self._moves_before = moves_before
        self._piles = self._pile_lists()
        self._setup()

    def _pile_lists(self) -> dict[str, list[list[int]]]:
        """Piles by kind, for looking up a move's source and destination."""
        return {"t": self.t, "f": self.f, "c": self.c, "w": [self.w] if self.HAS_WASTE else []}

    def _setup(self) -> None:
        """Derive per-game tables (Penguin's beak); called after every construction."""

    @classmethod
    def from_seed(cls, seed: int) -> Game:
        """The deal of ``seed``: shuffle the variant's deck(s), then lay them out."""
        seed = check_seed(seed)
        deck = shuffled(cls.fresh_deck(), stream_key(cls.VARIANT, seed))
        return cls._lay_out(deck, seed)

    @classmethod
    def fresh_deck(cls) -> list[int]:
        """The unshuffled deck(s): A♣..K♣, A♦..K♦, A♥..K♥, A♠..K♠, once per deck."""
        return list(range(52)) * cls.DECKS

    @classmethod
    def _lay_out(cls, deck: list[int], seed: int) -> Game:
        """Deal the tableau in rounds over PILE_SIZES; the rest is the stock."""
        tableau, stock = cls.deal_in_rounds(deck, cls.PILE_SIZES)
        down = list(cls.DEALT_DOWN or [0] * cls.TABLEAU)
        foundations: list[list[int]] = [[] for _ in range(cls.FOUNDATIONS)]
        cells: list[list[int]] = [[] for _ in range(cls.CELLS)]
        return cls(tableau, down, foundations, cells, stock, [], seed)

    @staticmethod
    def deal_in_rounds(
        deck: list[int], sizes: tuple[int, ...]
    ) -> tuple[list[list[int]], list[int]]:
        """Deal one card at a time to the piles from left to right, round after round, skipping
        piles that already have their size; return the piles and the undealt rest."""
        piles: list[list[int]] = [[] for _ in sizes]
        k = 0
        for row in range(max(sizes)):
            for i, size in enumerate(sizes):
                if row < size:
                    piles[i].append(deck[k])
                    k += 1
        return piles, deck[k:]

    def copy(self) -> Game:
        """An independent game in the same position, with the same history (undo works)."""
        g = type(self).__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.t = [list(p) for p in self.t]
        g.down = list(self.down)
        g.f = [list(p) for p in self.f]
        g.c = [list(p) for p in self.c]
        g.stock = list(self.stock)
        g.w = list(self.w)
        g.history = list(self.history)
        g._records = list(self._records)
        g._piles = g._pile_lists()
        return g

    # ----------------------------------------------------------------- playing

    def legal_moves(self) -> list[str]:
        """Every legal move, each once; one card without a suffix, a group of N with ``:N``."""
        raise NotImplementedError

    def play(self, move: str) -> None:
        """Apply ``move``; raise IllegalMove (changing nothing) if it is malformed or illegal."""
        parsed = notation.parse(move)
        if parsed is notation.DEAL:
            record: Record = self._deal_stock()
            self.history.append(notation.DEAL)
        else:
            sk, si, dk, di, n, text = parsed
            src = self._pile(sk, si)
            dst = self._pile(dk, di)
            if sk == "f" and not self.FOUNDATION_CELLS:
                raise IllegalMove("cards never leave a foundation")
            if len(src) < n:
                where = notation.pile_name(sk, si)
                if not src:
                    raise IllegalMove(f"{where} is empty")
                cards = "card" if len(src) == 1 else "cards"
                raise IllegalMove(f"{where} has only {len(src)} {cards}, not {n}")
            self._check(sk, si, src, dk, di, dst, n)
            if n == 1:
                dst.append(src.pop())
            else:
                dst.extend(src[-n:])
                del src[-n:]
            turned = sk == "t" and bool(src) and self.down[si] == len(src)
            if turned:
                self.down[si] -= 1
            record = (sk, si, dk, di, n, turned)
            self.history.append(text)
        self._records.append(record)

    def _pile(self, kind: str, index: int) -> list[int]:
        piles = self._piles[kind]
        if not piles:
            what = {"c": "cells", "w": "waste", "t": "tableau", "f": "foundations"}[kind]
            raise IllegalMove(f"there are no {what} in {self.NAME}")
        if index >= len(piles):
            raise IllegalMove(f"there is no pile {kind}{index} in {self.NAME}")
        return piles[index]

    def _check(
        self, sk: str, si: int, src: list[int], dk: str, di: int, dst: list[int], n: int
    ) -> None:
        """Raise IllegalMove unless moving the n front cards of src onto dst is legal."""
        raise NotImplementedError

    def _deal_stock(self) -> Record:
        """Deal one card face up onto each of the first DEAL_ONTO piles, t0 first."""
        if not self.HAS_STOCK:
            raise IllegalMove(f"there is no stock in {self.NAME}")
        stock = self.stock
        if not stock:
            raise IllegalMove("the stock is empty")
        count = min(self.DEAL_ONTO, len(stock))
        for pile in self.t[:count]:
            pile.append(stock.pop())
        return (notation.DEAL, count)

    def _undeal(self, count: int) -> None:
        for pile in reversed(self.t[:count]):
            self.stock.append(pile.pop())

    def undo(self) -> None:
        """Take the last move back; IllegalMove("nothing to undo") if there is none."""
        if not self._records:
            raise IllegalMove("nothing to undo")
        record = self._records.pop()
        self.history.pop()
        if record[0] == notation.DEAL:
            self._undeal(record[1])
            return
        sk, si, dk, di, n, turned = record
        src = self._piles[sk][si]
        dst = self._piles[dk][di]
        if turned:
            self.down[si] += 1
        if n == 1:
            src.append(dst.pop())
        else:
            src.extend(dst[-n:])
            del dst[-n:]

    @property
    def move_count(self) -> int:
        """Moves played and not undone (counting those before a ``from_dict`` with "moves")."""
        return self._moves_before + len(self._records)

    def foundation_count(self) -> int:
        """Cards on the foundations."""
        return sum(len(p) for p in self.f)

    def is_won(self) -> bool:
        """Every card is on a foundation."""
        return self.foundation_count() == 52 * self.DECKS

    def is_stuck(self) -> bool:
        """Not won, and no legal move left (a deal counts while the stock has cards)."""
        return not self.is_won() and not self.legal_moves()

    # ----------------------------------------------------------------- the state dict

    def to_dict(self, view: str = "full") -> dict[str, Any]:
        """The state as plain JSON-able data; ``view="player"`` hides face-down and stock
        cards as "??" and leaves out the seed."""
        if view not in ("full", "player"):
            raise ValueError(f"view must be 'full' or 'player', not {view!r}")
        player = view == "player"
        tableau = []
        for pile, down in zip(self.t, self.down, strict=True):
            names = [NAMES[c] for c in pile]
            if player and down:
                names[:down] = [HIDDEN] * down
            tableau.append(names)
        d: dict[str, Any] = {
            "variant": self.VARIANT,
            "tableau": tableau,
            "down": list(self.down),
            "foundations": [[NAMES[c] for c in p] for p in self.f],
            "cells": [NAMES[p[0]] if p else None for p in self.c],
            "stock": [HIDDEN] * len(self.stock)
            if player
            else [NAMES[c] for c in reversed(self.stock)],
            "waste": [NAMES[c] for c in self.w],
            "moves": self.move_count,
        }
        if not player:
            d["seed"] = self.seed
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Game:
        """The game in the position ``d`` describes; ValueError if it is not a possible state
        of the variant. The state must hold exactly the variant's deck(s), each card once per
        deck. Keys other than the contract's are ignored, except "seed" (int or null) and
        "moves" (the count of moves played before), which are kept when valid."""
        if not isinstance(d, dict):
            raise ValueError("a state must be a dict")
        variant = d.get("variant")
        target = Game._registry.get(variant) if isinstance(variant, str) else None
        if target is None:
            raise ValueError(f"unknown variant {variant!r}")
        if cls is not Game and target is not cls:
            raise ValueError(f"wrong variant {variant!r}: expected {cls.VARIANT!r}")
        return target._from_checked_dict(d)

    @classmethod
    def _from_checked_dict(cls, d: dict[str, Any]) -> Game:
        name = cls.NAME
        for key in ("tableau", "down", "foundations", "cells", "stock", "waste"):
            if key not in d:
                raise ValueError(f"the state has no {key!r}")
        tableau = [_cards(p, f"tableau pile {i}") for i, p in enumerate(_list(d, "tableau"))]
        if len(tableau) != cls.TABLEAU:
            raise ValueError(f"{name} has {cls.TABLEAU} tableau piles, not {len(tableau)}")
        foundations = [_cards(p, f"foundation {i}") for i, p in enumerate(_list(d, "foundations"))]
        if len(foundations) != cls.FOUNDATIONS:
            raise ValueError(f"{name} has {cls.FOUNDATIONS} foundations, not {len(foundations)}")
        down = _list(d, "down")
        if len(down) != cls.TABLEAU or not all(type(x) is int for x in down):
            raise ValueError(f"'down' must be a list of {cls.TABLEAU} integers")
        for i, (n, pile) in enumerate(zip(down, tableau, strict=True)):
            if n < 0 or n > cls.max_down(i) or (pile and n >= len(pile)) or (not pile and n):
                raise ValueError(f"bad face-down count {n} for tableau pile {i} in {name}")
        raw_cells = _list(d, "cells")
        if len(raw_cells) != cls.CELLS:
            raise ValueError(f"{name} has {cls.CELLS} cells, not {len(raw_cells)}")
        cells = [[] if c is None else _cards([c], f"cell {i}") for i, c in enumerate(raw_cells)]
        stock = _cards(_list(d, "stock"), "the stock")
        if len(stock) > cls.MAX_STOCK:
            raise ValueError(f"{name} cannot have {len(stock)} cards in the stock")
        waste = _cards(_list(d, "waste"), "the waste")
        if waste and not cls.HAS_WASTE:
            raise ValueError(f"{name} has no waste")
        counts = Counter(
            c for group in (tableau, foundations, cells, [stock, waste]) for p in group for c in p
        )
        for card in range(52):
            if counts[card] != cls.DECKS:
                raise ValueError(
                    f"{name} needs {cls.DECKS} of each card, the state has "
                    f"{counts[card]} of {NAMES[card]}"
                )
        seed = d.get("seed")
        if seed is not None:
            seed = check_seed(seed)
        moves = d.get("moves", 0)
        if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
            raise ValueError(f"'moves' must be a non-negative integer, not {moves!r}")
        cls._check_foundations(foundations)
        return cls(tableau, list(down), foundations, cells, stock, waste, seed, moves)

    @classmethod
    def max_down(cls, pile: int) -> int:
        """How many face-down cards pile ``pile`` may have: no more than the deal gave it."""
        return cls.DEALT_DOWN[pile] if cls.DEALT_DOWN else 0

    @classmethod
    def _check_foundations(cls, foundations: list[list[int]]) -> None:
        """Raise ValueError unless every foundation is a possible build of the variant (by
        default A, 2, 3, … of one suit)."""
        check_builds(cls.NAME, foundations)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed} moves={self.move_count}>"


def _list(d: dict[str, Any], key: str) -> list[Any]:
    value = d[key]
    if not isinstance(value, list):
        raise ValueError(f"{key!r} must be a list")
    return value


def _cards(names: Any, where: str) -> list[int]:
    if not isinstance(names, list):
        raise ValueError(f"{where} must be a list of cards")
    out = []
    for name in names:
        card = CARD_BY_NAME.get(name) if isinstance(name, str) else None
        if card is None:
            raise ValueError(f"unknown card {name!r} in {where}")
        out.append(card)
    return out
