"""numba is loaded only when a review computes values: the CLI, audit, session and score
start without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def test_the_cli_does_not_import_numba() -> None:
    code = (
        "import sys; import ofc_audit.cli.app, ofc_audit.audit.driver, ofc_audit.session; "
        "import ofc_audit.review; "
        "print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_the_kernels_run_without_a_writable_cache_directory(tmp_path: Path) -> None:
    """A read-only installation and no writable home: numba cannot cache, the kernels are
    compiled in the process instead (here a small one, to keep the test short)."""
    package = Path(__file__).resolve().parents[2] / "ofc_audit"
    copy = tmp_path / "ofc_audit"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # A file where numba would make its cache folder: no cache beside the sources.
    (copy / "review" / "__pycache__").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(HOME="/dev/null", XDG_CACHE_HOME="/dev/null/cache", PYTHONPATH=str(tmp_path))
    code = "from ofc_audit.review import kernels; print(kernels._popcount(11))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=tmp_path, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"


def test_the_kernels_run_when_their_cache_cannot_be_written(tmp_path: Path) -> None:
    """A cache folder on a full disk (here: a limit on the size of the files the process
    may write): a kernel compiled in a fresh cache runs, and its cache is not written.
    numba raised the OSError of the failed save from the kernel's first call, and a first
    review on a full disk ended in a traceback."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))

    root = Path(__file__).resolve().parents[2]
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    code = "from ofc_audit.review import kernels; print(kernels._popcount(11))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=root, preexec_fn=limited, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"
    assert not [p for p in cache.rglob("*") if p.is_file() and p.stat().st_size > 0]
