#!/bin/sh
# Installs the Debian packages csvfreeze builds and tests with, if any is missing:
# the ncursesw, libcsv, PCRE2, SQLite and decompression (zlib, zstd, xz, bzip2) headers, the
# JSON (simdjson), zip (libzip) and XML (expat) readers for the other formats, the
# matching command-line compressors (tests make fixtures with them), tmux for the
# end-to-end tests, groff to check the man page.
set -eu
missing=""
for package in libncurses-dev libcsv-dev libpcre2-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev libsqlite3-dev \
        libsimdjson-dev libzip-dev libexpat1-dev \
        tmux groff-base gzip zstd xz-utils bzip2; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing </dev/null
