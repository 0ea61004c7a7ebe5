// Extends a wrapping 32-bit microsecond counter (Arduino micros(), wraps every ~71.6 min) to a
// 64-bit count that never wraps in practice. Call extend() at least once per wrap period.
#ifndef RB_CLOCK64_H
#define RB_CLOCK64_H

#include <stdint.h>

namespace rb {

class Clock64 {
 public:
  Clock64() : last_(0), high_(0) {}

  uint64_t extend(uint32_t now32) {
    // Unsigned compare: a smaller reading than the last one means the counter wrapped.
    if (now32 < last_) ++high_;
    last_ = now32;
    return (static_cast<uint64_t>(high_) << 32) | now32;
  }

 private:
  uint32_t last_;
  uint32_t high_;
};

}  // namespace rb

#endif
