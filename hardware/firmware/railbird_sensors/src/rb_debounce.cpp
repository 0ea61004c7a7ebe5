#include "rb_debounce.h"

namespace rb {

PocketEvent PocketDebouncer::update(bool active, uint64_t now_us, const DebounceConfig& config) {
  switch (state_) {
    case kIdle:
      if (active) {
        state_ = kPending;
        edge_us_ = now_us;
      }
      return kNoEvent;
    case kPending:
      if (!active) {
        state_ = kPendingGap;
        release_us_ = now_us;
      } else if (now_us - edge_us_ >= config.confirm_us) {
        state_ = kActive;
        return kDropEvent;
      }
      return kNoEvent;
    case kPendingGap:
      // Contact bounce on the leading edge keeps the first edge as the drop time; a gap
      // longer than half the confirm time means it was only a glitch.
      if (active) {
        state_ = kPending;
      } else if (now_us - release_us_ >= config.confirm_us / 2) {
        state_ = kIdle;
      }
      return kNoEvent;
    case kActive:
      if (!active) {
        state_ = kReleasing;
        release_us_ = now_us;
      } else if (now_us - edge_us_ >= config.stuck_us) {
        state_ = kStuck;
        return kStuckEvent;
      }
      return kNoEvent;
    case kReleasing:
      if (active) {
        state_ = kActive;  // the same ball bouncing in the beam
      } else if (now_us - release_us_ >= config.release_us) {
        state_ = kIdle;
      }
      return kNoEvent;
    case kStuck:
      if (!active) {
        state_ = kStuckReleasing;
        release_us_ = now_us;
      }
      return kNoEvent;
    case kStuckReleasing:
      if (active) {
        state_ = kStuck;
      } else if (now_us - release_us_ >= config.release_us) {
        state_ = kIdle;
        return kClearEvent;
      }
      return kNoEvent;
  }
  return kNoEvent;
}

}  // namespace rb
