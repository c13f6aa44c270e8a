"""numba is loaded only when a review computes values: the CLI, audit, session and score
start without it."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_does_not_import_numba() -> None:
    code = (
        "import sys; import ofc_audit.cli.app, ofc_audit.audit.driver, ofc_audit.session; "
        "import ofc_audit.review; "
        "print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
