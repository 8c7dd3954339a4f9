"""The fold: the one way ticks become frames (zdash.fold.fold), what a frame holds
(zdash.fold.frame), the recent past the charts draw (zdash.fold.series) and recordings folded to
any tick (zdash.fold.recording)."""

from zdash.fold.fold import Fold, fold_key, look, run_checks, snapshots
from zdash.fold.frame import Frame, ScanRates

__all__ = ["Fold", "Frame", "ScanRates", "fold_key", "look", "run_checks", "snapshots"]
