// Timer, pins, UART and main() for the ATmega328P (see Arduino.h in this folder).
#include <avr/interrupt.h>
#include <avr/io.h>

#include "Arduino.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif

namespace {

// Timer0 counts at F_CPU/64 (4 us per tick at 16 MHz) and overflows every 256 ticks.
volatile uint32_t timer0_overflows = 0;

volatile uint8_t* port_of(uint8_t pin) { return pin < 8 ? &PORTD : &PORTB; }
volatile uint8_t* ddr_of(uint8_t pin) { return pin < 8 ? &DDRD : &DDRB; }
volatile uint8_t* input_of(uint8_t pin) { return pin < 8 ? &PIND : &PINB; }
uint8_t bit_of(uint8_t pin) { return static_cast<uint8_t>(1U << (pin < 8 ? pin : pin - 8)); }

}  // namespace

ISR(TIMER0_OVF_vect) { ++timer0_overflows; }

uint32_t micros() {
  const uint8_t sreg = SREG;
  cli();
  uint32_t overflows = timer0_overflows;
  const uint8_t ticks = TCNT0;
  // An overflow that happened after cli() but before reading TCNT0 is not counted yet.
  if ((TIFR0 & _BV(TOV0)) && ticks < 255) ++overflows;
  SREG = sreg;
  return ((overflows << 8) + ticks) * (64UL / (F_CPU / 1000000UL));
}

void pinMode(uint8_t pin, uint8_t mode) {
  if (pin > 13) return;
  const uint8_t bit = bit_of(pin);
  if (mode == OUTPUT) {
    *ddr_of(pin) |= bit;
  } else {
    *ddr_of(pin) &= static_cast<uint8_t>(~bit);
    if (mode == INPUT_PULLUP) {
      *port_of(pin) |= bit;
    } else {
      *port_of(pin) &= static_cast<uint8_t>(~bit);
    }
  }
}

int digitalRead(uint8_t pin) {
  if (pin > 13) return LOW;
  return (*input_of(pin) & bit_of(pin)) ? HIGH : LOW;
}

void MiniSerial::begin(uint32_t baud) {
  // Double speed mode, as the Arduino core does: 115200 baud is 2.1% off at 16 MHz.
  const uint16_t ubrr = static_cast<uint16_t>((F_CPU / 4 / baud - 1) / 2);
  UCSR0A = _BV(U2X0);
  UBRR0H = static_cast<uint8_t>(ubrr >> 8);
  UBRR0L = static_cast<uint8_t>(ubrr);
  UCSR0B = _BV(RXEN0) | _BV(TXEN0);
  UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);  // 8N1
}

int MiniSerial::available() { return (UCSR0A & _BV(RXC0)) ? 1 : 0; }

int MiniSerial::read() { return (UCSR0A & _BV(RXC0)) ? UDR0 : -1; }

int MiniSerial::availableForWrite() { return (UCSR0A & _BV(UDRE0)) ? 1 : 0; }

size_t MiniSerial::write(const uint8_t* data, size_t n) {
  size_t sent = 0;
  while (sent < n && (UCSR0A & _BV(UDRE0))) UDR0 = data[sent++];
  return sent;
}

MiniSerial Serial;

int main() {
  TCCR0A = 0;
  TCCR0B = _BV(CS01) | _BV(CS00);  // clk/64
  TIMSK0 = _BV(TOIE0);
  sei();
  setup();
  for (;;) loop();
}
