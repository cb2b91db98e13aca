#!/bin/sh
# Makes .venv-peers/, a Python virtual environment holding the programs the benchmark
# compares csvfreeze with (DuckDB for --sql and --diff) and daff (the table diff whose
# highlighter format --diff writes; the end-to-end tests patch with it when it is here), and
# openpyxl, which makes the workbooks the tests read and the values expected of them.
# Only csvfreeze-bench and those tests use it: building and testing never need it. Run
# again to update.
set -eu
cd "$(dirname "$0")/.."
if [ ! -x .venv-peers/bin/python ]; then
    python3 -m venv .venv-peers
fi
.venv-peers/bin/python -m pip install --quiet --upgrade pip
.venv-peers/bin/python -m pip install --quiet --upgrade duckdb daff openpyxl
.venv-peers/bin/python -c 'import duckdb; print("duckdb", duckdb.__version__, "in .venv-peers")'
.venv-peers/bin/daff version >/dev/null 2>&1 && echo "daff $(.venv-peers/bin/daff version) in .venv-peers"
