// A minimal Arduino-compatible layer for a bare ATmega328P at 16 MHz, built on avr-libc alone:
// just what railbird_sensors.ino uses (micros, pinMode, digitalRead, Serial), so build-avr.sh
// compiles the real sketch with avr-g++ and no Arduino IDE. Not a general Arduino core.
#ifndef RAILBIRD_MINI_ARDUINO_H
#define RAILBIRD_MINI_ARDUINO_H

#include <stddef.h>
#include <stdint.h>

#define LOW 0
#define HIGH 1
#define INPUT 0
#define OUTPUT 1
#define INPUT_PULLUP 2

uint32_t micros();
void pinMode(uint8_t pin, uint8_t mode);
int digitalRead(uint8_t pin);

// Polled UART0: write only what availableForWrite() allows, so the loop never blocks.
class MiniSerial {
 public:
  void begin(uint32_t baud);
  int available();
  int read();
  int availableForWrite();
  size_t write(const uint8_t* data, size_t n);
};

extern MiniSerial Serial;

void setup();
void loop();

#endif
