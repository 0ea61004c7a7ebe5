// The firmware's logic without any hardware: samples in, protocol bytes out.
//
// The platform layer (the Arduino sketch, or the bare ATmega328P main) calls poll() as often as
// it can with the 32-bit microsecond counter and the active-input mask, and moves take() bytes
// to the UART. Events wait in a small queue until a whole line fits in the output buffer, so a
// slow link delays lines but never cuts one; a drop that finds the queue full is reported with a
// LOST fault instead of vanishing silently. Sequence numbers are given when a line is written,
// so they count the lines on the wire.
#ifndef RB_BOARD_H
#define RB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "rb_clock64.h"
#include "rb_debounce.h"
#include "rb_protocol.h"

namespace rb {

const uint8_t kMaxPockets = 8;
const uint8_t kEventQueue = 16;
const size_t kOutputBuffer = 256;
const uint32_t kHeartbeatUs = 1000000UL;

class Board {
 public:
  Board();

  // Start after boot: queues the hello (seq 0).
  void begin(uint32_t boot_id, const char* firmware, uint8_t pockets, uint32_t now32,
             const DebounceConfig& config = kDefaultDebounce);
  // One sample of every input (bit i set = input i active).
  void poll(uint32_t now32, uint8_t active_mask);
  // Feed a byte received from the host ('?' asks for a hello).
  void receive(uint8_t byte);
  // Move up to n pending output bytes into dst; returns how many.
  size_t take(uint8_t* dst, size_t n);
  size_t pending() const { return out_len_; }
  uint32_t next_seq() const { return seq_; }

 private:
  enum Kind : uint8_t { kHello, kDrop, kHeartbeat, kFault };
  struct Event {
    Kind kind;
    uint8_t pocket;
    uint8_t code;
    uint64_t t_us;
  };

  bool push(Kind kind, uint8_t pocket, uint8_t code, uint64_t t_us);
  void write_lines();
  uint8_t stuck_mask() const;

  Clock64 clock_;
  DebounceConfig config_;
  PocketDebouncer pockets_[kMaxPockets];
  uint8_t pocket_count_;
  uint32_t boot_id_;
  const char* firmware_;
  uint32_t seq_;
  uint64_t last_heartbeat_us_;
  uint8_t lost_mask_;
  bool hello_requested_;

  Event queue_[kEventQueue];
  uint8_t queue_head_;
  uint8_t queue_len_;

  uint8_t out_[kOutputBuffer];
  size_t out_head_;
  size_t out_len_;
};

}  // namespace rb

#endif
