// railbird pocket sensors: reference firmware for an Arduino Uno / Nano (ATmega328P, 16 MHz).
//
// Six break-beam (or micro-switch) inputs on digital pins 2..7, active LOW with the internal
// pull-ups: pin 2 + i is pocket input i (the host maps input i to a pocket name). The loop polls
// every input many times per millisecond; all logic (debounce, timestamps, sequence numbers,
// heartbeat, faults, line framing and CRC) lives in src/, which is tested on the host.
// Protocol: hardware/README.md. Serial: 115200 8N1.
#include <Arduino.h>

#ifdef __AVR__
#include <avr/eeprom.h>
#include <avr/wdt.h>
#endif

#include "src/rb_board.h"

namespace {

const uint8_t kPockets = 6;
const uint8_t kFirstPin = 2;
const char kFirmware[] = "1.0.0";

rb::Board board;

// A new id at every boot, so the host sees a reset even when the sequence looks plausible:
// a boot counter in EEPROM, mixed with the timer so a board with a worn EEPROM still changes.
uint32_t next_boot_id() {
#ifdef __AVR__
  uint32_t* const kCounter = reinterpret_cast<uint32_t*>(0);
  const uint32_t count = eeprom_read_dword(kCounter) + 1;
  eeprom_update_dword(kCounter, count);
  return count ^ (static_cast<uint32_t>(micros()) << 20);
#else
  return static_cast<uint32_t>(micros());
#endif
}

uint8_t read_inputs() {
  uint8_t mask = 0;
  for (uint8_t i = 0; i < kPockets; ++i) {
    if (digitalRead(kFirstPin + i) == LOW) mask |= static_cast<uint8_t>(1U << i);
  }
  return mask;
}

}  // namespace

void setup() {
#ifdef __AVR__
  // A hung loop resets the board after 1 s; the host sees the reset (new boot id), not silence.
  MCUSR = 0;
  wdt_enable(WDTO_1S);
#endif
  for (uint8_t i = 0; i < kPockets; ++i) pinMode(kFirstPin + i, INPUT_PULLUP);
  Serial.begin(115200);
  board.begin(next_boot_id(), kFirmware, kPockets, micros());
}

void loop() {
#ifdef __AVR__
  wdt_reset();
#endif
  board.poll(micros(), read_inputs());
  while (Serial.available() > 0) board.receive(static_cast<uint8_t>(Serial.read()));
  uint8_t chunk[16];
  int room = Serial.availableForWrite();
  while (room > 0 && board.pending() > 0) {
    const size_t want = static_cast<size_t>(room) < sizeof chunk ? room : sizeof chunk;
    const size_t n = board.take(chunk, want);
    Serial.write(chunk, n);
    room -= static_cast<int>(n);
  }
}
