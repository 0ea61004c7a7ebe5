// Debounced drop detection for one pocket input, on 64-bit device microseconds.
//
// A drop is an input that turns active and stays active for confirm_us (bounces shorter than
// confirm_us / 2 forgiven); its timestamp is the first edge, so debouncing adds latency but no
// timing error. The input must then stay inactive
// for release_us before another drop counts (a ball rattling through the beam is one drop). An
// input active for stuck_us is reported stuck (a full pocket, a blocked or broken sensor) and
// reported clear once it has been inactive for release_us.
#ifndef RB_DEBOUNCE_H
#define RB_DEBOUNCE_H

#include <stdint.h>

namespace rb {

struct DebounceConfig {
  uint32_t confirm_us;
  uint32_t release_us;
  uint32_t stuck_us;
};

const DebounceConfig kDefaultDebounce = {2000UL, 20000UL, 2000000UL};

enum PocketEvent : uint8_t { kNoEvent = 0, kDropEvent, kStuckEvent, kClearEvent };

class PocketDebouncer {
 public:
  PocketDebouncer() : state_(kIdle), edge_us_(0), release_us_(0) {}

  // Feed one sample; returns what happened. For kDropEvent, edge_us() is the drop time.
  PocketEvent update(bool active, uint64_t now_us, const DebounceConfig& config);
  uint64_t edge_us() const { return edge_us_; }
  bool stuck() const { return state_ == kStuck || state_ == kStuckReleasing; }

 private:
  enum State : uint8_t { kIdle, kPending, kPendingGap, kActive, kReleasing, kStuck, kStuckReleasing };
  State state_;
  uint64_t edge_us_;
  uint64_t release_us_;
};

}  // namespace rb

#endif
