"""The games the arbiter plays, by name: 8x8 RBC, the recon Mini-Chess boards and the teaching boards.

One table for everything that takes a variant name (``blindchess match --variant``, tournament
configs, the learning environment :mod:`blindchess.env`), kept here, in the variants layer, so
that each of them reads the same names.
"""

from __future__ import annotations

from typing import Any

from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.errors import BlindchessError, did_you_mean

from .recon import RECON_MINICHESS, RECON_MINICHESS_IMCS
from .teaching import TEACHING_4X4, TEACHING_4X5

VARIANTS: dict[str, Rules[Any]] = {
    "rbc": STANDARD,
    "recon-minichess": RECON_MINICHESS,
    "recon-imcs": RECON_MINICHESS_IMCS,
    "teaching-4x4": TEACHING_4X4,
    "teaching-4x5": TEACHING_4X5,
}
"""Variant name -> the arbiter's rules for it."""


class UnknownVariantError(BlindchessError, ValueError):
    """A variant name that is not in `VARIANTS` (the message suggests the closest)."""


def variant_rules(name: str) -> Rules[Any]:
    """The rules of variant `name`.

    Raises:
        UnknownVariantError: no such variant.
    """
    if name not in VARIANTS:
        raise UnknownVariantError(f"unknown variant {name!r}{did_you_mean(name, VARIANTS)}; variants: {', '.join(VARIANTS)}")
    return VARIANTS[name]
