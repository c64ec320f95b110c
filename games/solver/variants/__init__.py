"""Each variant's search rules, by variant id."""

from .base import Rules
from .eighty_thieves import EightyThievesRules
from .penelopes_web import PenelopesWebRules
from .penguin import PenguinRules
from .queenie import QueenieRules
from .spiderweb import SpiderwebRules

RULES: dict[str, type[Rules]] = {
    r.variant: r
    for r in (PenelopesWebRules, EightyThievesRules, PenguinRules, SpiderwebRules, QueenieRules)
}

__all__ = ["RULES", "Rules"]
