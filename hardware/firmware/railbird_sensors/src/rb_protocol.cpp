#include "rb_protocol.h"

namespace rb {

uint16_t crc16(const uint8_t* data, size_t len) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < len; ++i) {
    crc ^= static_cast<uint16_t>(data[i]) << 8;
    for (uint8_t bit = 0; bit < 8; ++bit) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
  }
  return crc;
}

namespace {

const char kHex[] = "0123456789ABCDEF";

// Appends text to a line under construction; remembers overflow instead of writing past cap.
class Writer {
 public:
  Writer(char* out, size_t cap) : out_(out), cap_(cap), len_(0), overflow_(false) {}

  void ch(char c) {
    if (len_ < cap_) {
      out_[len_++] = c;
    } else {
      overflow_ = true;
    }
  }
  void str(const char* s) {
    while (*s) ch(*s++);
  }
  // 64-bit decimal without printf: avr-libc's printf has no %llu.
  void dec(uint64_t v) {
    char digits[20];
    uint8_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + static_cast<uint8_t>(v % 10));
      v /= 10;
    } while (v != 0);
    while (n) ch(digits[--n]);
  }
  void hex(uint32_t v, uint8_t width) {
    for (int8_t shift = static_cast<int8_t>((width - 1) * 4); shift >= 0; shift -= 4) {
      ch(kHex[(v >> shift) & 0xF]);
    }
  }
  // Start a line: '$', kind, seq, time.
  void begin(char kind, uint32_t seq, uint64_t t_us) {
    ch('$');
    ch(kind);
    ch(',');
    dec(seq);
    ch(',');
    dec(t_us);
  }
  // Close the line: '*', CRC over the bytes between '$' and '*', '\n'.
  size_t finish() {
    if (overflow_ || len_ < 1) return 0;
    uint16_t crc = crc16(reinterpret_cast<const uint8_t*>(out_ + 1), len_ - 1);
    ch('*');
    hex(crc, 4);
    ch('\n');
    return overflow_ ? 0 : len_;
  }

 private:
  char* out_;
  size_t cap_;
  size_t len_;
  bool overflow_;
};

const char* fault_name(FaultCode code) {
  switch (code) {
    case kFaultStuck:
      return "STUCK";
    case kFaultClear:
      return "CLEAR";
    default:
      return "LOST";
  }
}

}  // namespace

size_t format_hello(char* out, size_t cap, uint32_t seq, uint64_t t_us, const char* firmware,
                    uint8_t pockets, uint32_t boot_id) {
  Writer w(out, cap);
  w.begin('H', seq, t_us);
  w.ch(',');
  w.dec(kProtocolVersion);
  w.ch(',');
  w.str(firmware);
  w.ch(',');
  w.dec(pockets);
  w.ch(',');
  w.hex(boot_id, 8);
  return w.finish();
}

size_t format_drop(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint8_t pocket) {
  Writer w(out, cap);
  w.begin('D', seq, t_us);
  w.ch(',');
  w.dec(pocket);
  return w.finish();
}

size_t format_heartbeat(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint32_t boot_id,
                        uint8_t stuck_mask) {
  Writer w(out, cap);
  w.begin('B', seq, t_us);
  w.ch(',');
  w.hex(boot_id, 8);
  w.ch(',');
  w.hex(stuck_mask, 2);
  return w.finish();
}

size_t format_fault(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint8_t pocket,
                    FaultCode code) {
  Writer w(out, cap);
  w.begin('F', seq, t_us);
  w.ch(',');
  w.dec(pocket);
  w.ch(',');
  w.str(fault_name(code));
  return w.finish();
}

}  // namespace rb
