#!/usr/bin/env bash
# The Debian packages (pacer and libpacer-dev) installed for real, after ./dev test (it packs
# ./build): apt resolves their Depends, then a CMake project and a pkg-config command line find
# pacer in the system's default places, with no CMAKE_PREFIX_PATH or PKG_CONFIG_PATH, from C++ and
# from C (a project with the C language alone, and cc with pkg-config), and /usr/bin/pacer-run
# paces glxgears and vkcube, whose captures /usr/bin/pacer reads. ctest's package.deb checks the
# packages unpacked, without root; this adds what only an installed package shows. The packages
# are removed again at the end, so a developer's machine is left as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
chmod 755 "$work"  # apt reads the .deb as its own unprivileged user
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
cleanup() {
  "${sudo[@]}" apt-get remove -y -q pacer libpacer-dev >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

(cd build && cpack -G DEB -B "$work/deb" >/dev/null)
debs=("$work"/deb/pacer_*.deb "$work"/deb/libpacer-dev_*.deb)  # the player's and the developer's
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${debs[@]}"

cmake -S tests/consumer -B "$work/consumer" -DPACER_HOW=find_package -DCMAKE_BUILD_TYPE=Release \
      >/dev/null
cmake --build "$work/consumer" -j 2 --target consumer >/dev/null
"$work/consumer/consumer"

version=$(pkg-config --modversion pacer)
# A C game in a project with the C language alone: pacer::pacer is all it links.
cmake -S tests/consumer/c_only -B "$work/c_only" -DPACER_HOW=find_package -DCMAKE_BUILD_TYPE=Release \
      -DPACER_README="$PWD/README.md" -DPACER_EXPECT_CLI=ON >/dev/null
cmake --build "$work/c_only" -j 2 --target game readme_example >/dev/null
"$work/c_only/game" "$work/c_only/game.csv" "$version"

# shellcheck disable=SC2046  # pkg-config's output is meant to be split into arguments
c++ -std=c++20 $(pkg-config --cflags pacer) -c tests/package/frames.cpp -o "$work/frames.o"
# shellcheck disable=SC2046
cc "$work/frames.o" $(pkg-config --libs pacer) -o "$work/frames"
"$work/frames" "$version"
# The C game as a Makefile builds it: cc $(pkg-config --cflags --libs pacer), nothing else.
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror $(pkg-config --cflags pacer) tests/consumer/c_only/game.c \
   $(pkg-config --libs pacer) -o "$work/game"
"$work/game" "$work/game.csv" "$version"
# A player's launch line from the installed package: /usr/bin/pacer-run paces glxgears and vkcube,
# and /usr/bin/pacer reads their captures.
tests/gl/gl_test.sh system /usr/bin/pacer build "$work/gl" || [ $? = 77 ]  # 77: no display server or glxgears
echo "package: $(basename -a "${debs[@]}" | tr '\n' ' ')installed with apt, built against with find_package (C++ and C-only projects) and pkg-config (C++ and C)"
