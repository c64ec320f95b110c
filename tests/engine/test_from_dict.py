"""from_dict takes only possible states: exactly the variant's deck(s), the right piles, sane
face-down counts and foundations; anything else is a ValueError that says what is wrong."""

import copy

import pytest

from games.engine import VARIANTS, Game, new_game


def state(variant="spiderweb", seed=4):
    return new_game(variant, seed).to_dict()


def mutated(d, change):
    d = copy.deepcopy(d)
    change(d)
    return d


def swap_first_tableau_card(d, name):
    d["tableau"][0][0] = name


@pytest.mark.parametrize(
    ("variant", "change", "message"),
    [
        ("queenie", lambda d: d.update(variant="klondike"), "unknown variant"),
        ("queenie", lambda d: d.update(variant=None), "unknown variant"),
        ("queenie", lambda d: d.pop("tableau"), "no 'tableau'"),
        ("queenie", lambda d: d.pop("stock"), "no 'stock'"),
        ("queenie", lambda d: swap_first_tableau_card(d, "1S"), "unknown card '1S'"),
        ("queenie", lambda d: swap_first_tableau_card(d, "??"), "unknown card '??'"),
        ("queenie", lambda d: swap_first_tableau_card(d, "ts"), "unknown card 'ts'"),
        ("queenie", lambda d: swap_first_tableau_card(d, 7), "unknown card 7"),
        (
            "queenie",
            lambda d: d["tableau"][1].__setitem__(0, d["tableau"][0][0]),
            "needs 1 of each",
        ),
        ("queenie", lambda d: d["stock"].pop(), "needs 1 of each"),
        ("eighty-thieves", lambda d: d["tableau"][0].append(d["stock"][0]), "needs 4 of each"),
        ("queenie", lambda d: d["tableau"].append([]), "7 tableau piles, not 8"),
        ("penelopes-web", lambda d: d["tableau"].pop(), "8 tableau piles, not 7"),
        ("eighty-thieves", lambda d: d["foundations"].pop(), "16 foundations, not 15"),
        ("queenie", lambda d: d.update(tableau="abc"), "must be a list"),
        ("queenie", lambda d: d["tableau"].__setitem__(0, "AS"), "must be a list"),
        ("queenie", lambda d: d.update(down=[0] * 6), "list of 7 integers"),
        ("queenie", lambda d: d["down"].__setitem__(6, 1), "bad face-down count"),
        ("spiderweb", lambda d: d["down"].__setitem__(0, 6), "bad face-down count"),  # front down
        ("spiderweb", lambda d: d["down"].__setitem__(0, -1), "bad face-down count"),
        ("spiderweb", lambda d: d["down"].__setitem__(5, 1), "bad face-down count"),
        ("spiderweb", lambda d: d["down"].__setitem__(0, True), "list of 7 integers"),
        ("spiderweb", lambda d: d["down"].__setitem__(0, 2.0), "list of 7 integers"),
        ("penguin", lambda d: d.update(cells=[None] * 6), "7 cells, not 6"),
        ("penguin", lambda d: d["cells"].__setitem__(0, ["AS"]), "unknown card"),
        ("penguin", lambda d: d["cells"].__setitem__(0, ""), "unknown card"),
        ("queenie", lambda d: d.update(cells=[None]), "0 cells, not 1"),
        ("queenie", lambda d: d["waste"].append(d["stock"].pop()), "has no waste"),
        ("penelopes-web", lambda d: d["stock"].append(d["tableau"][0].pop()), "cannot have 1"),
        (
            "spiderweb",
            lambda d: d["stock"].append(d["tableau"][1].pop(0)) or d["down"].__setitem__(1, 0),
            "cannot have 26",
        ),
        ("queenie", lambda d: d.update(seed=-1), "seed"),
        ("queenie", lambda d: d.update(seed="42"), "seed"),
        ("queenie", lambda d: d.update(moves=-3), "'moves'"),
        ("queenie", lambda d: d.update(moves=True), "'moves'"),
    ],
)
def test_impossible_states_are_refused(variant, change, message):
    """Each impossible state raises ValueError naming the problem."""
    d = mutated(state(variant), change)
    with pytest.raises(ValueError, match=message.replace("?", r"\?").replace("(", r"\(")):
        Game.from_dict(d)


