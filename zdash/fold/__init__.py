"""The fold: the one way ticks become frames (zdash.fold.fold), what a frame holds
(zdash.fold.frame), the recent past the charts draw (zdash.fold.series) and recordings folded to
any tick (zdash.fold.recording)."""

from zdash.checks.registry import FOLD_VERSION
from zdash.fold.fold import Fold, look, run_checks, snapshots
from zdash.fold.frame import Frame, ScanRates

__all__ = ["FOLD_VERSION", "Fold", "Frame", "ScanRates", "look", "run_checks", "snapshots"]
