#!/bin/sh
# Makes the python -X importtime logs here: what CPython writes to stderr as
# it imports Debian's docutils (python3-docutils) and sympy (python3-sympy),
# pure Python, put on pyenv's CPythons' path.
set -e
cd "$(dirname "$0")"
py() { PYTHONPATH=/usr/lib/python3/dist-packages "$HOME/.pyenv/versions/$1/bin/python3" -X importtime -c "$2"; }
py 3.8.18 "import json, docutils.core" 2> docutils-3.8.importtime
py 3.13.0 "import docutils.core, docutils.parsers.rst" 2> docutils-3.13.importtime
# Debian's own python3 (3.11) for sympy, whose dependency mpmath is Debian's too.
python3 -X importtime -c "import sympy" 2> sympy-3.11.importtime