def move_to_foundation(d, cards, foundation=0):
    """Take ``cards`` from wherever they are and put them on a foundation, in order."""
    for pile in d["tableau"] + [d["stock"]]:
        pile[:] = [c for c in pile if c not in cards]
    d["down"] = [0] * len(d["down"])
    d["foundations"][foundation] = list(cards)


@pytest.mark.parametrize(
    ("variant", "cards", "foundation"),
    [
        ("queenie", ["2S"], 0),  # not an Ace at the bottom
        ("queenie", ["AS", "3S"], 0),  # a gap
        ("queenie", ["AS", "2H"], 0),  # another suit
        ("spiderweb", ["KS", "QS"], 0),  # neither a cell nor a complete suit
        (
            "spiderweb",
            ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"],
            0,
        ),
    ],
)
def test_foundations_that_no_play_could_build_are_refused(variant, cards, foundation):
    """A foundation must be a build the rules could have made."""
    d = mutated(state(variant), lambda d: move_to_foundation(d, cards, foundation))
    with pytest.raises(ValueError, match="foundation 0"):
        Game.from_dict(d)


def test_penguin_needs_three_started_foundations_of_one_rank():
    """Penguin's deal starts three foundations with the beak's rank, and they stay."""
    d = state("penguin")
    d2 = copy.deepcopy(d)
    d2["tableau"][1] += d2["foundations"][0] + d2["foundations"][1]
    d2["foundations"][0] = d2["foundations"][1] = []
    with pytest.raises(ValueError, match="three foundations"):
        Game.from_dict(d2)
    d3 = copy.deepcopy(d)
    beak_rank = d3["foundations"][0][0][0]
    other = next(c for c in d3["tableau"][3] if c[0] != beak_rank)
    d3["tableau"][3].remove(other)
    d3["tableau"][3].append(d3["foundations"][2].pop())
    d3["foundations"][2] = [other]
    with pytest.raises(ValueError, match="beak's rank"):
        Game.from_dict(d3)


@pytest.mark.parametrize("not_a_state", [None, [], "penguin", 3])
def test_a_state_must_be_a_dict(not_a_state):
    """Anything but a dict is refused."""
    with pytest.raises(ValueError, match="must be a dict"):
        Game.from_dict(not_a_state)


@pytest.mark.parametrize("variant", VARIANTS)
def test_unknown_keys_are_ignored_and_seed_and_moves_are_kept(variant):
    """Readers ignore keys they do not know; "seed" and "moves" come back."""
    g = new_game(variant, 9)
    g.play(g.legal_moves()[0])
    d = g.to_dict()
    assert d["seed"] == 9 and d["moves"] == 1
    d["colour_scheme"] = "dark"
    g2 = Game.from_dict(d)
    assert g2.seed == 9 and g2.move_count == 1 and g2.history == []
    d.pop("seed")
    d.pop("moves")
    g3 = Game.from_dict(d)
    assert g3.seed is None and g3.move_count == 0


def test_a_player_view_cannot_be_loaded():
    """The player view hides cards, so it is not a full state."""
    with pytest.raises(ValueError, match="unknown card"):
        Game.from_dict(new_game("spiderweb", 1).to_dict(view="player"))


def test_a_subclass_refuses_another_variants_state():
    """Calling from_dict on a variant's class with another variant's state is refused."""
    penguin_class = type(new_game("penguin", 1))
    with pytest.raises(ValueError, match="wrong variant"):
        penguin_class.from_dict(state("queenie"))
