#!/usr/bin/env bash
# setup.sh - install the Debian packages prism needs, skipping what is already there.
# Idempotent; safe to run again. Needs root (or sudo) only when something is missing.
#   setup.sh           what building, running and plotting need
#   setup.sh --tests   also what only the test suite needs (scripts/test.sh passes it): a
#                      Slurm controller, node daemon, client and munge, which tests/cli/slurm.sh
#                      starts itself on a private configuration. (On a host with systemd,
#                      Debian's packages also enable their own services; the test uses none.)
set -euo pipefail

packages=(cmake gcc make pkg-config git openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
          hdf5-tools libglib2.0-dev libjson-glib-dev libyaml-dev libcunit1-dev valgrind
          libzstd-dev liblz4-dev hdf5-filter-plugin python3-hdf5plugin
          python3-h5py python3-numpy python3-matplotlib python3-munkres)
case ${1:-} in
"") ;;
--tests) packages+=(slurmctld slurmd slurm-client munge clang-format ninja-build) ;;
*) echo "setup: unknown argument '$1' (allowed: --tests)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} packages already installed"
    exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
# --no-install-recommends + python3-munkres keeps scipy/boost out (see README).
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
