/* Runs the AVR build of the firmware in simavr (an ATmega328P at 16 MHz), drives its pocket
 * inputs with timed pulses and writes everything it sends on UART0 to stdout: the firmware and
 * its timer, pin and UART layer all run as on the board, with no board.
 *
 *   cc simavr_run.c -I/usr/include/simavr -lsimavr -o simavr_run   (Debian: libsimavr-dev)
 *   ./simavr_run railbird_sensors.elf RUN_US [INPUT:START_US:END_US ...]
 *
 * INPUT is the pocket input index (pin 2 + INPUT, active LOW): from START_US to END_US of
 * simulated time the input is held LOW (a ball in the beam), otherwise HIGH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>

#define MAX_PULSES 64

struct pulse {
  int input;
  unsigned long start_us, end_us;
};

static void uart_out(struct avr_irq_t* irq, uint32_t value, void* param) {
  (void)irq;
  (void)param;
  putchar((int)(value & 0xFF));
}

/* The level input i should have at time t, and the next time any input changes after t. */
static int level_at(const struct pulse* p, int n, int i, unsigned long t) {
  for (int k = 0; k < n; ++k) {
    if (p[k].input == i && t >= p[k].start_us && t < p[k].end_us) return 0;
  }
  return 1;
}

static unsigned long next_change(const struct pulse* p, int n, unsigned long t) {
  unsigned long next = (unsigned long)-1;
  for (int k = 0; k < n; ++k) {
    if (p[k].start_us > t && p[k].start_us < next) next = p[k].start_us;
    if (p[k].end_us > t && p[k].end_us < next) next = p[k].end_us;
  }
  return next;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FIRMWARE.elf RUN_US [INPUT:START_US:END_US ...]\n", argv[0]);
    return 2;
  }
  static struct pulse pulses[MAX_PULSES];
  int n = 0;
  for (int i = 3; i < argc; ++i, ++n) {
    if (n == MAX_PULSES ||
        sscanf(argv[i], "%d:%lu:%lu", &pulses[n].input, &pulses[n].start_us,
               &pulses[n].end_us) != 3 ||
        pulses[n].input < 0 || pulses[n].input > 5) {
      fprintf(stderr, "bad pulse %s\n", argv[i]);
      return 2;
    }
  }

  /* simavr's loader chats on stdout: keep stdout for the UART bytes alone. */
  fflush(stdout);
  const int uart_fd = dup(1);
  dup2(2, 1);
  static elf_firmware_t firmware; /* zeroed */
  if (elf_read_firmware(argv[1], &firmware) != 0) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  avr_t* avr = avr_make_mcu_by_name("atmega328p");
  if (!avr) return 2;
  avr_init(avr);
  avr->frequency = 16000000;
  avr->log = LOG_ERROR;
  avr_load_firmware(avr, &firmware);
  fflush(stdout);
  dup2(uart_fd, 1);
  close(uart_fd);

  uint32_t flags = 0;
  avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
  flags &= ~(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP); /* no console, no usleep */
  avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
  avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                          uart_out, NULL);

  avr_irq_t* pins[6];
  for (int i = 0; i < 6; ++i) {
    pins[i] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), IOPORT_IRQ_PIN0 + 2 + i);
    avr_raise_irq(pins[i], level_at(pulses, n, i, 0));
  }
  const avr_cycle_count_t per_us = avr->frequency / 1000000;
  const unsigned long run_us = strtoul(argv[2], NULL, 10);
  unsigned long change_us = next_change(pulses, n, 0);
  while (avr->cycle < (avr_cycle_count_t)run_us * per_us) {
    if (avr->cycle >= (avr_cycle_count_t)change_us * per_us) {
      for (int i = 0; i < 6; ++i) avr_raise_irq(pins[i], level_at(pulses, n, i, change_us));
      change_us = next_change(pulses, n, change_us);
    }
    const int state = avr_run(avr);
    if (state == cpu_Done || state == cpu_Crashed) {
      fprintf(stderr, "cpu stopped (state %d) at cycle %llu\n", state,
              (unsigned long long)avr->cycle);
      return 1;
    }
  }
  fflush(stdout);
  return 0;
}
