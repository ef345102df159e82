#!/usr/bin/env bash
# The Python test tooling that Debian does not package (PESQ, ITU-T P.862; matplotlib for the charts), in .venv/ beside the
# repository; numpy and scipy come from Debian (scripts/setup.sh) through --system-site-packages.
# Idempotent: does nothing when the tooling imports. Used by `make bench`; `make test` needs none of it.
set -euo pipefail
cd "$(dirname "$0")/.."

# CLASSROOM_VENV: another folder, for a second Debian (its own Python) sharing this tree.
venv=${CLASSROOM_VENV:-.venv}
if [[ -x $venv/bin/python ]] && $venv/bin/python -c 'import pesq, numpy, scipy, matplotlib' 2>/dev/null; then
  exit 0
fi
if ! /usr/bin/python3 -c 'import ensurepip' 2>/dev/null; then
  echo "python-venv: Debian's python3-venv is missing; run 'make setup' (scripts/setup.sh) first." >&2
  exit 1
fi
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
# pesq 0.0.4 is a source package: it builds its C extension against numpy (python3-dev, gcc).
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check 'pesq==0.0.4'; then
  echo "python-venv: could not install pesq from PyPI into $venv (is PyPI reachable? gcc and python3-dev installed?)." >&2
  exit 1
fi
# matplotlib draws the benchmark's charts (scripts/measure/budget-chart.py); held to Debian's numpy,
# which Debian's scipy needs (unheld, pip brought numpy 2 and broke scipy).
numpy=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check 'matplotlib>=3.8,<3.11' "numpy==$numpy"; then
  echo "python-venv: could not install matplotlib from PyPI into $venv (is PyPI reachable?)." >&2
  exit 1
fi
echo "python-venv: $venv has pesq $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pesq"))')."
