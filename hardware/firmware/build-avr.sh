#!/usr/bin/env bash
# Compile the whole railbird_sensors sketch for an ATmega328P (Arduino Uno/Nano) with avr-g++
# and avr-libc alone (Debian: apt-get install gcc-avr avr-libc), against the minimal
# Arduino-compatible layer in avr/. Writes railbird_sensors.elf/.hex into OUT (default: a
# temporary directory) and prints the memory use.
#   usage: hardware/firmware/build-avr.sh [OUT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
cxx="${AVR_CXX:-avr-g++}"
flags=(-mmcu=atmega328p -DF_CPU=16000000UL -Os -std=gnu++11 -Wall -Wextra -Werror
       -ffunction-sections -fdata-sections -fno-exceptions -fno-threadsafe-statics
       -I"$here/avr" -I"$here/railbird_sensors")
sources=("$here"/railbird_sensors/src/*.cpp "$here"/avr/*.cpp)
objects=()
for src in "${sources[@]}"; do
    obj="$out/$(basename "${src%.*}").o"
    "$cxx" "${flags[@]}" -c "$src" -o "$obj"
    objects+=("$obj")
done
# The sketch itself, compiled as C++ exactly as written (it includes <Arduino.h> itself).
"$cxx" "${flags[@]}" -x c++ -c "$here/railbird_sensors/railbird_sensors.ino" -o "$out/sketch.o"
objects+=("$out/sketch.o")
"$cxx" -mmcu=atmega328p -Os -Wl,--gc-sections "${objects[@]}" -o "$out/railbird_sensors.elf"
avr-objcopy -O ihex -R .eeprom "$out/railbird_sensors.elf" "$out/railbird_sensors.hex"
avr-size "$out/railbird_sensors.elf"
echo "built $out/railbird_sensors.hex"
