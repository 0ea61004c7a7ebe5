"""The `[table]` section of the config file."""

from __future__ import annotations

from dataclasses import dataclass

from calibration.table import STANDARD_TABLES, TableSpec


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Which table railbird watches.

    Attributes:
        size: ``9ft``, ``8ft``, ``7ft`` or ``custom``.
        length_mm: Playing-surface length, for a custom table only.
        width_mm: Playing-surface width, for a custom table only.
        light_height_mm: The lamp's underside above the cloth: a ball that touches it is off
            the table even though it comes back (3.28). Unset: the lamp is not watched.
    """

    size: str = "9ft"
    length_mm: float | None = None
    width_mm: float | None = None
    light_height_mm: float | None = None

    def __post_init__(self) -> None:
        sizes = (*STANDARD_TABLES, "custom")
        if self.size not in sizes:
            raise ValueError(f"size {self.size!r} is not one of {', '.join(sizes)}")
        has_dims = self.length_mm is not None or self.width_mm is not None
        if self.size == "custom" and (self.length_mm is None or self.width_mm is None):
            raise ValueError("a custom table needs both length_mm and width_mm")
        if self.size != "custom" and has_dims:
            raise ValueError(f"length_mm/width_mm apply to size = 'custom', not {self.size!r}")
        if self.light_height_mm is not None and not 200.0 <= self.light_height_mm <= 5000.0:
            raise ValueError(
                f"light_height_mm {self.light_height_mm} is not a lamp's height over the cloth "
                "(200-5000 mm)"
            )

    def spec(self) -> TableSpec:
        """The table this section describes."""
        if self.size == "custom":
            assert self.length_mm is not None and self.width_mm is not None
            return TableSpec.custom(self.length_mm, self.width_mm)
        return TableSpec.standard(self.size)
