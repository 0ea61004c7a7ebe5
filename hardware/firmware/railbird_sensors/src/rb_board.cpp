#include "rb_board.h"

namespace rb {

Board::Board()
    : config_(kDefaultDebounce),
      pocket_count_(0),
      boot_id_(0),
      firmware_("0"),
      seq_(0),
      last_heartbeat_us_(0),
      lost_mask_(0),
      hello_requested_(false),
      queue_head_(0),
      queue_len_(0),
      out_head_(0),
      out_len_(0) {}

void Board::begin(uint32_t boot_id, const char* firmware, uint8_t pockets, uint32_t now32,
                  const DebounceConfig& config) {
  boot_id_ = boot_id;
  firmware_ = firmware;
  pocket_count_ = pockets > kMaxPockets ? kMaxPockets : pockets;
  config_ = config;
  const uint64_t now = clock_.extend(now32);
  last_heartbeat_us_ = now;
  push(kHello, 0, 0, now);
  write_lines();
}

void Board::poll(uint32_t now32, uint8_t active_mask) {
  const uint64_t now = clock_.extend(now32);
  for (uint8_t i = 0; i < pocket_count_; ++i) {
    const PocketEvent event = pockets_[i].update((active_mask >> i) & 1U, now, config_);
    if (event == kDropEvent) {
      if (!push(kDrop, i, 0, pockets_[i].edge_us())) lost_mask_ |= static_cast<uint8_t>(1U << i);
    } else if (event == kStuckEvent) {
      push(kFault, i, kFaultStuck, now);
    } else if (event == kClearEvent) {
      push(kFault, i, kFaultClear, now);
    }
  }
  for (uint8_t i = 0; i < pocket_count_ && lost_mask_; ++i) {
    const uint8_t bit = static_cast<uint8_t>(1U << i);
    if ((lost_mask_ & bit) && push(kFault, i, kFaultLost, now)) lost_mask_ &= ~bit;
  }
  if (hello_requested_ && push(kHello, 0, 0, now)) hello_requested_ = false;
  if (now - last_heartbeat_us_ >= kHeartbeatUs && push(kHeartbeat, 0, 0, now)) {
    // Keep to a 1 s grid so the loop's own latency does not stretch the period; after a
    // long stall, restart the grid instead of sending a burst.
    last_heartbeat_us_ += kHeartbeatUs;
    if (now - last_heartbeat_us_ >= kHeartbeatUs) last_heartbeat_us_ = now;
  }
  write_lines();
}

void Board::receive(uint8_t byte) {
  if (byte == '?') hello_requested_ = true;
}

bool Board::push(Kind kind, uint8_t pocket, uint8_t code, uint64_t t_us) {
  if (queue_len_ >= kEventQueue) return false;
  Event& e = queue_[(queue_head_ + queue_len_) % kEventQueue];
  e.kind = kind;
  e.pocket = pocket;
  e.code = code;
  e.t_us = t_us;
  ++queue_len_;
  return true;
}

uint8_t Board::stuck_mask() const {
  uint8_t mask = 0;
  for (uint8_t i = 0; i < pocket_count_; ++i) {
    if (pockets_[i].stuck()) mask |= static_cast<uint8_t>(1U << i);
  }
  return mask;
}

void Board::write_lines() {
  char line[kMaxLine];
  while (queue_len_ && kOutputBuffer - out_len_ >= kMaxLine) {
    const Event& e = queue_[queue_head_];
    size_t n = 0;
    switch (e.kind) {
      case kHello:
        n = format_hello(line, sizeof line, seq_, e.t_us, firmware_, pocket_count_, boot_id_);
        break;
      case kDrop:
        n = format_drop(line, sizeof line, seq_, e.t_us, e.pocket);
        break;
      case kHeartbeat:
        n = format_heartbeat(line, sizeof line, seq_, e.t_us, boot_id_, stuck_mask());
        break;
      case kFault:
        n = format_fault(line, sizeof line, seq_, e.t_us, e.pocket, static_cast<FaultCode>(e.code));
        break;
    }
    queue_head_ = static_cast<uint8_t>((queue_head_ + 1) % kEventQueue);
    --queue_len_;
    if (n == 0) continue;  // cannot happen with valid fields; never emit half a line
    ++seq_;
    for (size_t i = 0; i < n; ++i) out_[(out_head_ + out_len_ + i) % kOutputBuffer] = line[i];
    out_len_ += n;
  }
}

size_t Board::take(uint8_t* dst, size_t n) {
  size_t moved = 0;
  while (moved < n && out_len_) {
    dst[moved++] = out_[out_head_];
    out_head_ = (out_head_ + 1) % kOutputBuffer;
    --out_len_;
  }
  write_lines();
  return moved;
}

}  // namespace rb
