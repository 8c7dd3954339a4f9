"""Every hostile-input probe (issue #25, "Safe as root"), one module per class: writes through
planted links (files), host strings as ssh options (ssh), names as terminal control or markup
(escapes), serve and the exporter under a viewer or a crowd (floods), YAML bombs (yaml_bombs),
and the smaller findings (smaller).

    .venv/bin/python -m tests.hostile.run_probes        (all of them, in parallel, with a summary)
"""

from __future__ import annotations

from tests.hostile import escapes, files, floods, smaller, ssh, yaml_bombs  # noqa: F401 - they register
from tests.hostile.harness import CLASSES, PROBES

__all__ = ["CLASSES", "PROBES"]
