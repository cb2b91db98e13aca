#!/bin/sh
# Makes .venv-peers/, a Python virtual environment holding the programs the benchmark
# compares csvfreeze with (DuckDB for --sql). Only csvfreeze-bench uses it: building and
# testing never need it. Run again to update.
set -eu
cd "$(dirname "$0")/.."
if [ ! -x .venv-peers/bin/python ]; then
    python3 -m venv .venv-peers
fi
.venv-peers/bin/python -m pip install --quiet --upgrade pip
.venv-peers/bin/python -m pip install --quiet --upgrade duckdb
.venv-peers/bin/python -c 'import duckdb; print("duckdb", duckdb.__version__, "in .venv-peers")'
