"""zdash: a terminal dashboard for live ZFS pools."""

__version__ = "0.1.0"
